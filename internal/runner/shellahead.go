package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/k0rdent/kbook/internal/outmatch"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
)

// Blocks run together.
//
// One block at a time costs a round trip between kbook and bash for each
// block (the line, the output, the record, each waking the other
// process), and bash's own work around it: a function, its redirections,
// the options and the trap set again, a file opened and sourced. So the
// blocks that follow one another on a page, where kbook has nothing to
// decide between them, are written into one file, each at its page's
// lines as one block's file holds it, that bash sources once (a batch);
// kbook reads each block's record as it comes while bash runs the next.
//
// No block may run after one whose output differs from the page's, as
// one at a time. So bash checks each block of a batch before it goes on:
// the batch's output goes to a memfd (the capture) instead of the pipe,
// and the line between two blocks (check) reads what the block printed
// and compares it with the one output with which kbook's own check passes
// (expect). Any other outcome (a
// status other than 0, something the probe found missing, another
// output, or no output to compare: a block without expected output, or
// one whose expected output no single text stands for) ends the batch
// there: kbook decides about that block as it would about one run alone,
// from what it printed, and the blocks after it run at their steps.
//
// What kbook decides between blocks, it must be able to decide before
// the block before has run: a block joins a batch only when nothing of it
// depends on what the blocks before it leave beyond the session (see
// aheadable), on a page whose blocks so far leave nothing running that
// may write to the output (runbook.Needs.Pipe).

// aheadShells is whether pages run blocks in batches; tests turn it
// off, to compare.
var aheadShells = true

// aheadMax is the most blocks one batch holds.
const aheadMax = 64

// batchSent is told the lines of each batch's blocks; tests set it.
var batchSent func(lines []int)

// aheadState is a session's batch.
type aheadState struct {
	blocks  []*aheadBlock // the batch's blocks whose records are not read yet
	mem     *os.File      // the batch's text
	at      string        // the path bash sources it from
	capture *os.File      // the blocks' output, appended in turn (nil: no batches)
	capAt   string        // the path bash opens the capture by
	capOff  int64         // where the next block's output starts
	off     bool          // the page has run a block with Needs.Pipe
}

// aheadBlock is one block of a batch.
type aheadBlock struct {
	st *runbook.Step
	// expect is the output that lets bash run the next block; nil when
	// the batch ends after this one.
	expect *string
}

// aheadPrologue defines what runs a batch: __a sources it (its memfd's
// descriptor in kbook's process, $1) with its output in the capture (62,
// opened for appending; 61 reads it), as __k sources one block; __b
// writes the record of the block that ended the batch (__kbook_i of
// __kbook_n), if one did: a failure, which the ERR trap returns from the
// batch with, the probe, the block's own return, or the check between
// two blocks (sendBatch). A batch's records carry a letter before the
// status: m, the block printed what kbook gave and ended with status 0;
// d, it did not, and the batch ended there.
const aheadPrologue = `__a() {
	__kbook_batch=$__kbook_fds$1 __kbook_i=0 __kbook_n=$2
	__kbook_missing=()
	set -o pipefail -o errtrace
	trap ` + errTrap + ` ERR
	source "$__kbook_batch"
} >&62 2>&1
__b() {
	__kbook_rc=$?
	(( __kbook_i > __kbook_n )) || printf '%s\0' "${__kbook_mark}d$__kbook_rc" "$PWD" "${__kbook_missing[@]}" "" >&63
}
`

// aheadable is whether st may join a batch: a block that runs as it is,
// whose output no command of it streams to kbook (Watch), that leaves
// nothing running that may write to the output (Pipe), and which notHere
// can tell runs before the blocks before it have run: none of what it
// decides on the block's folder, files or the run's cluster applies to
// it.
func (x *execution) aheadable(st *runbook.Step) bool {
	sh := st.Shell
	n := &sh.Needs
	k := &n.Kube
	switch {
	case !aheadShells, sh.Syntax != nil, sh.Run == "", n.Watch != nil, n.Pipe != 0,
		// The next line would continue its last.
		strings.HasSuffix(strings.TrimRight(sh.Run, "\n"), "\\"),
		// A stand-in's lines are the overlay's, not the page's.
		sh.Skip != "", sh.Provided != "", sh.Standin,
		n.Sudo > 0, len(n.Fetches) > 0 && x.r.opts.Offline, n.NotCommand != "", n.Human != "", len(n.Homes) > 0,
		len(n.Checkouts) > 0, len(n.Paths) > 0, len(n.Hosts) > 0, len(n.Listens) > 0, n.Docker > 0,
		n.Kubeconfig.Name != "", len(k.Reads) > 0,
		!k.Installs && (len(k.Types) > 0 || len(k.Kinds) > 0 || len(k.Files) > 0 || len(k.Namespaces) > 0 || k.Nodes != ""):
		return false
	}
	for _, w := range n.Words {
		if strings.HasPrefix(w, "/") && system(w) {
			return false
		}
	}
	for _, w := range n.Writes {
		if system(w) {
			return false
		}
	}
	return true
}

