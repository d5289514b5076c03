package markdown

import (
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark-emoji/definition"
)

var (
	abbrRe = regexp.MustCompile(`^\*\[([^\]]+)\]:\s*(.*)$`)
	// linkAttrRe is a link or image, inline ([text](url)) or by reference
	// ([text][ref], [text][]), followed by an attribute list.
	linkAttrRe = regexp.MustCompile(`(!?\[[^\]]*\](?:\([^)\s]*(?:\s+"[^"]*")?\)|\[[^\]]*\]))\{:?\s*([^{}]*?)\s*\}`)
	criticRe   = regexp.MustCompile(`\{\+\+(.+?)\+\+\}|\{--(.+?)--\}|\{~~(.+?)~>(.+?)~~\}|\{==(.+?)==\}|\{>>(.+?)<<\}`)
	keysRe     = regexp.MustCompile(`\+\+((?:[\w-]+|"[^"]*")(?:\+(?:[\w-]+|"[^"]*"))*)\+\+`)
	insRe      = regexp.MustCompile(`\^\^([^\s^](?:[^^]*?[^\s^])?)\^\^`)
	supRe      = regexp.MustCompile(`(^|[^^\\])\^([^\s^]+?)\^($|[^^])`)
	markRe     = regexp.MustCompile(`(^|[^=\\])==([^\s=](?:[^=]*?[^\s=])?)==($|[^=])`)
	subRe      = regexp.MustCompile(`(^|[^~\\])~([^\s~]+?)~($|[^~])`)
	emojiRe    = regexp.MustCompile(`:([a-z0-9_+-]+):`)
	// inlineSkip matches what the inline syntax never touches: code spans,
	// HTML tags and autolinks, and link destinations.
	inlineSkip = regexp.MustCompile(`<[a-zA-Z/!][^<>]*>|\]\([^)]*\)`)
	emojiDefs  = definition.Github()
)

// abbr is an abbreviation of the page (*[HTML]: Hyper Text ...).
type abbr struct {
	word, title string
	re          *regexp.Regexp
}

// keyNames are pymdownx.keys' labels of the common keys.
var keyNames = map[string]string{
	"ctrl": "Ctrl", "control": "Ctrl", "alt": "Alt", "shift": "Shift", "cmd": "Cmd", "command": "Cmd", "meta": "Meta",
	"del": "Del", "delete": "Del", "enter": "Enter", "return": "Return", "tab": "Tab", "esc": "Esc", "escape": "Esc",
	"space": "Space", "backspace": "Backspace", "up": "Up", "down": "Down", "left": "Left", "right": "Right",
	"home": "Home", "end": "End", "page-up": "Page Up", "page-down": "Page Down", "insert": "Ins", "ins": "Ins",
	"windows": "Win", "win": "Win", "option": "Option", "fn": "Fn", "caps-lock": "Caps Lock",
}

// collectAbbrs removes the abbreviation definitions (*[HTML]: ...) of
// the abbr extension from the page and remembers them.
func (t *translator) collectAbbrs(ls []line) []line {
	if _, on := t.ext("abbr"); !on {
		return ls
	}
	out := ls[:0:0]
	fence := ""
	for _, l := range ls {
		s := strings.TrimLeft(l.s, " ")
		if fence == "" {
			fence = fenceOpen(s)
			if fence == "" {
				if m := abbrRe.FindStringSubmatch(s); m != nil {
					t.abbrs = append(t.abbrs, abbr{word: m[1], title: strings.Trim(m[2], `"'`),
						re: regexp.MustCompile(`\b` + regexp.QuoteMeta(m[1]) + `\b`)})
					continue
				}
			}
		} else if isFenceClose(s, fence) {
			fence = ""
		}
		out = append(out, l)
	}
	return out
}

