package template

import (
	"slices"
	"strings"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"
)

// The calls in a chart's templates that rules look at without rendering:
// lookup (SEC008) and required (RENDER011). Templates are parsed with
// text/template/parse, the parser behind Helm's engine, so actions,
// pipelines, variables and with/if scopes are read as Helm reads them.

// nsScope is what the namespace argument of a lookup call names.
type nsScope int

const (
	nsRelease nsScope = iota // .Release.Namespace
	nsCluster                // "": a cluster-scoped object, or every namespace
	nsOther                  // another literal namespace
	nsDynamic                // computed (from values, a variable...)
)

// lookupCall is one call of Helm's lookup function.
type lookupCall struct {
	file string // chart-relative (charts/<dir>/templates/x.yaml for dependencies)
	line int
	// The arguments when they are string literals; known is false for a
	// computed one.
	apiVersion, kind, name         string
	apiKnown, kindKnown, nameKnown bool
	ns                             nsScope
	namespace                      string // the literal for nsOther
	guarded                        bool   // every use of the result is checked first
}

// requiredCall is one call of Helm's required function.
type requiredCall struct {
	file string
	line int
	// path is the values path required checks, nil when it is not a
	// plain .Values path (a variable, a function's result).
	path vpath
}

// valueRead is one read of a values path by a template of the chart
// itself (not its dependencies): .Values.a.b, $.Values.a.b, .b inside
// with .Values.a...
type valueRead struct {
	file string
	line int
	path vpath
	// guarded: the read is tested rather than used (an if or with
	// condition, an argument of default, empty, hasKey...).
	guarded bool
}

// templateCalls parses every template of the chart and its dependencies
// (with the file names findings use) and returns the lookup and required
// calls, and the values the chart's own templates read. Templates that do
// not parse are skipped: RENDER001 reports them.
func templateCalls(ch *chart.Chart, realPath func(string) string) (lookups []lookupCall, requireds []requiredCall, reads []valueRead) {
	var scan func(ch *chart.Chart, prefix string)
	scan = func(ch *chart.Chart, prefix string) {
		for _, t := range ch.Templates {
			if !strings.HasPrefix(t.Name, "templates/") {
				continue
			}
			file := realPath(prefix + t.Name)
			text := string(t.Data)
			tree := parse.New(file)
			tree.Mode = parse.SkipFuncCheck
			set := map[string]*parse.Tree{}
			if _, err := tree.Parse(text, "", "", set); err != nil {
				continue
			}
			for _, tr := range set {
				w := &callWalker{file: file, text: text}
				w.list(tr.Root, scope{dot: rootDot()})
				w.finish()
				lookups = append(lookups, w.lookups...)
				requireds = append(requireds, w.requireds...)
				if prefix == "" {
					reads = append(reads, w.reads...)
				}
			}
		}
		for _, d := range ch.Dependencies() {
			scan(d, prefix+"charts/"+d.Name()+"/")
		}
	}
	scan(ch, "")
	return lookups, requireds, reads
}

// dotValue is what dot (or a variable) holds, as far as the walker knows.
type dotValue struct {
	root   bool  // the top-level context: .Values, .Release...
	values vpath // else a values path (inside with .Values.a), nil if unknown
	// lookup is the index of the lookup call whose result it holds, or -1.
	lookup int
	// releaseNS: it holds .Release.Namespace.
	releaseNS bool
}

func rootDot() dotValue { return dotValue{root: true, lookup: -1} }

func unknownDot() dotValue { return dotValue{lookup: -1} }

// scope is what the walker knows at a point of a template.
type scope struct {
	dot dotValue
	// guards are the lookup results (by call index) checked by an
	// enclosing if/with condition whose body this is.
	guards map[int]bool
	// inCondition: walking the condition of an if/with (and/or/not
	// short-circuit there, so a use in it is a check).
	inCondition bool
	// tested are the values paths an enclosing if/with condition reads:
	// reading them (or below them) in its body is safe.
	tested []vpath
}

func (s scope) guarding(idx []int) scope {
	g := make(map[int]bool, len(s.guards)+len(idx))
	for k := range s.guards {
		g[k] = true
	}
	for _, i := range idx {
		g[i] = true
	}
	s.guards = g
	return s
}

type callWalker struct {
	file, text string
	vars       map[string]dotValue
	lookups    []lookupCall
	unguarded  map[int]bool // lookups whose result is used unchecked
	requireds  []requiredCall
	reads      []valueRead
}

func (w *callWalker) line(n parse.Node) int {
	pos := int(n.Position())
	if pos > len(w.text) {
		pos = len(w.text)
	}
	return strings.Count(w.text[:pos], "\n") + 1
}

func (w *callWalker) finish() {
	for i := range w.lookups {
		w.lookups[i].guarded = !w.unguarded[i]
	}
}

func (w *callWalker) list(l *parse.ListNode, s scope) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		w.node(n, s)
	}
}

