package merge

import (
	"fmt"
	"io"

	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/report"
)

// Options are kbook report merge's.
type Options struct {
	// Reports are the JSON reports to merge.
	Reports []string
	// JSON and JUnit are where the merged reports go ("": not written;
	// report.Stdout: stdout).
	JSON, JUnit string
	// Stdout and Stderr are the command's streams.
	Stdout, Stderr io.Writer
}

// Merge is kbook report merge: the reports merged and written, and their
// summary printed - on stderr when a report has stdout to itself. passed
// is false when a runbook failed or was interrupted in a shard (it has no
// result).
func Merge(o Options) (passed bool, err error) {
	merged, err := report.MergeInto(o.JSON, o.JUnit, o.Stdout, o.Reports...)
	if err != nil {
		return false, err
	}
	summary := o.Stdout
	if o.JSON == report.Stdout || o.JUnit == report.Stdout {
		summary = o.Stderr
	}
	fmt.Fprint(summary, console.Summary(merged, output.Colors(summary)))
	s := merged.Summary()
	return s.Failed == 0 && s.Interrupted == 0, nil
}
