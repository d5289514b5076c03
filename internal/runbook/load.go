package runbook

import (
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/inputfile"
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
	switch strings.ToLower(filepath.Ext(file)) {
	case ".md", ".markdown":
		return parseMarkdown(file, src)
	case ".txtar", ".txt":
		return parseTxtar(file, src)
	}
	return nil, errorf(file, 0, "not a runbook: want a .md, .markdown, .txtar or .txt file")
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
	rbs, _, err := load(paths, nil, false)
	return rbs, err
}

// ErrNoRunbooks is the error of Load for a directory that holds none.
var ErrNoRunbooks = errors.New("no runbooks found")

// LoadAllowEmpty is Load for kbook check: a directory without runbooks,
// or a missing path among dirs (a docs repository's runbooks folder that
// it does not have), adds none and is no error; empty lists them.
func LoadAllowEmpty(paths, dirs []string) (rbs []*Runbook, empty []string, err error) {
	return load(paths, dirs, true)
}

func load(paths, dirs []string, allowEmpty bool) (out []*Runbook, empty []string, err error) {
	seen := map[string]bool{}
	for _, p := range paths {
		if _, serr := os.Stat(p); serr != nil && allowEmpty && slices.ContainsFunc(dirs, func(d string) bool { return samePath(d, p) }) {
			empty = append(empty, p)
			continue
		}
		rbs, err := loadPath(p)
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
func loadPath(p string) ([]*Runbook, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, cleanPathError(err)
	}
	if !fi.IsDir() {
		rb, err := ParseFile(p)
		if err != nil {
			return nil, err
		}
		if len(rb.Steps) == 0 {
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
		rb, err := ParseFile(path)
		if err != nil {
			return err
		}
		if len(rb.Steps) > 0 {
			out = append(out, rb)
		}
		return nil
	})
	if err != nil {
		var rerr *Error
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

// cleanPathError shortens *fs.PathError to "path: reason".
func cleanPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