func (w *callWalker) node(n parse.Node, s scope) {
	switch n := n.(type) {
	case *parse.ActionNode:
		w.declare(n.Pipe, s)
	case *parse.IfNode:
		w.branch(&n.BranchNode, s, false)
	case *parse.WithNode:
		w.branch(&n.BranchNode, s, true)
	case *parse.RangeNode:
		w.pipe(n.Pipe, s)
		body := s
		body.dot = unknownDot()
		w.list(n.List, body)
		w.list(n.ElseList, s)
	case *parse.TemplateNode:
		w.pipe(n.Pipe, s)
	case *parse.ListNode:
		w.list(n, s)
	}
}

// declare walks an action's pipeline and records what a declared
// variable holds.
func (w *callWalker) declare(p *parse.PipeNode, s scope) {
	if p == nil {
		return
	}
	v := w.pipe(p, s)
	if len(p.Decl) == 0 && v.lookup >= 0 && !s.inCondition && !s.guards[v.lookup] {
		w.markUnguarded(v.lookup) // {{ lookup ... }} prints the result
	}
	for _, d := range p.Decl {
		if w.vars == nil {
			w.vars = map[string]dotValue{}
		}
		w.vars[d.Ident[0]] = v
	}
}

// branch walks an if or with: the condition, the body (where the lookups
// the condition checks are guarded; for with, dot is the condition's
// value) and the else branch.
func (w *callWalker) branch(b *parse.BranchNode, s scope, with bool) {
	cond := s
	cond.inCondition = true
	n := len(w.lookups)
	firstRead := len(w.reads)
	v := w.pipe(b.Pipe, cond)
	for _, d := range b.Pipe.Decl {
		if w.vars == nil {
			w.vars = map[string]dotValue{}
		}
		w.vars[d.Ident[0]] = v
	}
	checked := w.checkedIn(b.Pipe)
	for i := n; i < len(w.lookups); i++ {
		checked = append(checked, i) // a lookup in the condition is its own check
	}
	body := s.guarding(checked)
	body.tested = slices.Clone(s.tested)
	for _, r := range w.reads[firstRead:] {
		body.tested = append(body.tested, r.path)
	}
	if with {
		body.dot = v
		if v.lookup < 0 && len(checked) > 0 {
			body.dot.lookup = checked[0]
		}
	}
	w.list(b.List, body)
	w.list(b.ElseList, s)
}

// checkedIn lists the lookup results a condition refers to.
func (w *callWalker) checkedIn(p *parse.PipeNode) []int {
	var out []int
	var visit func(n parse.Node)
	visit = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.PipeNode:
			if n == nil {
				return
			}
			for _, c := range n.Cmds {
				visit(c)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				visit(a)
			}
		case *parse.ChainNode:
			visit(n.Node)
		case *parse.VariableNode:
			if v, ok := w.vars[n.Ident[0]]; ok && v.lookup >= 0 {
				out = append(out, v.lookup)
			}
		case *parse.DotNode:
		}
	}
	visit(p)
	return out
}

// guardFuncs check a value rather than use it: a lookup result passed to
// them is checked.
var guardFuncs = map[string]bool{
	"default": true, "empty": true, "hasKey": true, "and": true, "or": true, "not": true,
	"eq": true, "ne": true, "coalesce": true, "ternary": true, "kindIs": true, "typeIs": true,
}

// pipe walks a pipeline and returns what it evaluates to, as far as it
// is a plain reference (a values path, .Release.Namespace, a lookup).
func (w *callWalker) pipe(p *parse.PipeNode, s scope) dotValue {
	if p == nil {
		return unknownDot()
	}
	result := unknownDot()
	var prev dotValue
	first := len(w.reads)
	for i, c := range p.Cmds {
		if fn, ok := firstIdent(c); ok && i > 0 && (guardFuncs[fn] || fn == "required") {
			// .Values.a | default 3: a is tested, not used.
			for j := first; j < len(w.reads); j++ {
				w.reads[j].guarded = true
			}
		}
		prev = w.command(c, s, prev, i > 0)
		result = prev
	}
	return result
}

