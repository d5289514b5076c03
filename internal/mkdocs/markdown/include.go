package markdown

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// maxIncludeDepth bounds nested snippets and includes (a file that
// includes itself is an error, not a hang).
const maxIncludeDepth = 16

var (
	// snippetLine is pymdownx.snippets' single-line form: --8<-- "file".
	snippetLine = regexp.MustCompile(`^(\s*)(;?)--8<--\s+(["'])(.*?)(["'])\s*$`)
	// snippetBlock opens and closes the multi-line form.
	snippetBlock = regexp.MustCompile(`^(\s*)--8<--\s*$`)
	// snippetSection marks a named section inside a snippet file.
	snippetSection = regexp.MustCompile(`--8<--\s*\[\s*(start|end)\s*:\s*([\w-]+)\s*\]`)
	// includeStart is include-markdown's directive opener.
	includeStart    = regexp.MustCompile(`^(\s*)\{%-?\s*(include-markdown|include)(\s|$)`)
	includeOpenOnly = regexp.MustCompile(`^(\s*)\{%-?\s*$`)
	includeNext     = regexp.MustCompile(`^\s*(include-markdown|include)(\s|$)`)
	includeArg      = regexp.MustCompile(`([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(\S+))`)
	firstQuoted     = regexp.MustCompile(`^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')`)
)

func (t *translator) pagePath() string {
	if t.opts.Path != "" {
		return t.opts.Path
	}
	if t.opts.DocsDir != "" && !filepath.IsAbs(t.opts.File) {
		if rel, err := filepath.Rel(filepath.Base(t.opts.DocsDir), t.opts.File); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join(t.opts.DocsDir, rel)
		}
		return filepath.Join(t.opts.DocsDir, t.opts.File)
	}
	return t.opts.File
}

// includes expands snippets and include-markdown directives of the lines
// of the file at path (the page or an included file).
func (t *translator) includes(ls []line, path string, depth int) ([]line, error) {
	sn, snOn := t.ext("snippets")
	im, imOn := t.plugin("include-markdown")
	if !snOn && !imOn {
		return ls, nil
	}
	if depth > maxIncludeDepth {
		return nil, t.errorf(firstSrc(ls), "includes nested deeper than %d (does a file include itself?)", maxIncludeDepth)
	}
	var out []line
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		if snOn {
			if m := snippetLine.FindStringSubmatch(l.s); m != nil && m[3] == m[5] {
				if m[2] == ";" { // escaped: the literal line without ';'
					out = append(out, line{s: m[1] + l.s[len(m[1])+1:], src: l.src})
					continue
				}
				got, err := t.snippet(sn, m[4], m[1], l.src, path, depth)
				if err != nil {
					return nil, err
				}
				out = append(out, got...)
				continue
			}
			if m := snippetBlock.FindStringSubmatch(l.s); m != nil {
				end := -1
				for j := i + 1; j < len(ls); j++ {
					if snippetBlock.MatchString(ls[j].s) {
						end = j
						break
					}
					if strings.TrimSpace(ls[j].s) == "" {
						break
					}
				}
				if end > 0 {
					for j := i + 1; j < end; j++ {
						name := strings.TrimSpace(ls[j].s)
						if name == "" || strings.HasPrefix(name, ";") {
							continue
						}
						got, err := t.snippet(sn, name, m[1], l.src, path, depth)
						if err != nil {
							return nil, err
						}
						out = append(out, got...)
					}
					i = end
					continue
				}
			}
			if snippetSection.MatchString(l.s) && depth > 0 {
				continue // section markers never show in an included snippet
			}
		}
		if imOn {
			m := includeStart.FindStringSubmatch(l.s)
			if m == nil && includeOpenOnly.MatchString(l.s) && i+1 < len(ls) {
				if m2 := includeNext.FindStringSubmatch(ls[i+1].s); m2 != nil {
					m = []string{"", includeOpenOnly.FindStringSubmatch(l.s)[1], m2[1]}
				}
			}
			if m != nil {
				text := l.s
				j := i
				for !strings.Contains(text, "%}") && j+1 < len(ls) && j-i < 20 {
					j++
					text += "\n" + ls[j].s
				}
				if strings.Contains(text, "%}") {
					got, err := t.includeMarkdown(im, m[2], text, m[1], l.src, path, depth)
					if err != nil {
						return nil, err
					}
					out = append(out, got...)
					i = j
					continue
				}
			}
		}
		out = append(out, l)
	}
	return out, nil
}

