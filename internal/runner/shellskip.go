package runner

import (
	"fmt"
	"os"
	"os/user"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
)

// pageShell is what the runner knows of a page's shell blocks as they
// run: what the blocks that did not run (skipped, provided by kbook)
// would have left, and the commands of the page's functions and aliases.
type pageShell struct {
	// lost maps "v:NAME", "f:PATH" and "c:NAME" (a function or alias)
	// to the line of the last block that did not run and would have
	// set, written or defined it.
	lost map[string]int
	// funcNeeds are the commands each function or alias of the blocks
	// that ran needs.
	funcNeeds map[string][]string
}

// isRoot is whether kbook runs as root (sudo is then nothing more).
var isRoot = os.Geteuid() == 0

// notHere decides, before it runs, whether a block cannot run here: it
// is declared skipped or provided (without a stand-in), it runs sudo
// and the run is not root, it downloads and the run is --offline, or
// the run's cluster lacks what it asks of it (clusterLacks).
func (x *execution) notHere(ts *testscript.TestScript, st *runbook.Step) (shellRes, bool) {
	sh := st.Shell
	switch {
	case sh.Skip != "" && sh.By == "":
		return shellRes{result: report.BlockSkipped, reason: sh.Skip}, true
	case sh.Skip != "":
		return shellRes{result: report.BlockSkipped, reason: sh.Skip + " (" + sh.By + ")", by: sh.By}, true
	case sh.Provided != "" && !sh.Standin:
		return shellRes{result: report.BlockProvided, note: sh.Provided, by: sh.By}, true
	case sh.Needs.Sudo > 0 && !isRoot:
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("runs sudo (line %d), and this run is not root: kbook runs no page's commands as another user", sh.Needs.Sudo)}, true
	case len(sh.Needs.Fetches) > 0 && x.r.opts.Offline:
		f := sh.Needs.Fetches[0]
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("downloads from the internet (%s, line %d), and this run is --offline", f.What, f.Line)}, true
	case sh.Needs.NotCommand != "":
		return shellRes{result: report.BlockSkipped, reason: sh.Needs.NotCommand + " in a " + sh.Lang + " block: not for a terminal (a sample, or what a reader opens elsewhere)"}, true
	case sh.Needs.Human != "":
		return shellRes{result: report.BlockSkipped, reason: "needs a human: " + sh.Needs.Human}, true
	}
	for _, h := range sh.Needs.Homes {
		if _, err := user.Lookup(h.Name); err != nil {
			return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("uses the home folder of user %s (~%s, line %d), whom this machine does not have: the files of the page's author", h.Name, h.Name, h.Line)}, true
		}
	}
	if o, ok := x.filesLack(ts, st); ok {
		return o, true
	}
	return x.clusterLacks(ts, st)
}

// probe lists what the page's session must have for the block to run:
// its commands (and those of the page's functions it calls), and what
// it uses that only a block that did not run would have made.
func (x *execution) probe(st *runbook.Step) []string { return x.probeWith(st, nil) }

