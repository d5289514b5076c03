package policy

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/yamldoc"
	"go.yaml.in/yaml/v3"
)

// The apiVersion and kind a policy file must declare.
const (
	APIVersion = "kbook.k0rdent.io/v1alpha1"
	Kind       = "TemplatePolicy"
)

// Rule targets.
const (
	TargetObject = "object" // every rendered object the rule matches
	TargetChart  = "chart"  // once per chart
)

// Policy is a compiled policy file.
type Policy struct {
	File  string // the path given to Load or Parse
	Name  string // metadata.name
	Rules []*Rule
}

// Rule is one compiled rule of a policy.
type Rule struct {
	ID                string
	Severity          findings.Severity
	Target            string // TargetObject or TargetChart
	Message           string
	MessageExpression string
	Expression        string
	Kinds             []string // match.kinds as written; empty matches every object
	Line              int      // line of the rule in the policy file

	kinds   []kindMatch
	expr    cel.Program
	message cel.Program
}

// Violation is a rule that an object or chart does not satisfy, or whose
// expression could not be evaluated.
type Violation struct {
	Rule *Rule
	// Message is the rule's message or its evaluated messageExpression;
	// "evaluation error: ..." when the expression failed to evaluate.
	Message string
}

// Load reads and compiles a policy file. Every problem is reported as
// "FILE:LINE: ...", one per line of the error.
func Load(file string) (*Policy, error) {
	data, err := inputfile.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	return Parse(file, data)
}

// Parse is Load from bytes; file is used in messages and Policy.File.
func Parse(file string, data []byte) (*Policy, error) {
	p := &parser{file: file, ids: map[string]int{}}
	pol := p.parse(data)
	if len(p.errs) > 0 {
		// In file order: a rule's unknown keys are found after its id.
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].line < p.errs[j].line })
		errs := make([]error, len(p.errs))
		for i, e := range p.errs {
			errs[i] = e.err
		}
		return nil, errors.Join(errs...)
	}
	pol.File = file
	return pol, nil
}

type parser struct {
	file string
	errs []lineError
	ids  map[string]int // rule id -> line of its first use
}

type lineError struct {
	line int
	err  error
}

func (p *parser) errorf(line int, format string, args ...any) {
	err := fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...))
	p.errs = append(p.errs, lineError{line, err})
}

func (p *parser) parse(data []byte) *Policy {
	docs, err := yamldoc.Documents(p.file, data, "invalid YAML: ")
	var ie *findings.InputError
	switch {
	case errors.As(err, &ie):
		p.errorf(ie.Line, "%v", ie.Err)
		return nil
	case len(docs) == 0:
		p.errorf(1, "empty policy file")
		return nil
	case len(docs) > 1:
		p.errorf(docs[1].Line, "a policy file holds one YAML document")
		return nil
	}
	root := resolve(docs[0])
	if isNull(root) {
		p.errorf(root.Line, "empty policy file")
		return nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "a policy must be a mapping, not %s", describe(root))
		return nil
	}
	f := p.fields(root, "", []string{"apiVersion", "kind", "metadata", "rules"})
	pol := &Policy{}
	if v, ok := p.str(f, "", "apiVersion"); !ok {
		p.errorf(root.Line, "apiVersion is required (%s)", APIVersion)
	} else if v != APIVersion {
		p.errorf(f["apiVersion"].val.Line, "apiVersion %q is not supported (want %s)", v, APIVersion)
	}
	if v, ok := p.str(f, "", "kind"); !ok {
		p.errorf(root.Line, "kind is required (%s)", Kind)
	} else if v != Kind {
		p.errorf(f["kind"].val.Line, "kind %q is not supported (want %s)", v, Kind)
	}
	if md, ok := f["metadata"]; !ok || isNull(md.val) {
		p.errorf(root.Line, "metadata.name is required")
	} else if md.val.Kind != yaml.MappingNode {
		p.errorf(md.val.Line, "metadata: want a mapping, not %s", describe(md.val))
	} else {
		mf := p.fields(md.val, "metadata: ", []string{"name"})
		if pol.Name, ok = p.str(mf, "metadata.", "name"); !ok || pol.Name == "" {
			p.errorf(md.key.Line, "metadata.name is required")
		}
	}
	rules, ok := f["rules"]
	switch {
	case !ok || isNull(rules.val):
		p.errorf(root.Line, "rules is required")
	case rules.val.Kind != yaml.SequenceNode:
		p.errorf(rules.val.Line, "rules: want a list, not %s", describe(rules.val))
	case len(rules.val.Content) == 0:
		p.errorf(rules.val.Line, "rules: the list is empty")
	default:
		for i, n := range rules.val.Content {
			if r := p.rule(i+1, resolve(n)); r != nil {
				pol.Rules = append(pol.Rules, r)
			}
		}
	}
	return pol
}

