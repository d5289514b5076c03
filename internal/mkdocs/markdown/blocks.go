package markdown

import (
	"fmt"
	"html"
	"regexp"
	"strings"
)

var (
	admonitionRe = regexp.MustCompile(`^!!!\s*([\w-]+(?: +[\w-]+)*)(?: +"(.*?)")?\s*$`)
	detailsRe    = regexp.MustCompile(`^\?\?\?(\+?)\s*(?:([\w-]+(?: +[\w-]+)*?)?(?: +"(.*?)")|([\w-]+(?: +[\w-]+)*))\s*$`)
	detailsBare  = regexp.MustCompile(`^\?\?\?(\+?)\s+"(.*?)"\s*$`)
	tabRe        = regexp.MustCompile(`^===([+!]{0,2})\s+"(.*?)"\s*$`)
	listRe       = regexp.MustCompile(`^(?:[-*+]|\d{1,9}[.)])(?:\s|$)`)
	defRe        = regexp.MustCompile(`^:(?: {1,3}|\t)\S`)
	itemMarkRe   = regexp.MustCompile(`^([-*+]|\d{1,9}[.)]|:)([ \t]+)(?:!!!|\?\?\?|===)`)
	githubCallRe = regexp.MustCompile(`^\[!([A-Za-z]+)\]\s*(.*)$`)
	calloutRe    = regexp.MustCompile(`^(?:\*\*([A-Z]+):\*\*|([A-Z]+):)\s+(.*)$`)
	mdInHTMLRe   = regexp.MustCompile(`^<([a-zA-Z][\w-]*)((?:\s[^>]*?)?)\s+markdown(?:=(?:"(?:1|block)"|'(?:1|block)'|1|block))?((?:\s[^>]*)?)>\s*$`)
	headingRe    = regexp.MustCompile(`^(#{1,6}\s.*?)\s*\{:?\s*([^{}]*?)\s*\}\s*$`)
	paraAttrRe   = regexp.MustCompile(`^(.*[^\s)\]])\s+\{:?\s*((?:[.#][\w-]+|[\w-]+=(?:"[^"]*"|'[^']*'|\S+))(?:\s+(?:[.#][\w-]+|[\w-]+=(?:"[^"]*"|'[^']*'|\S+)))*)\s*\}\s*$`)
	attrTokens   = regexp.MustCompile(`^(?:\s*(?:[.#][\w-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s}]+)))*\s*$`)
	htmlRawOpen  = regexp.MustCompile(`^<(pre|script|style|textarea)(?:\s|>|$)`)
)

// calloutTypes are the words markdown-callouts turns into admonitions.
var calloutTypes = map[string]bool{
	"NOTE": true, "INFO": true, "TIP": true, "HINT": true, "IMPORTANT": true, "WARNING": true, "CAUTION": true,
	"DANGER": true, "ERROR": true, "ATTENTION": true, "SUCCESS": true, "QUESTION": true, "FAILURE": true,
	"BUG": true, "EXAMPLE": true, "QUOTE": true, "ABSTRACT": true, "SUMMARY": true, "TODO": true, "CHECK": true,
}

// blocks translates the block syntax of a page body.
func (t *translator) blocks(ls []line) ([]line, error) {
	return t.block(ls)
}

// expandTabs expands leading tabs to 4 columns, as Python-Markdown does.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case ' ':
			b.WriteByte(' ')
			col++
		default:
			b.WriteString(s[i:])
			return b.String()
		}
	}
	return b.String()
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// dedent removes n leading columns (or all leading spaces, if fewer).
func dedent(ls []line, n int) []line {
	out := make([]line, len(ls))
	for i, l := range ls {
		s := expandTabs(l.s)
		k := min(indentOf(s), n)
		out[i] = line{s: s[k:], src: l.src}
	}
	return out
}

func prefix(ls []line, p string) []line {
	if p == "" {
		return ls
	}
	for i := range ls {
		if ls[i].s != "" {
			ls[i].s = p + ls[i].s
		}
	}
	return ls
}

// bodyEnd is the end of the indented body that starts at i: the lines
// that are blank or indented at least ind, trailing blank lines excluded.
func bodyEnd(ls []line, i, ind int) int {
	end := i
	for j := i; j < len(ls); j++ {
		s := expandTabs(ls[j].s)
		if strings.TrimSpace(s) == "" {
			continue
		}
		if indentOf(s) < ind {
			break
		}
		end = j + 1
	}
	return end
}