// expect is the one output with which st's output check passes, nil
// when there is none (no expected output, illustrative, or none that is
// one text: the check then decides).
func (x *execution) expect(st *runbook.Step) *string {
	e, ok := x.expects[st]
	if !ok {
		e = x.expectNew(st)
		if x.expects == nil {
			x.expects = map[*runbook.Step]*string{}
		}
		x.expects[st] = e
	}
	return e
}

func (x *execution) expectNew(st *runbook.Step) *string {
	sh := st.Shell
	if sh.Expected == nil || sh.Mode == outmatch.Illustrative {
		return nil
	}
	e := strings.TrimRight(sh.Expected.Text, "\n")
	if e != "" {
		e += "\n"
	}
	if strings.ContainsRune(e, 0) || outmatch.Compare(sh.Mode, sh.Expected.Text, x.masker.Mask(e)) != nil {
		return nil
	}
	return &e
}

// runAhead runs st in a batch: the next block of the batch running, or a
// new batch of st and the blocks after it that can join it. It returns
// false when st runs alone (run).
func (x *execution) runAhead(ts *testscript.TestScript, s *shellSession, st *runbook.Step) (blockResult, bool, error) {
	a := &s.ahead
	if len(a.blocks) == 0 {
		if a.capture == nil || a.off || !x.aheadable(st) {
			return blockResult{}, false, nil
		}
		batch := x.batch(st)
		if len(batch) < 2 {
			return blockResult{}, false, nil
		}
		if err := x.sendBatch(ts, s, batch); err != nil {
			return blockResult{}, true, err
		}
	} else if a.blocks[0].st != st {
		s.close()
		return blockResult{}, true, fmt.Errorf("bash session: the block at line %d runs in a batch, and the block at line %d came before it", a.blocks[0].st.Line, st.Line)
	}
	return s.awaitAhead(x.cmdCtx, x.rb.Path)
}

// batch is st and the blocks after it that can run with it: each the
// next the script runs, aheadable, with no file the page binds to a
// block to write before it (writeBound), after a block with an output to
// compare, and with a line to spare before it in the batch's file.
func (x *execution) batch(st *runbook.Step) []*runbook.Step {
	batch := []*runbook.Step{st}
	for len(batch) < aheadMax {
		last := batch[len(batch)-1]
		next := x.plan.next[last]
		if next == nil || x.expect(last) == nil || !x.aheadable(next) || x.boundBefore(next) ||
			next.Shell.Script[0].Num-1 <= blockEnd(last) {
			break
		}
		batch = append(batch, next)
	}
	return batch
}

// blockEnd is the page's line of st's last command, as the batch's file
// holds it.
func blockEnd(st *runbook.Step) int {
	sh := st.Shell
	return sh.Script[0].Num + len(sh.Script) - 1
}

// boundBefore is whether a file the page binds to a block is still to be
// written before st (writeBound), which only st's step does.
func (x *execution) boundBefore(st *runbook.Step) bool {
	for _, f := range x.rb.Files[x.written:] {
		if f.By != "" && f.Line < st.Line {
			return true
		}
	}
	return false
}