// probeWith is probe where the blocks of st's batch before it define the
// functions and aliases in also (they will have run when st runs).
func (x *execution) probeWith(st *runbook.Step, also map[string][]string) []string {
	n := &st.Shell.Needs
	p := x.page()
	var words []string
	seen := map[string]bool{}
	addWord := func(w string) {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for _, c := range n.Commands {
		if !runbook.IsBashBuiltin(c) {
			// bash's own: never missing.
			addWord("c:" + c)
		}
		needs, ok := also[c]
		if !ok {
			needs = p.funcNeeds[c]
		}
		for _, d := range needs {
			addWord("c:" + d)
		}
	}
	for _, v := range n.Vars {
		if _, ok := p.lost["v:"+v]; ok {
			addWord("v:" + v)
		}
	}
	var files []string
	for k := range p.lost {
		if f, ok := strings.CutPrefix(k, "f:"); ok {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	for _, w := range n.Words {
		for _, f := range files {
			if runbook.SameOrUnder(w, f) {
				addWord("f:" + w)
			}
		}
	}
	return words
}

// missing says why a block the probe stopped did not run: after the
// block that did not run and would have made what it uses, else the
// commands it needs that are not here.
func (x *execution) missing(st *runbook.Step, missing []string) shellRes {
	p := x.page()
	for _, m := range missing {
		kind, name, _ := strings.Cut(m, ":")
		line, ok := p.lost[m]
		if kind == "f" {
			line, ok = p.lostFile(name)
		}
		if !ok {
			continue
		}
		what := map[string]string{
			"v": fmt.Sprintf("it uses $%s, which only the block at line %d sets", name, line),
			"f": fmt.Sprintf("it uses %s, which only the block at line %d writes", name, line),
			"c": fmt.Sprintf("it runs %s, which only the block at line %d defines", name, line),
		}[kind]
		return shellRes{result: report.BlockSkipped, after: line, reason: fmt.Sprintf("after L%d: %s, and that block did not run", line, what)}
	}
	var cmds []string
	for _, m := range missing {
		if c, ok := strings.CutPrefix(m, "c:"); ok {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 0 {
		// A variable or file missing that no block here was to make:
		// not a reason kbook knows; the block would fail, so it fails.
		return shellRes{result: report.BlockFailed, reason: "missing " + strings.Join(missing, ", ")}
	}
	verb := "is"
	if len(cmds) > 1 {
		verb = "are"
	}
	return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("needs %s, which %s not on PATH (nor a builtin, function or alias of the page)", strings.Join(cmds, ", "), verb)}
}

// didNotRun records what a block that did not run would have left, for
// the blocks after it.
func (x *execution) didNotRun(st *runbook.Step, o shellRes) {
	p := x.page()
	n := &st.Shell.Needs
	for _, v := range n.Sets {
		p.lost["v:"+v] = st.Line
	}
	for _, f := range n.Writes {
		p.lost["f:"+f] = st.Line
	}
	for _, f := range n.Funcs {
		p.lost["c:"+f] = st.Line
	}
}

// ran records the functions and aliases of a block that ran: where they
// are called, their commands are needed.
func (x *execution) ran(st *runbook.Step) {
	p := x.page()
	for f, cmds := range st.Shell.Needs.FuncNeeds {
		p.funcNeeds[f] = cmds
	}
}

func (x *execution) page() *pageShell {
	if x.pageSh == nil {
		x.pageSh = &pageShell{lost: map[string]int{}, funcNeeds: map[string][]string{}}
	}
	return x.pageSh
}

// exportLine is the bash that exports an overlay's variables for a block.
func exportLine(env []string) string {
	if len(env) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("export")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.WriteString(" " + k + "=" + shellQuote(v))
	}
	b.WriteString("; ")
	return b.String()
}

// shellPlan is what decides the page's shell blocks beyond its source,
// for its cache key: what overlays and attributes declare, the values
// its macros took, and the run's --offline and root where a block
// downloads or runs sudo.
func (r *Runner) shellPlan(rb *runbook.Runbook) string {
	var b strings.Builder
	for _, bl := range rb.Blocks {
		if len(bl.Macros) > 0 {
			// the values of its macros (mkdocs.yml's extra), which
			// the page's source does not hold
			fmt.Fprintf(&b, "%d macros %q\n", bl.Line, bl.Content)
		}
	}
	for _, st := range rb.Steps {
		sh := st.Shell
		if sh == nil {
			continue
		}
		if sh.By != "" {
			fmt.Fprintf(&b, "%d by=%q skip=%q provided=%q standin=%v env=%q mode=%s run=%q\n", st.Line, sh.By, sh.Skip, sh.Provided, sh.Standin, sh.Env, sh.Mode, sh.Run)
		}
		if len(sh.Needs.Fetches) > 0 && r.opts.Offline {
			fmt.Fprintf(&b, "%d offline\n", st.Line)
		}
		if sh.Needs.Sudo > 0 && isRoot {
			fmt.Fprintf(&b, "%d root\n", st.Line)
		}
	}
	return b.String()
}
