package markdown

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// jinja is the macros plugin's configuration for one page.
type jinja struct {
	varStart, varEnd, blockStart, blockEnd, commentStart, commentEnd string
	// modules are the Python modules the project loads (modules:,
	// module_name:): their variables and functions cannot be known here.
	modules []string
	// onUndefined is the plugin's on_undefined: "keep" (its default: the
	// expression stays as written), "silent", "lax" or "" (strict: the
	// plugin reports an error and, with on_error_fail, fails the build).
	onUndefined string
	// failOnError is on_error_fail: a rendering error fails the build;
	// else it is a warning and the page is built.
	failOnError bool
	// includeDirs are where {% include %} finds its file: include_dir,
	// else docs_dir, as the plugin's Jinja loader.
	includeDirs []string
	vars        map[string]any
	// opaque names were set from an expression kbook could not evaluate.
	opaque map[string]bool
}

func optString(o map[string]any, key, def string) string {
	if s, ok := o[key].(string); ok && s != "" {
		return s
	}
	return def
}

// macros renders the macros plugin's Jinja variables ({{ var }} or the
// configured delimiters) and set statements on every line, code included,
// as the plugin does; what it cannot evaluate is left as text and counted.
func (t *translator) macros(ls []line) ([]line, error) {
	cfg, on := t.plugin("macros")
	if !on {
		return ls, nil
	}
	j := &jinja{
		varStart: optString(cfg, "j2_variable_start_string", "{{"), varEnd: optString(cfg, "j2_variable_end_string", "}}"),
		blockStart: optString(cfg, "j2_block_start_string", "{%"), blockEnd: optString(cfg, "j2_block_end_string", "%}"),
		commentStart: optString(cfg, "j2_comment_start_string", "{#"), commentEnd: optString(cfg, "j2_comment_end_string", "#}"),
		onUndefined: optString(cfg, "on_undefined", "keep"),
		vars:        map[string]any{}, opaque: map[string]bool{},
	}
	if j.onUndefined == "strict" {
		j.onUndefined = ""
	}
	j.failOnError, _ = cfg["on_error_fail"].(bool)
	switch m := cfg["modules"].(type) {
	case []any:
		for _, x := range m {
			j.modules = append(j.modules, fmt.Sprint(x))
		}
	case []string:
		j.modules = m
	}
	if s := optString(cfg, "module_name", ""); s != "" {
		j.modules = append(j.modules, s)
	}
	for k, v := range t.opts.Variables {
		j.vars[k] = v
	}
	j.vars["extra"] = t.opts.Variables
	if t.opts.Config != nil {
		if _, set := j.vars["config"]; !set {
			j.vars["config"] = t.opts.Config
		}
	}
	if _, set := j.vars["git"]; !set {
		// Outside a git repository the plugin's git commands fail and
		// each of its values is empty.
		g := map[string]any{"status": false, "date": nil}
		for _, k := range GitKeys {
			g[k] = ""
		}
		j.vars["git"] = g
	}
	if t.opts.Page != nil {
		j.vars["page"] = t.opts.Page
		if meta, ok := t.opts.Page["meta"].(map[string]any); ok {
			for k, v := range meta {
				j.vars[k] = v
			}
		}
	}
	if d := optString(cfg, "include_dir", ""); d != "" {
		j.includeDirs = []string{t.runPath(d)}
	} else if t.opts.DocsDir != "" {
		j.includeDirs = []string{t.opts.DocsDir}
	}
	ls, err := t.macroIncludes(j, ls, 0)
	if err != nil {
		return nil, err
	}
	return t.renderLines(j, ls)
}

// renderLines renders lines of a page (or of a filter block).
func (t *translator) renderLines(j *jinja, ls []line) ([]line, error) {
	var out []line
	inComment, inRaw := false, false
	fence := ""
	filterTag := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(j.blockStart) + `[-+]?\s*(filter|endfilter)\b\s*(.*?)\s*[-+]?` + regexp.QuoteMeta(j.blockEnd) + `\s*$`)
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		// an expression or statement may go on over the next lines
		for k := 0; k < 5 && i+1 < len(ls) && (unclosed(l.s, j.varStart, j.varEnd) || unclosed(l.s, j.blockStart, j.blockEnd)); k++ {
			i++
			l.s += "\n" + ls[i].s
		}
		if m := filterTag.FindStringSubmatch(l.s); m != nil && m[1] == "filter" && !inComment && !inRaw {
			if got, end, ok, err := t.filterBlock(j, ls, i, m[2], filterTag); err != nil {
				return nil, err
			} else if ok {
				out = append(out, got...)
				i = end
				continue
			}
		}
		trimmed := strings.TrimLeft(l.s, " \t")
		inCode := fence != ""
		if fence == "" {
			fence = fenceOpen(trimmed)
		} else if isFenceClose(trimmed, fence) {
			fence = ""
		}
		s, dropped, err := t.renderLine(j, l, inCode || fence != "", &inComment, &inRaw)
		if err != nil {
			return nil, err
		}
		if dropped {
			continue
		}
		for _, part := range strings.Split(s, "\n") {
			out = append(out, line{s: part, src: l.src})
		}
	}
	return out, nil
}

