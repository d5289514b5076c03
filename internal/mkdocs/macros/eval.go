package macros

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Env is what an expression is evaluated against: the variables, the
// names set from what could not be evaluated, and the Python modules the
// project loads (whose names cannot be known here).
type Env struct {
	Vars map[string]any
	// Opaque names were set from an expression kbook could not evaluate.
	Opaque map[string]bool
	// Modules are the Python modules the project loads (modules:,
	// module_name:).
	Modules []string
}

var (
	ErrModule = errors.New("needs a Python macros module")
	ErrOpaque = errors.New("uses a value kbook could not evaluate")
)

type UndefinedError struct{ Name string }

func (e *UndefinedError) Error() string { return "undefined variable " + e.Name }

// String prints a value as Jinja (Python) does.
func String(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if s, ok := e.(string); ok {
				parts[i] = "'" + s + "'"
			} else {
				parts[i] = String(e)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = "'" + k + "': " + String(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func IsIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func IsIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsIdentByte(s[i]) {
			return false
		}
	}
	return true
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// expression evaluation: a Jinja subset (literals, names, attributes,
// indexes, + - ~ arithmetic, filters, string methods).

type parser struct {
	j   *Env
	s   string
	pos int
}

func (j *Env) Eval(expr string) (any, error) {
	p := &parser{j: j, s: expr}
	v, err := p.additive()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.s) {
		return nil, fmt.Errorf("unexpected %q", p.s[p.pos:])
	}
	return v, nil
}

func (p *parser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *parser) peek(tok string) bool {
	p.space()
	return strings.HasPrefix(p.s[p.pos:], tok)
}

func (p *parser) eat(tok string) bool {
	if p.peek(tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *parser) additive() (any, error) {
	v, err := p.filtered()
	for err == nil {
		var op byte
		switch {
		case p.eat("+"):
			op = '+'
		case p.eat("-"):
			op = '-'
		case p.eat("~"):
			op = '~'
		default:
			return v, nil
		}
		var w any
		if w, err = p.filtered(); err != nil {
			break
		}
		v, err = binary(op, v, w)
	}
	return nil, err
}

func binary(op byte, a, b any) (any, error) {
	if op == '~' {
		return String(a) + String(b), nil
	}
	na, aok := num(a)
	nb, bok := num(b)
	if aok && bok {
		if op == '+' {
			return na + nb, nil
		}
		return na - nb, nil
	}
	sa, aok := a.(string)
	sb, bok := b.(string)
	if op == '+' && aok && bok {
		return sa + sb, nil
	}
	return nil, fmt.Errorf("cannot apply %c to %s and %s", op, String(a), String(b))
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func (p *parser) filtered() (any, error) {
	v, err := p.postfix()
	var und *UndefinedError
	if errors.As(err, &und) && p.peek("|") {
		save := p.pos
		p.pos++
		if name := p.ident(); name == "default" || name == "d" {
			v, err = nil, nil
		}
		p.pos = save
	}
	for err == nil && p.peek("|") && !p.peek("||") {
		p.pos++
		p.space()
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("filter name expected at %q", p.s[p.pos:])
		}
		var args []any
		var kw map[string]any
		if p.peek("(") {
			p.pos++
			if args, kw, err = p.args(); err != nil {
				return nil, err
			}
		}
		v, err = p.j.filter(name, v, args, kw)
	}
	return v, err
}

func (p *parser) ident() string {
	p.space()
	start := p.pos
	for p.pos < len(p.s) && IsIdentByte(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// args parses call arguments after "(" up to ")".
func (p *parser) args() ([]any, map[string]any, error) {
	var args []any
	kw := map[string]any{}
	if p.eat(")") {
		return nil, kw, nil
	}
	for {
		save := p.pos
		if name := p.ident(); name != "" && p.peek("=") && !p.peek("==") {
			p.pos++
			v, err := p.additive()
			if err != nil {
				return nil, nil, err
			}
			kw[name] = v
		} else {
			p.pos = save
			v, err := p.additive()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, v)
		}
		if p.eat(")") {
			return args, kw, nil
		}
		if !p.eat(",") {
			return nil, nil, fmt.Errorf("',' or ')' expected at %q", p.s[p.pos:])
		}
	}
}

func (p *parser) postfix() (any, error) {
	v, name, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.peek("."):
			p.pos++
			attr := p.ident()
			if attr == "" {
				return nil, fmt.Errorf("attribute expected at %q", p.s[p.pos:])
			}
			if p.peek("(") {
				p.pos++
				args, kw, err := p.args()
				if err != nil {
					return nil, err
				}
				if v, err = method(v, attr, args, kw); err != nil {
					return nil, err
				}
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, &UndefinedError{Name: name + "." + attr}
			}
			if v, ok = m[attr]; !ok {
				return nil, &UndefinedError{Name: name + "." + attr}
			}
			name += "." + attr
		case p.peek("["):
			p.pos++
			var lo, hi any
			var err error
			if !p.peek(":") {
				if lo, err = p.additive(); err != nil {
					return nil, err
				}
			}
			if p.eat(":") {
				if !p.peek("]") && !p.peek(":") {
					if hi, err = p.additive(); err != nil {
						return nil, err
					}
				}
				var step any
				if p.eat(":") && !p.peek("]") {
					if step, err = p.additive(); err != nil {
						return nil, err
					}
				}
				if !p.eat("]") {
					return nil, fmt.Errorf("']' expected")
				}
				if v, err = slice(v, lo, hi, step); err != nil {
					return nil, err
				}
				continue
			}
			if !p.eat("]") {
				return nil, fmt.Errorf("']' expected")
			}
			if v, err = index(v, lo); err != nil {
				return nil, err
			}
		case p.peek("("):
			return nil, ErrModule // a function: only a Python module defines them
		default:
			return v, nil
		}
	}
}

// slice is Python's v[lo:hi:step] of a string or a list.
func slice(v, lo, hi, step any) (any, error) {
	n := 0
	switch x := v.(type) {
	case string:
		n = len([]rune(x))
	case []any:
		n = len(x)
	case nil:
		return "", nil
	default:
		return nil, fmt.Errorf("cannot slice %s", String(v))
	}
	st := 1
	if f, ok := num(step); ok {
		st = int(f)
	}
	if st == 0 {
		return nil, fmt.Errorf("slice step cannot be zero")
	}
	bound := func(b any, def int) int {
		f, ok := num(b)
		if !ok {
			return def
		}
		i := int(f)
		if i < 0 {
			i += n
		}
		if st > 0 {
			return min(max(i, 0), n)
		}
		return min(max(i, -1), n-1)
	}
	var idx []int
	if st > 0 {
		for i := bound(lo, 0); i < bound(hi, n); i += st {
			idx = append(idx, i)
		}
	} else {
		for i := bound(lo, n-1); i > bound(hi, -1); i += st {
			idx = append(idx, i)
		}
	}
	if s, ok := v.(string); ok {
		r := []rune(s)
		out := make([]rune, 0, len(idx))
		for _, i := range idx {
			out = append(out, r[i])
		}
		return string(out), nil
	}
	x := v.([]any)
	out := make([]any, 0, len(idx))
	for _, i := range idx {
		out = append(out, x[i])
	}
	return out, nil
}

func index(v, idx any) (any, error) {
	switch x := v.(type) {
	case []any:
		n, ok := num(idx)
		i := int(n)
		if i < 0 {
			i += len(x)
		}
		if !ok || i < 0 || i >= len(x) {
			return nil, fmt.Errorf("index %s out of range", String(idx))
		}
		return x[i], nil
	case map[string]any:
		if e, ok := x[String(idx)]; ok {
			return e, nil
		}
		return nil, &UndefinedError{Name: String(idx)}
	}
	return nil, fmt.Errorf("cannot index %s", String(v))
}

func (p *parser) primary() (any, string, error) {
	p.space()
	if p.pos >= len(p.s) {
		return nil, "", fmt.Errorf("expression expected")
	}
	c := p.s[p.pos]
	switch {
	case c == '"' || c == '\'':
		end := strings.IndexByte(p.s[p.pos+1:], c)
		if end < 0 {
			return nil, "", fmt.Errorf("unterminated string")
		}
		s := p.s[p.pos+1 : p.pos+1+end]
		p.pos += end + 2
		return s, "", nil
	case c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.s) && (p.s[p.pos] >= '0' && p.s[p.pos] <= '9' || p.s[p.pos] == '.') {
			p.pos++
		}
		f, err := strconv.ParseFloat(p.s[start:p.pos], 64)
		return f, "", err
	case c == '-':
		p.pos++
		v, err := p.postfix()
		if err != nil {
			return nil, "", err
		}
		n, ok := num(v)
		if !ok {
			return nil, "", fmt.Errorf("cannot negate %s", String(v))
		}
		return -n, "", nil
	case c == '(':
		p.pos++
		v, err := p.additive()
		if err == nil && !p.eat(")") {
			err = fmt.Errorf("')' expected")
		}
		return v, "", err
	case c == '[':
		p.pos++
		var list []any
		for !p.eat("]") {
			v, err := p.additive()
			if err != nil {
				return nil, "", err
			}
			list = append(list, v)
			if !p.eat(",") && !p.peek("]") {
				return nil, "", fmt.Errorf("',' or ']' expected")
			}
		}
		return list, "", nil
	}
	name := p.ident()
	if name == "" {
		return nil, "", fmt.Errorf("unexpected %q", p.s[p.pos:])
	}
	switch name {
	case "true", "True":
		return true, "", nil
	case "false", "False":
		return false, "", nil
	case "none", "None":
		return nil, "", nil
	}
	if p.peek("(") {
		return nil, name, ErrModule
	}
	if p.j.Opaque[name] {
		return nil, name, ErrOpaque
	}
	v, ok := p.j.Vars[name]
	if !ok {
		return nil, name, &UndefinedError{Name: name}
	}
	return v, name, nil
}