func firstSrc(ls []line) int {
	if len(ls) == 0 {
		return 1
	}
	return ls[0].src
}

// within returns the file's absolute path if it lies below the project
// (or docs) folder, the roots Translate may read.
func (t *translator) within(p string) (string, bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	for _, root := range []string{t.opts.ProjectDir, t.opts.DocsDir, repoTop(t.opts.ProjectDir)} {
		if root == "" {
			continue
		}
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return abs, true
		}
	}
	return abs, t.opts.ProjectDir == "" && t.opts.DocsDir == ""
}

// snippet reads one pymdownx.snippets reference ("file", "file:3:5",
// "file:name") and returns its lines at the including line.
func (t *translator) snippet(cfg map[string]any, ref, indent string, src int, from string, depth int) ([]line, error) {
	if strings.Contains(ref, "://") {
		t.unknown("pymdownx.snippets url")
		return []line{{s: indent + "--8<-- \"" + ref + "\"", src: src}}, nil
	}
	name, sel := ref, ""
	// "file:..." where the selection is line ranges or a section name; a
	// Windows drive letter is not a selection.
	if k := strings.Index(ref, ":"); k > 1 {
		name, sel = ref[:k], ref[k+1:]
	}
	var found string
	for _, base := range t.snippetBases(cfg) {
		p := filepath.Join(base, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			found = p
			break
		}
	}
	if found == "" {
		// pymdownx.snippets leaves a missing file out unless check_paths
		// is true (its default is false): only then does MkDocs fail.
		check, set := cfg["check_paths"].(bool)
		if set && !check {
			return nil, nil
		}
		var shown []string
		for _, b := range t.snippetBases(cfg) {
			if rel, err := filepath.Rel(t.opts.ProjectDir, b); err == nil && t.opts.ProjectDir != "" {
				b = rel
			}
			shown = append(shown, b)
		}
		if check {
			return nil, t.errorf(src, "snippet %q not found in base_path %s (check_paths: true)", name, strings.Join(shown, ", "))
		}
		t.warnOnce("snippet "+name, src, "snippet %q not found in base_path %s: left out, as pymdownx.snippets does without check_paths: true", name, strings.Join(shown, ", "))
		return nil, nil
	}
	abs, ok := t.within(found)
	if !ok {
		return nil, t.errorf(src, "snippet %q is outside the project", name)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, t.errorf(src, "snippet %q: %v", name, err)
	}
	text := strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"), "\n")
	var picked []string
	switch {
	case sel == "":
		picked = text
	case isRanges(sel):
		for _, r := range strings.Split(sel, ",") {
			a, b, _ := strings.Cut(r, ":")
			start, end := 1, len(text)
			if n, err := strconv.Atoi(a); err == nil && n != 0 {
				start = n
				if n < 0 {
					start = len(text) + n + 1
				}
			}
			if n, err := strconv.Atoi(b); err == nil && n != 0 {
				end = n
				if n < 0 {
					end = len(text) + n + 1
				}
			}
			start, end = max(start, 1), min(end, len(text))
			if start <= end {
				picked = append(picked, text[start-1:end]...)
			}
		}
	default:
		in, seen := false, false
		for _, s := range text {
			if m := snippetSection.FindStringSubmatch(s); m != nil {
				if m[2] == sel {
					in = m[1] == "start"
					seen = seen || in
				}
				continue
			}
			if in {
				picked = append(picked, s)
			}
		}
		if !seen {
			return nil, t.errorf(src, "snippet %q has no section %q (--8<-- [start:%s])", name, sel, sel)
		}
	}
	ls := make([]line, len(picked))
	for i, s := range picked {
		if s != "" {
			s = indent + s
		}
		ls[i] = line{s: s, src: src}
	}
	return t.includes(ls, abs, depth+1)
}

