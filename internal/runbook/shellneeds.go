package runbook

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Needs is what a shell block needs of the machine it runs on and of
// the blocks before it, and what it leaves for the blocks after it, as
// its commands say (read with mvdan.cc/sh, never run). The runner
// decides from it which blocks cannot run here and which depend on a
// block that did not run.
type Needs struct {
	// Commands are the names of the commands it runs (literal names
	// without a slash, once each, in order), not counting the functions
	// and aliases it defines itself, nor what it runs after it changes
	// PATH (a command it installs). The commands of a function or alias
	// it defines are in FuncNeeds instead: they are needed where it is
	// called.
	Commands []string
	// Sudo is the source line of its first sudo; 0 when it runs none.
	Sudo int
	// Fetches are the downloads from the internet it makes.
	Fetches []Fetch
	// Sets, Funcs and Writes are the variables it assigns, the
	// functions and aliases it defines, and the files and folders it
	// writes (as its words name them, relative to where it runs).
	Sets, Funcs, Writes []string
	// FuncNeeds are, per function or alias it defines, the commands that
	// function or alias runs.
	FuncNeeds map[string][]string
	// Vars are the variables it reads that it does not set itself and
	// whose being unset it does not handle (${X:-default}).
	Vars []string
	// Words are its literal arguments that may name files (for the
	// files a skipped block would have written).
	Words []string
	// Watch is the first command it runs in the foreground that goes on
	// until it is interrupted (kubectl get -w, kubectl logs -f, tail -f,
	// kubectl port-forward, watch) or waits with no bound of its own
	// (kubectl wait without --timeout); nil when it runs none. The
	// runner stops it once the expected output's last line appears.
	Watch *Watch
	// Kube is what it asks of the run's cluster: resource types,
	// kinds and namespaces.
	Kube Kube
	// Human says why it needs a human, when a command it runs does
	// (kubectl edit, an editor: they wait for a person to edit and save
	// a file), with the line; "" otherwise.
	Human string
	// NotCommand says why a line of it is no command, when one is a URL
	// or JSON in a shell fence (it would fail as a command not found).
	NotCommand string
	// Homes are the users whose home folder its words name (~alice/src):
	// the page's author's, most often, which another machine has not.
	Homes []KubeRef
	// Checkouts are the commands it runs that work on a checkout where
	// they run (make, go build, git commit, terraform apply, ...), by
	// what they need there: "Makefile", "go.mod", ".git" or "*.tf".
	Checkouts []KubeRef
	// Paths are the commands it runs by their path (./tools/x.sh,
	// /var/lib/k0s/bin/containerd), literal ones.
	Paths []KubeRef
	// Hosts are the other machines it reaches (ssh, scp, rsync to a
	// host), as written.
	Hosts []KubeRef
	// Listens are the local addresses it fetches from (curl
	// localhost:30003): something must listen there.
	Listens []KubeRef
	// Docker is the line of its first docker command that needs the
	// Docker daemon; 0 when it runs none.
	Docker int
	// Kubeconfig is the literal file it sets KUBECONFIG to, if any.
	Kubeconfig KubeRef
	// Pipe is the line of its first command whose output may outlive the
	// block or must reach a pipe: one sent to the background (& or
	// coproc, in a function it defines too), exec (it moves the
	// session's own descriptors), source, . and eval (what they run is
	// not read here); 0 when it has none. The runner may run blocks
	// without one ahead, their output kept in memory (runner's shell).
	Pipe int
}

// Watch is a command that runs until it is interrupted.
type Watch struct {
	// Command is its name and literal arguments ("kubectl get pods -w"),
	// Line its source line.
	Command string
	Line    int
	// Ends is true when it ends by itself in the end (kubectl wait gives
	// up after 30 s without --timeout): it may run with no output to
	// wait for.
	Ends bool
}

// Fetch is one download a block makes.
type Fetch struct {
	// What is the URL or package, Line its source line.
	What string
	Line int
}

// fetchers are the commands that download whatever URL they are given.
var fetchers = map[string]bool{"curl": true, "wget": true}

