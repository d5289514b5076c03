package runbook

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// errorf is a problem in a runbook source at file and line (0 when the
// whole file): bad input, in findings' one located error type.
func errorf(file string, line int, format string, args ...any) *findings.InputError {
	return &findings.InputError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

func trimExt(p string) string {
	return strings.TrimSuffix(p, filepath.Ext(p))
}
