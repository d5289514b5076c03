package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/k0rdent/kbook/internal/outmatch"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
)

// shellCmd is the testscript command the runner puts in place of a shell
// step: it runs the block in the page's bash session. Like markerCmd it
// acts only when called with the run's nonce.
const shellCmd = "__kbook_sh"

// shellPrologue is what the page's bash session runs first. Each block
// runs in __kbook_step, sourced from a file padded with blank lines so that
// bash's "line N" is the page's line; its commands' stdin is /dev/null
// and the session's own descriptor 3 (the record after each block) is
// closed for them. set -e would end the session at a block's first
// failure, so an ERR trap stands in for it (errtrace: in functions too):
// inside a function or a sourced file it returns the failure, which fails
// the caller in turn, up to __kbook_step; in a subshell it exits the
// subshell, as set -e does; at the top level it does nothing.
//
// The line that runs a block is short (bash reads its commands one byte
// at a time): "__kbook_step FILE DIR </dev/null 3>&-;__kbook_done", DIR
// empty where the block starts where the last one ended. __kbook_done,
// whose $? is the block's status, writes the block's record on fd 3:
// the run's mark, then NUL-terminated fields: the status, $PWD, what the
// probe found missing, and an empty field. fd 3 is the output's pipe, so
// the record follows all the block printed.
const shellPrologue = `shopt -s expand_aliases
__kbook_pid=$BASHPID
__kbook_missing=()
__kbook_step() {
	__kbook_missing=()
	[[ -z $2 ]] || cd -- "$2" || return
	set -o pipefail -o errtrace
	trap '__kbook_rc=$?; if [[ $BASHPID != "$__kbook_pid" ]]; then exit $__kbook_rc; elif (( ${#FUNCNAME[@]} > 0 )); then return $__kbook_rc; fi' ERR
	source "$1"
}
__kbook_done() {
	printf '%s\0' "$__kbook_mark$?" "$PWD" "${__kbook_missing[@]}" "" >&3
}
__kbook_probe() {
	local w
	for w; do
		case $w in
		c:*) type -t -- "${w#c:}" >/dev/null 2>&1 || __kbook_missing+=("$w") ;;
		v:*) [[ -v ${w#v:} ]] || __kbook_missing+=("$w") ;;
		f:*) [[ -e ${w#f:} ]] || __kbook_missing+=("$w") ;;
		esac
	done
	(( ${#__kbook_missing[@]} == 0 ))
}
`

// shellSession is a page's one bash process: its blocks share variables,
// functions, aliases and the working directory, as in a terminal.
type shellSession struct {
	cmd    *exec.Cmd
	stdin  *os.File      // commands, one line per block
	blocks *blockStore   // where the blocks are kept
	mark   string        // starts each block's record on the output pipe
	exited chan struct{} // closed when bash has exited
	err    error         // bash's exit, once exited is closed
	pwd    string        // where the last block ended

	mu  sync.Mutex
	out bytes.Buffer // stdout and stderr, merged as a terminal shows them
	got chan struct{}
	seq int
}

// startShell starts the page's bash in dir with env; blocks is a folder
// for the blocks' files where they cannot be kept in memory.
func startShell(bash, dir, blocks string, env []string, nonce string) (*shellSession, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	s := &shellSession{stdin: inW, blocks: &blockStore{parent: blocks}, mark: "<kbook-end-" + nonce + ">",
		exited: make(chan struct{}), got: make(chan struct{}, 1), pwd: dir}
	s.cmd = exec.Command(bash, "--noprofile", "--norc", "-s")
	s.cmd.Dir, s.cmd.Env = dir, env
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = inR, outW, outW
	s.cmd.ExtraFiles = []*os.File{outW} // fd 3
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = s.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start bash: %w", err)
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := outR.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.got <- struct{}{}:
			default:
			}
			if err != nil {
				outR.Close()
				return
			}
		}
	}()
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	if _, err := s.stdin.WriteString(shellPrologue + "__kbook_mark=" + shellQuote(s.mark) + "\n"); err != nil {
		s.close()
		return nil, fmt.Errorf("start bash: %w", err)
	}
	return s, nil
}

// blockResult is what one block did.
type blockResult struct {
	output string
	exit   int
	pwd    string
	// missing is what the probe found missing (c:NAME, v:NAME,
	// f:PATH): the block did not run.
	missing []string
	// interrupted is set when the block's commands were interrupted
	// because until held: the output it held for then.
	interrupted *string
}

