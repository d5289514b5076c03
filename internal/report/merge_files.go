package report

import (
	"errors"

	"github.com/k0rdent/kbook/internal/findings"
)

// MergeInto is kbook report merge: the JSON reports in files are merged
// (MergeFiles) and written to jsonOut and junitOut ("": not written). No
// output named, and a report that cannot be read, are
// findings.InputErrors; one that cannot be written is another error.
func MergeInto(jsonOut, junitOut string, files ...string) (*Report, error) {
	if jsonOut == "" && junitOut == "" {
		return nil, &findings.InputError{Err: errors.New("nothing to write: give --json FILE and/or --junit FILE")}
	}
	merged, err := MergeFiles(files...)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	if jsonOut != "" {
		if err := merged.WriteJSON(jsonOut); err != nil {
			return nil, err
		}
	}
	if junitOut != "" {
		if err := merged.WriteJUnit(junitOut); err != nil {
			return nil, err
		}
	}
	return merged, nil
}