func isRanges(sel string) bool {
	for _, c := range sel {
		if (c < '0' || c > '9') && c != ':' && c != ',' && c != '-' {
			return false
		}
	}
	return true
}

// snippetBases are the snippets' base_path folders, relative to the
// project folder (MkDocs runs there), default the project folder.
func (t *translator) snippetBases(cfg map[string]any) []string {
	var bases []string
	switch v := cfg["base_path"].(type) {
	case string:
		bases = []string{v}
	case []any:
		for _, b := range v {
			if s, ok := b.(string); ok {
				bases = append(bases, s)
			}
		}
	case []string:
		bases = v
	}
	if len(bases) == 0 {
		bases = []string{"."}
	}
	for i, b := range bases {
		bases[i] = t.runPath(b)
	}
	return bases
}

// runPath resolves a folder of a plugin's options that the plugin reads
// relative to the folder mkdocs runs in (macros' include_dir,
// pymdownx.snippets' base_path): mkdocs.yml's folder, else, where the
// folder is not there but is at the repository's top (the folder
// holding .git), the top, as a project whose mkdocs.yml is in a
// subfolder runs `mkdocs build -f sub/mkdocs.yml` there. Found in
// neither, it is mkdocs.yml's folder's, which errors then name.
func (t *translator) runPath(p string) string {
	root := t.opts.ProjectDir
	if filepath.IsAbs(p) || root == "" {
		return p
	}
	first := filepath.Join(root, p)
	if st, err := os.Stat(first); err == nil && st.IsDir() {
		return first
	}
	if top := repoTop(root); top != "" && top != root {
		if st, err := os.Stat(filepath.Join(top, p)); err == nil && st.IsDir() {
			return filepath.Join(top, p)
		}
	}
	return first
}

// repoTop is the nearest folder at or above dir holding .git (a folder,
// or a worktree's file), "" when there is none.
func repoTop(dir string) string {
	if dir == "" {
		return ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// includeMarkdown expands one {% include-markdown "f" ... %} or
// {% include "f" ... %} directive (the text up to its %}).
func (t *translator) includeMarkdown(cfg map[string]any, kind, text, indent string, src int, from string, depth int) ([]line, error) {
	body := text[strings.Index(text, kind)+len(kind) : strings.Index(text, "%}")]
	body = strings.TrimSuffix(strings.TrimSpace(body), "-")
	q := firstQuoted.FindStringSubmatch(body)
	if q == nil {
		return nil, t.errorf(src, "%s: no file name in %q", kind, strings.TrimSpace(text))
	}
	name := q[1] + q[2]
	args := map[string]string{}
	for _, m := range includeArg.FindAllStringSubmatch(body[len(q[0]):], -1) {
		args[m[1]] = m[2] + m[3] + m[4]
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), name)
	}
	abs, ok := t.within(p)
	if !ok {
		return nil, t.errorf(src, "%s %q is outside the project", kind, name)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// MkDocs's include-markdown fails the build; kbook warns and
			// builds the rest (a docs tree copied without the repository
			// files it includes still builds).
			t.res.Warnings = append(t.res.Warnings, Warning{File: t.opts.File, Line: src,
				Msg: fmt.Sprintf("%s %q: no such file (relative to %s): left out", kind, name, filepath.Base(from))})
			t.unknown(kind + " missing file")
			return nil, nil
		}
		return nil, t.errorf(src, "%s %q: %v", kind, name, err)
	}
	content := strings.ReplaceAll(string(data), "\r\n", "\n")
	if s, ok := args["start"]; ok {
		s = unescape(s)
		k := strings.Index(content, s)
		if k < 0 {
			return nil, t.errorf(src, "%s %q: start %q not found in the file", kind, name, s)
		}
		content = content[k+len(s):]
	}
	if e, ok := args["end"]; ok {
		e = unescape(e)
		if k := strings.Index(content, e); k >= 0 {
			content = content[:k]
		}
	}
	content = strings.TrimPrefix(content, "\n")
	content = strings.TrimSuffix(content, "\n")
	parts := strings.Split(content, "\n")
	if args["dedent"] == "true" {
		parts = dedentText(parts)
	}
	if n, err := strconv.Atoi(args["heading-offset"]); err == nil && n > 0 {
		fence := ""
		for i, s := range parts {
			if f := fenceOpen(s); f != "" && fence == "" {
				fence = f
			} else if fence != "" && isFenceClose(s, fence) {
				fence = ""
			} else if fence == "" && strings.HasPrefix(s, "#") {
				parts[i] = strings.Repeat("#", n) + s
			}
		}
	}
	ls := make([]line, len(parts))
	for i, s := range parts {
		if i > 0 && s != "" && args["preserve-includer-indent"] != "false" {
			s = indent + s
		} else if i == 0 {
			s = indent + s
		}
		ls[i] = line{s: s, src: src}
	}
	if kind == "include" {
		return ls, nil
	}
	ls, err = t.includes(ls, abs, depth+1)
	if err != nil {
		return nil, err
	}
	rewrite := true
	if b, ok := cfg["rewrite_relative_urls"].(bool); ok {
		rewrite = b
	}
	if b, ok := cfg["rewrite-relative-urls"].(bool); ok {
		rewrite = b
	}
	if a, ok := args["rewrite-relative-urls"]; ok {
		rewrite = a != "false"
	}
	if rewrite {
		rewriteRelativeURLs(ls, filepath.Dir(abs), filepath.Dir(from))
	}
	return ls, nil
}