// interruptGrace is how long the commands of a block interrupted with
// SIGINT (as a reader's Ctrl-C) get to end before they are killed.
const interruptGrace = 5 * time.Second

// run runs one block's text (its first line on the page's line first) in
// dir, and returns its output, exit status and working directory after it.
// pre runs first, on the file's first line (a blank line's place): the
// block's variables; then, when probe holds words, the block runs only
// if __kbook_probe finds nothing of them missing. When until is not nil,
// it is asked about the block's output so far (its complete lines) as it
// comes: once it holds, the processes the block started are interrupted
// (SIGINT, then SIGKILL after interruptGrace), not what earlier blocks
// left running, nor the session. Where bash names the block's file in
// what it prints ("FILE: line 12: ..."), page names the page instead.
func (s *shellSession) run(ctx context.Context, pre string, probe []string, text string, first int, dir, page string, until func(string) bool) (blockResult, error) {
	s.seq++
	if len(probe) > 0 {
		q := make([]string, len(probe))
		for i, w := range probe {
			q[i] = shellQuote(w)
		}
		pre += "__kbook_probe " + strings.Join(q, " ") + " || return 0"
	}
	pad := strings.Repeat("\n", max(first-1, 0))
	if pre != "" {
		pad = pre + "\n" + strings.Repeat("\n", max(first-2, 0))
	}
	file, release, err := s.blocks.put(s.seq, pad+text)
	if err != nil {
		return blockResult{}, err
	}
	defer release()
	s.mu.Lock()
	s.out.Reset()
	s.mu.Unlock()
	var before map[int]int // what runs in the session before the block
	var got chan struct{}  // nil unless until watches the output
	if until != nil {
		before, got = proc.Descendants(s.cmd.Process.Pid), s.got
	}
	cd := ""
	if dir != s.pwd {
		cd = dir
	}
	line := "__kbook_step " + shellQuote(file) + " " + shellQuote(cd) + " </dev/null 3>&-;__kbook_done\n"
	if _, err := s.stdin.WriteString(line); err != nil {
		return blockResult{}, s.gone()
	}
	var (
		rec         []string // the block's record, once it is complete
		out         string   // what the block printed, before its record
		interrupted *string
		kill        <-chan time.Time
	)
	for rec == nil {
		all := s.output()
		if rec, out = s.record(all); rec != nil {
			break
		}
		if got != nil {
			if i := strings.LastIndexByte(all, '\n'); i >= 0 && until(all[:i+1]) {
				matched := all[:i+1]
				interrupted, got = &matched, nil
				s.interrupt(before, syscall.SIGINT)
				kill = time.After(interruptGrace)
			}
		}
		select {
		case <-s.got:
		case <-kill:
			s.interrupt(before, syscall.SIGKILL)
		case <-s.exited:
			if rec, out = s.record(s.output()); rec != nil {
				break
			}
			return blockResult{output: s.output()}, s.gone()
		case <-ctx.Done():
			s.close()
			return blockResult{output: s.output()}, context.Cause(ctx)
		}
	}
	exit, err := strconv.Atoi(rec[0])
	if err != nil {
		return blockResult{}, fmt.Errorf("bash session: bad status %q", rec[0])
	}
	if page != "" {
		out = strings.ReplaceAll(out, file+": line ", page+": line ")
	}
	s.pwd = rec[1]
	res := blockResult{output: out, exit: exit, pwd: rec[1], interrupted: interrupted}
	if len(rec) > 2 {
		res.missing = rec[2:]
	}
	return res, nil
}

// record finds the block's record in out: the fields after the mark,
// complete once the empty field that ends them has arrived (nil until
// then), and what the block printed before it.
func (s *shellSession) record(out string) (fields []string, printed string) {
	printed, rest, found := strings.Cut(out, s.mark)
	if !found {
		return nil, ""
	}
	for {
		f, after, ok := strings.Cut(rest, "\x00")
		switch {
		case !ok:
			return nil, ""
		case f == "" && len(fields) >= 2:
			return fields, printed
		}
		fields, rest = append(fields, f), after
	}
}

