package runbook

import (
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/plural"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Parse parses one runbook from its source; the format follows the file
// extension (.md/.markdown: Markdown, .txtar/.txt: testscript archive).
func Parse(file string, src []byte) (*Runbook, error) {
	var rb *Runbook
	var err error
	switch strings.ToLower(filepath.Ext(file)) {
	case ".md", ".markdown":
		rb, err = parseMarkdown(file, src)
	case ".txtar", ".txt":
		rb, err = parseTxtar(file, src)
	default:
		return nil, errorf(file, 0, "not a runbook: want a .md, .markdown, .txtar or .txt file")
	}
	if err != nil {
		return nil, err
	}
	return rb, checkWords(rb)
}

// checkWords splits every script line as testscript will (Words), so that
// a line testscript cannot parse is bad input at its line, for kbook
// check as for kbook run, before anything runs.
func checkWords(rb *Runbook) error {
	for _, st := range rb.Steps {
		for _, l := range st.Script {
			if _, err := Words(l.Text); err != nil {
				return &findings.InputError{File: rb.Path, Line: l.Num, Err: err}
			}
		}
	}
	return nil
}

// ParseFile reads and parses one runbook file.
func ParseFile(file string) (*Runbook, error) {
	src, err := inputfile.ReadFile(file)
	var tl *inputfile.TooLargeError
	if errors.As(err, &tl) {
		return nil, errorf(file, 0, "%s", tl.Reason())
	}
	if err != nil {
		return nil, cleanPathError(err)
	}
	return Parse(file, src)
}

// Load parses the runbooks named by paths. A file is parsed as given and
// must hold at least one step; a directory is searched recursively for
// Markdown files with testscript blocks and for .txtar files, skipping
// hidden directories and testdata. Runbooks are returned sorted by path.
func Load(paths []string) ([]*Runbook, error) {
	return LoadShell(paths, nil, nil)
}

// ShellPages says whether a Markdown file runs its shell blocks though its
// front matter does not say so, and why ("kbook.yaml run.pages"); "" when
// it does not. nil: none does.
type ShellPages func(path string) (why string)

// LoadShell is Load where the pages shell says run their shell blocks,
// and the pages that run them have their macros rendered (nil: none).
func LoadShell(paths []string, shell ShellPages, macros Macros) ([]*Runbook, error) {
	rbs, _, err := load(paths, nil, false, shell, macros)
	return rbs, err
}

// ErrNoRunbooks is the error of Load for a directory that holds none.
var ErrNoRunbooks = errors.New("no runbooks found")

// LoadAllowEmpty is Load for kbook check: a directory without runbooks,
// or a missing path among dirs (a docs repository's runbooks folder that
// it does not have), adds none and is no error; empty lists them.
// The pages shell says run their shell blocks (nil: those whose front
// matter says so); macros renders the macros of those that run them.
func LoadAllowEmpty(paths, dirs []string, shell ShellPages, macros Macros) (rbs []*Runbook, empty []string, err error) {
	return load(paths, dirs, true, shell, macros)
}

func load(paths, dirs []string, allowEmpty bool, shell ShellPages, macros Macros) (out []*Runbook, empty []string, err error) {
	seen := map[string]bool{}
	for _, p := range paths {
		if _, serr := os.Stat(p); serr != nil && allowEmpty && slices.ContainsFunc(dirs, func(d string) bool { return samePath(d, p) }) {
			empty = append(empty, p)
			continue
		}
		rbs, err := loadPath(p, shell, macros)
		if allowEmpty && errors.Is(err, ErrNoRunbooks) {
			empty = append(empty, p)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		for _, rb := range rbs {
			if !seen[rb.Path] {
				seen[rb.Path] = true
				out = append(out, rb)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, empty, nil
}

func samePath(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

// loadPath loads one file or the runbooks below one directory.
func loadPath(p string, shell ShellPages, macros Macros) ([]*Runbook, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, cleanPathError(err)
	}
	if !fi.IsDir() {
		rb, err := parseFileShell(p, shell, macros)
		if err != nil {
			return nil, err
		}
		if len(rb.Steps) == 0 {
			if n := shellBlocks(rb); n > 0 {
				verb := "run"
				if n == 1 {
					verb = "runs"
				}
				return nil, errorf(p, 0, "no %s blocks: nothing to run; the page has %s, which %s when it opts in (run: %s in its front matter, or the page under run.pages in kbook.yaml), or one by one with the %s flag (```bash %s)", StepLang, plural.Count(n, "shell block"), verb, RunShell, RunFlag, RunFlag)
			}
			return nil, errorf(p, 0, "no %s blocks: nothing to run", StepLang)
		}
		return []*Runbook{rb}, nil
	}
	var out []*Runbook
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != p && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".md", ".markdown", ".txtar":
		default:
			return nil
		}
		rb, err := parseFileShell(path, shell, macros)
		if err != nil {
			return err
		}
		if len(rb.Steps) > 0 {
			out = append(out, rb)
		}
		return nil
	})
	if err != nil {
		var rerr *findings.InputError
		if errors.As(err, &rerr) {
			return nil, err
		}
		return nil, cleanPathError(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w (Markdown files with %s blocks, or .txtar files)", p, ErrNoRunbooks, StepLang)
	}
	return out, nil
}

// parseFileShell is ParseFile, then RunShellBlocks when shell says so,
// then ExpandMacros on a page that runs its shell blocks.
func parseFileShell(file string, shell ShellPages, macros Macros) (*Runbook, error) {
	rb, err := ParseFile(file)
	if err != nil {
		return rb, err
	}
	if shell != nil {
		if why := shell(file); why != "" {
			if err := rb.RunShellBlocks(why); err != nil {
				return nil, err
			}
		}
	}
	if macros != nil && rb.ShellPage() != "" {
		lines, err := macros(file, rb.Source)
		if err != nil {
			return nil, err
		}
		if err := rb.ExpandMacros(lines); err != nil {
			return nil, err
		}
	}
	return rb, nil
}

// shellBlocks counts the blocks a page would run if it opted in.
func shellBlocks(rb *Runbook) int {
	n := 0
	for _, b := range rb.Blocks {
		if runsAsShell(b) {
			n++
		}
	}
	return n
}

// cleanPathError shortens *fs.PathError to "path: reason".
func cleanPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