// urlTools are commands that download a URL given among their arguments
// (kubectl apply -f https://..., helm install oci://..., git clone ...).
var urlTools = map[string]bool{"kubectl": true, "helm": true, "git": true, "clusterctl": true, "kustomize": true, "oras": true, "crane": true, "skopeo": true}

// installers are package managers: their install (and update) verbs
// download.
var installers = map[string][]string{
	"apt-get": {"install", "update", "upgrade"}, "apt": {"install", "update", "upgrade"},
	"yum": {"install", "update"}, "dnf": {"install", "update"}, "apk": {"add", "update"},
	"brew": {"install", "update", "upgrade"}, "pip": {"install"}, "pip3": {"install"},
	"npm": {"install", "i"}, "go": {"install", "get"}, "snap": {"install"},
}

// wrappers run the command that follows their options.
var wrappers = map[string]bool{"sudo": true, "env": true, "nohup": true, "exec": true, "command": true, "nice": true, "timeout": true, "xargs": true, "watch": true}

// wrapperArgs are the wrappers' short options whose value is the next
// word (GNU coreutils', sudo's, findutils' and procps' watch): the
// wrapped command comes after it. "env -u _ cmd" runs cmd, not _.
var wrapperArgs = map[string]string{"sudo": "ugCDhprT", "env": "uCS", "nice": "n", "timeout": "sk", "xargs": "aEdILnPs", "watch": "nd", "exec": "a"}

func isURL(s string) bool {
	for _, p := range []string{"http://", "https://", "oci://", "ftp://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// analyze reads what a parsed block needs and leaves; script maps its
// lines to the page's.
func analyze(f *syntax.File, script []Line) Needs {
	n := Needs{FuncNeeds: map[string][]string{}}
	a := &analysis{n: &n, script: script, set: map[string]bool{}, defined: map[string]bool{}}
	for _, st := range f.Stmts {
		a.stmt(st)
	}
	a.kubeDone()
	// Uses of what the block sets or writes itself are no dependency.
	n.Vars = slices.DeleteFunc(n.Vars, func(v string) bool { return slices.Contains(n.Sets, v) })
	n.Words = slices.DeleteFunc(n.Words, func(w string) bool {
		return slices.ContainsFunc(n.Writes, func(wr string) bool { return SameOrUnder(w, wr) })
	})
	n.Kube.Reads = slices.DeleteFunc(n.Kube.Reads, func(r KubeRef) bool {
		return slices.ContainsFunc(n.Writes, func(wr string) bool { return SameOrUnder(path.Clean(r.Name), wr) })
	})
	return n
}

// analysis walks one block.
type analysis struct {
	n      *Needs
	script []Line
	// inFunc is the function (or "") whose body is being read.
	inFunc string
	// pathChanged: PATH was assigned, later commands may be installed.
	pathChanged bool
	set         map[string]bool
	defined     map[string]bool // functions and aliases of this block
	// bg: the statement being read runs in the background.
	bg bool
	// heredocs are the block's heredocs; kubeStdin is set when kubectl
	// applies its standard input (-f -).
	heredocs  []heredocText
	kubeStdin bool
}

func (a *analysis) line(p syntax.Pos) int { return sourceLine(a.script, int(p.Line())) }

func add(list *[]string, s string) {
	if s != "" && !slices.Contains(*list, s) {
		*list = append(*list, s)
	}
}

func (a *analysis) stmt(st *syntax.Stmt) {
	if st.Background || st.Coprocess {
		a.pipe(st.Pos())
		// Sent to the background: it runs on beside the blocks.
		defer func(bg bool) { a.bg = bg }(a.bg)
		a.bg = true
	}
	syntax.Walk(st, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.Stmt:
			if x != st && (x.Background || x.Coprocess) {
				a.stmt(x)
				return false
			}
		case *syntax.FuncDecl:
			name := x.Name.Value
			add(&a.n.Funcs, name)
			a.defined[name] = true
			outer := a.inFunc
			a.inFunc = name
			a.stmt(x.Body)
			a.inFunc = outer
			return false
		case *syntax.CallExpr:
			a.call(x)
		case *syntax.CoprocClause:
			a.pipe(x.Pos())
		case *syntax.DeclClause:
			for _, as := range x.Args {
				if as.Name != nil && !as.Naked {
					a.assign(as.Name.Value)
					a.kubeconfig(as)
				}
			}
		case *syntax.WordIter:
			if x.Name != nil {
				a.assign(x.Name.Value)
			}
		case *syntax.Redirect:
			w := litWord(x.Word)
			if devOutput(x.Word) {
				a.pipe(x.Pos())
			}
			switch x.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
				if w != "" && !strings.HasPrefix(w, "/dev/") {
					a.write(w)
				}
			case syntax.RdrIn:
				a.word(w)
			case syntax.Hdoc, syntax.DashHdoc:
				a.heredoc(x)
			}
		case *syntax.ParamExp:
			a.param(x)
		}
		return true
	})
}

