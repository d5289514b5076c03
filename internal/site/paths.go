package site

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
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