// block translates lines of one container (the page, or the dedented body
// of an admonition, tab or list item).
func (t *translator) block(ls []line) ([]line, error) {
	var out []line
	inList, prevBlank, inPara := false, true, false
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		s := expandTabs(l.s)
		if strings.TrimSpace(s) == "" {
			out = append(out, line{s: "", src: l.src})
			prevBlank, inPara = true, false
			continue
		}
		ind := indentOf(s)
		text := s[ind:]
		p := s[:ind]
		active := ind < 4 || inList
		if ind == 0 && prevBlank && !listRe.MatchString(text) {
			inList = false
			active = true
		}
		// indented code: passed through untouched
		if ind >= 4 && prevBlank && !inList {
			j := i
			for j < len(ls) && (strings.TrimSpace(ls[j].s) == "" || indentOf(expandTabs(ls[j].s)) >= 4) {
				j++
			}
			for j > i && strings.TrimSpace(ls[j-1].s) == "" {
				j--
			}
			out = append(out, ls[i:j]...)
			i = j - 1
			prevBlank = false
			continue
		}
		if active {
			if f := fenceOpen(text); f != "" {
				j := i + 1
				for j < len(ls) && !isFenceClose(strings.TrimLeft(expandTabs(ls[j].s), " "), f) {
					j++
				}
				end := min(j+1, len(ls))
				out = append(out, t.fence(ls[i:end], ind, text[len(f):])...)
				i = end - 1
				out = blankAfterHTML(out, ls, i)
				prevBlank, inPara = false, false
				continue
			}
			if m := htmlRawOpen.FindStringSubmatch(text); m != nil && !inPara {
				j := i
				for j < len(ls) && !strings.Contains(strings.ToLower(ls[j].s), "</"+m[1]+">") {
					j++
				}
				end := min(j+1, len(ls))
				out = append(out, ls[i:end]...)
				i = end - 1
				prevBlank = false
				continue
			}
			counted := t.nUnknown
			if got, n, ok, err := t.container(ls, i, ind, text, p); ok || err != nil {
				if err != nil {
					return nil, err
				}
				out = append(out, got...)
				i += n - 1
				out = blankAfterHTML(out, ls, i)
				prevBlank, inPara = false, false
				continue
			}
			if got, n, ok, err := t.openingItem(ls, i, ind, text, p); ok || err != nil {
				if err != nil {
					return nil, err
				}
				out = append(out, got...)
				i += n - 1
				out = blankAfterHTML(out, ls, i)
				inList, prevBlank, inPara = true, false, false
				continue
			}
			// A definition's indented blocks are its content, as a list
			// item's are, not code.
			if listRe.MatchString(text) || (defRe.MatchString(text) && t.defList()) {
				inList = true
			}
			if t.nUnknown == counted {
				t.countUnknown(text)
			}
		}
		if strings.HasPrefix(text, "#") {
			if m := headingRe.FindStringSubmatch(text); m != nil && attrTokens.MatchString(m[2]) {
				if _, on := t.ext("attr_list"); on {
					text = m[1] + " {" + m[2] + "}"
				}
			}
		}
		// attr_list on a paragraph: its last line ends with { ... }; Hugo's
		// block attributes take them on the line after the block.
		next := i + 1
		lastOfPara := next >= len(ls) || strings.TrimSpace(ls[next].s) == ""
		var after *line
		if lastOfPara && !strings.HasPrefix(text, "#") && !strings.HasPrefix(text, "|") {
			if m := paraAttrRe.FindStringSubmatch(text); m != nil {
				if _, on := t.ext("attr_list"); on {
					text = m[1]
					after = &line{s: p + "{" + m[2] + "}", src: l.src}
				}
			}
		}
		out = append(out, line{s: p + t.inline(text, l.src), src: l.src})
		if after != nil {
			out = append(out, *after)
		}
		prevBlank, inPara = false, !strings.HasPrefix(text, "#")
	}
	return out, nil
}