// kubeconfig records a literal file KUBECONFIG is set to.
func (a *analysis) kubeconfig(as *syntax.Assign) {
	if a.inFunc != "" || as.Name == nil || as.Name.Value != "KUBECONFIG" || as.Value == nil || a.n.Kubeconfig.Name != "" {
		return
	}
	if v := litWord(as.Value); v != "" && !strings.Contains(v, ":") {
		a.n.Kubeconfig = KubeRef{Name: v, Line: a.line(as.Pos())}
	}
}

// assign records a variable the block sets.
func (a *analysis) assign(name string) {
	if a.inFunc != "" {
		return // set when the function runs; locals mostly
	}
	add(&a.n.Sets, name)
	if name == "PATH" {
		a.pathChanged = true
	}
}

func (a *analysis) write(p string) {
	if a.inFunc == "" {
		add(&a.n.Writes, path.Clean(p))
	}
}

func (a *analysis) word(w string) {
	if a.inFunc == "" && w != "" && !strings.HasPrefix(w, "-") && !isURL(w) && !strings.ContainsAny(w, "=*?") {
		add(&a.n.Words, path.Clean(w))
	}
}

func (a *analysis) param(p *syntax.ParamExp) {
	if a.inFunc != "" || p.Param == nil || !isName(p.Param.Value) || p.Excl {
		return
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
			syntax.AssignUnset, syntax.AssignUnsetOrNull:
			return // the block handles it unset
		}
	}
	add(&a.n.Vars, p.Param.Value)
}

// isName reports whether s is a variable name (not $1, $@, $?).
func isName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// call reads one simple command: what it runs, sets, writes and fetches.
// devOutput is whether a word may name the session's descriptors again
// (/dev/stdout, /dev/fd/1, /proc/self/fd/2): opened anew, what the block
// prints there would start over where a file, not a pipe, holds it.
func devOutput(w *syntax.Word) bool {
	found := false
	if w != nil {
		syntax.Walk(w, func(n syntax.Node) bool {
			if l, ok := n.(*syntax.Lit); ok && (strings.Contains(l.Value, "/dev/std") || strings.Contains(l.Value, "/dev/fd") || strings.Contains(l.Value, "/proc/")) {
				found = true
			}
			return !found
		})
	}
	return found
}

// pipe records p as the line of a command whose output may outlive the
// block (Needs.Pipe), if it is the first.
func (a *analysis) pipe(p syntax.Pos) {
	if a.n.Pipe == 0 {
		a.n.Pipe = a.line(p)
	}
}

