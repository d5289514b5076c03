package runbook

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Error is a problem in a runbook source, located by file and line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func trimExt(p string) string {
	return strings.TrimSuffix(p, filepath.Ext(p))
}