var ruleKeys = []string{"id", "severity", "target", "match", "expression", "message", "messageExpression"}

var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// rule parses and compiles the rule at position index (1-based) of rules.
func (p *parser) rule(index int, n *yaml.Node) *Rule {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "rules[%d]: want a mapping, not %s", index, describe(n))
		return nil
	}
	r := &Rule{Line: n.Line, Severity: findings.Error, Target: TargetObject}
	// Read the id first so that every other message can name the rule;
	// unknown keys are reported after it.
	where := fmt.Sprintf("rules[%d]: ", index)
	f := p.fields(n, where, nil)
	n0 := len(p.errs)
	id, ok := p.str(f, where, "id")
	switch {
	case len(p.errs) > n0: // not a string, reported
	case !ok || id == "":
		p.errorf(n.Line, "%sid is required", where)
	case !validID.MatchString(id):
		p.errorf(f["id"].val.Line, "%sid %q: use letters, digits, '.', '_' and '-'", where, id)
	default:
		r.ID = id
		where = "rule " + id + ": "
		if first, dup := p.ids[id]; dup {
			p.errorf(f["id"].val.Line, "%sduplicate id (first used at line %d)", where, first)
		} else {
			p.ids[id] = f["id"].val.Line
		}
	}
	p.unknown(n, where, f, ruleKeys)

	if v, ok := p.str(f, where, "severity"); ok {
		if sev, err := findings.ParseSeverity(v); err != nil {
			p.errorf(f["severity"].val.Line, "%s%v", where, err)
		} else {
			r.Severity = sev
		}
	}
	targetOK := true
	if v, ok := p.str(f, where, "target"); ok {
		if v != TargetObject && v != TargetChart {
			p.errorf(f["target"].val.Line, "%starget %q: want %s or %s", where, v, TargetObject, TargetChart)
			targetOK = false
		} else {
			r.Target = v
		}
	}
	if m, ok := f["match"]; ok {
		if targetOK && r.Target == TargetChart {
			p.errorf(m.key.Line, "%smatch is only for object rules (this rule has target: chart)", where)
		} else {
			p.match(where, m, r)
		}
	}
	r.Message, _ = p.str(f, where, "message")
	n0 = len(p.errs)
	r.Expression, ok = p.str(f, where, "expression")
	if !ok || strings.TrimSpace(r.Expression) == "" {
		if len(p.errs) == n0 {
			p.errorf(n.Line, "%sexpression is required", where)
		}
	} else if targetOK {
		r.expr = p.compile(where, "expression", f["expression"].val, r.Target, cel.BoolType)
	}
	r.MessageExpression, _ = p.str(f, where, "messageExpression")
	if strings.TrimSpace(r.MessageExpression) == "" {
		r.MessageExpression = ""
	} else if targetOK {
		r.message = p.compile(where, "messageExpression", f["messageExpression"].val, r.Target, cel.StringType)
	}
	return r
}

// match parses match: {kinds: [...]}.
func (p *parser) match(where string, m field, r *Rule) {
	if m.val.Kind != yaml.MappingNode {
		p.errorf(m.val.Line, "%smatch: want a mapping with kinds, not %s", where, describe(m.val))
		return
	}
	f := p.fields(m.val, where+"match: ", []string{"kinds"})
	kinds, ok := f["kinds"]
	switch {
	case !ok || isNull(kinds.val):
		p.errorf(m.key.Line, "%smatch.kinds is required (leave out match to check every object)", where)
		return
	case kinds.val.Kind != yaml.SequenceNode:
		p.errorf(kinds.val.Line, "%smatch.kinds: want a list, not %s", where, describe(kinds.val))
		return
	case len(kinds.val.Content) == 0:
		p.errorf(kinds.val.Line, "%smatch.kinds: the list is empty (leave out match to check every object)", where)
		return
	}
	for _, k := range kinds.val.Content {
		k = resolve(k)
		if k.Kind != yaml.ScalarNode || isNull(k) {
			p.errorf(k.Line, "%smatch.kinds: want a string, not %s", where, describe(k))
			continue
		}
		km, err := parseKind(k.Value)
		if err != nil {
			p.errorf(k.Line, "%smatch.kinds: %v", where, err)
			continue
		}
		r.Kinds = append(r.Kinds, k.Value)
		r.kinds = append(r.kinds, km)
	}
}

