package macros

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/frontmatter"
)

// Plugin is the macros plugin's configuration in mkdocs.yml.
type Plugin struct {
	// The delimiters: {{ }}, {% %} and {# #} unless the project sets
	// j2_variable_start_string and the others.
	VarStart, VarEnd, BlockStart, BlockEnd, CommentStart, CommentEnd string
	// OnUndefined is on_undefined: "keep" (the plugin's default: the
	// expression stays as written), "silent", "lax" or "" (strict).
	OnUndefined string
	// FailOnError is on_error_fail: an error fails the build.
	FailOnError bool
	// Modules are the Python modules the project loads (modules:,
	// module_name:).
	Modules []string
	// IncludeDirs are the folders {% include %} reads from, in order:
	// the plugin's include_dir, then docs_dir (PageMacros sets them).
	IncludeDirs []string
}

// ReadPlugin reads the plugin's options (mkdocs.yml's plugins: macros).
func ReadPlugin(cfg map[string]any) Plugin {
	p := Plugin{
		VarStart: optString(cfg, "j2_variable_start_string", "{{"), VarEnd: optString(cfg, "j2_variable_end_string", "}}"),
		BlockStart: optString(cfg, "j2_block_start_string", "{%"), BlockEnd: optString(cfg, "j2_block_end_string", "%}"),
		CommentStart: optString(cfg, "j2_comment_start_string", "{#"), CommentEnd: optString(cfg, "j2_comment_end_string", "#}"),
		OnUndefined: optString(cfg, "on_undefined", "keep"),
	}
	if p.OnUndefined == "strict" {
		p.OnUndefined = ""
	}
	p.FailOnError, _ = cfg["on_error_fail"].(bool)
	switch m := cfg["modules"].(type) {
	case []any:
		for _, x := range m {
			p.Modules = append(p.Modules, fmt.Sprint(x))
		}
	case []string:
		p.Modules = m
	}
	if s := optString(cfg, "module_name", ""); s != "" {
		p.Modules = append(p.Modules, s)
	}
	return p
}

func optString(o map[string]any, key, def string) string {
	if s, ok := o[key].(string); ok && s != "" {
		return s
	}
	return def
}

// Lines renders the macros of a page (src, reported as file) line by
// line, as kbook run reads a page that runs its shell blocks: one string
// per line of src (split at "\n", a "\r" before it dropped), so that what
// is read from them keeps the page's line numbers. vars are the
// variables (mkdocs.yml's extra, then kbook.yaml's); the page's front
// matter adds its keys, and page.meta.
// Every line is rendered as code is: what cannot be evaluated stays as
// written (silent and lax: an undefined name is empty); a line of
// statements alone ({% set %}) sets its variables and is left empty; an
// expression that goes on over lines, {% if %} blocks and {% include %}
// are rendered as blocks.go says, line numbers kept; other statements
// stay as written. A value with newlines makes
// its line hold them. lines is nil when the page's front matter says
// render_macros: false. An undefined name under on_undefined: strict with
// on_error_fail is a located *findings.InputError.
func Lines(file string, src []byte, p Plugin, vars map[string]any) (lines []string, err error) {
	fb := frontmatter.Split(src)
	front := map[string]any{}
	if len(fb.YAML) > 0 {
		_ = yaml.Unmarshal(fb.YAML, &front) // a bad front matter is the page's error, reported where it is read
	}
	if render, ok := front["render_macros"].(bool); ok && !render {
		return nil, nil
	}
	env := &Env{Vars: map[string]any{}, Opaque: map[string]bool{}, Modules: p.Modules}
	maps.Copy(env.Vars, vars)
	maps.Copy(env.Vars, front) // the page's meta: its keys are variables too
	env.Vars["page"] = map[string]any{"meta": front}
	all := strings.Split(string(src), "\n")
	lines = make([]string, len(all))
	inComment, inRaw := false, false
	for i := range all {
		all[i] = strings.TrimSuffix(all[i], "\r")
	}
	var stack []branch
	for i := 0; i < len(all); i++ {
		l := all[i]
		if i < fb.Lines {
			lines[i] = l
			continue
		}
		if !inComment && !inRaw {
			if out, done := p.control(env, l, &stack); done {
				lines[i] = out
				continue
			}
		}
		if !active(stack) {
			continue // a branch not taken: an empty line
		}
		if j := p.exprEnd(all, i); j > i && !inComment && !inRaw {
			// An expression over lines i..j: its value on line i
			// when kbook evaluates it, the others empty.
			joined := strings.Join(all[i:j+1], " ")
			c, r := inComment, inRaw
			out, err := p.line(env, joined, &c, &r)
			if err != nil {
				return nil, findings.Inputf(file, i+1, "macros: %v", err)
			}
			if p.evaluates(env, all, i, j) {
				lines[i], inComment, inRaw = out, c, r
				i = j
				continue
			}
		}
		if lines[i], err = p.line(env, l, &inComment, &inRaw); err != nil {
			return nil, findings.Inputf(file, i+1, "macros: %v", err)
		}
	}
	return lines, nil
}