func (a *analysis) call(c *syntax.CallExpr) {
	if len(c.Args) > 0 {
		switch litWord(c.Args[0]) {
		case "exec", "source", ".", "eval", "builtin", "":
			// builtin may run any of these, and a name that is not
			// literal may be any of them.
			a.pipe(c.Pos())
		}
		for _, w := range c.Args {
			if devOutput(w) {
				a.pipe(w.Pos())
			}
		}
	}
	for _, as := range c.Assigns {
		a.kubeconfig(as)
	}
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			if as.Name != nil {
				a.assign(as.Name.Value)
			}
		}
		return
	}
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		args[i] = litWord(w)
	}
	// A variable given to the command alone (KUBECONFIG=x kubectl ...)
	// may name a file it reads, as an argument does.
	for _, as := range c.Assigns {
		if as.Value != nil {
			a.word(litWord(as.Value))
		}
	}
	for i, w := range c.Args {
		a.home(w)
		if i == 0 && a.inFunc == "" && a.n.NotCommand == "" {
			if s := litPrefix(w); isURL(s) {
				a.n.NotCommand = fmt.Sprintf("line %d is a URL, not a command (%s)", a.line(w.Pos()), s)
			} else if raw := rawText(w); strings.HasPrefix(raw, "{\"") || strings.HasPrefix(raw, "[{") {
				a.n.NotCommand = fmt.Sprintf("line %d is JSON, not a command", a.line(w.Pos()))
			} else if len(c.Args) > 1 && litWord(w) == "diff" && litWord(c.Args[1]) == "--git" {
				a.n.NotCommand = fmt.Sprintf("line %d is a patch (diff --git, the output of git diff), not a command", a.line(w.Pos()))
			} else if s := litWord(w); s == "..." || s == "…" {
				a.n.NotCommand = fmt.Sprintf("line %d is an ellipsis (%s), not a command", a.line(w.Pos()), s)
			}
		}
		if s := litWord(w); i > 0 && (s == "..." || s == "…") && a.n.Human == "" && a.inFunc == "" {
			a.n.Human = fmt.Sprintf("fill in what %s elides (line %d)", s, a.line(w.Pos()))
		}
	}
	if name := litWord(c.Args[0]); strings.Contains(name, "/") && !isURL(name) && a.inFunc == "" &&
		!slices.ContainsFunc(a.n.Paths, func(r KubeRef) bool { return r.Name == name }) {
		a.n.Paths = append(a.n.Paths, KubeRef{Name: name, Line: a.line(c.Args[0].Pos())})
	}
	i, bounded := 0, false
	for i < len(args) {
		name := args[i]
		if name == "" || strings.Contains(name, "/") {
			return // $CMD, ./script.sh: nothing to look up
		}
		a.need(name)
		if name == "sudo" && a.n.Sudo == 0 && a.inFunc == "" {
			a.n.Sudo = a.line(c.Args[i].Pos())
		}
		rest := args[i+1:]
		a.effects(name, rest, c.Args[i+1:])
		if name == "timeout" {
			bounded = true
		}
		if !bounded && !a.bg && a.inFunc == "" && a.n.Watch == nil {
			if w := watches(name, rest); w != nil {
				w.Line = a.line(c.Args[i].Pos())
				a.n.Watch = w
			}
		}
		if !wrappers[name] || (name == "command" && len(rest) > 0 && strings.HasPrefix(rest[0], "-")) {
			break
		}
		// The wrapped command: after the wrapper's options (and
		// env's NAME=VALUE, timeout's duration).
		i++
		for i < len(args) && (strings.HasPrefix(args[i], "-") || strings.Contains(args[i], "=") ||
			(name == "timeout" && args[i] != "" && args[i][0] >= '0' && args[i][0] <= '9')) {
			if o := args[i]; len(o) == 2 && o[0] == '-' && strings.IndexByte(wrapperArgs[name], o[1]) >= 0 {
				i++
			}
			i++
		}
	}
}

// need records a command the block (or its function) runs.
func (a *analysis) need(name string) {
	if a.inFunc != "" {
		fn := a.n.FuncNeeds[a.inFunc]
		add(&fn, name)
		a.n.FuncNeeds[a.inFunc] = fn
		return
	}
	if a.defined[name] || a.pathChanged {
		if fn, ok := a.n.FuncNeeds[name]; ok && !a.pathChanged {
			for _, c := range fn {
				if !a.defined[c] {
					add(&a.n.Commands, c)
				}
			}
		}
		return
	}
	add(&a.n.Commands, name)
}