// command walks one command of a pipeline; piped is the value of the
// previous command when there is one.
func (w *callWalker) command(c *parse.CommandNode, s scope, piped dotValue, hasPiped bool) dotValue {
	if len(c.Args) == 0 {
		return unknownDot()
	}
	fn, _ := c.Args[0].(*parse.IdentifierNode)
	inner := s
	if fn != nil && guardFuncs[fn.Ident] {
		inner.inCondition = true
	}
	if hasPiped && piped.lookup >= 0 && !inner.inCondition && !s.guards[piped.lookup] {
		w.markUnguarded(piped.lookup) // lookup ... | toYaml uses the result
	}
	var args []dotValue
	first := len(w.reads)
	for _, a := range c.Args[1:] {
		args = append(args, w.arg(a, inner))
	}
	if fn != nil && fn.Ident == "required" {
		for j := first; j < len(w.reads); j++ {
			w.reads[j].guarded = true // RENDER011 says what is required
		}
	}
	if fn == nil {
		if len(c.Args) == 1 {
			return w.arg(c.Args[0], s)
		}
		return unknownDot()
	}
	switch fn.Ident {
	case "lookup":
		// The result's uses decide whether it is checked: a declaration
		// or a with takes it; printing or piping it is a use (see
		// declare and above).
		return dotValue{lookup: w.lookup(c, s)}
	case "required":
		rc := requiredCall{file: w.file, line: w.line(c)}
		switch {
		case len(args) >= 2:
			rc.path = args[1].values
		case hasPiped:
			rc.path = piped.values
		}
		w.requireds = append(w.requireds, rc)
		if len(args) >= 2 {
			return args[1]
		}
		return piped
	}
	return unknownDot()
}

// arg walks an argument and returns what it refers to, recording a read
// of a values path.
func (w *callWalker) arg(n parse.Node, s scope) dotValue {
	v := w.argValue(n, s)
	switch n.(type) {
	case *parse.FieldNode, *parse.VariableNode, *parse.ChainNode:
		if len(v.values) > 0 {
			guarded := s.inCondition || slices.ContainsFunc(s.tested, func(t vpath) bool { return v.values.HasPrefix(t) })
			w.reads = append(w.reads, valueRead{file: w.file, line: w.line(n), path: v.values, guarded: guarded})
		}
	}
	return v
}

func (w *callWalker) argValue(n parse.Node, s scope) dotValue {
	switch n := n.(type) {
	case *parse.PipeNode:
		return w.pipe(n, s)
	case *parse.FieldNode:
		return w.field(s.dot, n.Ident, s)
	case *parse.VariableNode:
		v, ok := w.vars[n.Ident[0]]
		if n.Ident[0] == "$" {
			v, ok = rootDot(), true
		}
		if !ok {
			return unknownDot()
		}
		return w.field(v, n.Ident[1:], s)
	case *parse.DotNode:
		return w.field(s.dot, nil, s)
	case *parse.ChainNode:
		base := w.arg(n.Node, s)
		return w.field(base, n.Field, s)
	}
	return unknownDot()
}

// field resolves v.a.b and records a use of a lookup result.
func (w *callWalker) field(v dotValue, idents []string, s scope) dotValue {
	if v.lookup >= 0 && !s.inCondition && !s.guards[v.lookup] {
		w.markUnguarded(v.lookup)
	}
	switch {
	case v.root && len(idents) >= 2 && idents[0] == "Release" && idents[1] == "Namespace":
		return dotValue{releaseNS: true, lookup: -1}
	case v.root && len(idents) >= 1 && idents[0] == "Values":
		p := vpath{}
		for _, id := range idents[1:] {
			p = p.Child(id)
		}
		return dotValue{values: p, lookup: -1}
	case v.root && len(idents) == 0:
		return v
	case v.values != nil:
		p := v.values
		for _, id := range idents {
			p = p.Child(id)
		}
		return dotValue{values: p, lookup: -1}
	case v.lookup >= 0:
		return dotValue{lookup: v.lookup}
	case v.releaseNS && len(idents) == 0:
		return v
	}
	return unknownDot()
}

func (w *callWalker) markUnguarded(idx int) {
	if w.unguarded == nil {
		w.unguarded = map[int]bool{}
	}
	w.unguarded[idx] = true
}

// lookup records a lookup call from its arguments.
func (w *callWalker) lookup(c *parse.CommandNode, s scope) int {
	lc := lookupCall{file: w.file, line: w.line(c), ns: nsDynamic}
	str := func(i int) (string, bool) {
		if i >= len(c.Args) {
			return "", false
		}
		if s, ok := c.Args[i].(*parse.StringNode); ok {
			return s.Text, true
		}
		return "", false
	}
	lc.apiVersion, lc.apiKnown = str(1)
	lc.kind, lc.kindKnown = str(2)
	lc.name, lc.nameKnown = str(4)
	if ns, ok := str(3); ok {
		if ns == "" {
			lc.ns = nsCluster
		} else {
			lc.ns, lc.namespace = nsOther, ns
		}
	} else if len(c.Args) > 3 {
		s.inCondition = true // reading the namespace argument is no use of a result
		if v := w.arg(c.Args[3], s); v.releaseNS {
			lc.ns = nsRelease
		}
	}
	w.lookups = append(w.lookups, lc)
	return len(w.lookups) - 1
}

// firstIdent is the function a command calls, if it calls one by name.
func firstIdent(c *parse.CommandNode) (string, bool) {
	if len(c.Args) == 0 {
		return "", false
	}
	fn, ok := c.Args[0].(*parse.IdentifierNode)
	if !ok {
		return "", false
	}
	return fn.Ident, true
}