// line renders one line of code.
func (p Plugin) line(env *Env, s string, inComment, inRaw *bool) (string, error) {
	var b strings.Builder
	onlySet, anyTag := true, false
	for len(s) > 0 {
		if *inComment {
			k := strings.Index(s, p.CommentEnd)
			if k < 0 {
				return b.String(), nil
			}
			s, *inComment = s[k+len(p.CommentEnd):], false
			continue
		}
		if *inRaw {
			k := strings.Index(s, p.BlockStart)
			if k < 0 || !isTag(strings.TrimLeft(s[k+len(p.BlockStart):], " -+"), "endraw") {
				b.WriteString(s)
				return b.String(), nil
			}
			e := strings.Index(s[k:], p.BlockEnd)
			if e < 0 {
				b.WriteString(s)
				return b.String(), nil
			}
			b.WriteString(s[:k])
			s, *inRaw = s[k+e+len(p.BlockEnd):], false
			continue
		}
		delims := []string{p.VarStart, p.BlockStart, p.CommentStart}
		k, which := FirstDelimiter(s, delims)
		if k < 0 {
			b.WriteString(s)
			onlySet = onlySet && strings.TrimSpace(s) == ""
			break
		}
		onlySet = onlySet && strings.TrimSpace(s[:k]) == ""
		b.WriteString(s[:k])
		start, end := delims[which], []string{p.VarEnd, p.BlockEnd, p.CommentEnd}[which]
		rest := s[k+len(start):]
		e := strings.Index(rest, end)
		if e < 0 {
			if which == 2 {
				*inComment, anyTag = true, true
				break
			}
			b.WriteString(s[k:])
			onlySet = false
			break
		}
		whole := s[k : k+len(start)+e+len(end)]
		inner := strings.TrimSpace(strings.Trim(rest[:e], "-+"))
		s = rest[e+len(end):]
		switch which {
		case 2:
			anyTag = true
		case 1:
			word, arg, _ := strings.Cut(inner, " ")
			switch word {
			case "raw":
				*inRaw, anyTag = true, true
			case "set":
				name, expr, ok := strings.Cut(arg, "=")
				name = strings.TrimSpace(name)
				if !ok || !IsIdent(name) {
					b.WriteString(whole)
					onlySet = false
					continue
				}
				anyTag = true
				if v, err := env.Eval(expr); err == nil {
					env.Vars[name] = v
					delete(env.Opaque, name)
				} else {
					env.Opaque[name] = true // kept as written where it is used
				}
			default:
				b.WriteString(whole)
				onlySet = false
			}
		case 0:
			onlySet = false
			v, err := env.Eval(inner)
			var und *UndefinedError
			switch {
			case err == nil:
				b.WriteString(String(v))
			case errors.As(err, &und) && p.OnUndefined == "" && p.FailOnError && len(p.Modules) == 0:
				return "", fmt.Errorf("undefined variable %q in %s (on_undefined: strict, on_error_fail: true)", und.Name, whole)
			case errors.As(err, &und) && (p.OnUndefined == "silent" || p.OnUndefined == "lax"):
			default:
				b.WriteString(whole)
			}
		}
	}
	if anyTag && onlySet {
		return "", nil
	}
	return b.String(), nil
}

// isTag reports whether s starts with the statement word.
func isTag(s, word string) bool {
	return strings.HasPrefix(s, word) && (len(s) == len(word) || !IsIdentByte(s[len(word)]))
}

// FirstDelimiter is where in s the first of delims starts (-1: none) and
// which it is; where two start at the same place ([[ and [[% of custom
// delimiters), the longest, as Jinja's lexer tries them.
func FirstDelimiter(s string, delims []string) (at, which int) {
	at = -1
	for w, d := range delims {
		x := strings.Index(s, d)
		if x >= 0 && (at < 0 || x < at || (x == at && len(d) > len(delims[which]))) {
			at, which = x, w
		}
	}
	return at, which
}
