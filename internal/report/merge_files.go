package report

import (
	"errors"
	"io"

	"github.com/k0rdent/kbook/internal/findings"
)

// MergeInto is kbook report merge: the JSON reports in files are merged
// (MergeFiles) and written to jsonOut and junitOut ("": not written). No
// output named, and a report that cannot be read, are
// findings.InputErrors; one that cannot be written is another error. An
// output named Stdout ("-") is written to stdout; only one can be.
func MergeInto(jsonOut, junitOut string, stdout io.Writer, files ...string) (*Report, error) {
	if jsonOut == "" && junitOut == "" {
		return nil, &findings.InputError{Err: errors.New("nothing to write: give --json FILE and/or --junit FILE")}
	}
	if jsonOut == Stdout && junitOut == Stdout {
		return nil, &findings.InputError{Err: ErrBothStdout}
	}
	merged, err := MergeFiles(files...)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	if jsonOut != "" {
		if err := merged.WriteJSON(jsonOut, stdout); err != nil {
			return nil, err
		}
	}
	if junitOut != "" {
		if err := merged.WriteJUnit(junitOut, stdout); err != nil {
			return nil, err
		}
	}
	return merged, nil
}

// ErrBothStdout refuses --json - with --junit -: two reports on one stream
// would be neither JSON nor XML.
var ErrBothStdout = errors.New("--json - and --junit - both name stdout: one report can go to stdout, give the other a file")
