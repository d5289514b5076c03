package macros

import (
	"os"
	"path/filepath"
	"strings"
)

// What Lines renders across lines, keeping the page's line numbers: an
// expression that goes on over several lines (its value on its first
// line, the others left empty), {% if %} ... {% elif %} ... {% else %}
// ... {% endif %} whose tags stand alone on their lines (the branches not
// taken and the tags' lines left empty) and {% include "file" %} alone on
// its line (the file's lines, rendered, held by that line). What kbook
// cannot evaluate stays as written: an if whose condition it cannot read
// keeps its tags and every branch.

// maxExprLines bounds how far an expression may go on.
const maxExprLines = 20

// branch is one {% if %} being read.
type branch struct {
	// known: the condition was evaluated; else tags and branches stay.
	known bool
	// on: the lines of the current branch are kept; taken: a branch
	// was taken already (an elif or else after it is not).
	on, taken bool
}

// active reports whether the lines at the top of the stack are kept.
func active(stack []branch) bool {
	for _, b := range stack {
		if b.known && !b.on {
			return false
		}
	}
	return true
}

// soleTag returns the statement of a line that holds one block tag and
// nothing else ({% if x %}, {%- endif -%}): its word and the rest.
func (p Plugin) soleTag(l string) (word, arg string, ok bool) {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, p.BlockStart) || !strings.HasSuffix(t, p.BlockEnd) || len(t) < len(p.BlockStart)+len(p.BlockEnd) {
		return "", "", false
	}
	inner := t[len(p.BlockStart) : len(t)-len(p.BlockEnd)]
	if strings.Contains(inner, p.BlockStart) || strings.Contains(inner, p.BlockEnd) {
		return "", "", false
	}
	inner = strings.TrimSpace(strings.Trim(inner, "-+"))
	word, arg, _ = strings.Cut(inner, " ")
	return word, strings.TrimSpace(arg), true
}

// control handles a line that is an if, elif, else or endif tag, or an
// include: done reports that it did, out is what the line becomes.
func (p Plugin) control(env *Env, l string, stack *[]branch) (out string, done bool) {
	word, arg, ok := p.soleTag(l)
	if !ok {
		return "", false
	}
	s := *stack
	top := len(s) - 1
	switch word {
	case "if":
		if !active(s) {
			*stack = append(s, branch{known: true, taken: true})
			return "", true
		}
		v, known := truth(env, arg)
		*stack = append(s, branch{known: known, on: v, taken: v})
		if !known {
			return l, true
		}
		return "", true
	case "elif", "else":
		if top < 0 {
			return "", false
		}
		b := &s[top]
		if !b.known {
			return l, true
		}
		switch {
		case b.taken:
			b.on = false
		case word == "else":
			b.on, b.taken = true, true
		default:
			v, known := truth(env, arg)
			if !known {
				// Which branch holds is unknown from here on:
				// kept as written, as an if kbook cannot read.
				*b = branch{}
				return l, true
			}
			b.on, b.taken = v, v
		}
		return "", true
	case "endif":
		if top < 0 {
			return "", false
		}
		known := s[top].known
		*stack = s[:top]
		if !known {
			return l, true
		}
		return "", true
	case "include":
		if !active(s) {
			return "", true
		}
		v, err := env.Eval(arg)
		name, isString := v.(string)
		if err != nil || !isString {
			return l, true
		}
		text, found := p.include(name)
		if !found {
			return l, true
		}
		var lines []string
		inComment, inRaw := false, false
		for _, il := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			r, err := p.line(env, strings.TrimSuffix(il, "\r"), &inComment, &inRaw)
			if err != nil {
				return l, true
			}
			lines = append(lines, r)
		}
		// The line holds the file's lines, indented as the tag is.
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		return indent + strings.Join(lines, "\n"+indent), true
	}
	return "", false
}

// include reads a file an include names, from the plugin's include
// folders in order.
func (p Plugin) include(name string) (string, bool) {
	if filepath.IsAbs(name) || strings.Contains(filepath.ToSlash(name), "../") {
		return "", false
	}
	for _, d := range p.IncludeDirs {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(name))); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// truth evaluates an if's condition: an expression, not X, X == Y,
// X != Y, and X and Y, X or Y of those; known is false when kbook cannot
// evaluate it.
func truth(env *Env, cond string) (v, known bool) {
	cond = strings.TrimSpace(cond)
	if a, b, ok := strings.Cut(cond, " or "); ok {
		x, k1 := truth(env, a)
		y, k2 := truth(env, b)
		return x || y, k1 && k2
	}
	if a, b, ok := strings.Cut(cond, " and "); ok {
		x, k1 := truth(env, a)
		y, k2 := truth(env, b)
		return x && y, k1 && k2
	}
	if rest, ok := strings.CutPrefix(cond, "not "); ok {
		x, k := truth(env, rest)
		return !x, k
	}
	for _, op := range []string{"==", "!="} {
		if a, b, ok := strings.Cut(cond, op); ok {
			x, err1 := env.Eval(a)
			y, err2 := env.Eval(b)
			if err1 != nil || err2 != nil {
				return false, false
			}
			eq := String(x) == String(y)
			return eq == (op == "=="), true
		}
	}
	x, err := env.Eval(cond)
	if err != nil {
		return false, false
	}
	return truthy(x), true
}

// truthy is Python's truth of a value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// exprEnd is the line where an expression that line i leaves open ends
// (its variable end), or i when line i leaves none open.
func (p Plugin) exprEnd(all []string, i int) int {
	l := all[i]
	k := strings.LastIndex(l, p.VarStart)
	if k < 0 || strings.Contains(l[k+len(p.VarStart):], p.VarEnd) {
		return i
	}
	for j := i + 1; j < len(all) && j <= i+maxExprLines; j++ {
		if strings.Contains(all[j], p.VarStart) && !strings.Contains(all[j], p.VarEnd) {
			return i
		}
		if strings.Contains(all[j], p.VarEnd) {
			return j
		}
	}
	return i
}

// evaluates reports whether kbook evaluates the expression that line i
// leaves open and line j ends.
func (p Plugin) evaluates(env *Env, all []string, i, j int) bool {
	first := all[i][strings.LastIndex(all[i], p.VarStart):]
	last := all[j][:strings.Index(all[j], p.VarEnd)+len(p.VarEnd)]
	expr := strings.Join(append(append([]string{first}, all[i+1:j]...), last), " ")
	c, r := false, false
	out, err := p.line(env, expr, &c, &r)
	return err == nil && !strings.Contains(out, p.VarStart)
}