// effects records what command name with its arguments downloads,
// writes, defines and reads.
func (a *analysis) effects(name string, args []string, words []*syntax.Word) {
	line := func(i int) int { return a.line(words[i].Pos()) }
	fetch := func(what string, i int) {
		if a.inFunc == "" {
			a.n.Fetches = append(a.n.Fetches, Fetch{What: what, Line: line(i)})
		}
	}
	for _, w := range args {
		a.word(w)
	}
	if editors[name] || ((name == "kubectl" || name == "oc") && slices.Contains(args, "edit")) {
		if a.n.Human == "" && a.inFunc == "" && len(words) > 0 {
			a.n.Human = fmt.Sprintf("%s opens an editor for a person to change and save (line %d)", cmdText(name, words), a.line(words[0].Pos()))
		}
	}
	if a.inFunc == "" && len(words) > 0 {
		if h := interactive(name, args); h != "" && a.n.Human == "" {
			a.n.Human = fmt.Sprintf("%s %s (line %d)", cmdText(name, words), h, a.line(words[0].Pos()))
		}
		if what := checkout(name, args); what != "" {
			a.n.Checkouts = append(a.n.Checkouts, KubeRef{Name: what, Line: a.line(words[0].Pos())})
		}
		a.reaches(name, args, words)
	}
	switch {
	case name == "kubectl" || name == "oc":
		a.kubectl(args, words)
	case name == "helm" && (slices.Contains(args, "install") || slices.Contains(args, "upgrade")):
		a.n.Kube.Installs = true
	}
	switch {
	case fetchers[name]:
		for i, w := range args {
			prefix := litPrefix(words[i])
			if isURL(prefix) {
				fetch(prefix, i)
				if name == "wget" || slices.Contains(args, "-O") || slices.Contains(args, "--remote-name") {
					if b := path.Base(strings.SplitN(w, "?", 2)[0]); w != "" && b != "" && b != "/" {
						a.write(b)
					}
				}
			}
		}
		for i, w := range args {
			if (w == "-o" || w == "--output" || (name == "wget" && w == "-O")) && i+1 < len(args) && args[i+1] != "-" {
				a.write(args[i+1])
			}
		}
	case urlTools[name]:
		for i := range args {
			if p := litPrefix(words[i]); isURL(p) || (name == "git" && i == 1 && args[0] == "clone") {
				fetch(p, i)
			}
		}
		if name == "git" && len(args) >= 2 && args[0] == "clone" {
			var pos []string
			for _, w := range args[1:] {
				if !strings.HasPrefix(w, "-") {
					pos = append(pos, w)
				}
			}
			switch {
			case len(pos) >= 2:
				a.write(pos[1])
			case len(pos) == 1 && pos[0] != "":
				a.write(strings.TrimSuffix(path.Base(pos[0]), ".git"))
			}
		}
	case installers[name] != nil:
		for i, w := range args {
			if strings.HasPrefix(w, "-") {
				continue
			}
			if slices.Contains(installers[name], w) {
				fetch(name+" "+strings.Join(args, " "), i)
			}
			break
		}
	case name == "tee" || name == "touch" || name == "mkdir":
		for _, w := range args {
			if w != "" && !strings.HasPrefix(w, "-") {
				a.write(w)
			}
		}
	case name == "tar" && len(args) > 1 && !strings.HasPrefix(args[0], "--") && strings.Contains(args[0], "c") && strings.HasSuffix(args[0], "f"):
		// tar -czf NAME ...: the archive it creates
		a.write(args[1])
	case name == "cp" || name == "mv":
		if n := len(args); n >= 2 && args[n-1] != "" {
			a.write(args[n-1])
		}
	case name == "read" || name == "mapfile" || name == "readarray":
		for _, w := range args {
			if isName(w) {
				a.assign(w)
			}
		}
	case name == "alias":
		for _, w := range args {
			if k, v, ok := strings.Cut(w, "="); ok && isName(strings.ReplaceAll(k, "-", "_")) {
				add(&a.n.Funcs, k)
				a.defined[k] = true
				if f := strings.Fields(v); len(f) > 0 && !strings.Contains(f[0], "/") {
					a.n.FuncNeeds[k] = []string{f[0]}
				}
			}
		}
	case name == "export" || name == "declare" || name == "typeset" || name == "readonly" || name == "local":
		// Parsed as DeclClause; nothing here.
	}
}

