package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// shellPrologue is what the page's bash session runs first. bash reads
// its commands from a pipe given as its script (/dev/fd/3, which it moves
// to a descriptor of its own, so the prologue closes 3), two short lines
// per block: "__k" (preceded by "__kbook_file=PATH;" when the block is
// kept somewhere new), then "__e". Its standard input is /dev/null, which
// the blocks' commands inherit without a redirection of their own.
//
// bash reads a pipe a byte at a time (it must not read past the line it
// runs), a read call each, about 0.4 us a byte here. So the lines are
// short, and the prologue is sourced from a file where
// it can be (prologueAt), read in one call: down the pipe, its 700 bytes
// cost about 0.2 ms of each page's start.
//
// __k sources the block from $__kbook_file, padded with blank lines
// so that bash's "line N" is the page's line. set -e would end the
// session at a block's first failure, so an ERR trap stands in for it
// (errtrace: in functions too): inside a function or a sourced file it
// returns the failure, which fails the caller in turn, up to __kbook;
// in a subshell it exits the subshell, as set -e does; at the top level
// it does nothing. The options and the trap are set again for every
// block, which may have changed them.
//
// __e, whose $? is the block's status, writes the block's record
// on descriptor 63 (a copy of the output's pipe, given as 4, high enough
// that a page's own redirections leave it be): the run's mark, then
// NUL-terminated fields: the status, $PWD, what the probe found missing,
// and an empty field. It is the output's pipe, so the record follows all
// the block printed. It is a line of its own, not a command after
// __k's on its line: after some errors in a block (a quote left open
// to the end of the block's file, as a session showed) bash drops the
// rest of the line it was running, and the record would not come: the
// page waited out its time limit. (Closing 63 for
// the blocks' commands would cost two redirections a block; what inherits
// it holds the pipe no longer than what holds stdout, since close stops
// the reading either way.)
//
// Where blocks can run in batches (shellahead.go), the capture is given
// as 5, to append, and 6, to read, which become 62 and 61; kbook's own
// descriptors are read through /proc/$PPID/fd (kbook is bash's parent).
//
// $0 is "bash", as it was when bash read its commands from standard
// input (BASH_ARGV0, bash 5).
const shellPrologue = `exec 3<&- 63>&4 4>&-
{ exec 62>&5 61<&6; } 2>/dev/null; exec 5>&- 6>&-
__kbook_fds=/proc/$PPID/fd/
BASH_ARGV0=bash
shopt -s expand_aliases
__kbook_pid=$BASHPID
__kbook_missing=()
__k() {
	__kbook_missing=()
	set -o pipefail -o errtrace
	trap ` + errTrap + ` ERR
	source "$__kbook_file"
}
__e() {
	printf '%s\0' "$__kbook_mark$?" "$PWD" "${__kbook_missing[@]}" "" >&63
}
__kbook_probe() {
	local w
	for w; do
		case $w in
		c:*) type -t -- "${w#c:}" || __kbook_missing+=("$w") ;;
		v:*) [[ -v ${w#v:} ]] || __kbook_missing+=("$w") ;;
		f:*) [[ -e ${w#f:} ]] || __kbook_missing+=("$w") ;;
		esac
	done
	(( ${#__kbook_missing[@]} == 0 ))
} >/dev/null 2>&1
` + aheadPrologue

// errTrap stands in for set -e in a block (shellPrologue).
// ${FUNCNAME-}: a page may set -u.
const errTrap = `'__kbook_rc=$?; if [[ $BASHPID != "$__kbook_pid" ]]; then exit $__kbook_rc; elif [[ -n ${FUNCNAME-} ]]; then return $__kbook_rc; fi'`