// inline translates the inline syntax of one line of text, outside code
// spans, HTML tags and link destinations.
func (t *translator) inline(s string, src int) string {
	if !strings.ContainsAny(s, ":^=~+{[") && len(t.abbrs) == 0 {
		return s
	}
	if _, on := t.ext("attr_list"); on && (strings.Contains(s, "){") || strings.Contains(s, "]{")) {
		s = outsideCode(s, func(seg string) string {
			return linkAttrRe.ReplaceAllStringFunc(seg, func(m string) string {
				sm := linkAttrRe.FindStringSubmatch(m)
				return attrSpan(sm[2], sm[1])
			})
		})
	}
	return outsideCode(s, func(seg string) string {
		var b strings.Builder
		last := 0
		for _, m := range inlineSkip.FindAllStringIndex(seg, -1) {
			b.WriteString(t.text(seg[last:m[0]], src))
			b.WriteString(seg[m[0]:m[1]])
			last = m[1]
		}
		b.WriteString(t.text(seg[last:], src))
		return b.String()
	})
}

// outsideCode applies f to the parts of a line outside its code spans.
func outsideCode(s string, f func(string) string) string {
	var b strings.Builder
	last := 0
	for _, m := range codeSpans(s) {
		b.WriteString(f(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(f(s[last:]))
	return b.String()
}

// codeSpans are the [start, end) of the line's code spans.
func codeSpans(s string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		tick := s[i : i+n]
		end := -1
		for j := i + n; j < len(s); {
			k := strings.Index(s[j:], tick)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(s) && s[k+m] == '`' {
				m++
			}
			if m == n {
				end = k + n
				break
			}
			j = k + m
		}
		if end < 0 {
			i += n
			continue
		}
		spans = append(spans, [2]int{i, end})
		i = end
	}
	return spans
}

// attrSpan wraps a link or image in a span carrying its attr_list classes
// and id (the link stays Markdown, so the site's link handling sees it);
// width and height go to the image through CSS variables.
func attrSpan(attrs, inner string) string {
	var classes []string
	var id, style string
	for _, m := range fenceAttr.FindAllStringSubmatch(attrs, -1) {
		if m[1] != "" {
			if m[1][0] == '.' {
				classes = append(classes, m[1][1:])
			} else {
				id = m[1][1:]
			}
			continue
		}
		v := m[3] + m[4] + m[5]
		switch m[2] {
		case "width", "height":
			if strings.Trim(v, "0123456789") == "" {
				v += "px"
			}
			style += "--md-" + m[2] + ":" + v + ";"
		case "align":
			classes = append(classes, "md-align-"+v)
		}
	}
	out := `<span class="md-attr`
	if len(classes) > 0 {
		out += " " + strings.Join(classes, " ")
	}
	out += `"`
	if id != "" {
		out += ` id="` + html.EscapeString(id) + `"`
	}
	if style != "" {
		out += ` style="` + html.EscapeString(style) + `"`
	}
	return out + ">" + inner + "</span>"
}

// text translates inline syntax in a run of plain text.
func (t *translator) text(s string, src int) string {
	if s == "" {
		return s
	}
	if _, on := t.ext("critic"); on && strings.Contains(s, "{") {
		s = criticRe.ReplaceAllStringFunc(s, func(m string) string {
			sm := criticRe.FindStringSubmatch(m)
			switch {
			case sm[1] != "":
				return `<ins class="critic">` + sm[1] + `</ins>`
			case sm[2] != "":
				return `<del class="critic">` + sm[2] + `</del>`
			case sm[3] != "" || sm[4] != "":
				return `<del class="critic">` + sm[3] + `</del><ins class="critic">` + sm[4] + `</ins>`
			case sm[5] != "":
				return `<mark class="critic">` + sm[5] + `</mark>`
			}
			return `<span class="critic comment">` + sm[6] + `</span>`
		})
	}
	if _, on := t.ext("keys"); on && strings.Contains(s, "++") {
		s = keysRe.ReplaceAllStringFunc(s, func(m string) string {
			keys := splitKeys(keysRe.FindStringSubmatch(m)[1])
			var b strings.Builder
			b.WriteString(`<span class="keys">`)
			for i, k := range keys {
				if i > 0 {
					b.WriteString("<span>+</span>")
				}
				label, cls := k, ""
				if strings.HasPrefix(k, `"`) {
					label = strings.Trim(k, `"`)
				} else if n, ok := keyNames[strings.ToLower(k)]; ok {
					label, cls = n, " key-"+strings.ToLower(k)
				} else if len(k) == 1 {
					label = strings.ToUpper(k)
				}
				b.WriteString(`<kbd class="key` + cls + `">` + html.EscapeString(label) + `</kbd>`)
			}
			b.WriteString(`</span>`)
			return b.String()
		})
	}
	if _, on := t.ext("caret"); on && strings.Contains(s, "^") {
		s = insRe.ReplaceAllString(s, `<ins>$1</ins>`)
		s = replaceAllLoop(supRe, s, `$1<sup>$2</sup>$3`)
	}
	if _, on := t.ext("mark"); on && strings.Contains(s, "==") {
		s = replaceAllLoop(markRe, s, `$1<mark>$2</mark>$3`)
	}
	if cfg, on := t.ext("tilde"); on && strings.Contains(s, "~") {
		if v, ok := cfg["subscript"].(bool); !ok || v {
			s = replaceAllLoop(subRe, s, `$1<sub>$2</sub>$3`)
		}
	}
	if _, on := t.ext("emoji"); on && strings.Contains(s, ":") {
		s = emojiRe.ReplaceAllStringFunc(s, func(m string) string {
			code := m[1 : len(m)-1]
			if set, name, ok := iconSet(code); ok {
				if t.opts.Icons == nil {
					t.warnOnce("icons", src, "emoji: no icon packages installed (kbook build fetches them from the npm registry unless KBOOK_SITE_TOOLS=off; make site-tools puts them in %s): %s and other icons stay as text", DefaultNPMDir(), m)
					t.unknown("emoji icon (not installed)")
					return m
				}
				svg, ok := t.opts.Icons.Icon(set, name)
				if !ok {
					t.unknown("emoji icon (unknown name)")
					return m
				}
				return `<span class="twemoji">` + svg + `</span>`
			}
			if e, ok := emojiDefs.Get(code); ok && e.IsUnicode() {
				return string(e.Unicode)
			}
			return m
		})
	}
	for _, a := range t.abbrs {
		s = a.re.ReplaceAllString(s, `<abbr title="`+html.EscapeString(a.title)+`">`+a.word+`</abbr>`)
	}
	return s
}

// replaceAllLoop replaces until no match is left (the patterns consume a
// neighbouring character, so adjacent matches need a second pass).
func replaceAllLoop(re *regexp.Regexp, s, repl string) string {
	for i := 0; i < 4 && re.MatchString(s); i++ {
		s = re.ReplaceAllString(s, repl)
	}
	return s
}

func splitKeys(s string) []string {
	var keys []string
	for s != "" {
		if s[0] == '"' {
			k := strings.IndexByte(s[1:], '"')
			keys = append(keys, s[:k+2])
			s = strings.TrimPrefix(s[k+2:], "+")
			continue
		}
		k, rest, _ := strings.Cut(s, "+")
		keys = append(keys, k)
		s = rest
	}
	return keys
}

var (
	titleCode   = regexp.MustCompile("`([^`]+)`")
	titleStrong = regexp.MustCompile(`\*\*([^*]+)\*\*|__([^_]+)__`)
	titleEm     = regexp.MustCompile(`\*([^*]+)\*`)
)

// inlineHTML renders a title (admonition, details, tab label) as HTML:
// it sits inside an HTML block, where goldmark renders no Markdown.
func (t *translator) inlineHTML(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range codeSpans(s) {
		b.WriteString(t.titleText(s[last:m[0]]))
		code := strings.Trim(s[m[0]:m[1]], "`")
		b.WriteString("<code>" + html.EscapeString(strings.TrimSpace(code)) + "</code>")
		last = m[1]
	}
	b.WriteString(t.titleText(s[last:]))
	return b.String()
}

func (t *translator) titleText(s string) string {
	s = html.EscapeString(s)
	s = titleStrong.ReplaceAllString(s, "<strong>$1$2</strong>")
	s = titleEm.ReplaceAllString(s, "<em>$1</em>")
	return t.text(s, 0)
}

var _ = titleCode