// method applies the Python string methods pages use.
func method(v any, name string, args []any, kw map[string]any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("no method %s on %s", name, String(v))
	}
	arg := func(i int) string {
		if i < len(args) {
			return String(args[i])
		}
		return ""
	}
	switch name {
	case "split":
		n := -1
		if m, ok := num(kw["maxsplit"]); ok {
			n = int(m) + 1
		} else if len(args) > 1 {
			if m, ok := num(args[1]); ok {
				n = int(m) + 1
			}
		}
		var parts []string
		if len(args) == 0 {
			parts = strings.Fields(s)
		} else {
			parts = strings.SplitN(s, arg(0), n)
		}
		out := make([]any, len(parts))
		for i, x := range parts {
			out[i] = x
		}
		return out, nil
	case "upper":
		return strings.ToUpper(s), nil
	case "lower":
		return strings.ToLower(s), nil
	case "strip":
		if len(args) > 0 {
			return strings.Trim(s, arg(0)), nil
		}
		return strings.TrimSpace(s), nil
	case "lstrip":
		if len(args) > 0 {
			return strings.TrimLeft(s, arg(0)), nil
		}
		return strings.TrimLeft(s, " \t\n\r"), nil
	case "rstrip":
		if len(args) > 0 {
			return strings.TrimRight(s, arg(0)), nil
		}
		return strings.TrimRight(s, " \t\n\r"), nil
	case "title", "capitalize":
		return (&Env{}).filter(name, s, nil, nil)
	case "replace":
		return strings.ReplaceAll(s, arg(0), arg(1)), nil
	case "startswith":
		return strings.HasPrefix(s, arg(0)), nil
	case "endswith":
		return strings.HasSuffix(s, arg(0)), nil
	}
	return nil, fmt.Errorf("string method %s is not supported", name)
}