// shellSession is a page's one bash process: its blocks share variables,
// functions, aliases and the working directory, as in a terminal.
//
// The goroutine that runs a block reads bash's output itself, until the
// block's record (a handoff to a reading goroutine cost more than the
// rest of a trivial block). Between blocks a drainer reads it, so that
// what the page sent to the background never blocks on a full pipe; what
// it reads there belongs to no block and is dropped. The drainer starts
// only once the session has waited drainAfter for its next block: a page
// whose blocks follow one another pays no goroutine's start and stop for
// each (a tenth of a trivial block's time), and what a background job
// writes meanwhile waits that long at most.
type shellSession struct {
	cmd    *exec.Cmd
	stdin  *os.File      // bash's commands, one line per block
	outR   *os.File      // bash's stdout and stderr, merged as a terminal shows them
	blocks *blockStore   // where the next block is kept
	file   string        // the path bash sources blocks from ("" before the first)
	mark   []byte        // starts each block's record on the output pipe
	exited chan struct{} // closed when bash has exited
	err    error         // bash's exit, once exited is closed
	pwd    string        // where the last block ended

	out bytes.Buffer // what the running block printed so far
	buf []byte       // read buffer, the running block's or the drainer's
	// mu guards drain, armed and closed: close may come from another
	// goroutine than run's (a runbook's time limit abandons its
	// script), and drainLater's from a timer's.
	mu         sync.Mutex
	drain      chan struct{} // closed when the drainer has stopped; nil when none runs
	stop       atomic.Bool   // asks the drainer to stop
	drainLater *time.Timer   // starts the drainer, once armed for drainAfter
	armed      bool          // drainLater is to start the drainer when it fires
	closed     bool          // by close: nothing reads the output any more

	// early is set on a session started before the runbook's
	// environment was known (startEarly), until adopt gives it that;
	// setup is what adopt leaves for the next block to run first.
	early bool
	setup string
	// reset is what bash is to run before the next line sent: the
	// session made ready again after a batch ended early (shellahead.go).
	reset string

	ahead aheadState
}

// startShell starts the page's bash in dir with env.
func startShell(bash, dir string, env []string, nonce string) (*shellSession, error) {
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
	s := &shellSession{stdin: inW, outR: outR, blocks: newBlockStore(), mark: []byte("<kbook-end-" + nonce + ">"),
		exited: make(chan struct{}), pwd: dir, buf: make([]byte, 32<<10)}
	s.cmd = exec.Command(bash, "--noprofile", "--norc", "/dev/fd/3")
	s.cmd.Dir, s.cmd.Env = dir, env
	s.cmd.Stdout, s.cmd.Stderr = outW, outW
	s.cmd.ExtraFiles = []*os.File{inR, outW} // fd 3, fd 4
	capW, capR := s.openCapture()
	if capW != nil {
		s.cmd.ExtraFiles = append(s.cmd.ExtraFiles, capW, capR) // fd 5, fd 6
	}
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = s.cmd.Start()
	inR.Close()
	outW.Close()
	if capW != nil {
		capW.Close()
		capR.Close()
	}
	if err != nil {
		inW.Close()
		outR.Close()
		s.blocks.close()
		if c := s.ahead.capture; c != nil {
			c.Close()
		}
		return nil, fmt.Errorf("start bash: %w", err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
		s.wake() // a block's read, or the drainer's, ends
	}()
	s.armDrain()
	first := shellPrologue
	if at, ok := prologueAt(); ok {
		first = ". " + shellQuote(at) + "\n"
	}
	if _, err := s.stdin.WriteString(first + "__kbook_mark=" + shellQuote(string(s.mark)) + "\n"); err != nil {
		s.close()
		return nil, fmt.Errorf("start bash: %w", err)
	}
	return s, nil
}

// openCapture makes the memfd a batch's blocks print to (shellahead.go),
// and opens it for bash twice: to append, and to read from its start.
// Where it cannot, blocks run one at a time.
func (s *shellSession) openCapture() (w, r *os.File) {
	if !aheadShells {
		return nil, nil
	}
	f, at, ok := openMemory()
	if !ok {
		return nil, nil
	}
	w, err := os.OpenFile(at, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		f.Close()
		return nil, nil
	}
	r, err = os.Open(at)
	if err != nil {
		f.Close()
		w.Close()
		return nil, nil
	}
	s.ahead.capture, s.ahead.capAt = f, at
	return w, r
}

// wake ends a read of bash's output now, for the reader to see why (the
// run cancelled, bash exited). The reader sets its deadline again, then
// looks: what woke it before is seen then, what wakes it after ends the
// next read.
func (s *shellSession) wake() { _ = s.outR.SetReadDeadline(time.Unix(1, 0)) }

// drainAfter is how long the session waits for its next block before
// the drainer starts reading its output.
const drainAfter = time.Millisecond

// armDrain starts the drainer after drainAfter, unless a block (or close)
// comes first: stopDrain disarms it.
func (s *shellSession) armDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.armed = true
	if s.drainLater == nil {
		s.drainLater = time.AfterFunc(drainAfter, s.startDrain)
		return
	}
	s.drainLater.Reset(drainAfter)
}

