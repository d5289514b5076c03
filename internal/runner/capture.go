package runner

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
)

var (
	failLine   = regexp.MustCompile(`^FAIL: (.*?):(\d+): (.*)$`)
	exitStatus = regexp.MustCompile(`^\[exit status (\d+)\]$`)
)

// fill turns the testscript log and the marker records into step and
// command results.
func (x *execution) fill(res *report.Runbook, log string, tFailed, skipped bool) {
	x.mu.Lock()
	defer x.mu.Unlock()

	// Split the log at the marker echo lines; drop them from the log the
	// user sees and map FAIL lines to the runbook's own lines.
	bodies := map[int]string{}
	var clean, body strings.Builder
	cur := -1
	var failure *report.Failure
	for _, l := range strings.SplitAfter(log, "\n") {
		if id, at, ok := x.markerEcho(l); ok {
			// Output without a trailing newline runs into the echo of
			// the next marker: "abc> __kbook <nonce> 1". It ends the
			// previous command's body; the user's log gets the newline.
			if prefix := l[:at]; prefix != "" {
				clean.WriteString(prefix + "\n")
				if cur >= 0 {
					body.WriteString(prefix)
				}
			}
			if cur >= 0 {
				bodies[cur] = body.String()
			}
			cur = id
			body.Reset()
			continue
		}
		if m := failLine.FindStringSubmatch(strings.TrimSuffix(l, "\n")); m != nil {
			n, _ := strconv.Atoi(m[2])
			src := x.plan.sourceLine(n)
			failure = &report.Failure{File: x.rb.Path, Line: src, Message: x.masker.Mask(m[3])}
			l = "FAIL: " + (&report.Failure{File: x.rb.Path, Line: src, Message: m[3]}).String() + "\n"
		}
		clean.WriteString(l)
		if cur >= 0 {
			body.WriteString(l)
		}
	}
	if cur >= 0 {
		bodies[cur] = body.String()
	}

	// Which command failed, and how far the script got.
	failedID, reached := -1, len(x.plan.cmds)-1
	if failure != nil {
		failedID = max(x.last, 0)
		for id := max(x.last, 0); id < len(x.plan.cmds); id++ {
			if x.plan.cmds[id].line.Num == failure.Line {
				failedID = id
				break
			}
		}
		reached = failedID
	} else if skipped || tFailed || !x.finished {
		reached = x.last
	}
	stopped := failure == nil && !skipped && !tFailed && !x.finished

	cmds := map[*runbook.Step][]*report.Command{}
	stepFailed := map[*runbook.Step]bool{}
	firstID := map[*runbook.Step]int{}
	for id, c := range x.plan.cmds {
		if _, ok := firstID[c.step]; !ok {
			firstID[c.step] = id
		}
		if id > reached {
			continue
		}
		cr := &report.Command{Line: c.line.Num, Text: c.line.Text}
		ran := !x.fired[id].IsZero()
		if ran {
			cr.Duration = x.ends[id].Sub(x.fired[id])
			if !x.ends[id].IsZero() && cr.Duration < 0 {
				cr.Duration = 0
			}
			cr.Stdout, cr.Stderr, cr.ExitCode = x.output(bodies[id], x.rec[id])
			if o, ok := x.shellRes[c.step]; ok && c.step.Shell != nil {
				cr.ExitCode = o.exit
			}
		} else if id != failedID {
			cr.Skipped = true
		}
		if id == failedID {
			cr.Failed = true
			stepFailed[c.step] = true
		}
		cmds[c.step] = append(cmds[c.step], cr)
	}

	res.Status = report.Passed
	earlierFailed := false
	for _, st := range x.rb.Steps {
		sr := &report.Step{Index: st.Index, Name: st.Name, Line: st.Line, Commands: cmds[st]}
		for _, c := range sr.Commands {
			sr.Duration += c.Duration
		}
		first, hasCmds := firstID[st]
		switch {
		case !x.r.selected(st):
			sr.Status, sr.Reason = report.Skipped, "deselected by -run"
		case stepFailed[st]:
			sr.Status, sr.Failure = report.Failed, failure
			earlierFailed = true
		case earlierFailed || (hasCmds && first > reached):
			sr.Status, sr.Reason = report.Skipped, "not run: an earlier step failed"
			switch {
			case skipped:
				sr.Reason = "not run: the script was skipped"
			case stopped:
				sr.Reason = "not run: the script stopped early (stop)"
			}
		default:
			sr.Status = report.Passed
			if o, ok := x.shellRes[st]; ok && o.result == report.BlockSkipped {
				// It cannot run here, or depends on one that
				// could not: said per block, not a failure.
				sr.Status, sr.Reason = report.Skipped, o.reason
			}
		}
		if st.Shell != nil {
			sr.Shell = x.shellBlock(st, sr)
		}
		res.Steps = append(res.Steps, sr)
	}
	defer func() { res.Shell = report.CountShell(res.Steps, res.Status == report.Passed, x.rb.Unflagged()) }()
	if failure != nil || tFailed {
		res.Status = report.Failed
		res.Failure = failure
		if failure == nil {
			// The log's last line, masked as the log is: it becomes
			// the report's reason and the site's failure message.
			res.Failure = &report.Failure{File: x.rb.Path, Message: x.masker.Mask(lastLine(clean.String()))}
		}
		if failedID >= 0 && failure != nil {
			if hint := unsetHint(x.emptyBefore(failedID)); hint != "" {
				res.Failure.Message += " (" + hint + ")"
			}
		}
		res.Reason = res.Failure.Message
		res.Log = x.masker.Mask(clean.String())
	}
}

