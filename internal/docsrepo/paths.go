package docsrepo

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/mkdocs"
)

// UnderDir shows file, relative to the docs repository dir, relative to
// the current directory (names that are not paths stay as they are).
func UnderDir(dir, file string) string {
	if dir == "" || dir == "." || filepath.IsAbs(file) || strings.HasPrefix(file, "theme ") || strings.HasPrefix(file, "(") {
		return file
	}
	if abs, err := filepath.Abs(dir); err == nil {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, abs); err == nil {
				dir = rel
			}
		}
	}
	return filepath.Join(dir, file)
}

// ErrorUnder shows the file of a site or runbook error of the docs
// repository dir relative to the current directory.
func ErrorUnder(dir string, err error) error {
	if re := findings.Located(err); re != nil {
		re.File = UnderDir(dir, re.File)
		return re
	}
	return err
}

// FindRoot returns the docs root for the given paths: the nearest
// directory at or above one of them holding kbook.yaml or mkdocs.yml, else the current
// directory when it has a content/ folder, else "".
func FindRoot(paths []string) string {
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		for d := abs; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, ConfigFile)); err == nil || mkdocs.Find(d) != "" {
				return d
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if fi, err := os.Stat("content"); err == nil && fi.IsDir() {
		return "."
	}
	return ""
}

// RelError rewrites a runbook error's absolute path to the docs-relative one.
func RelError(dir string, err error) error {
	if re := findings.Located(err); re != nil {
		if r, e := filepath.Rel(dir, re.File); e == nil {
			re.File = filepath.ToSlash(r)
		}
		return re
	}
	return err
}
