package docsrepo

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/frontmatter"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/mkdocs"
	"github.com/k0rdent/kbook/internal/runbook"
)

// runShellFront finds front matter's run: shell (runbook.RunShell).
var runShellFront = regexp.MustCompile(`(?m)^run:[ \t]*["']?shell["']?[ \t]*$`)

var testscriptFence = regexp.MustCompile("(?m)^[ \t>]*(```+|~~~+)[ \t]*testscript\\b")

// mayHold reports whether re matches src, asking it only when src holds
// word, which every match of re holds: the expressions start each line
// anew, and run over every page of a site (34 ms of Sveltos's build)
// although few pages are runbooks.
func mayHold(src []byte, word string, re *regexp.Regexp) bool {
	return bytes.Contains(src, []byte(word)) && re.Match(src)
}

// MkDocsRunbook parses the page file of docs_dir as a runbook when it is
// one: when it has testscript blocks, or runs its shell blocks because
// kbook.yaml's run.pages lists it (shellWhy says so) or its front matter
// says run: shell, or some of them because they carry the run flag. It
// reads the page's source, src as MkDocsFrontMatter returns it, never
// its translation: what runs is what the page says.
// A page with no step is no runbook (nil).
func MkDocsRunbook(dir string, cfg *Config, file string, src []byte) (rb *runbook.Runbook, shellWhy string, err error) {
	if cfg != nil && cfg.Run.ShellPage(file) {
		shellWhy = "kbook.yaml run.pages"
	}
	if !mayHold(src, "testscript", testscriptFence) && shellWhy == "" && !mayHold(src, "run:", runShellFront) && !runbook.HasRunFlag(src) {
		return nil, "", nil
	}
	rb, err = runbook.Parse(filepath.Join(dir, filepath.FromSlash(file)), src)
	if err == nil && shellWhy != "" {
		err = rb.RunShellBlocks(shellWhy)
	}
	if err != nil {
		return nil, "", RelError(dir, err)
	}
	if len(rb.Steps) == 0 {
		return nil, "", nil
	}
	rb.Path = file
	return rb, shellWhy, nil
}

// mkdocsRunbookPaths lists the runbook pages of the MkDocs project in
// dir, in Load's order, reading each page's source and translating none:
// what kbook run needs, so that a page it does not run (a macro that
// fails, an include that is not there) cannot stop the run. Load
// translates every page, for the site and for kbook check.
func mkdocsRunbookPaths(dir string) ([]string, error) {
	mk, cfg, files, err := OpenMkDocs(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rel := range files.Pages {
		file := path.Join(mk.DocsDir, rel)
		abs := filepath.Join(dir, filepath.FromSlash(file))
		src, err := inputfile.ReadFile(abs)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		src, _, _ = MkDocsFrontMatter(file, src)
		rb, _, err := MkDocsRunbook(dir, cfg, file, src)
		if err != nil {
			return nil, err
		}
		if rb != nil {
			out = append(out, abs)
		}
	}
	return out, nil
}

// ExpandRunbookPaths replaces each folder of paths that holds an MkDocs
// project by the project's runbook pages, so that kbook run on the
// project finds them as kbook build does (its other pages may have front
// matter no runbook has). The pages are found on their source and none is
// translated: a page that is not run cannot fail the run (a macro error
// is kbook check's and kbook build's to report). A project without
// runbooks is an error naming it.
func ExpandRunbookPaths(paths []string) ([]string, error) {
	var out []string
	for _, path := range paths {
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() || mkdocs.Find(path) == "" {
			out = append(out, path)
			continue
		}
		rbs, err := mkdocsRunbookPaths(path)
		if err != nil {
			return nil, RelError(path, err)
		}
		if len(rbs) == 0 {
			return nil, fmt.Errorf("%s: no runbooks found in the MkDocs project (pages with %s blocks)", path, runbook.StepLang)
		}
		out = append(out, rbs...)
	}
	return out, nil
}

// MkDocsFrontMatter reads a page's front matter as MkDocs's meta does: a
// block that is not a YAML mapping (or never closed) is no front matter,
// and stays in the page as its text; a key whose type Hugo would refuse,
// or kbook's own key, is left out. Each is a warning at its line, and the
// page is built. src is returned with an unread block's first "---" made
// the thematic break Python-Markdown renders it as, so that no later step
// takes the block for front matter. The warnings are the load's to report.
func MkDocsFrontMatter(file string, src []byte) (_ []byte, front map[string]any, warnings []string) {
	front = map[string]any{}
	err := CheckFrontMatter(file, src)
	if err == nil {
		if fm := frontmatter.Split(src).YAML; len(bytes.TrimSpace(fm)) > 0 {
			if err := yaml.Unmarshal(fm, &front); err != nil || front == nil {
				front = map[string]any{}
			}
		}
		return src, front, warnings
	}
	fm := frontmatter.Split(src).YAML
	var root yaml.Node
	if fm == nil || yaml.Unmarshal(fm, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		warnings = append(warnings, err.Error()+": not read as front matter; the page is built with it as text, as MkDocs does")
		if fm != nil {
			_, rest, _ := bytes.Cut(src, []byte("\n"))
			src = append([]byte("***\n"), rest...)
		}
		return src, front, warnings
	}
	if err := yaml.Unmarshal(fm, &front); err != nil || front == nil {
		front = map[string]any{}
	}
	top := root.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		why := ""
		if k.Value == "kbook" {
			why = "the key kbook is kbook's own (runbook results, verification)"
		} else if kind, known := frontMatterKinds[k.Value]; known {
			if w := frontMatterType(kind, v); w != "" {
				why = k.Value + " " + w
			}
		}
		if why != "" {
			delete(front, k.Value)
			warnings = append(warnings, fmt.Sprintf("%s:%d: front matter: %s: left out", file, k.Line+1, why))
		}
	}
	return src, front, warnings
}