// shellBlock is a shell step's block result. The caller holds x.mu.
func (x *execution) shellBlock(st *runbook.Step, sr *report.Step) *report.ShellBlock {
	b := &report.ShellBlock{Lang: st.Shell.Lang, Result: report.BlockSkipped}
	if e := st.Shell.Expected; e != nil {
		b.Mode, b.ExpectedLine = string(st.Shell.Mode), e.Line
	}
	if o, ok := x.shellRes[st]; ok {
		b.Result, b.ExitCode, b.Note, b.By, b.After, b.Interrupted = o.result, o.exit, o.note, o.by, o.after, o.interrupted
	} else if sr.Status == report.Failed {
		b.Result = report.BlockFailed
	}
	return b
}

// emptyBefore lists the empty variables named by the commands of the
// failed command's step, up to it: one of them may have produced what the
// failed command found wrong. The caller holds x.mu.
func (x *execution) emptyBefore(failedID int) []string {
	var out []string
	st := x.plan.cmds[failedID].step
	for id := failedID; id >= 0 && x.plan.cmds[id].step == st; id-- {
		out = append(out, x.empty[id]...)
	}
	return out
}

// markerEcho recognises the line testscript echoes for a marker,
// "> [cond] __kbook <nonce> <id>", and returns the id and where the echo
// starts: after output that lacked a trailing newline it starts mid-line.
func (x *execution) markerEcho(l string) (id, at int, ok bool) {
	tag := markerCmd + " " + x.plan.nonce + " "
	i := strings.Index(l, tag)
	if i < 0 {
		return 0, 0, false
	}
	at = strings.LastIndex(l[:i], "> ")
	if at < 0 {
		return 0, 0, false
	}
	// Between "> " and the tag stand only the line's [conditions].
	if conds := strings.TrimSpace(l[at+2 : i]); conds != "" && conditionPrefix(conds) != conds {
		return 0, 0, false
	}
	id, err := strconv.Atoi(strings.TrimSpace(l[i+len(tag):]))
	return id, at, err == nil
}

// output extracts a command's stdout, stderr and exit code from its log
// body. Where the marker that followed the command recorded testscript's
// stdout and stderr, the body is matched against them exactly; for the
// last command the ends are found from testscript's own trailer lines.
func (x *execution) output(body string, rec capture) (stdout, stderr string, exit int) {
	// The body starts with the echo of the command itself.
	if strings.HasPrefix(body, "> ") {
		_, body, _ = strings.Cut(body, "\n")
	}
	take := func(tag, known string, trailers ...string) string {
		if !strings.HasPrefix(body, tag) {
			return ""
		}
		rest := body[len(tag):]
		if rec.known {
			known = strings.ReplaceAll(known, x.workdir, "$WORK")
			if known != "" && strings.HasPrefix(rest, known) {
				body = rest[len(known):]
				return known
			}
			return ""
		}
		end := len(rest)
		for _, tr := range trailers {
			if i := strings.Index(rest, tr); i >= 0 && i < end {
				end = i
			}
		}
		body = rest[end:]
		return rest[:end]
	}
	stdout = take("[stdout]\n", rec.stdout, "[stderr]\n", "\n[exit status ", "\nFAIL: ", "\n[signal: ")
	if strings.HasPrefix(body, "\n[") || strings.HasPrefix(body, "\nFAIL: ") {
		stdout += "\n"
		body = body[1:]
	}
	stderr = take("[stderr]\n", rec.stderr, "\n[exit status ", "\nFAIL: ", "\n[signal: ")
	if strings.HasPrefix(body, "\n[") || strings.HasPrefix(body, "\nFAIL: ") {
		stderr += "\n"
		body = body[1:]
	}
	for _, l := range strings.Split(body, "\n") {
		if m := exitStatus.FindStringSubmatch(l); m != nil {
			exit, _ = strconv.Atoi(m[1])
		}
	}
	return x.masker.Mask(stdout), x.masker.Mask(stderr), exit
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