// startDrain starts the drainer, which reads bash's output between
// blocks until stopDrain, or until bash's output ends, if it is still
// armed (armDrain).
func (s *shellSession) startDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !s.armed || s.drain != nil {
		return
	}
	s.armed = false
	s.stop.Store(false)
	done := make(chan struct{})
	s.drain = done
	go func() {
		defer close(done)
		for {
			_, err := s.outR.Read(s.buf)
			if err == nil {
				continue
			}
			if s.stop.Load() || !errors.Is(err, os.ErrDeadlineExceeded) {
				return
			}
			select {
			case <-s.exited:
				return
			default: // woken by a cancelled run: go on until stopped
				_ = s.outR.SetReadDeadline(time.Time{})
			}
		}
	}()
}

// stopDrain disarms the drainer, or stops it if it runs, and waits for
// it.
func (s *shellSession) stopDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.armed {
		// Whether the timer has fired or not, startDrain sees it
		// disarmed, under mu.
		s.armed = false
		s.drainLater.Stop()
	}
	if s.drain == nil {
		return
	}
	s.stop.Store(true)
	s.wake()
	<-s.drain
	s.drain = nil
	_ = s.outR.SetReadDeadline(time.Time{})
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
	// matched is set when the block ran in a batch and printed its
	// expected output as expect gives it.
	matched bool
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
	file, err := s.blocks.put(s.blockText(pre, probe, text, first, dir))
	if err != nil {
		return blockResult{}, err
	}
	s.stopDrain()
	defer s.armDrain()
	var before map[int]int // what runs in the session before the block
	if until != nil {
		before = proc.Descendants(s.cmd.Process.Pid)
	}
	line := "__k\n__e\n"
	if file != s.file {
		line, s.file = "__kbook_file="+shellQuote(file)+";"+line, file
	}
	if err := s.send(line); err != nil {
		return blockResult{}, err
	}
	s.out.Reset()
	rec, out, interrupted, err := s.await(ctx, until, before)
	if err != nil {
		return blockResult{output: out}, err
	}
	return s.result(rec, out, file, page, interrupted)
}

// blockText is what bash sources for a block: its first line
// (blockPre), then the block's text from its line first on, as run
// describes.
func (s *shellSession) blockText(pre string, probe []string, text string, first int, dir string) string {
	if pre = s.blockPre(pre, probe, dir); pre != "" {
		return pre + "\n" + strings.Repeat("\n", max(first-2, 0)) + text
	}
	return strings.Repeat("\n", max(first-1, 0)) + text
}

// blockPre is what runs before a block, on one line: what the session's
// setup left, a cd to dir if the session is elsewhere, pre, and the probe.
func (s *shellSession) blockPre(pre string, probe []string, dir string) string {
	if s.setup != "" {
		pre, s.setup = s.setup+pre, ""
	}
	if dir != s.pwd {
		pre = "cd -- " + shellQuote(dir) + " || return; " + pre
	}
	if len(probe) > 0 {
		q := make([]string, len(probe))
		for i, w := range probe {
			q[i] = shellQuote(w)
		}
		pre += "__kbook_probe " + strings.Join(q, " ") + " || return 0"
	}
	return pre
}

// send writes line, what bash is to run next, with what the session
// must do first (reset) before it.
func (s *shellSession) send(line string) error {
	if s.reset != "" {
		line, s.reset = s.reset+line, ""
	}
	if _, err := s.stdin.WriteString(line); err != nil {
		return s.gone()
	}
	return nil
}