// sendBatch writes the batch's file and has bash source it. The line
// before each block checks the block before it (check), gives the
// block's number, and has what one block's file has on its first line
// (blockPre: pre, the probe); the line after the last block checks it.
// The first block's line also has the script's variables that changed,
// and the session's setup; the options and the ERR trap are set again
// after a block that may have changed them.
func (x *execution) sendBatch(ts *testscript.TestScript, s *shellSession, batch []*runbook.Step) error {
	a := &s.ahead
	var b strings.Builder
	line := 0 // the lines b holds
	also := map[string][]string{}
	for i, st := range batch {
		sh := st.Shell
		blk := &aheadBlock{st: st, expect: x.expect(st)}
		a.blocks = append(a.blocks, blk)
		var pre strings.Builder
		if i > 0 {
			pre.WriteString(check(a.blocks[i-1].expect))
			if mayReset(batch[i-1], x.pageFuncs()) {
				pre.WriteString("set -o pipefail -o errtrace;trap " + errTrap + " ERR;")
			}
		}
		fmt.Fprintf(&pre, "__kbook_i=%d;", i+1)
		dir := s.pwd
		probe := x.probeWith(st, also)
		env := exportLine(sh.Env)
		if i == 0 {
			dir, env = ts.MkAbs("."), x.envChanges(ts)+env
		}
		first := sh.Script[0].Num
		b.WriteString(strings.Repeat("\n", max(first-2-line, 0)))
		b.WriteString(s.blockPre(pre.String()+env, probe, dir) + "\n")
		b.WriteString(sh.Run)
		line = blockEnd(st)
		for f, cmds := range sh.Needs.FuncNeeds {
			also[f] = cmds
		}
	}
	b.WriteString(check(a.blocks[len(batch)-1].expect) + fmt.Sprintf("__kbook_i=%d\n", len(batch)+1))
	f, at, ok := openMemory()
	if !ok {
		a.blocks = nil
		return fmt.Errorf("bash session: no memory file for the blocks")
	}
	if _, err := f.WriteString(b.String()); err != nil {
		a.blocks = nil
		f.Close()
		return err
	}
	a.mem, a.at = f, at
	if batchSent != nil {
		lines := make([]int, len(batch))
		for i, st := range batch {
			lines[i] = st.Line
		}
		batchSent(lines)
	}
	s.stopDrain()
	s.out.Reset() // as run does: what came before belongs to no block
	return s.send("__a " + strconv.Itoa(int(f.Fd())) + " " + strconv.Itoa(len(batch)) + "\n__b\n")
}

// check is what follows a block in its batch: the batch goes on only if
// the block ended with status 0 and printed expect, in full (read stops
// at a NUL: the output then differs), and writes the block's record.
func check(expect *string) string {
	if expect == nil {
		return "__kbook_rc=$?;return $__kbook_rc;"
	}
	return "__kbook_rc=$?;{ ((__kbook_rc==0))&&! IFS= read -r -d '' -u 61 __kbook_o&&[[ $__kbook_o == " + ansiQuote(*expect) + " ]];}||return $__kbook_rc;" +
		`printf '%s\0' "${__kbook_mark}m0" "$PWD" "" >&63;`
}

// mayReset is whether st may change the session's options or ERR trap
// (set, shopt, trap, or a function or alias of the page), which the next
// block of its batch then sets again, as __k does for every block.
func mayReset(st *runbook.Step, funcs map[string]bool) bool {
	for _, c := range st.Shell.Needs.Commands {
		if c == "set" || c == "shopt" || c == "trap" || funcs[c] {
			return true
		}
	}
	return false
}

// ansiQuote quotes s for bash as $'...', on one line.
func ansiQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// pageFuncs are the functions and aliases the page's blocks define.
func (x *execution) pageFuncs() map[string]bool {
	if x.funcs == nil {
		x.funcs = map[string]bool{}
		for _, st := range x.rb.Steps {
			if st.Shell != nil {
				for _, f := range st.Shell.Needs.Funcs {
					x.funcs[f] = true
				}
			}
		}
	}
	return x.funcs
}

// awaitAhead reads the record of the batch's next block, and returns its
// result. Where the batch ended there, its blocks after it did not run:
// they run at their steps.
func (s *shellSession) awaitAhead(ctx context.Context, page string) (blockResult, bool, error) {
	a := &s.ahead
	b := a.blocks[0]
	a.blocks = a.blocks[1:]
	rec, out, _, err := s.await(ctx, nil, nil)
	// fail ends the session (await may have ended it already) and the
	// batch with it.
	fail := func(err error) (blockResult, bool, error) {
		s.close()
		a.blocks = nil
		a.mem.Close()
		a.mem = nil
		return blockResult{output: out}, true, err
	}
	if err != nil {
		return fail(err)
	}
	flag, status := rec[0][:min(1, len(rec[0]))], rec[0][min(1, len(rec[0])):]
	rec[0] = status
	switch flag {
	case "m":
		out += *b.expect
		a.capOff += int64(len(*b.expect))
	case "d":
		// The batch ended: what the block printed is all the
		// capture holds from its start, as nothing ran after it.
		printed, err := io.ReadAll(io.NewSectionReader(a.capture, a.capOff, 1<<62))
		if err != nil {
			return fail(err)
		}
		out += string(printed)
		a.blocks = nil
		if err := a.capture.Truncate(0); err != nil {
			return fail(err)
		}
		// 61 read up to where the comparison stopped.
		a.capOff, s.reset = 0, "exec 61<"+shellQuote(a.capAt)+";"
	default:
		return fail(fmt.Errorf("bash session: bad record %q for the block at line %d", flag+status, b.st.Line))
	}
	at := a.at
	if len(a.blocks) == 0 {
		a.mem.Close()
		a.mem = nil
		s.armDrain()
	}
	res, err := s.result(rec, out, at, page, nil)
	res.matched = flag == "m"
	return res, true, err
}
