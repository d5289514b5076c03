package site

import (
	"fmt"
	"time"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
)

// Verification statuses of a runbook page.
const (
	Verified   = "verified"
	Failed     = "failed"
	Partial    = "partial"    // passed, with steps skipped
	Unverified = "unverified" // never run, skipped, or changed since its result
)

// Verification is what a runbook page's badge says, and one row of the
// Verification page and of verification.json.
type Verification struct {
	Path   string `json:"path"`
	Title  string `json:"title"`
	URL    string `json:"url"`
	Status string `json:"status"`
	// Label is the badge text ("Verified", "Partially verified", ...).
	Label string `json:"label"`
	// Reason explains a status other than verified.
	Reason string `json:"reason,omitempty"`
	// Date is when the result was produced (RFC 3339), empty without one.
	Date    string   `json:"date,omitempty"`
	Kbook   string   `json:"kbook,omitempty"`
	Backend string   `json:"backend,omitempty"`
	Server  string   `json:"server,omitempty"`
	APIs    []string `json:"apis,omitempty"`
	Host    string   `json:"host,omitempty"`
	// K0rdent is the k0rdent plane the runbook ran on: release and
	// controller versions (nil when the cluster ran none).
	K0rdent  *report.K0rdent `json:"k0rdent,omitempty"`
	Duration string          `json:"duration,omitempty"`
	Cached   bool            `json:"cached,omitempty"`
	// Steps counts the runbook's steps by outcome.
	StepsTotal   int `json:"stepsTotal"`
	StepsPassed  int `json:"stepsPassed"`
	StepsFailed  int `json:"stepsFailed"`
	StepsSkipped int `json:"stepsSkipped"`
	// Skipped lists the skipped steps and why.
	Skipped []SkippedStep `json:"skipped,omitempty"`
	// Shell counts the shell blocks of a page that runs them, by
	// result; nil for a runbook without any. The page is Verified only
	// when every block passed or ran: a block provided by kbook (a
	// stand-in that passed among them) or skipped makes it Partial.
	Shell *report.ShellCounts `json:"shell,omitempty"`
}

// SkippedStep is a step that did not run, and why.
type SkippedStep struct {
	Step   int    `json:"step"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

var labels = map[string]string{
	Verified:   "Verified",
	Failed:     "Failed",
	Partial:    "Partially verified",
	Unverified: "Not verified",
}

// Verify compares a runbook with its recorded result (nil: none) and says
// what the page may claim. A result produced from another source than the
// one rendered counts as none: its output is not shown.
func Verify(rb *runbook.Runbook, res *report.Runbook) (Verification, *report.Runbook) {
	v := Verification{Path: rb.Path, Title: rb.Title(), StepsTotal: len(rb.Steps)}
	switch {
	case res == nil:
		v.Status, v.Reason = Unverified, "never run"
		return v.labelled(), nil
	case res.SourceSHA256 != runner.SourceSum(rb):
		v.Status = Unverified
		v.Reason = "the runbook changed since its last result"
		if !res.Verified.IsZero() {
			v.Reason += " (" + res.Verified.UTC().Format("2006-01-02") + ")"
		}
		return v.labelled(), nil
	}
	if !res.Verified.IsZero() {
		v.Date = res.Verified.UTC().Format(time.RFC3339)
	}
	if res.Duration > 0 {
		v.Duration = FormatDuration(res.Duration)
	}
	v.Cached = res.Cached
	if e := res.Env; e != nil {
		v.Kbook, v.Backend, v.Server, v.APIs, v.Host, v.K0rdent = e.Kbook, e.Backend, e.Server, e.APIs, e.Host, e.K0rdent
	}
	v.Shell = res.Shell
	if v.Shell == nil {
		v.Shell = report.CountShell(res.Steps, res.Status == report.Passed, rb.Unflagged())
	}
	// A script that skipped itself ran its skip command in the last step
	// the report calls passed: that step did not pass, it was skipped.
	skippedAt := -1
	if res.Status == report.Skipped {
		for i, s := range res.Steps {
			if s.Status == report.Passed {
				skippedAt = i
			}
		}
	}
	for i, s := range res.Steps {
		if i == skippedAt {
			v.StepsSkipped++
			v.Skipped = append(v.Skipped, SkippedStep{Step: s.Index, Name: s.Name, Reason: res.Reason})
			continue
		}
		switch s.Status {
		case report.Passed:
			v.StepsPassed++
		case report.Failed:
			v.StepsFailed++
		case report.Skipped, report.Interrupted:
			v.StepsSkipped++
			v.Skipped = append(v.Skipped, SkippedStep{Step: s.Index, Name: s.Name, Reason: s.Reason})
		}
	}
	switch res.Status {
	case report.Interrupted:
		// Stopped by Ctrl-C: neither verified nor failed.
		v.Status, v.Reason = Unverified, res.Reason
		v.Date = ""
	case report.Failed:
		v.Status = Failed
		if res.Failure != nil {
			v.Reason = res.Failure.String()
		} else {
			v.Reason = res.Reason
		}
	case report.Skipped:
		if v.StepsPassed == 0 {
			v.Status, v.Reason = Unverified, "skipped: "+res.Reason
			v.Date = ""
			break
		}
		// The script skipped itself after some steps passed: those are
		// verified, the rest are listed as skipped.
		v.Status = Partial
		v.Reason = fmt.Sprintf("%d of %d steps passed, then %s", v.StepsPassed, v.StepsTotal, res.Reason)
	case report.Passed:
		v.Status = Verified
		if v.StepsSkipped > 0 {
			v.Status = Partial
			v.Reason = fmt.Sprintf("%d of %d steps skipped", v.StepsSkipped, v.StepsTotal)
		}
		if v.Shell != nil {
			if v.Shell.Verification != report.Verified {
				v.Status = Partial
			}
			if v.Status == Partial {
				v.Reason = shellVerdict(v.Shell, res.Env)
			}
		}
	default:
		v.Status, v.Reason = Unverified, fmt.Sprintf("unknown result status %q", res.Status)
		return v.labelled(), nil
	}
	return v.labelled(), res
}

func (v Verification) labelled() Verification {
	v.Label = labels[v.Status]
	return v
}

// shellVerdict says what a page of shell blocks that is not verified
// is, with its counts and what its blocks ran on: "partially verified:
// 11 of 25 ran on local; 14 provided by kbook; 0 failed".
func shellVerdict(c *report.ShellCounts, env *report.Environment) string {
	on := ""
	if env != nil && env.Backend != "" && env.Backend != "none" {
		on = " on " + env.Backend
		if k := env.K0rdent; k != nil && k.Version != "" {
			on += " (k0rdent " + k.Version + ")"
		}
	}
	s := fmt.Sprintf("partially verified: %d of %d ran%s; %d provided by kbook", c.Passed+c.Ran, c.Blocks, on, c.Provided)
	if c.Skipped > 0 {
		s += fmt.Sprintf("; %d skipped", c.Skipped)
	}
	if c.Unflagged > 0 {
		s += fmt.Sprintf("; %d more without the run flag not run", c.Unflagged)
	}
	return s + fmt.Sprintf("; %d failed", c.Failed)
}