// reaches records the other machines, local listeners and daemons a
// command needs: ssh, scp and rsync's hosts, curl and wget of
// localhost:PORT, docker's daemon.
func (a *analysis) reaches(name string, args []string, words []*syntax.Word) {
	line := func(i int) int { return a.line(words[i].Pos()) }
	switch name {
	case "ssh":
		for i := 0; i < len(args); i++ {
			switch w := args[i]; {
			case len(w) == 2 && w[0] == '-' && strings.ContainsRune("bcDEeFIiJLlmOopQRSWw", rune(w[1])):
				i++
			case !strings.HasPrefix(w, "-"):
				a.n.Hosts = append(a.n.Hosts, KubeRef{Name: rawText(words[i]), Line: line(i)})
				return
			}
		}
	case "scp", "rsync", "sftp":
		for i, w := range args {
			if h, _, ok := strings.Cut(rawText(words[i]), ":"); ok && !strings.HasPrefix(w, "-") && h != "" && !strings.Contains(h, "/") {
				a.n.Hosts = append(a.n.Hosts, KubeRef{Name: h, Line: line(i)})
				return
			}
		}
	case "curl", "wget":
		for i, w := range args {
			u := strings.TrimPrefix(strings.TrimPrefix(w, "http://"), "https://")
			host, port, ok := strings.Cut(strings.SplitN(u, "/", 2)[0], ":")
			if ok && (host == "localhost" || host == "127.0.0.1") && port != "" && strings.Trim(port, "0123456789") == "" {
				a.n.Listens = append(a.n.Listens, KubeRef{Name: host + ":" + port, Line: line(i)})
			}
		}
	case "docker":
		sub := ""
		for _, w := range args {
			if !strings.HasPrefix(w, "-") {
				sub = w
				break
			}
		}
		if sub != "" && sub != "version" && sub != "help" && a.n.Docker == 0 && len(words) > 0 {
			a.n.Docker = line(0)
		}
	}
}

// checkout says what a command needs where it runs when it works on a
// checkout there ("Makefile", "go.mod", ".git", "*.tf"), else "".
func checkout(name string, args []string) string {
	sub := ""
	for _, w := range args {
		if w != "" && !strings.HasPrefix(w, "-") {
			sub = w
			break
		}
	}
	switch name {
	case "make":
		if slices.ContainsFunc(args, func(w string) bool {
			return w == "" || strings.HasPrefix(w, "-C") || strings.HasPrefix(w, "-f") || strings.HasPrefix(w, "--directory") || strings.HasPrefix(w, "--file") || strings.HasPrefix(w, "--makefile")
		}) {
			return ""
		}
		return "Makefile"
	case "go":
		switch sub {
		case "build", "test", "fmt", "vet", "generate", "run", "mod":
			return "go.mod"
		}
	case "git":
		if len(args) > 0 && strings.HasPrefix(args[0], "-") {
			return "" // git -C DIR ...
		}
		switch sub {
		case "add", "commit", "push", "pull", "diff", "log", "status", "rebase", "checkout", "switch", "branch", "merge", "fetch", "remote", "reset", "stash", "tag", "show", "cherry-pick":
			return ".git"
		}
	case "terraform", "tofu":
		switch sub {
		case "init", "plan", "apply", "destroy":
			return "*.tf"
		}
	}
	return ""
}

// interactive says why a command waits for a person at a terminal (the
// page's commands have none: their stdin is /dev/null), else "".
func interactive(name string, args []string) string {
	switch name {
	case "ssh":
		// ssh [options] HOST with no command: a login shell
		var pos []string
		for i := 0; i < len(args); i++ {
			switch w := args[i]; {
			case len(w) == 2 && w[0] == '-' && strings.ContainsRune("bcDEeFIiJLlmOopQRSWw", rune(w[1])):
				i++ // an option's value
			case !strings.HasPrefix(w, "-"):
				pos = append(pos, w)
			}
		}
		if len(pos) == 1 {
			return "opens a login shell on another machine for a person to type in"
		}
	case "gpg", "gpg2":
		for _, w := range args {
			if w == "--gen-key" || w == "--full-gen-key" || w == "--full-generate-key" || w == "--generate-key" {
				return "asks a person its questions at a terminal"
			}
		}
	}
	return ""
}