// filterBlock renders a {% filter f %} block whose tags are alone on
// their lines, ls[open] and the matching {% endfilter %}: its lines
// rendered, then the filter applied to them as Jinja applies it to the
// text after the tag's line end (indent(4) then indents each of them).
// The tags' lines are left empty, as a line of tags alone is. ok is false
// without an endfilter or with a filter kbook cannot apply: the lines
// are then rendered one by one, the tags left as text with a warning.
func (t *translator) filterBlock(j *jinja, ls []line, open int, filter string, tag *regexp.Regexp) (out []line, end int, ok bool, err error) {
	depth := 0
	for end = open + 1; end < len(ls); end++ {
		if m := tag.FindStringSubmatch(ls[end].s); m != nil {
			if m[1] == "filter" {
				depth++
			} else if depth--; depth < 0 {
				break
			}
		}
	}
	if end >= len(ls) {
		return nil, 0, false, nil
	}
	inner, err := t.renderLines(j, ls[open+1:end])
	if err != nil {
		return nil, 0, false, err
	}
	texts := make([]string, len(inner))
	for i, l := range inner {
		texts[i] = l.s
	}
	const body = "kbook_filter_body_"
	j.vars[body] = "\n" + strings.Join(texts, "\n")
	v, err := j.eval(body + " | " + filter)
	delete(j.vars, body)
	s, isText := v.(string)
	if err != nil || !isText {
		return nil, 0, false, nil
	}
	parts := strings.Split(strings.TrimPrefix(s, "\n"), "\n")
	out = append(out, line{s: "", src: ls[open].src})
	for i, p := range parts {
		src := ls[open].src
		if len(parts) == len(inner) {
			src = inner[i].src
		}
		out = append(out, line{s: p, src: src})
	}
	return append(out, line{s: "", src: ls[end].src}), end, true, nil
}

// unclosed reports whether s opens a delimiter it does not close.
func unclosed(s, start, end string) bool {
	k := strings.LastIndex(s, start)
	return k >= 0 && !strings.Contains(s[k+len(start):], end)
}

