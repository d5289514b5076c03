package console

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
)

// Printer implements runner.Observer for a terminal.
type Printer struct {
	w       io.Writer
	tty     bool
	verbose bool
	colors  output.Palette

	mu      sync.Mutex
	running map[string]string // runbook path -> current step
	status  bool              // a status line is on screen
}

// New returns a Printer writing to w. On a TTY it keeps a live status line;
// verbose prints every command and its output as runbooks finish.
func New(w io.Writer, tty, verbose bool) *Printer {
	return &Printer{w: w, tty: tty, verbose: verbose, colors: output.Colors(w), running: map[string]string{}}
}

// RunbookStarted implements runner.Observer.
func (p *Printer) RunbookStarted(rb *runbook.Runbook) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[rb.Path] = ""
	if !p.tty {
		fmt.Fprintf(p.w, "=== RUN   %s\n", rb.Path)
		return
	}
	p.drawStatus()
}

// StepStarted implements runner.Observer.
func (p *Printer) StepStarted(rb *runbook.Runbook, st *runbook.Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[rb.Path] = fmt.Sprintf("%d/%d %s", st.Index, len(rb.Steps), st.Name)
	if !p.tty {
		if p.verbose {
			fmt.Fprintf(p.w, "    step %d/%d: %s (%s:%d)\n", st.Index, len(rb.Steps), st.Name, rb.Path, st.Line)
		}
		return
	}
	p.drawStatus()
}

// Progress implements runner.Progresser: what a command waits for, on the
// status line of a TTY, as a line of its own elsewhere.
func (p *Printer) Progress(rb *runbook.Runbook, line int, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := rb.Path
	if line > 0 {
		at = fmt.Sprintf("%s:%d", rb.Path, line)
	}
	if !p.tty {
		fmt.Fprintf(p.w, "    %s: %s\n", at, msg)
		return
	}
	p.clearStatus()
	fmt.Fprintf(p.w, "%s: %s\n", at, msg)
	p.drawStatus()
}

// RunbookFinished implements runner.Observer.
func (p *Printer) RunbookFinished(res *report.Runbook) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, res.Path)
	p.clearStatus()
	fmt.Fprint(p.w, result(res, p.verbose, p.colors))
	if p.tty {
		p.drawStatus()
	}
}

// Warn implements runner.Observer.
func (p *Printer) Warn(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearStatus()
	fmt.Fprintln(p.w, log.Warning(msg))
	if p.tty {
		p.drawStatus()
	}
}

// Infof implements the progress loggers of the cluster and assets packages.
func (p *Printer) Infof(format string, args ...any) { p.Message(format, args...) }

// Message prints a line between status updates.
func (p *Printer) Message(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearStatus()
	fmt.Fprintf(p.w, format+"\n", args...)
	if p.tty {
		p.drawStatus()
	}
}

func (p *Printer) clearStatus() {
	if p.status {
		fmt.Fprint(p.w, "\r\033[K")
		p.status = false
	}
}

func (p *Printer) drawStatus() {
	p.clearStatus()
	if len(p.running) == 0 {
		return
	}
	paths := make([]string, 0, len(p.running))
	for k := range p.running {
		paths = append(paths, k)
	}
	sort.Strings(paths)
	parts := make([]string, 0, len(paths))
	for _, k := range paths {
		s := k
		if st := p.running[k]; st != "" {
			s += " [" + st + "]"
		}
		parts = append(parts, s)
	}
	line := "running: " + strings.Join(parts, ", ")
	if len(line) > 120 {
		line = line[:117] + "..."
	}
	fmt.Fprint(p.w, line)
	p.status = true
}

// Result renders one runbook's result as the console shows it.
func Result(res *report.Runbook, verbose bool) string { return result(res, verbose, output.Palette{}) }