var (
	mdLinkURL   = regexp.MustCompile(`(^|[^!])(\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?)([^\s()<>]+)`)
	mdImageURL  = regexp.MustCompile(`(!\[[^\]]*\]\(\s*<?)([^\s()<>]+)`)
	mdLinkDef   = regexp.MustCompile(`^(\s{0,4}\[[^\]]+\]:\s*<?)([^\s<>]+)`)
	htmlURLAttr = regexp.MustCompile(`(<(?:img|source)\b[^>]*?\ssrc\s*=\s*["']|<a\b[^>]*?\shref\s*=\s*["'])([^"']*)`)
)

// rewriteRelativeURLs makes the relative links and images of an included
// file's lines (Markdown links, images, link definitions, <img>, <source>
// and <a>) lead where they led from the file's folder src, now that they
// are read from the including file's folder dst, outside fenced code: the
// include-markdown plugin's rewrite-relative-urls, its default.
func rewriteRelativeURLs(ls []line, src, dst string) {
	if src == dst {
		return
	}
	fix := func(u string) string {
		if u == "" || strings.HasPrefix(u, "#") || strings.HasPrefix(u, "/") || strings.Contains(u, "://") ||
			strings.HasPrefix(u, "mailto:") || strings.HasPrefix(u, "data:") || strings.Contains(u, "{{") {
			return u
		}
		rel, err := filepath.Rel(dst, filepath.Join(src, filepath.FromSlash(u)))
		if err != nil {
			return u
		}
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(u, "/") && !strings.HasSuffix(rel, "/") {
			rel += "/"
		}
		return rel
	}
	sub := func(re *regexp.Regexp, s string, group int) string {
		return re.ReplaceAllStringFunc(s, func(m string) string {
			g := re.FindStringSubmatchIndex(m)
			return m[:g[2*group]] + fix(m[g[2*group]:g[2*group+1]]) + m[g[2*group+1]:]
		})
	}
	fence := ""
	for i := range ls {
		s := ls[i].s
		trimmed := strings.TrimLeft(s, " \t")
		if fence != "" {
			if isFenceClose(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			continue
		}
		s = sub(mdLinkURL, s, 3)
		s = sub(mdImageURL, s, 2)
		s = sub(mdLinkDef, s, 2)
		s = sub(htmlURLAttr, s, 2)
		ls[i].s = s
	}
}

func unescape(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// dedentText removes the whitespace all non-blank lines share, as
// Python's textwrap.dedent.
func dedentText(parts []string) []string {
	common := -1
	for _, s := range parts {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n := len(s) - len(strings.TrimLeft(s, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(parts))
	for i, s := range parts {
		if len(s) >= common && common > 0 {
			out[i] = s[common:]
		} else {
			out[i] = strings.TrimLeft(s, " \t")
		}
	}
	return out
}
