package markdown

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
)

var fenceAttr = regexp.MustCompile(`([.#][\w-]+)|([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s}]+))`)

// fenceInfo is a code fence's info string as pymdownx.superfences and
// pymdownx.highlight read it: `yaml title="f" hl_lines="2 3" linenums="1"`
// or `{ .yaml .no-copy title="f" }`.
type fenceInfo struct {
	lang     string
	classes  []string
	id       string
	title    string
	hlLines  string
	linenums int
	other    []string
}

func parseFenceInfo(info string) fenceInfo {
	var f fenceInfo
	info = strings.TrimSpace(info)
	if info != "" && info[0] != '{' {
		k := strings.IndexAny(info, " \t{")
		if k < 0 {
			k = len(info)
		}
		f.lang, info = info[:k], info[k:]
	}
	info = strings.TrimSpace(info)
	info = strings.TrimSuffix(strings.TrimPrefix(info, "{"), "}")
	for _, m := range fenceAttr.FindAllStringSubmatch(info, -1) {
		if m[1] != "" {
			switch m[1][0] {
			case '.':
				if f.lang == "" {
					f.lang = m[1][1:]
				} else {
					f.classes = append(f.classes, m[1][1:])
				}
			case '#':
				f.id = m[1][1:]
			}
			continue
		}
		v := m[3] + m[4] + m[5]
		switch m[2] {
		case "title":
			f.title = v
		case "hl_lines":
			f.hlLines = v
		case "linenums":
			n, err := strconv.Atoi(strings.Fields(v + " 1")[0])
			if err == nil && n > 0 {
				f.linenums = n
			}
		default:
			f.other = append(f.other, m[2])
		}
	}
	return f
}

// mermaidFence reports whether superfences has a custom fence named like
// the language (mermaid, as material configures it).
func (t *translator) customFence(lang string) bool {
	cfg, on := t.ext("superfences")
	if !on {
		return false
	}
	list, _ := cfg["custom_fences"].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok && m["name"] == lang {
			return true
		}
	}
	return false
}

// fence translates one fenced code block (its opening line, content and
// closing line, in container coordinates); the content is never touched.
func (t *translator) fence(ls []line, ind int, info string) []line {
	p := strings.Repeat(" ", ind)
	f := parseFenceInfo(info)
	src := ls[0].src
	closed := len(ls) > 1 && isFenceClose(strings.TrimLeft(expandTabs(ls[len(ls)-1].s), " "), fenceOpen(expandTabs(ls[0].s)))
	content := ls[1:]
	if closed {
		content = ls[1 : len(ls)-1]
	}
	if f.lang == "mermaid" && t.customFence("mermaid") {
		t.res.Mermaid = true
		body := dedent(content, ind)
		out := make([]line, 0, len(body)+1)
		for k, l := range body {
			s := html.EscapeString(l.s)
			if k == 0 {
				s = `<pre class="mermaid"><code>` + s
			}
			out = append(out, line{s: p + s, src: l.src})
		}
		last := src
		if len(ls) > 0 {
			last = ls[len(ls)-1].src
		}
		if len(out) == 0 {
			out = append(out, line{s: p + `<pre class="mermaid"><code>`, src: src})
		}
		return append(out, line{s: p + "</code></pre>", src: last})
	}
	opener := expandTabs(ls[0].s)
	fence := fenceOpen(opener)
	head := p + fence + f.lang
	if f.title != "" {
		head += fmt.Sprintf(" {file=%q}", f.title)
	}
	out := []line{{s: head, src: src}}
	out = append(out, content...)
	if closed {
		out = append(out, ls[len(ls)-1])
	}
	var classes []string
	noCopy := false
	for _, c := range f.classes {
		if c == "no-copy" {
			noCopy = true
			continue
		}
		classes = append(classes, "md-class-"+c)
	}
	if !noCopy && f.hlLines == "" && f.linenums == 0 && f.id == "" && len(classes) == 0 {
		return out
	}
	open := `<div class="md-code`
	if noCopy {
		open += " md-no-copy"
	}
	if f.linenums > 0 {
		open += " md-linenums"
	}
	if len(classes) > 0 {
		open += " " + html.EscapeString(strings.Join(classes, " "))
	}
	open += `"`
	if f.id != "" {
		open += fmt.Sprintf(` id="%s"`, html.EscapeString(f.id))
	}
	if f.hlLines != "" {
		open += fmt.Sprintf(` data-hl-lines="%s"`, html.EscapeString(f.hlLines))
	}
	if f.linenums > 0 {
		open += fmt.Sprintf(` style="counter-reset: md-ln %d"`, f.linenums-1)
	}
	open += ">"
	last := out[len(out)-1].src
	res := []line{{s: p + open, src: src}, {s: "", src: src}}
	res = append(res, out...)
	return append(res, line{s: "", src: last}, line{s: p + "</div>", src: last})
}