func (s *shellSession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// interrupt sends sig to the processes below the session that were not
// there before the block (nor started by those that were): what the
// block runs in the foreground, and what it sent to the background.
func (s *shellSession) interrupt(before map[int]int, sig syscall.Signal) {
	bash := s.cmd.Process.Pid
	now := proc.Descendants(bash)
	for pid := range now {
		old := false
		for p := pid; p != bash && p > 1 && !old; p = now[p] {
			_, old = before[p]
		}
		if !old {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// gone says how the session ended under a block.
func (s *shellSession) gone() error {
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return fmt.Errorf("the page's bash session ended (%v): a block ran exit, or bash was killed; the blocks after it cannot run in its state", ee.ProcessState)
	}
	return fmt.Errorf("the page's bash session ended (%v): the blocks after it cannot run in its state", s.err)
}

// close ends bash and whatever the page left running in its process
// group (a port-forward sent to the background), and waits for bash.
func (s *shellSession) close() {
	s.stdin.Close()
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-s.exited
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellStep is the command behind a shell step: it runs the block in the
// page's session, started on the first block with the script's
// environment, then compares the output with the page's expected output.
func shellStep(ts *testscript.TestScript, neg bool, args []string) {
	x, _ := ts.Value(execKey{}).(*execution)
	if x == nil || len(args) != 2 || args[0] != x.plan.nonce || neg {
		ts.Fatalf("%s is reserved for kbook", shellCmd)
	}
	i, err := strconv.Atoi(args[1])
	if err != nil || i < 1 || i > len(x.rb.Steps) || x.rb.Steps[i-1].Shell == nil {
		ts.Fatalf("%s: bad step %q", shellCmd, args[1])
	}
	st := x.rb.Steps[i-1]
	sh := st.Shell
	if err := x.writeBound(ts, st.Line); err != nil {
		x.shellOutcome(st, shellRes{result: report.BlockFailed})
		ts.Fatalf("%v", err)
	}
	if o, ok := x.notHere(ts, st); ok {
		// Skipped, or provided by kbook: it does not run.
		x.shellOutcome(st, o)
		x.didNotRun(st, o)
		return
	}
	if sh.Syntax != nil {
		// A run checks every block's syntax before it starts
		// (runbook.ShellSyntax); a caller that did not still runs
		// nothing that does not parse.
		x.shellOutcome(st, shellRes{result: report.BlockFailed})
		ts.Fatalf("%v", sh.Syntax)
	}
	w := sh.Needs.Watch
	if w != nil && sh.Expected == nil && !w.Ends {
		x.shellOutcome(st, shellRes{result: report.BlockFailed})
		ts.Fatalf("%s (line %d) runs until it is interrupted, and the page shows no output for the block: kbook interrupts such a command once the expected output's last line appears; give the block the output a reader sees, or an overlay rule (run: a command that ends, or skip: the reason)", w.Command, w.Line)
	}
	s, err := x.shell(ts)
	if err != nil {
		x.shellOutcome(st, shellRes{result: report.BlockFailed})
		ts.Fatalf("%v", err)
	}
	var until func(string) bool
	if w != nil {
		until = x.until(sh)
	}
	res, err := s.run(x.cmdCtx, exportLine(sh.Env), x.probe(st), sh.Run, sh.Script[0].Num, ts.MkAbs("."), x.rb.Path, until)
	fmt.Fprint(ts.Stdout(), res.output)
	if err != nil {
		x.shellOutcome(st, shellRes{result: report.BlockFailed, exit: res.exit})
		if w != nil && x.cmdCtx.Err() != nil && x.ctx.Err() == nil && sh.Expected != nil {
			ts.Fatalf("%s (line %d) still ran at the runbook's time limit, and the expected output's last line (%s:%d) had not appeared: %v", w.Command, w.Line, x.rb.Path, sh.Expected.Line+strings.Count(strings.TrimRight(sh.Expected.Text, "\n"), "\n"), err)
		}
		ts.Fatalf("%v", err)
	}
	var stopped string
	if res.interrupted != nil && res.exit != 0 {
		// kbook interrupted it, as a reader's Ctrl-C would: what it
		// printed until then is its output, and its status is not
		// the block's failure.
		stopped = fmt.Sprintf("%s (line %d)", w.Command, w.Line)
		res.output, res.exit = *res.interrupted, 0
	}
	if len(res.missing) > 0 {
		o := x.missing(st, res.missing)
		x.shellOutcome(st, o)
		if o.result == report.BlockFailed {
			ts.Fatalf("%s", o.reason)
		}
		x.didNotRun(st, o)
		return
	}
	x.ran(st)
	if res.pwd != "" {
		// testscript blocks after it run where the shell is, as a
		// reader's next command would.
		_ = ts.Chdir(res.pwd)
	}
	if res.exit != 0 {
		x.shellOutcome(st, shellRes{result: report.BlockFailed, exit: res.exit})
		ts.Fatalf("%s block exited with status %d", sh.Lang, res.exit)
	}
	pass := shellRes{result: report.BlockPassed, by: sh.By, interrupted: stopped}
	if sh.Provided != "" {
		// A stand-in passed: what the page's block does, kbook
		// provides; it is not the page's block that ran.
		pass = shellRes{result: report.BlockProvided, note: sh.Provided, by: sh.By, interrupted: stopped}
	}
	if sh.Expected == nil || sh.Mode == outmatch.Illustrative {
		if sh.Expected != nil && pass.result == report.BlockPassed {
			pass.result = report.BlockRan
		}
		x.shellOutcome(st, pass)
		return
	}
	got := x.masker.Mask(res.output)
	if m := outmatch.Compare(sh.Mode, sh.Expected.Text, got); m != nil {
		if x.r.opts.Update && sh.Mode == outmatch.Exact && sh.Provided == "" && !sh.Standin {
			// --update: the page's expected output becomes what the
			// block printed (masked), written back if the page passes.
			x.mu.Lock()
			x.outputs[st] = got
			x.mu.Unlock()
			x.shellOutcome(st, pass)
			return
		}
		x.shellOutcome(st, shellRes{result: report.BlockFailed})
		at := sh.Expected.Line
		if m.Line > 0 {
			at += m.Line - 1
		}
		ts.Fatalf("output differs from the expected output (%s) at %s:%d: %s", sh.Mode, x.rb.Path, at, m.Why)
	}
	x.shellOutcome(st, pass)
}

// writeBound writes the files the page binds to a block without file=
// (by its title=, or by the prose before it) whose block stands before
// line and that no block before wrote, into the folder the page's
// commands are in (where the last shell block ended), as a reader saves
// the block there at that point of the page. A page that cds into a
// folder before it shows the file finds it there, and a second block of
// the same title writes the file again, as edited. Each is also in
// $WORK from the start, as every runbook file is (the first of a name).
func (x *execution) writeBound(ts *testscript.TestScript, line int) error {
	files := x.rb.Files
	for ; x.written < len(files); x.written++ {
		f := files[x.written]
		if f.Line >= line {
			break
		}
		if f.By == "" {
			continue
		}
		if err := writeFile(ts.MkAbs("."), f); err != nil {
			return fmt.Errorf("write %s (%s:%d, %s): %w", f.Name, x.rb.Path, f.Line, f.By, err)
		}
	}
	return nil
}

// until is when a block that runs a command until it is interrupted has
// printed enough: its output matches the expected output (its last line
// has appeared), or, illustrative, has as many lines. nil when the page
// shows no output for it (kubectl wait without --timeout ends by itself).
func (x *execution) until(sh *runbook.Shell) func(string) bool {
	if sh.Expected == nil {
		return nil
	}
	if sh.Mode == outmatch.Illustrative {
		want := textLines(sh.Expected.Text)
		return func(out string) bool { return textLines(out) >= want }
	}
	return func(out string) bool {
		return outmatch.Compare(sh.Mode, sh.Expected.Text, x.masker.Mask(out)) == nil
	}
}

// textLines counts the lines of s that are not blank.
func textLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// shell returns the page's bash session, started on its first block.
func (x *execution) shell(ts *testscript.TestScript) (*shellSession, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.sh != nil || x.shErr != nil {
		return x.sh, x.shErr
	}
	bash, err := lookPath("bash", x.r.path)
	if err != nil {
		x.shErr = fmt.Errorf("the page runs its shell blocks in bash, and bash is not on PATH")
		return nil, x.shErr
	}
	var env []string
	for _, k := range x.envKeys {
		env = append(env, k+"="+ts.Getenv(k))
	}
	x.sh, x.shErr = startShell(bash, ts.MkAbs("."), filepath.Dir(ts.Getenv("WORK")), env, x.plan.nonce)
	return x.sh, x.shErr
}

// shellOutcome records a shell step's outcome for its result.
func (x *execution) shellOutcome(st *runbook.Step, o shellRes) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.shellRes[st] = o
}

// closeShell ends the page's bash session, if it started.
func (x *execution) closeShell() {
	x.mu.Lock()
	s := x.sh
	x.mu.Unlock()
	if s != nil {
		s.close()
	}
}

// shellRes is a shell step's outcome.
type shellRes struct {
	result string
	exit   int
	// reason is why a skipped block did not run; note what a provided
	// block's overlay or attribute says; by where that was declared;
	// after the line of the block that did not run and that a skipped
	// block depends on.
	reason, note, by string
	after            int
	// interrupted names the command kbook interrupted once the
	// expected output had appeared ("kubectl get pods -w (line 12)").
	interrupted string
}
