package runner

import (
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
)

// Observer is told about progress. Calls come from several goroutines when
// runbooks run in parallel.
type Observer interface {
	// RunbookStarted is called when a runbook starts (or is looked up in the cache).
	RunbookStarted(rb *runbook.Runbook)
	// StepStarted is called when the first command of a step runs.
	StepStarted(rb *runbook.Runbook, st *runbook.Step)
	// RunbookFinished is called with every runbook's result, skipped ones included.
	RunbookFinished(res *report.Runbook)
	// Warn reports a problem that does not fail the run (a cache write error).
	Warn(msg string)
}

// Progresser is an Observer that is also told what a running command is
// waiting for (await, assert), at its runbook line.
type Progresser interface {
	Progress(rb *runbook.Runbook, line int, msg string)
}

// NopObserver ignores everything.
type NopObserver struct{}

func (NopObserver) RunbookStarted(*runbook.Runbook)             {}
func (NopObserver) StepStarted(*runbook.Runbook, *runbook.Step) {}
func (NopObserver) RunbookFinished(*report.Runbook)             {}
func (NopObserver) Warn(string)                                 {}