// compile compiles the CEL source in n and reports its errors at the line
// and column where they are.
func (p *parser) compile(where, key string, n *yaml.Node, target string, want *cel.Type) cel.Program {
	prg, iss, err := compile(target, n.Value, want)
	if iss != nil && iss.Err() != nil {
		for _, e := range iss.Errors() {
			line, col := n.Line, 0
			if loc := e.Location; loc != nil && loc.Line() > 0 {
				col = loc.Column() + 1
				if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
					// The text of a block scalar starts on the line after the indicator.
					line += loc.Line()
				}
			}
			msg := strings.TrimSuffix(e.Message, " (in container '')")
			if target == TargetChart && msg == "undeclared reference to 'object'" {
				msg += " (chart rules see chart and values only)"
			}
			if col > 0 {
				p.errorf(line, "%s%s: column %d: %s", where, key, col, msg)
			} else {
				p.errorf(line, "%s%s: %s", where, key, msg)
			}
		}
		return nil
	}
	if err != nil {
		p.errorf(n.Line, "%s%s %v", where, key, err)
		return nil
	}
	return prg
}

// field is a key and its value in a mapping.
type field struct{ key, val *yaml.Node }

// fields returns the entries of mapping n by key, reporting duplicate keys,
// keys that are not strings and, unless known is nil, unknown keys.
func (p *parser) fields(n *yaml.Node, where string, known []string) map[string]field {
	f := map[string]field{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.errorf(k.Line, "%skeys must be strings, not %s", where, describe(k))
			continue
		}
		if prev, dup := f[k.Value]; dup {
			p.errorf(k.Line, "%sduplicate key %q (first at line %d)", where, k.Value, prev.key.Line)
			continue
		}
		f[k.Value] = field{k, v}
	}
	if known != nil {
		p.unknown(n, where, f, known)
	}
	return f
}

// unknown reports the keys of mapping n that are not known, in file order.
func (p *parser) unknown(n *yaml.Node, where string, f map[string]field, known []string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k.Kind != yaml.ScalarNode || f[k.Value].key != k {
			continue
		}
		ok := false
		for _, kn := range known {
			ok = ok || kn == k.Value
		}
		if !ok {
			p.errorf(k.Line, "%sunknown key %q (known: %s)", where, k.Value, strings.Join(known, ", "))
		}
	}
}

// str returns the string value of key in f; ok is false when the key is
// absent or null, or is not a scalar (which is reported).
func (p *parser) str(f map[string]field, where, key string) (string, bool) {
	e, ok := f[key]
	if !ok || isNull(e.val) {
		return "", false
	}
	if e.val.Kind != yaml.ScalarNode {
		p.errorf(e.val.Line, "%s%s: want a string, not %s", where, key, describe(e.val))
		return "", false
	}
	return e.val.Value, true
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias"
}

// kindMatch is a parsed entry of match.kinds.
type kindMatch struct {
	group    string // API group; "" is the core group
	anyGroup bool   // written as a bare Kind
	kind     string // "*" for every kind of the group
}

// parseKind parses "Kind", "group/Kind" or "group/*".
func parseKind(s string) (kindMatch, error) {
	bad := fmt.Errorf("%q: want Kind, group/Kind or group/* (such as AWSCluster or infrastructure.cluster.x-k8s.io/AWSCluster)", s)
	group, kind, hasGroup := strings.Cut(s, "/")
	if !hasGroup {
		group, kind = "", s
	}
	if strings.ContainsAny(s, " \t") || strings.Contains(kind, "/") || (hasGroup && group == "") {
		return kindMatch{}, bad
	}
	if kind == "*" && hasGroup {
		return kindMatch{group: group, kind: kind}, nil
	}
	if kind == "" || kind[0] < 'A' || kind[0] > 'Z' {
		return kindMatch{}, bad
	}
	return kindMatch{group: group, anyGroup: !hasGroup, kind: kind}, nil
}

// matches reports whether obj is of one of the rule's kinds.
func (r *Rule) matches(obj map[string]any) bool {
	if len(r.kinds) == 0 {
		return true
	}
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	group, _, hasGroup := strings.Cut(apiVersion, "/")
	if !hasGroup {
		group = "" // "v1": the core group
	}
	for _, k := range r.kinds {
		if (k.kind == kind || k.kind == "*") && (k.anyGroup || k.group == group) {
			return true
		}
	}
	return false
}