// filter applies a Jinja filter; one kbook does not know is a module's
// when the project has modules.
func (j *Env) filter(name string, v any, args []any, kw map[string]any) (any, error) {
	str := String(v)
	intArg := func(i, def int) int {
		if i < len(args) {
			if n, ok := num(args[i]); ok {
				return int(n)
			}
		}
		return def
	}
	switch name {
	case "default", "d":
		if v == nil || v == "" {
			if len(args) > 0 {
				return args[0], nil
			}
			return "", nil
		}
		return v, nil
	case "safe":
		return v, nil
	case "e", "escape", "forceescape":
		return html.EscapeString(str), nil
	case "float":
		f, err := strconv.ParseFloat(strings.TrimSpace(str), 64)
		if err != nil {
			return 0.0, nil
		}
		return f, nil
	case "abs":
		f, ok := num(v)
		if !ok {
			return nil, fmt.Errorf("abs of %s", str)
		}
		return math.Abs(f), nil
	case "round":
		f, ok := num(v)
		if !ok {
			return nil, fmt.Errorf("round of %s", str)
		}
		p := math.Pow(10, float64(intArg(0, 0)))
		return math.Round(f*p) / p, nil
	case "truncate":
		r := []rune(str)
		n := intArg(0, 255)
		if len(r) <= n+5 {
			return str, nil
		}
		return strings.TrimRight(string(r[:n-3]), " ") + "...", nil
	case "wordcount":
		return float64(len(strings.Fields(str))), nil
	case "striptags":
		return strings.Join(strings.Fields(htmlTag.ReplaceAllString(str, "")), " "), nil
	case "indent":
		w := intArg(0, 4)
		return strings.ReplaceAll(str, "\n", "\n"+strings.Repeat(" ", w)), nil
	case "tojson":
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case "list":
		if x, ok := v.([]any); ok {
			return x, nil
		}
		var out []any
		for _, r := range str {
			out = append(out, string(r))
		}
		return out, nil
	case "reverse":
		if x, ok := v.([]any); ok {
			out := make([]any, len(x))
			for i, e := range x {
				out[len(x)-1-i] = e
			}
			return out, nil
		}
		r := []rune(str)
		for i, k := 0, len(r)-1; i < k; i, k = i+1, k-1 {
			r[i], r[k] = r[k], r[i]
		}
		return string(r), nil
	case "sort", "unique":
		x, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s of a non-list", name)
		}
		out := append([]any(nil), x...)
		if name == "unique" {
			seen := map[string]bool{}
			out = out[:0]
			for _, e := range x {
				if k := String(e); !seen[k] {
					seen[k] = true
					out = append(out, e)
				}
			}
			return out, nil
		}
		sort.SliceStable(out, func(a, b int) bool {
			na, aok := num(out[a])
			nb, bok := num(out[b])
			if aok && bok {
				return na < nb
			}
			return String(out[a]) < String(out[b])
		})
		return out, nil
	case "upper":
		return strings.ToUpper(str), nil
	case "lower":
		return strings.ToLower(str), nil
	case "trim":
		return strings.TrimSpace(str), nil
	case "string":
		return str, nil
	case "capitalize":
		if str == "" {
			return str, nil
		}
		return strings.ToUpper(str[:1]) + strings.ToLower(str[1:]), nil
	case "title":
		words := strings.Fields(str)
		for i, w := range words {
			words[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
		}
		return strings.Join(words, " "), nil
	case "int":
		f, err := strconv.ParseFloat(strings.TrimSpace(str), 64)
		if err != nil {
			return float64(intArg(0, 0)), nil
		}
		return float64(int64(f)), nil
	case "length", "count":
		switch x := v.(type) {
		case []any:
			return float64(len(x)), nil
		case map[string]any:
			return float64(len(x)), nil
		}
		return float64(len([]rune(str))), nil
	case "first", "last":
		if x, ok := v.([]any); ok {
			if len(x) == 0 {
				return nil, fmt.Errorf("%s of an empty list", name)
			}
			if name == "first" {
				return x[0], nil
			}
			return x[len(x)-1], nil
		}
		r := []rune(str)
		if len(r) == 0 {
			return "", nil
		}
		if name == "first" {
			return string(r[0]), nil
		}
		return string(r[len(r)-1]), nil
	case "join":
		x, ok := v.([]any)
		if !ok {
			return str, nil
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = String(e)
		}
		sep := ""
		if len(args) > 0 {
			sep = String(args[0])
		}
		return strings.Join(parts, sep), nil
	case "urlencode":
		return strings.ReplaceAll(url.QueryEscape(str), "+", "%20"), nil
	case "replace":
		if len(args) < 2 {
			return nil, fmt.Errorf("replace needs two arguments")
		}
		return strings.ReplaceAll(str, String(args[0]), String(args[1])), nil
	case "ljust", "rjust", "center":
		w := intArg(0, 0)
		pad := w - len([]rune(str))
		if pad <= 0 {
			return str, nil
		}
		switch name {
		case "ljust":
			return str + strings.Repeat(" ", pad), nil
		case "rjust":
			return strings.Repeat(" ", pad) + str, nil
		}
		return strings.Repeat(" ", pad/2) + str + strings.Repeat(" ", pad-pad/2), nil
	case "max", "min":
		x, ok := v.([]any)
		if !ok || len(x) == 0 {
			return nil, fmt.Errorf("%s of a non-list", name)
		}
		best, _ := num(x[0])
		for _, e := range x[1:] {
			n, _ := num(e)
			if name == "max" && n > best || name == "min" && n < best {
				best = n
			}
		}
		return best, nil
	case "map":
		x, ok := v.([]any)
		if !ok || len(args) == 0 {
			return nil, fmt.Errorf("map needs a list and a filter")
		}
		out := make([]any, len(x))
		for i, e := range x {
			r, err := j.filter(String(args[0]), e, args[1:], kw)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	if len(j.Modules) > 0 {
		return nil, ErrModule
	}
	return nil, fmt.Errorf("filter %q is not supported", name)
}
