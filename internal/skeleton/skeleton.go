package skeleton

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
)

// Render reads the skeleton below root in fsys: files ending in .tmpl are
// Go templates with [[ ]] delimiters (so Helm's {{ }} pass through),
// executed with data and returned without the suffix; others are copied.
// The result maps root-relative, slash-separated names to contents.
func Render(fsys fs.FS, root string, data any) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		if strings.HasSuffix(rel, ".tmpl") {
			rel = strings.TrimSuffix(rel, ".tmpl")
			t, err := template.New(rel).Delims("[[", "]]").Option("missingkey=error").Parse(string(content))
			if err != nil {
				return fmt.Errorf("skeleton %s: %w", p, err)
			}
			var buf bytes.Buffer
			if err := t.Execute(&buf, data); err != nil {
				return fmt.Errorf("skeleton %s: %w", p, err)
			}
			content = buf.Bytes()
		}
		out[rel] = content
		return nil
	})
	return out, err
}

// Names returns the names of files, sorted.
func Names(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Write creates dir with the files, through a temporary directory beside
// it and one rename, so a failure leaves nothing half-written. dir must
// not exist.
func Write(dir string, files map[string][]byte) error {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%s already exists: choose another directory or remove it", dir)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	if err := stage(tmp, files); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

// ExistError is WriteInto's answer when files are already there.
type ExistError struct {
	// Paths are the files that exist, dir joined, sorted.
	Paths []string
}

func (e *ExistError) Error() string {
	return strings.Join(e.Paths, ", ") + " already exists"
}

// WriteInto adds the files to dir, which may exist (it is created if not).
// When any of them is already there it writes nothing and returns an
// *ExistError naming them. The files are written in full in a temporary
// directory inside dir first, then renamed into place; when one cannot
// be, those already placed (and the folders made for them) are removed.
func WriteInto(dir string, files map[string][]byte) error {
	names := Names(files)
	var exist []string
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(exist) > 0 {
		return &ExistError{Paths: exist}
	}
	made, err := mkdirAll(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, ".kbook-skeleton-")
	if err != nil {
		undo(nil, made)
		return err
	}
	defer os.RemoveAll(tmp)
	if err := stage(tmp, files); err != nil {
		os.RemoveAll(tmp)
		undo(nil, made)
		return err
	}
	var placed []string
	for _, n := range names {
		dst := filepath.Join(dir, filepath.FromSlash(n))
		m, err := mkdirAll(filepath.Dir(dst))
		made = append(made, m...)
		if err == nil {
			if _, statErr := os.Lstat(dst); statErr == nil {
				err = fs.ErrExist // appeared since the check: never replaced
			} else {
				err = os.Rename(filepath.Join(tmp, filepath.FromSlash(n)), dst)
			}
		}
		if err != nil {
			os.RemoveAll(tmp)
			undo(placed, made)
			return fmt.Errorf("write %s: %w", dst, err)
		}
		placed = append(placed, dst)
	}
	return nil
}

// stage writes the files below dir.
func stage(dir string, files map[string][]byte) error {
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// mkdirAll is os.MkdirAll that returns the folders it made, outermost
// first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(missing)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return missing, nil
}

// undo removes placed files, then the folders made for them, innermost
// first.
func undo(placed, made []string) {
	for _, p := range placed {
		_ = os.Remove(p)
	}
	for i := len(made) - 1; i >= 0; i-- {
		_ = os.Remove(made[i])
	}
}
