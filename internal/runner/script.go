package runner

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/txtar"
)

// markerCmd is the testscript command the runner inserts before every
// script line. It is never written by users: it only acts when called with
// the run's random nonce.
const markerCmd = "__kbook"

// command is one script line that runs.
type command struct {
	step *runbook.Step
	// first is true for the first command of its step.
	first bool
	line  runbook.Line
}

// plan is a runbook turned into a testscript archive.
type plan struct {
	nonce   string
	archive []byte
	// cmds are indexed by marker id.
	cmds []command
	// lineMap maps an archive line (1-based) to the runbook source line.
	lineMap []int
	// extra are files whose content txtar cannot hold (lines that look
	// like file markers); Setup writes them into $WORK.
	extra []*runbook.File
	// archived holds the original content of files in the archive, for --update.
	archived map[string]string
	// shell is set when a shell step is among the selected steps.
	shell bool
	// envNames are the variables the selected testscript steps' env
	// commands set ("env NAME=VALUE"), which the page's bash session
	// is given as they change (execution.envChanges).
	envNames []string
	// next is, for a selected shell step, the selected shell step the
	// script runs right after it (no testscript command between them).
	next map[*runbook.Step]*runbook.Step
}

// newPlan builds the archive for the selected steps of rb.
func newPlan(rb *runbook.Runbook, selected func(*runbook.Step) bool) (*plan, error) {
	p := &plan{nonce: nonce(), lineMap: []int{0}, archived: map[string]string{}, next: map[*runbook.Step]*runbook.Step{}}
	var prevShell *runbook.Step
	var script strings.Builder
	emit := func(text string, src int) {
		script.WriteString(text)
		script.WriteByte('\n')
		p.lineMap = append(p.lineMap, src)
	}
	for _, st := range rb.Steps {
		if !selected(st) {
			continue
		}
		emit(fmt.Sprintf("# %s (%s:%d)", oneLine(st.Name), rb.Path, st.Line), st.Line)
		if st.Shell != nil {
			// The block runs as one command, in the page's bash session.
			p.shell = true
			if prevShell != nil {
				p.next[prevShell] = st
			}
			prevShell = st
			id := len(p.cmds)
			p.cmds = append(p.cmds, command{step: st, first: true, line: runbook.Line{Text: shellText(st.Shell), Num: st.Line}})
			emit(fmt.Sprintf("%s %s %d", markerCmd, p.nonce, id), st.Line)
			emit(fmt.Sprintf("%s %s %d", shellCmd, p.nonce, st.Index), st.Line)
			continue
		}
		prevShell = nil
		first := true
		for _, l := range st.Script {
			t := strings.TrimSpace(l.Text)
			if t == "" || strings.HasPrefix(t, "#") {
				emit(l.Text, l.Num)
				continue
			}
			id := len(p.cmds)
			p.cmds = append(p.cmds, command{step: st, first: first, line: l})
			first = false
			for _, k := range envSets(t) {
				if !slices.Contains(p.envNames, k) {
					p.envNames = append(p.envNames, k)
				}
			}
			// The marker carries the line's conditions, so it fires
			// exactly when the command runs.
			emit(strings.TrimSpace(conditionPrefix(t)+" "+markerCmd+" "+p.nonce+" "+fmt.Sprint(id)), l.Num)
			emit(l.Text, l.Num)
		}
	}
	// A last marker records the output of the last command.
	emit(fmt.Sprintf("%s %s %d", markerCmd, p.nonce, len(p.cmds)), 0)
	ar := &txtar.Archive{Comment: []byte(script.String())}
	for _, f := range rb.Files {
		if _, dup := p.archived[f.Name]; dup {
			// A second block of the same title= (the file as
			// edited): written at its place only (writeBound).
			continue
		}
		if txtar.NeedsQuote([]byte(f.Content)) {
			p.extra = append(p.extra, f)
			continue
		}
		ar.Files = append(ar.Files, txtar.File{Name: f.Name, Data: []byte(f.Content)})
		p.archived[f.Name] = f.Content
		// txtar.Format ends every file with a newline: Setup writes a
		// file without one (a noeol block) again, exactly. It stays in
		// the archive so that cmp --update can target it.
		if f.Content != "" && !strings.HasSuffix(f.Content, "\n") {
			p.extra = append(p.extra, f)
		}
	}
	p.archive = txtar.Format(ar)
	return p, nil
}

// shellText is a shell step's commands as a report shows them.
func shellText(sh *runbook.Shell) string {
	var b strings.Builder
	for i, l := range sh.Script {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.Text)
	}
	return b.String()
}

// sourceLine maps an archive line to the runbook line (0 if unknown).
func (p *plan) sourceLine(n int) int {
	if n > 0 && n < len(p.lineMap) {
		return p.lineMap[n]
	}
	return 0
}

// conditionPrefix returns the leading [cond] words of a script line.
func conditionPrefix(line string) string {
	var conds []string
	for _, w := range strings.Fields(line) {
		if !strings.HasPrefix(w, "[") || !strings.HasSuffix(w, "]") {
			break
		}
		conds = append(conds, w)
	}
	return strings.Join(conds, " ")
}

// envSets is the names a testscript line sets when it is an env command
// ("[cond] env NAME=VALUE ..."), those a bash session can be given.
func envSets(line string) []string {
	f := strings.Fields(strings.TrimPrefix(line, conditionPrefix(line)))
	if len(f) > 0 && f[0] == "!" {
		f = f[1:]
	}
	if len(f) == 0 || f[0] != "env" {
		return nil
	}
	var names []string
	for _, a := range f[1:] {
		k, _, ok := strings.Cut(strings.TrimPrefix(a, "'"), "=")
		if ok && shellName.MatchString(k) && !bashStartVar(k) {
			names = append(names, k)
		}
	}
	return names
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