// renderLine renders one line; dropped is set when the line held only
// statements whose "-%}" removes the newline.
//
// What cannot be evaluated stays as it was in code; in text it shows as
// the expression in a code span marked md-macro, not as raw delimiters.
func (t *translator) renderLine(j *jinja, l line, inCode bool, inComment, inRaw *bool) (string, bool, error) {
	s := l.s
	spans := codeSpans(l.s)
	keep := func(whole, expr string) string {
		at := len(l.s) - len(s) - len(whole)
		if inCode {
			return whole
		}
		for _, sp := range spans {
			if at >= sp[0] && at < sp[1] {
				return whole
			}
		}
		return `<code class="md-macro" title="not rendered: needs the macros plugin's Python module">` + html.EscapeString(expr) + `</code>`
	}
	var b strings.Builder
	onlyTags, anyTag, trim := true, false, false
	for len(s) > 0 {
		if *inComment {
			k := strings.Index(s, j.commentEnd)
			if k < 0 {
				return b.String(), b.Len() == 0 && anyTag, nil
			}
			s, *inComment = s[k+len(j.commentEnd):], false
			continue
		}
		if *inRaw {
			k := strings.Index(s, j.blockStart)
			if k < 0 || !isTag(s[k+len(j.blockStart):], "endraw") {
				if k < 0 {
					b.WriteString(s)
					s = ""
					onlyTags = onlyTags && strings.TrimSpace(b.String()) == ""
					continue
				}
				b.WriteString(s[:k+len(j.blockStart)])
				s = s[k+len(j.blockStart):]
				onlyTags = false
				continue
			}
			b.WriteString(s[:k])
			e := strings.Index(s[k:], j.blockEnd)
			if e < 0 {
				b.WriteString(s[k:])
				break
			}
			s, *inRaw, anyTag = s[k+e+len(j.blockEnd):], false, true
			continue
		}
		// The first delimiter; where two start at the same place
		// ([[ and [[% of custom delimiters), the longest, as Jinja's
		// lexer tries them.
		delims := []string{j.varStart, j.blockStart, j.commentStart}
		k, which := -1, 0
		for w, d := range delims {
			x := strings.Index(s, d)
			if x >= 0 && (k < 0 || x < k || (x == k && len(d) > len(delims[which]))) {
				k, which = x, w
			}
		}
		if k < 0 {
			b.WriteString(s)
			if strings.TrimSpace(s) != "" {
				onlyTags = false
			}
			break
		}
		if strings.TrimSpace(s[:k]) != "" {
			onlyTags = false
		}
		b.WriteString(s[:k])
		switch which {
		case 2:
			anyTag = true
			rest := s[k+len(j.commentStart):]
			e := strings.Index(rest, j.commentEnd)
			if e < 0 {
				*inComment = true
				s = ""
				continue
			}
			s = rest[e+len(j.commentEnd):]
		case 1:
			anyTag = true
			rest := s[k+len(j.blockStart):]
			e := strings.Index(rest, j.blockEnd)
			if e < 0 {
				b.WriteString(s[k:])
				s, onlyTags = "", false
				continue
			}
			stmt := rest[:e]
			whole := s[k : k+len(j.blockStart)+e+len(j.blockEnd)]
			s = rest[e+len(j.blockEnd):]
			if strings.HasSuffix(stmt, "-") {
				trim = true
			}
			stmt = strings.TrimSpace(strings.Trim(stmt, "-+"))
			var und *undefinedError
			word, arg, _ := strings.Cut(stmt, " ")
			switch word {
			case "raw":
				*inRaw = true
			case "set":
				name, expr, ok := strings.Cut(arg, "=")
				name = strings.TrimSpace(name)
				if !ok || !isIdent(name) {
					t.unknown("macros " + word)
					t.warnOnce("jinja-set", l.src, "macros: %q is not a set statement kbook evaluates; left as text", whole)
					b.WriteString(whole)
					onlyTags = false
					continue
				}
				v, err := j.eval(expr)
				switch {
				case err == nil:
					j.vars[name] = v
					delete(j.opaque, name)
				case errors.As(err, &und) && len(j.modules) == 0 && j.onUndefined == "":
					if err := t.undefined(j, l.src, und.name, whole); err != nil {
						return "", false, err
					}
					j.opaque[name] = true
				case (errors.As(err, &und) || errors.Is(err, errOpaque)) && len(j.modules) == 0:
					j.opaque[name] = true // kept as written where it is used
				case errors.Is(err, errModule) || errors.Is(err, errOpaque) || errors.As(err, &und):
					j.opaque[name] = true
					t.moduleWarning(j, l.src)
				default:
					j.opaque[name] = true
					t.unknown("macros expression")
					t.warnOnce("jinja-expr", l.src, "macros: cannot evaluate %s (%v); what uses %s is left as text", whole, err, name)
				}
			default:
				t.unknown("macros " + word)
				t.warnOnce("jinja-"+word, l.src, "macros: Jinja {%% %s %%} blocks are not evaluated by kbook; left as text", word)
				b.WriteString(whole)
				onlyTags = false
			}
		case 0:
			rest := s[k+len(j.varStart):]
			e := strings.Index(rest, j.varEnd)
			if e < 0 {
				b.WriteString(s[k:])
				s, onlyTags = "", false
				continue
			}
			expr := strings.TrimSpace(strings.Trim(rest[:e], "-+"))
			whole := s[k : k+len(j.varStart)+e+len(j.varEnd)]
			s = rest[e+len(j.varEnd):]
			onlyTags = false
			v, err := j.eval(expr)
			var und *undefinedError
			switch {
			case err == nil:
				b.WriteString(pyString(v))
			case errors.As(err, &und) && len(j.modules) == 0 && j.onUndefined == "":
				if err := t.undefined(j, l.src, und.name, whole); err != nil {
					return "", false, err
				}
				b.WriteString(whole)
			case errors.As(err, &und) && (j.onUndefined == "silent" || j.onUndefined == "lax"):
			case (errors.As(err, &und) || errors.Is(err, errOpaque)) && len(j.modules) == 0:
				// on_undefined: keep, the plugin's default: as written.
				t.unknown("macros undefined")
				b.WriteString(whole)
			case errors.Is(err, errModule) || errors.Is(err, errOpaque) || errors.As(err, &und):
				t.moduleWarning(j, l.src)
				t.unknown("macros module")
				b.WriteString(keep(whole, expr))
			default:
				t.unknown("macros expression")
				t.warnOnce("jinja-expr", l.src, "macros: cannot evaluate %s (%v); left as text", whole, err)
				b.WriteString(whole)
			}
		}
	}
	if anyTag && onlyTags && trim {
		return "", true, nil
	}
	if anyTag && onlyTags {
		return strings.TrimSpace(b.String()), false, nil
	}
	return b.String(), false, nil
}