// result is Result with its PASS, SKIP, FAIL or INTERRUPTED coloured by
// p.
func result(res *report.Runbook, verbose bool, p output.Palette) string {
	var b strings.Builder
	d := res.Duration.Round(time.Millisecond)
	switch res.Status {
	case report.Passed:
		extra := d.String()
		if res.Cached {
			extra = "cached, verified " + res.Verified.Local().Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "--- %s  %s (%s)\n", p.Good("PASS"), res.Path, extra)
		for _, u := range res.Updated {
			fmt.Fprintf(&b, "    updated %s in %s\n", u, res.Path)
		}
		if res.WorkDir != "" {
			fmt.Fprintf(&b, "    work directory kept: %s\n", res.WorkDir)
		}
	case report.Skipped:
		fmt.Fprintf(&b, "--- %s  %s: %s\n", p.Faint("SKIP"), res.Path, res.Reason)
	case report.Interrupted:
		// Not a failure: the run was stopped. Its log (in the JSON
		// report) ends in testscript's failure of the stopped command.
		fmt.Fprintf(&b, "--- %s  %s (%s)\n", p.Warn("INTERRUPTED"), failedAt(res), d)
		fmt.Fprintf(&b, "    %s\n", res.Reason)
		if res.WorkDir != "" {
			fmt.Fprintf(&b, "    work directory kept: %s\n", res.WorkDir)
		}
	case report.Failed:
		fmt.Fprintf(&b, "--- %s  %s (%s)\n", p.Bad("FAIL"), failedAt(res), d)
		fmt.Fprintf(&b, "    %s\n", res.Reason)
		if res.Log != "" {
			b.WriteString(indent(logTail(res.Log), "    | "))
		}
		if res.Diagnostics != "" {
			b.WriteString("    diagnostics:\n")
			b.WriteString(indent(res.Diagnostics, "    | "))
		}
		if res.WorkDir != "" {
			fmt.Fprintf(&b, "    work directory kept: %s\n", res.WorkDir)
		}
	}
	if res.Status != report.Skipped && res.Shell != nil {
		fmt.Fprintf(&b, "    %s\n", res.Shell)
	}
	if res.Alone != "" {
		fmt.Fprintf(&b, "    ran alone on the run's cluster: %s\n", res.Alone)
	}
	if r := res.Restored; r != nil {
		fmt.Fprintf(&b, "    after it: %s\n", r)
		for _, f := range r.Failed {
			fmt.Fprintf(&b, "    after it: could not restore %s\n", f)
		}
	}
	if res.Status != report.Skipped {
		// The blocks kbook wrote to files no file= names, then a
		// page's shell blocks, each at its line.
		for _, bd := range res.Bindings {
			fmt.Fprintf(&b, "    %s:%d: %s block written to %s (%s)\n", res.Path, bd.Line, bd.Lang, bd.File, bd.By)
		}
		for _, st := range res.Steps {
			if sh := st.Shell; sh != nil {
				fmt.Fprintf(&b, "    %s:%d: %s block %s\n", res.Path, st.Line, sh.Lang, st.ShellResult())
			}
		}
	}
	if verbose && res.Status != report.Skipped {
		for _, st := range res.Steps {
			fmt.Fprintf(&b, "    step %d %s: %s\n", st.Index, st.Status, st.Name)
			for _, c := range st.Commands {
				if c.Skipped {
					fmt.Fprintf(&b, "      > %s   (condition not met)\n", c.Text)
					continue
				}
				fmt.Fprintf(&b, "      > %s\n", c.Text)
				b.WriteString(indent(c.Stdout, "      "))
				b.WriteString(indent(c.Stderr, "      "))
			}
		}
	}
	return b.String()
}

// failedAt is where a failed runbook failed: its path, and the line when
// known.
func failedAt(res *report.Runbook) string {
	if res.Failure != nil && res.Failure.Line > 0 {
		return fmt.Sprintf("%s:%d", res.Path, res.Failure.Line)
	}
	return res.Path
}

// logTail drops the environment dump at the head of a testscript log.
func logTail(log string) string {
	if i := strings.Index(log, "\n# "); i >= 0 {
		return log[i+1:]
	}
	return log
}

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

// Summary closes a run: a line with the time taken (and cache hits), a
// line per failed runbook with where and why it failed (repeated from its
// report above, which a long run pushes out of sight: a CI log's tail
// then still says what broke), then the counts alone on the last line, in
// the "N passed, N failed" form CI systems look for. p colours the words
// (output.Colors: on a terminal only); the zero Palette leaves them plain.
func Summary(rep *report.Report, p output.Palette) string {
	s := rep.Summary()
	var b strings.Builder
	fmt.Fprintf(&b, "ran %s in %s", Count(len(rep.Runbooks), "runbook"), rep.Duration.Round(time.Millisecond))
	if s.Cached > 0 {
		fmt.Fprintf(&b, ", %d from cache", s.Cached)
	}
	if rep.Interrupted {
		b.WriteString(", interrupted")
	}
	b.WriteString("\n")
	for _, res := range rep.Runbooks {
		word := p.Bad("FAIL")
		switch res.Status {
		case report.Failed:
		case report.Interrupted:
			word = p.Warn("INTERRUPTED")
		default:
			continue
		}
		reason, _, _ := strings.Cut(res.Reason, "\n")
		fmt.Fprintf(&b, "%s  %s: %s\n", word, failedAt(res), reason)
	}
	fmt.Fprintf(&b, "kbook: %s, %s, %s", when(s.Passed > 0, p.Good, fmt.Sprintf("%d passed", s.Passed)),
		when(s.Failed > 0, p.Bad, fmt.Sprintf("%d failed", s.Failed)), when(s.Skipped > 0, p.Faint, fmt.Sprintf("%d skipped", s.Skipped)))
	if s.Interrupted > 0 {
		fmt.Fprintf(&b, ", %s", p.Warn(fmt.Sprintf("%d interrupted", s.Interrupted)))
	}
	b.WriteString("\n")
	return b.String()
}

// when is color(s) if cond, else s.
func when(cond bool, color func(string) string, s string) string {
	if cond {
		return color(s)
	}
	return s
}

// Count says "1 runbook", "2 runbooks", "0 errors".
func Count(n int, noun string) string { return plural.Count(n, noun) }