// await reads bash's output until the next block's record: its fields,
// and what was printed before it; what came after the record stays for
// the next (the next block of a batch). until and before are run's.
func (s *shellSession) await(ctx context.Context, until func(string) bool, before map[int]int) (rec []string, out string, interrupted *string, err error) {
	defer context.AfterFunc(ctx, s.wake)()
	var kill time.Time // when the interrupted commands are killed
	for {
		if rec, out = s.record(); rec != nil {
			return rec, out, interrupted, nil
		}
		if until != nil && interrupted == nil {
			all := s.out.Bytes()
			if i := bytes.LastIndexByte(all, '\n'); i >= 0 && until(string(all[:i+1])) {
				matched := string(all[:i+1])
				interrupted = &matched
				s.interrupt(before, syscall.SIGINT)
				kill = time.Now().Add(interruptGrace)
			}
		}
		// The deadline first, then what a wake would be for (wake).
		_ = s.outR.SetReadDeadline(kill)
		if !kill.IsZero() && !time.Now().Before(kill) {
			s.interrupt(before, syscall.SIGKILL)
			kill = time.Time{}
			continue
		}
		if ctx.Err() != nil {
			s.close()
			return nil, s.out.String(), nil, context.Cause(ctx)
		}
		select {
		case <-s.exited:
			s.readReady()
			if rec, out = s.record(); rec != nil {
				return rec, out, interrupted, nil
			}
			return nil, s.out.String(), nil, s.gone()
		default:
		}
		n, err := s.outR.Read(s.buf)
		s.out.Write(s.buf[:n])
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			// The output's end: every writer is gone, so bash
			// has exited (its record would have come first).
			select {
			case <-s.exited:
			case <-ctx.Done():
			}
		}
	}
}

// result is the block's result from its record and output.
func (s *shellSession) result(rec []string, out, file, page string, interrupted *string) (blockResult, error) {
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

// record finds the block's record in what it printed: the fields after
// the mark, complete once the empty field that ends them has arrived (nil
// until then), and what the block printed before it. It takes both from
// s.out, leaving what came after.
func (s *shellSession) record() (fields []string, printed string) {
	all := s.out.Bytes()
	i := bytes.Index(all, s.mark)
	if i < 0 {
		return nil, ""
	}
	rest := all[i+len(s.mark):]
	for {
		f, after, ok := bytes.Cut(rest, []byte{0})
		switch {
		case !ok:
			return nil, ""
		case len(f) == 0 && len(fields) >= 2:
			printed = string(all[:i])
			s.out.Next(len(all) - len(after))
			return fields, printed
		}
		fields, rest = append(fields, string(f)), after
	}
}

// readReady reads what bash's output holds now, without waiting: bash
// has exited, and what it left running may hold the pipe open.
func (s *shellSession) readReady() {
	rc, err := s.outR.SyscallConn()
	if err != nil {
		return
	}
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), s.buf)
			return true
		}); err != nil || rerr != nil || n <= 0 {
			return
		}
		s.out.Write(s.buf[:n])
	}
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