// GitKeys are the text values of the macros plugin's git variable
// (besides status, a bool, and date, the commit's date).
var GitKeys = []string{"short_commit", "commit", "tag", "short_tag", "author", "author_email",
	"committer", "committer_email", "date_ISO", "message", "raw", "root_dir"}

// undefined reports an undefined variable under on_undefined: strict:
// the plugin shows the error and builds the site, unless on_error_fail.
func (t *translator) undefined(j *jinja, src int, name, whole string) error {
	if j.failOnError {
		return t.errorf(src, "macros: undefined variable %q in %s (on_undefined: strict, on_error_fail: true)", name, whole)
	}
	t.warnOnce("jinja-undefined-"+name, src, "macros: undefined variable %q in %s (on_undefined: strict): left as written", name, whole)
	return nil
}

// macroIncludes expands {% include 'file' %} (with the configured
// delimiters) as the plugin's Jinja loader does: the file, from
// include_dir or else docs_dir, rendered in the page's place.
func (t *translator) macroIncludes(j *jinja, ls []line, depth int) ([]line, error) {
	if depth > maxIncludeDepth {
		return nil, t.errorf(firstSrc(ls), "macros: includes nested deeper than %d (does a file include itself?)", maxIncludeDepth)
	}
	re := regexp.MustCompile(regexp.QuoteMeta(j.blockStart) + `[-+]?\s*include\s+(?:"([^"]*)"|'([^']*)')((?:\s+(?:ignore\s+missing|with\s+context|without\s+context))*)\s*[-+]?` + regexp.QuoteMeta(j.blockEnd))
	raw := regexp.MustCompile(regexp.QuoteMeta(j.blockStart) + `[-+]?\s*(end)?raw\s*[-+]?` + regexp.QuoteMeta(j.blockEnd))
	var out []line
	changed, inRaw := false, false
	for _, l := range ls {
		m := outsideRaw(l.s, re, raw, &inRaw)
		if m == nil {
			out = append(out, l)
			continue
		}
		changed = true
		var name string
		if m[2] >= 0 {
			name = l.s[m[2]:m[3]]
		} else {
			name = l.s[m[4]:m[5]]
		}
		missingOK := strings.Contains(l.s[m[6]:m[7]], "missing")
		var data []byte
		found := false
		if !strings.Contains("/"+name+"/", "/../") {
			for _, d := range j.includeDirs {
				if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(name))); err == nil {
					if _, ok := t.within(filepath.Join(d, filepath.FromSlash(name))); ok {
						data, found = b, true
						break
					}
				}
			}
		}
		if !found && !missingOK {
			t.res.Warnings = append(t.res.Warnings, Warning{File: t.opts.File, Line: l.src,
				Msg: fmt.Sprintf("macros: include %q: no such file in %s: left out", name, t.shownDirs(j.includeDirs))})
			t.unknown("macros include missing file")
		}
		text := l.s[:m[0]] + strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + l.s[m[1]:]
		for _, part := range strings.Split(text, "\n") {
			out = append(out, line{s: part, src: l.src})
		}
	}
	if !changed {
		return ls, nil
	}
	return t.macroIncludes(j, out, depth+1)
}

// outsideRaw returns the first match of re in s that is not in a
// {% raw %} block (raw matches its raw and endraw tags); *inRaw carries
// whether one is open from line to line, and is updated for all of s.
func outsideRaw(s string, re, raw *regexp.Regexp, inRaw *bool) []int {
	var found []int
	for pos := 0; ; {
		r := raw.FindStringSubmatchIndex(s[pos:])
		end := len(s)
		if r != nil {
			end = pos + r[0]
		}
		if !*inRaw && found == nil {
			if m := re.FindStringSubmatchIndex(s[pos:end]); m != nil {
				for i := range m {
					if m[i] >= 0 {
						m[i] += pos
					}
				}
				found = m
			}
		}
		if r == nil {
			return found
		}
		*inRaw = r[2] < 0 // raw opens a block, endraw closes it
		pos += r[1]
	}
}