// container translates the block construct that starts at ls[i] (an
// admonition, details, tabs, callout, md_in_html element): its output and
// how many input lines it took.
func (t *translator) container(ls []line, i, ind int, text, p string) ([]line, int, bool, error) {
	src := ls[i].src
	switch {
	case strings.HasPrefix(text, "!!!"):
		m := admonitionRe.FindStringSubmatch(text)
		if m == nil {
			return nil, 0, false, nil
		}
		if _, on := t.ext("admonition"); !on {
			t.unknown("admonition (extension not enabled)")
			return nil, 0, false, nil
		}
		classes := strings.Fields(m[1])
		title, hasTitle := titleOf(classes[0], m[2], strings.Contains(text, `"`))
		end := bodyEnd(ls, i+1, ind+4)
		body, err := t.block(dedent(ls[i+1:end], ind+4))
		if err != nil {
			return nil, 0, false, err
		}
		open := fmt.Sprintf(`<div class="admonition %s">`, html.EscapeString(strings.Join(classes, " ")))
		if hasTitle {
			open += `<p class="admonition-title">` + t.inlineHTML(title) + `</p>`
		}
		return wrap(open, "</div>", body, p, src), end - i, true, nil
	case strings.HasPrefix(text, "???"):
		m := detailsRe.FindStringSubmatch(text)
		if m == nil {
			m2 := detailsBare.FindStringSubmatch(text)
			if m2 == nil {
				return nil, 0, false, nil
			}
			m = []string{m2[0], m2[1], "", m2[2], ""}
		}
		if _, on := t.ext("details"); !on {
			t.unknown("details (extension not enabled)")
			return nil, 0, false, nil
		}
		kind := m[2] + m[4]
		classes := strings.Fields(kind)
		if len(classes) == 0 {
			classes = []string{"note"}
		}
		title, hasTitle := titleOf(classes[0], m[3], m[3] != "" || strings.Contains(text, `"`))
		if !hasTitle {
			title = strings.ToUpper(classes[0][:1]) + classes[0][1:]
		}
		end := bodyEnd(ls, i+1, ind+4)
		body, err := t.block(dedent(ls[i+1:end], ind+4))
		if err != nil {
			return nil, 0, false, err
		}
		open := fmt.Sprintf(`<details class="%s"`, html.EscapeString(strings.Join(classes, " ")))
		if m[1] == "+" {
			open += " open"
		}
		open += `><summary>` + t.inlineHTML(title) + `</summary>`
		return wrap(open, "</details>", body, p, src), end - i, true, nil
	case strings.HasPrefix(text, "==="):
		if tabRe.FindStringSubmatch(text) == nil {
			return nil, 0, false, nil
		}
		if _, on := t.ext("tabbed"); !on {
			t.unknown("tabbed (extension not enabled)")
			return nil, 0, false, nil
		}
		return t.tabs(ls, i, ind, p)
	case strings.HasPrefix(text, ">"):
		return t.callout(ls, i, ind, p)
	case strings.HasPrefix(text, "<"):
		m := mdInHTMLRe.FindStringSubmatch(text)
		if m == nil {
			return nil, 0, false, nil
		}
		if _, on := t.ext("md_in_html"); !on {
			return nil, 0, false, nil
		}
		tag := strings.ToLower(m[1])
		depth, end := 0, -1
		openRe := regexp.MustCompile(`(?i)<` + regexp.QuoteMeta(tag) + `(?:\s|>)`)
		closeTag := "</" + tag + ">"
		for j := i; j < len(ls); j++ {
			low := strings.ToLower(ls[j].s)
			depth += len(openRe.FindAllString(low, -1))
			depth -= strings.Count(low, closeTag)
			if depth <= 0 {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, 0, false, t.errorf(src, "md_in_html: <%s markdown> is never closed", tag)
		}
		open := "<" + m[1] + strings.TrimRight(m[2]+m[3], " ") + ">"
		closing := strings.TrimSpace(ls[end].s)
		if end == i { // <p markdown>text</p> on one line
			return nil, 0, false, nil
		}
		if closing != closeTag && !strings.EqualFold(closing, closeTag) {
			return nil, 0, false, nil
		}
		inner := ls[i+1 : end]
		body, err := t.block(dedent(inner, commonIndent(inner)))
		if err != nil {
			return nil, 0, false, err
		}
		return wrap(open, closing, body, p, src), end - i + 1, true, nil
	}
	if calloutRe.MatchString(text) && (i == 0 || strings.TrimSpace(ls[i-1].s) == "") {
		if _, on := t.ext("callouts"); on {
			m := calloutRe.FindStringSubmatch(text)
			kind := m[1] + m[2]
			if calloutTypes[kind] {
				end := i + 1
				for end < len(ls) && strings.TrimSpace(ls[end].s) != "" {
					end++
				}
				para := append([]line{{s: m[3], src: src}}, dedent(ls[i+1:end], ind)...)
				return t.admonition(strings.ToLower(kind), para, p, src, end-i)
			}
		}
	}
	return nil, 0, false, nil
}

// openingItem translates a list item or a definition whose content opens
// with an admonition, details or tabs ("1. ??? note", ":   !!! example"):
// Python-Markdown parses the text after the marker as the item's first
// block, and the item's content is indented 4 columns past the marker's
// indentation, so the construct's body is 8 past it (a list item's may
// also follow at once, 4 past it). A body indented 4 past the CommonMark
// content column (6 after "- ") is read as the body too, as kbook's
// lists are CommonMark's. The marker line is written with the
// construct's HTML after it, its body at the item's content column.
func (t *translator) openingItem(ls []line, i, ind int, text, p string) ([]line, int, bool, error) {
	m := itemMarkRe.FindStringSubmatch(text)
	if m == nil || (m[1] == ":" && (ind > 3 || !t.defList())) {
		return nil, 0, false, nil
	}
	markEnd := ind + len(m[1])
	c := markEnd // the content column, tabs expanded
	for _, r := range m[2] {
		if r == '\t' {
			c += 4 - c%4
		} else {
			c++
		}
	}
	rest := text[len(m[1])+len(m[2]):]
	open := markEnd + 1 // the content column of "M <html>"
	k := max(ind+4, open)
	isItem := func(s string) bool {
		s = strings.TrimLeft(s, " ")
		return listRe.MatchString(s) || defRe.MatchString(s)
	}
	// def_list detabs a definition's lines before its content is read,
	// a list its items' lines not: only a list item's body may follow at
	// once, 4 past the marker.
	tight := m[1] != ":" && i+1 < len(ls) && strings.TrimSpace(ls[i+1].s) != "" &&
		indentOf(expandTabs(ls[i+1].s)) >= ind+4 && !isItem(expandTabs(ls[i+1].s))
	if !tight {
		j := i + 1
		for j < len(ls) && strings.TrimSpace(ls[j].s) == "" {
			j++
		}
		if j < len(ls) {
			if n := indentOf(expandTabs(ls[j].s)); n < ind+8 && n >= c+4 {
				k = max(c, open)
			}
		}
	}
	vl := make([]line, 0, len(ls)-i)
	vl = append(vl, line{s: strings.Repeat(" ", k) + rest, src: ls[i].src})
	j := i + 1
	// the lines that follow at once, indented 4 past the marker, are the
	// construct's body: shifted to its body's column
	for ; tight && j < len(ls); j++ {
		s := expandTabs(ls[j].s)
		n := indentOf(s)
		if strings.TrimSpace(s) == "" || n < ind+4 || isItem(s) {
			break
		}
		vl = append(vl, line{s: strings.Repeat(" ", k+4+n-(ind+4)) + s[n:], src: ls[j].src})
	}
	vl = append(vl, ls[j:]...)
	counted := t.nUnknown
	got, n, ok, err := t.container(vl, 0, k, rest, strings.Repeat(" ", k))
	if err != nil || !ok {
		if err == nil && t.nUnknown == counted {
			t.countUnknown(rest)
		}
		return nil, 0, false, err
	}
	got[0].s = p + m[1] + " " + strings.TrimLeft(got[0].s, " ")
	return got, n, true, nil
}

// defList reports whether definition lists are Markdown (def_list).
func (t *translator) defList() bool {
	_, on := t.ext("def_list")
	return on
}

func commonIndent(ls []line) int {
	n := -1
	for _, l := range ls {
		s := expandTabs(l.s)
		if strings.TrimSpace(s) == "" {
			continue
		}
		if k := indentOf(s); n < 0 || k < n {
			n = k
		}
	}
	return max(n, 0)
}

// titleOf is an admonition's title: the quoted one, none for "", else the
// type capitalised.
func titleOf(kind, quoted string, hasQuotes bool) (string, bool) {
	if hasQuotes {
		return quoted, quoted != ""
	}
	return strings.ToUpper(kind[:1]) + strings.ReplaceAll(kind[1:], "-", " "), true
}

// wrap puts body between an opening and closing HTML line, each an HTML
// block of its own, so that goldmark renders the body as Markdown.
func wrap(open, closing string, body []line, p string, src int) []line {
	out := []line{{s: p + open, src: src}, {s: "", src: src}}
	out = append(out, prefix(body, p)...)
	last := src
	if len(body) > 0 {
		last = body[len(body)-1].src
	}
	return append(out, line{s: "", src: last}, line{s: p + closing, src: last})
}

func (t *translator) admonition(kind string, body []line, p string, src, n int) ([]line, int, bool, error) {
	inner, err := t.block(body)
	if err != nil {
		return nil, 0, false, err
	}
	title := strings.ToUpper(kind[:1]) + kind[1:]
	open := fmt.Sprintf(`<div class="admonition %s"><p class="admonition-title">%s</p>`, html.EscapeString(kind), html.EscapeString(title))
	return wrap(open, "</div>", inner, p, src), n, true, nil
}

// callout translates a blockquote that is a callout: GitHub's "> [!NOTE]"
// (github-callouts) or "> NOTE: text" (callouts).
func (t *translator) callout(ls []line, i, ind int, p string) ([]line, int, bool, error) {
	end := i
	var quoted []line
	for end < len(ls) {
		s := strings.TrimLeft(expandTabs(ls[end].s), " ")
		if !strings.HasPrefix(s, ">") {
			break
		}
		s = strings.TrimPrefix(s[1:], " ")
		quoted = append(quoted, line{s: s, src: ls[end].src})
		end++
	}
	if len(quoted) == 0 {
		return nil, 0, false, nil
	}
	first := quoted[0].s
	if m := githubCallRe.FindStringSubmatch(first); m != nil {
		if !t.githubCallouts() {
			t.unknown("github callout (extension not enabled)")
			return nil, 0, false, nil
		}
		kind := strings.ToLower(m[1])
		rest := quoted[1:]
		if m[2] != "" {
			rest = append([]line{{s: m[2], src: quoted[0].src}}, rest...)
		}
		return t.admonition(kind, rest, p, ls[i].src, end-i)
	}
	if m := calloutRe.FindStringSubmatch(first); m != nil && calloutTypes[m[1]+m[2]] {
		if _, on := t.ext("callouts"); !on {
			return nil, 0, false, nil
		}
		body := append([]line{{s: m[3], src: quoted[0].src}}, quoted[1:]...)
		return t.admonition(strings.ToLower(m[1]+m[2]), body, p, ls[i].src, end-i)
	}
	return nil, 0, false, nil
}

// githubCallouts reports whether GitHub's "> [!NOTE]" alerts are
// admonitions: markdown-callouts' github-callouts (or callouts)
// extension, or the gh-admonitions or callouts plugin.
func (t *translator) githubCallouts() bool {
	for _, e := range []string{"github-callouts", "callouts"} {
		if _, on := t.ext(e); on {
			return true
		}
	}
	for _, p := range []string{"gh-admonitions", "callouts", "github-admonitions"} {
		if _, on := t.plugin(p); on {
			return true
		}
	}
	return false
}

// tabs translates a run of content tabs (=== "Label") at one indentation
// into pymdownx.tabbed's alternate-style HTML: radio inputs select the
// visible block without JavaScript; mkdocs.js links tabs of one label.
func (t *translator) tabs(ls []line, i, ind int, p string) ([]line, int, bool, error) {
	type tab struct {
		label string
		sel   bool
		body  []line
		src   int
	}
	var tabs []tab
	j := i
	for j < len(ls) {
		s := expandTabs(ls[j].s)
		if indentOf(s) != ind {
			break
		}
		m := tabRe.FindStringSubmatch(s[ind:])
		if m == nil || (len(tabs) > 0 && strings.Contains(m[1], "!")) {
			break
		}
		end := bodyEnd(ls, j+1, ind+4)
		body, err := t.block(dedent(ls[j+1:end], ind+4))
		if err != nil {
			return nil, 0, false, err
		}
		tabs = append(tabs, tab{label: m[2], sel: strings.Contains(m[1], "+"), body: body, src: ls[j].src})
		j = end
		// blank lines between tabs belong to the set
		k := j
		for k < len(ls) && strings.TrimSpace(ls[k].s) == "" {
			k++
		}
		if k < len(ls) && indentOf(expandTabs(ls[k].s)) == ind && tabRe.MatchString(expandTabs(ls[k].s)[ind:]) {
			if m2 := tabRe.FindStringSubmatch(expandTabs(ls[k].s)[ind:]); !strings.Contains(m2[1], "!") {
				j = k
				continue
			}
		}
		break
	}
	t.tabSet++
	n := t.tabSet
	sel := 0
	for k, tb := range tabs {
		if tb.sel {
			sel = k
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="tabbed-set tabbed-alternate" data-tabs="%d:%d">`, n, len(tabs))
	for k := range tabs {
		checked := ""
		if k == sel {
			checked = ` checked="checked"`
		}
		fmt.Fprintf(&b, `<input%s id="__tabbed_%d_%d" name="__tabbed_%d" type="radio">`, checked, n, k+1, n)
	}
	b.WriteString(`<div class="tabbed-labels">`)
	for k, tb := range tabs {
		fmt.Fprintf(&b, `<label for="__tabbed_%d_%d">%s</label>`, n, k+1, t.inlineHTML(tb.label))
	}
	b.WriteString(`</div><div class="tabbed-content">`)
	src := ls[i].src
	out := []line{{s: p + b.String(), src: src}}
	for k, tb := range tabs {
		open := `<div class="tabbed-block">`
		if k > 0 {
			open = `</div><div class="tabbed-block">`
		}
		out = append(out, line{s: p + open, src: tb.src}, line{s: "", src: tb.src})
		out = append(out, prefix(tb.body, p)...)
		out = append(out, line{s: "", src: tb.src})
	}
	last := out[len(out)-1].src
	out = append(out, line{s: p + "</div></div></div>", src: last})
	return out, j - i, true, nil
}

// fenceOpen returns the fence (``` or ~~~, 3 or more) that opens a code
// block on the line, or "".
func fenceOpen(s string) string {
	s = strings.TrimLeft(s, " ")
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(s) && s[n] == c {
			n++
		}
		if n >= 3 {
			if c == '`' && strings.Contains(s[n:], "`") {
				return ""
			}
			return s[:n]
		}
	}
	return ""
}

func isFenceClose(s, fence string) bool {
	s = strings.TrimRight(s, " \t")
	if len(s) < len(fence) || s[0] != fence[0] {
		return false
	}
	return strings.Trim(s, string(fence[0])) == ""
}

// unknownBlock are block syntaxes of MkDocs extensions kbook does not
// translate, by the kind Result.Unknown counts them under.
var unknownBlock = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`^///\s*[\w-]+`), "pymdownx.blocks"},
	{regexp.MustCompile(`^\[TOC\]\s*$`), "toc marker"},
	{regexp.MustCompile(`^;?--8<--`), "pymdownx.snippets (extension not enabled)"},
	{regexp.MustCompile(`^\{%-?\s*include(-markdown)?\s`), "include-markdown (plugin not enabled)"},
	{regexp.MustCompile(`^!!!|^\?\?\?|^===[+!]*\s`), "admonition, details or tabs syntax not understood"},
}

// countUnknown counts a line of text that is MkDocs block syntax kbook
// leaves as it is.
func (t *translator) countUnknown(text string) {
	if !strings.ContainsAny(text[:min(len(text), 1)], "/[;-{!?=") {
		return
	}
	for _, u := range unknownBlock {
		if u.re.MatchString(text) {
			t.unknown(u.kind)
			return
		}
	}
}

// blankAfterHTML ends an HTML block the translation wrote (a closing
// </div>) with a blank line when the source goes on at once, so that the
// next line is Markdown again, not part of the HTML block.
func blankAfterHTML(out, ls []line, i int) []line {
	if len(out) == 0 || i+1 >= len(ls) || strings.TrimSpace(ls[i+1].s) == "" {
		return out
	}
	last := out[len(out)-1]
	if s := strings.TrimSpace(last.s); strings.HasPrefix(s, "</") && !strings.HasSuffix(s, "</pre>") {
		out = append(out, line{s: "", src: last.src})
	}
	return out
}
