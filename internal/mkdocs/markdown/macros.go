package markdown

import (
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/mkdocs/macros"
)

// jinja is the macros plugin's configuration for one page.
type jinja struct {
	varStart, varEnd, blockStart, blockEnd, commentStart, commentEnd string
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
	// Env holds the variables, the names set from what kbook could not
	// evaluate and the Python modules the project loads.
	macros.Env
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
	j := t.jinja()
	if j == nil {
		return ls, nil
	}
	ls, err := t.macroIncludes(j, ls, 0)
	if err != nil {
		return nil, err
	}
	return t.renderLines(j, ls)
}

// jinja is the macros plugin's configuration for the page, nil when the
// project does not use the plugin.
func (t *translator) jinja() *jinja {
	cfg, on := t.plugin("macros")
	if !on {
		return nil
	}
	pl := macros.ReadPlugin(cfg)
	j := &jinja{
		varStart: pl.VarStart, varEnd: pl.VarEnd, blockStart: pl.BlockStart, blockEnd: pl.BlockEnd,
		commentStart: pl.CommentStart, commentEnd: pl.CommentEnd,
		onUndefined: pl.OnUndefined, failOnError: pl.FailOnError,
		Env: macros.Env{Vars: map[string]any{}, Opaque: map[string]bool{}, Modules: pl.Modules},
	}
	for k, v := range t.opts.Variables {
		j.Vars[k] = v
	}
	j.Vars["extra"] = t.opts.Variables
	if t.opts.Config != nil {
		if _, set := j.Vars["config"]; !set {
			j.Vars["config"] = t.opts.Config
		}
	}
	if _, set := j.Vars["git"]; !set {
		// Outside a git repository the plugin's git commands fail and
		// each of its values is empty.
		g := map[string]any{"status": false, "date": nil}
		for _, k := range GitKeys {
			g[k] = ""
		}
		j.Vars["git"] = g
	}
	if t.opts.Page != nil {
		j.Vars["page"] = t.opts.Page
		if meta, ok := t.opts.Page["meta"].(map[string]any); ok {
			for k, v := range meta {
				j.Vars[k] = v
			}
		}
	}
	if d := optString(cfg, "include_dir", ""); d != "" {
		j.includeDirs = []string{t.runPath(d)}
	} else if t.opts.DocsDir != "" {
		j.includeDirs = []string{t.opts.DocsDir}
	}
	return j
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
	j.Vars[body] = "\n" + strings.Join(texts, "\n")
	v, err := j.Eval(body + " | " + filter)
	delete(j.Vars, body)
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
		delims := []string{j.varStart, j.blockStart, j.commentStart}
		k, which := macros.FirstDelimiter(s, delims)
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
			var und *macros.UndefinedError
			word, arg, _ := strings.Cut(stmt, " ")
			switch word {
			case "raw":
				*inRaw = true
			case "set":
				name, expr, ok := strings.Cut(arg, "=")
				name = strings.TrimSpace(name)
				if !ok || !macros.IsIdent(name) {
					t.unknown("macros " + word)
					t.warnOnce("jinja-set", l.src, "macros: %q is not a set statement kbook evaluates; left as text", whole)
					b.WriteString(whole)
					onlyTags = false
					continue
				}
				v, err := j.Eval(expr)
				switch {
				case err == nil:
					j.Vars[name] = v
					delete(j.Opaque, name)
				case errors.As(err, &und) && len(j.Modules) == 0 && j.onUndefined == "":
					if err := t.undefined(j, l.src, und.Name, whole); err != nil {
						return "", false, err
					}
					j.Opaque[name] = true
				case (errors.As(err, &und) || errors.Is(err, macros.ErrOpaque)) && len(j.Modules) == 0:
					j.Opaque[name] = true // kept as written where it is used
				case errors.Is(err, macros.ErrModule) || errors.Is(err, macros.ErrOpaque) || errors.As(err, &und):
					j.Opaque[name] = true
					t.moduleWarning(j, l.src)
				default:
					j.Opaque[name] = true
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
			v, err := j.Eval(expr)
			var und *macros.UndefinedError
			switch {
			case err == nil:
				b.WriteString(macros.String(v))
			case errors.As(err, &und) && len(j.Modules) == 0 && j.onUndefined == "":
				if err := t.undefined(j, l.src, und.Name, whole); err != nil {
					return "", false, err
				}
				b.WriteString(whole)
			case errors.As(err, &und) && (j.onUndefined == "silent" || j.onUndefined == "lax"):
			case (errors.As(err, &und) || errors.Is(err, macros.ErrOpaque)) && len(j.Modules) == 0:
				// on_undefined: keep, the plugin's default: as written.
				t.unknown("macros undefined")
				b.WriteString(whole)
			case errors.Is(err, macros.ErrModule) || errors.Is(err, macros.ErrOpaque) || errors.As(err, &und):
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
	return strings.HasPrefix(s, word) && (len(s) == len(word) || !macros.IsIdentByte(s[len(word)]))
}

func (t *translator) moduleWarning(j *jinja, src int) {
	mods := "the macros plugin's Python modules"
	if len(j.Modules) > 0 {
		mods = "the Python module(s) " + strings.Join(j.Modules, ", ")
	}
	t.warnOnce("jinja-module", src, "macros: %s cannot run outside Python: what they define is left as text (define the variables in kbook.yaml to render them)", mods)
}
