package merge

import (
	"context"
	"fmt"

	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/log"
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
	// Out receives the summary, or ErrOut when a report has Out to
	// itself.
	log.IOStreams
}

// Merge is kbook report merge: the reports merged and written, and their
// summary printed - on stderr when a report has stdout to itself. passed
// is false when a runbook failed or was interrupted in a shard (it has no
// result). A context already done merges nothing.
func Merge(ctx context.Context, o Options) (passed bool, err error) {
	if err := context.Cause(ctx); err != nil {
		return false, err
	}
	o.IOStreams = o.OrDiscard()
	merged, err := report.MergeInto(o.JSON, o.JUnit, o.Out, o.Reports...)
	if err != nil {
		return false, err
	}
	summary := o.Out
	if o.JSON == report.Stdout || o.JUnit == report.Stdout {
		summary = o.ErrOut
	}
	fmt.Fprint(summary, console.Summary(merged, output.Colors(summary)))
	s := merged.Summary()
	return s.Failed == 0 && s.Interrupted == 0, nil
}