// editors are the commands that open a file for a person to edit.
var editors = map[string]bool{"vi": true, "vim": true, "nvim": true, "nano": true, "emacs": true, "pico": true, "joe": true}

// home records the user a word's ~user/ names (not ~/ nor ~+ or ~-).
func (a *analysis) home(w *syntax.Word) {
	s := litPrefix(w)
	if a.inFunc != "" || !strings.HasPrefix(s, "~") {
		return
	}
	user, _, _ := strings.Cut(s[1:], "/")
	if user == "" || !isName(strings.ReplaceAll(user, "-", "_")) || slices.ContainsFunc(a.n.Homes, func(r KubeRef) bool { return r.Name == user }) {
		return
	}
	a.n.Homes = append(a.n.Homes, KubeRef{Name: user, Line: a.line(w.Pos())})
}

// cmdText is a command as written: its name and words.
func cmdText(name string, words []*syntax.Word) string {
	s := name
	for _, w := range words {
		s += " " + rawText(w)
	}
	return s
}

// rawText is a word's literal text with its quotes, as written.
func rawText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// litWord is a word's value when it holds no expansion: literal text
// and quotes of literal text; "" otherwise.
func litWord(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	if s, whole := literal(w); whole {
		return s
	}
	return ""
}

// litPrefix is the literal text a word starts with, before any
// expansion (https://github.com/$REPO/... gives https://github.com/).
func litPrefix(w *syntax.Word) string {
	s, _ := literal(w)
	return s
}

// literal is the literal text w starts with (literal text and quotes of
// literal text), and whether that is all of it.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return b.String(), false
				}
				b.WriteString(l.Value)
			}
		default:
			return b.String(), false
		}
	}
	return b.String(), true
}

// SameOrUnder reports whether the path w is p or inside it (p a file or
// folder as Needs.Writes holds them, a folder perhaps with a final /).
func SameOrUnder(w, p string) bool {
	return w == p || strings.HasPrefix(w, strings.TrimSuffix(p, "/")+"/")
}

// UsesFile returns the file or folder of written (as Needs.Writes holds
// them) that one of the block's words names, or "".
func (n *Needs) UsesFile(written []string) (word, file string) {
	for _, w := range n.Words {
		for _, f := range written {
			if SameOrUnder(w, f) {
				return w, f
			}
		}
	}
	return "", ""
}

// valueFlags are the global flags before a kubectl-like command's verb
// that take the next word as their value.
var valueFlags = []string{"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server"}

// watches returns the Watch a command is when it runs until interrupted
// (or waits with no bound of its own), else nil.
func watches(name string, args []string) *Watch {
	has := func(flags ...string) bool {
		for _, a := range args {
			for _, f := range flags {
				if a == f || strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=") && !strings.HasSuffix(a, "=false") {
					return true
				}
			}
		}
		return false
	}
	var sub string // the first word that is neither a flag nor its value
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case slices.Contains(valueFlags, a):
			i++
		case a != "" && !strings.HasPrefix(a, "-"):
			sub = a
		}
		if sub != "" {
			break
		}
	}
	w := &Watch{Command: strings.TrimSpace(name + " " + strings.Join(args, " "))}
	if len(w.Command) > 80 {
		w.Command = w.Command[:77] + "..."
	}
	switch name {
	case "kubectl", "oc":
		switch {
		case (sub == "get" || sub == "events") && has("-w", "--watch", "--watch-only"):
		case (sub == "logs" || sub == "attach") && has("-f", "--follow"):
		case sub == "port-forward" || sub == "proxy":
		case sub == "wait" && !has("--timeout"):
			w.Ends = true
		case sub == "wait" && slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--timeout=-") }):
		default:
			return nil
		}
	case "flux":
		if !has("-w", "--watch", "-f", "--follow") {
			return nil
		}
	case "tail", "journalctl":
		if !has("-f", "-F", "--follow") {
			return nil
		}
	case "docker", "podman", "nerdctl":
		if !(sub == "events" || sub == "logs" && has("-f", "--follow")) {
			return nil
		}
	case "watch", "stern":
	default:
		return nil
	}
	return w
}