// kill ends bash and whatever the page left running in its process
// group, without waiting: close, after, waits for bash.
func (s *shellSession) kill() {
	s.stdin.Close()
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// close ends bash and whatever the page left running in its process
// group (a port-forward sent to the background), and waits for bash.
func (s *shellSession) close() {
	s.mu.Lock()
	closed := s.closed
	s.closed = true
	s.mu.Unlock()
	if closed {
		return
	}
	s.kill()
	<-s.exited
	// What the page left may hold the output open: the drainer stops
	// all the same.
	s.stopDrain()
	s.outR.Close()
	s.blocks.close()
	s.mu.Lock()
	if c := s.ahead.capture; c != nil {
		// A batch's own memfd is closed by the script's goroutine
		// (awaitAhead), or freed with its file.
		c.Close()
	}
	s.mu.Unlock()
}

// shellStart is startShell; tests count the sessions started.
var shellStart = startShell

// earlyShells is whether pages start their bash early (startEarly);
// tests turn it off, to compare.
var earlyShells = true

// earlyDir is where a session started early waits for its first block.
const earlyDir = "/"

// testscriptOddVars are the variables testscript gives every script whose
// names bash cannot assign ("/", ":" and "$", testscript.Env). bash passes
// such names on to what it runs only from the environment it started
// with, so a session started early is given them then; if testscript
// gave others, the session would be started again (adopt).
func testscriptOddVars() []string {
	return []string{"/=" + string(os.PathSeparator), ":=" + string(os.PathListSeparator), "$=$"}
}

// adopt gives a session started early the environment and folder its
// first block runs with, as what that block runs first: the variables
// exported, then a cd, after which OLDPWD is as bash has it when it
// starts in a folder (exported, unset). It returns false where env
// cannot be given so: a variable bash takes specially from the
// environment it starts with (bashStartVar), a name bash cannot assign
// other than testscriptOddVars, or those with other values.
func (s *shellSession) adopt(env []string, dir string) bool {
	odd := testscriptOddVars()
	var b strings.Builder
	seen := 0
	for _, kv := range env {
		if slices.Contains(odd, kv) {
			seen++
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if !shellName.MatchString(k) || bashStartVar(k) {
			return false
		}
		b.WriteString("export " + k + "=" + shellQuote(v) + "; ")
	}
	if seen != len(odd) {
		return false
	}
	b.WriteString("cd -- " + shellQuote(dir) + " || return; unset -v OLDPWD; declare -gx OLDPWD; ")
	s.setup, s.pwd, s.early = b.String(), dir, false
	return true
}

// shellName is a name bash can assign.
var shellName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// bashStartVar reports whether bash takes variable k from the environment
// it starts with otherwise than as an exported variable set later: its
// options and start files, variables it sets or counts itself, and those
// it will not import.
func bashStartVar(k string) bool {
	if strings.HasPrefix(k, "BASH") {
		return true
	}
	switch k {
	case "SHELLOPTS", "ENV", "POSIXLY_CORRECT", "SHLVL", "PWD", "OLDPWD", "IFS", "PS4",
		"UID", "EUID", "PPID", "GROUPS", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "_",
		"LINENO", "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME",
		"HISTCMD", "FUNCNAME", "DIRSTACK", "PIPESTATUS", "COMP_WORDBREAKS":
		return true
	}
	return false
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellStep is the command behind a shell step: it runs the block in the
// page's session, which the first block gives the script's environment
// (x.shell), then compares the output with the page's expected output.
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
	if sh.Needs.Pipe != 0 {
		s.ahead.off = true
	}
	var res blockResult
	ahead := false
	if w == nil {
		res, ahead, err = x.runAhead(ts, s, st)
	}
	if !ahead {
		res, err = s.run(x.cmdCtx, x.envChanges(ts)+exportLine(sh.Env), x.probe(st), sh.Run, sh.Script[0].Num, ts.MkAbs("."), x.rb.Path, until)
	}
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
	if res.pwd != "" && res.pwd != ts.MkAbs(".") {
		// testscript blocks after it run where the shell is, as a
		// reader's next command would. (Chdir stats the folder: not
		// for each block that stays where it was.)
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
	if res.matched {
		// It printed the one output its batch was given, with which
		// the check passes (expect): the check is made.
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

// shell returns the page's bash session for its first block: the one
// started early, given the script's environment and folder then (adopt),
// or else one started now with them.
func (x *execution) shell(ts *testscript.TestScript) (*shellSession, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.takeEarly()
	var env []string
	if (x.sh == nil && x.shErr == nil) || (x.sh != nil && x.sh.early) {
		x.given, x.scriptRan = map[string]string{}, false
		for _, k := range x.envKeys {
			v := ts.Getenv(k)
			env, x.given[k] = append(env, k+"="+v), v
		}
		for _, k := range x.plan.envNames {
			// Set by the page's env commands that ran so far.
			if _, ok := x.given[k]; !ok {
				if v := ts.Getenv(k); v != "" {
					env, x.given[k] = append(env, k+"="+v), v
				}
			}
		}
	}
	if x.sh != nil && x.sh.early {
		if x.sh.adopt(env, ts.MkAbs(".")) {
			x.sh.blocks.parent = filepath.Dir(ts.Getenv("WORK"))
			return x.sh, nil
		}
		x.sh.close()
		x.sh = nil
	}
	if x.sh != nil || x.shErr != nil {
		return x.sh, x.shErr
	}
	bash, err := x.r.bash()
	if err != nil {
		x.shErr = fmt.Errorf("the page runs its shell blocks in bash, and bash is not on PATH")
		return nil, x.shErr
	}
	x.sh, x.shErr = shellStart(bash, ts.MkAbs("."), env, x.plan.nonce)
	if x.sh != nil {
		x.sh.blocks.parent = filepath.Dir(ts.Getenv("WORK"))
	}
	return x.sh, x.shErr
}

// envChanges is what the page's bash session is to export before its
// next block: the script's variables (those it had at setup, and those
// its env commands set) whose values changed since the session was last
// given them, by a testscript command since its last block. What a
// block itself set stays, unless a testscript command set it after.
func (x *execution) envChanges(ts *testscript.TestScript) string {
	if !x.scriptRan {
		return ""
	}
	x.scriptRan = false
	var b strings.Builder
	change := func(k string) {
		v := ts.Getenv(k)
		if old, ok := x.given[k]; (ok && old == v) || (!ok && v == "") || !shellName.MatchString(k) || bashStartVar(k) {
			return
		}
		x.given[k] = v
		b.WriteString("export " + k + "=" + shellQuote(v) + "; ")
	}
	for _, k := range x.envKeys {
		change(k)
	}
	for _, k := range x.plan.envNames {
		change(k)
	}
	return b.String()
}

// shellOutcome records a shell step's outcome for its result.
func (x *execution) shellOutcome(st *runbook.Step, o shellRes) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.shellRes[st] = o
}

// startEarly starts the page's bash before the runbook's work directory
// and environment exist, in earlyDir with testscript's odd variables
// only, so that bash's start (a millisecond) overlaps the runbook's setup
// rather than delaying its first block; the first block gives it the
// environment and folder (shell, adopt). Where it cannot start, nothing
// is said: the first block starts bash again, and says why it cannot.
func (x *execution) startEarly() {
	if !earlyShells {
		return
	}
	// Starting a process holds the goroutine a good part of a
	// millisecond: the runbook's setup goes on meanwhile.
	early := make(chan *shellSession, 1)
	x.early = early
	go func() {
		bash, err := x.r.bash()
		if err != nil {
			early <- nil
			return
		}
		s, err := shellStart(bash, earlyDir, testscriptOddVars(), x.plan.nonce)
		if err != nil {
			early <- nil
			return
		}
		s.early = true
		early <- s
	}()
	// The goroutine starts bash now, not once another processor
	// looks for work (a quarter of a millisecond, here).
	runtime.Gosched()
}

// takeEarly waits for the session startEarly starts, if it did, and makes
// it the page's; the caller holds x.mu.
func (x *execution) takeEarly() {
	if x.early == nil {
		return
	}
	if s := <-x.early; s != nil {
		x.sh = s
	}
	x.early = nil
}

// closeShell ends the page's bash session, if it started.
func (x *execution) closeShell() {
	if s := x.bashSession(); s != nil {
		s.close()
	}
}

// killShell ends the page's bash session without waiting for it; a
// closeShell after waits.
func (x *execution) killShell() {
	if s := x.bashSession(); s != nil {
		s.kill()
	}
}

// bashSession is the page's bash session, nil if none started.
func (x *execution) bashSession() *shellSession {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.takeEarly()
	return x.sh
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

// prologueAt is the path bash sources shellPrologue from: a memfd this
// process keeps for its life, written once. ok is false where there is no
// memfd; the prologue then goes down the pipe. Tests make it refuse.
var prologueAt = func() (string, bool) {
	f, at := prologueMem()
	return at, f != nil
}

// prologueMem is the memfd holding shellPrologue and the path bash opens
// it by (nil, "" where there is none); sync.OnceValues keeps both, so the
// memfd stays open for the process's life.
var prologueMem = sync.OnceValues(func() (*os.File, string) {
	f, at, ok := openMemory()
	if !ok {
		return nil, ""
	}
	if _, err := f.WriteString(shellPrologue); err != nil {
		f.Close()
		return nil, ""
	}
	return f, at
})