// shownDirs names folders relative to the project folder.
func (t *translator) shownDirs(dirs []string) string {
	var shown []string
	for _, d := range dirs {
		if rel, err := filepath.Rel(t.opts.ProjectDir, d); err == nil && t.opts.ProjectDir != "" {
			d = rel
		}
		shown = append(shown, filepath.ToSlash(d))
	}
	return strings.Join(shown, ", ")
}

func isTag(s, word string) bool {
	s = strings.TrimLeft(s, "-+ \t")
	return strings.HasPrefix(s, word) && (len(s) == len(word) || !isIdentByte(s[len(word)]))
}

func (t *translator) moduleWarning(j *jinja, src int) {
	mods := "the macros plugin's Python modules"
	if len(j.modules) > 0 {
		mods = "the Python module(s) " + strings.Join(j.modules, ", ")
	}
	t.warnOnce("jinja-module", src, "macros: %s cannot run outside Python: what they define is left as text (define the variables in kbook.yaml to render them)", mods)
}

var (
	errModule = errors.New("needs a Python macros module")
	errOpaque = errors.New("uses a value kbook could not evaluate")
)

type undefinedError struct{ name string }

func (e *undefinedError) Error() string { return "undefined variable " + e.name }

// pyString prints a value as Jinja (Python) does.
func pyString(v any) string {
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
				parts[i] = pyString(e)
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
			parts[i] = "'" + k + "': " + pyString(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// expression evaluation: a Jinja subset (literals, names, attributes,
// indexes, + - ~ arithmetic, filters, string methods).

type parser struct {
	j   *jinja
	s   string
	pos int
}

func (j *jinja) eval(expr string) (any, error) {
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
		return pyString(a) + pyString(b), nil
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
	return nil, fmt.Errorf("cannot apply %c to %s and %s", op, pyString(a), pyString(b))
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
	var und *undefinedError
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
	for p.pos < len(p.s) && isIdentByte(p.s[p.pos]) {
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
				return nil, &undefinedError{name: name + "." + attr}
			}
			if v, ok = m[attr]; !ok {
				return nil, &undefinedError{name: name + "." + attr}
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
			return nil, errModule // a function: only a Python module defines them
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
		return nil, fmt.Errorf("cannot slice %s", pyString(v))
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
			return nil, fmt.Errorf("index %s out of range", pyString(idx))
		}
		return x[i], nil
	case map[string]any:
		if e, ok := x[pyString(idx)]; ok {
			return e, nil
		}
		return nil, &undefinedError{name: pyString(idx)}
	}
	return nil, fmt.Errorf("cannot index %s", pyString(v))
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
			return nil, "", fmt.Errorf("cannot negate %s", pyString(v))
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
		return nil, name, errModule
	}
	if p.j.opaque[name] {
		return nil, name, errOpaque
	}
	v, ok := p.j.vars[name]
	if !ok {
		return nil, name, &undefinedError{name: name}
	}
	return v, name, nil
}

// method applies the Python string methods pages use.
func method(v any, name string, args []any, kw map[string]any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("no method %s on %s", name, pyString(v))
	}
	arg := func(i int) string {
		if i < len(args) {
			return pyString(args[i])
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
		return (&jinja{}).filter(name, s, nil, nil)
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
func (j *jinja) filter(name string, v any, args []any, kw map[string]any) (any, error) {
	str := pyString(v)
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
				if k := pyString(e); !seen[k] {
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
			return pyString(out[a]) < pyString(out[b])
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
			parts[i] = pyString(e)
		}
		sep := ""
		if len(args) > 0 {
			sep = pyString(args[0])
		}
		return strings.Join(parts, sep), nil
	case "urlencode":
		return strings.ReplaceAll(url.QueryEscape(str), "+", "%20"), nil
	case "replace":
		if len(args) < 2 {
			return nil, fmt.Errorf("replace needs two arguments")
		}
		return strings.ReplaceAll(str, pyString(args[0]), pyString(args[1])), nil
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
			r, err := j.filter(pyString(args[0]), e, args[1:], kw)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	if len(j.modules) > 0 {
		return nil, errModule
	}
	return nil, fmt.Errorf("filter %q is not supported", name)
}
