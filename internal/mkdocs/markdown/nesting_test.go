package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// A nesting case is generated from three tables: an outer construct, an
// inner construct, and the indentation the inner one is written with.
// Each is translated, rendered with Hugo's goldmark as the site renders
// it, and checked on the HTML: the inner element is inside the outer's,
// the inner body inside the inner element, the text after the page's
// constructs outside both, and no !!!, ??? or === left as text.

// nestInner is a construct nested in another: its lines at column 0.
type nestInner struct {
	name  string
	lines []string
	// the element it renders to
	tag, class string
}

var nestInners = []nestInner{
	{"admonition", []string{`!!! tip "Inner"`, "    Inner body."}, "div", "tip"},
	{"details", []string{`??? warning "Inner"`, "    Inner body."}, "details", "warning"},
	{"details-open", []string{`???+ warning "Inner"`, "", "    Inner body."}, "details", "warning"},
	{"tabs", []string{`=== "A"`, "", "    Inner body.", "", `=== "B"`, "", "    Other tab."}, "div", "tabbed-set"},
	{"admonition-fence", []string{`!!! example`, "", "    ```sh", "    echo Inner body.", "    ```"}, "div", "example"},
}

// nestIndent is how one level of nesting is written: unit indents a
// container's body; list is the unit of a list item's content (the
// CommonMark content column, 2 for "- " and 3 for "1. ", or
// Python-Markdown's 4).
type nestIndent struct {
	name       string
	unit       string
	ulist, ol  string
	ulMark     string
	olMark     string
	defMarker  string
	defContent string
}

var nestIndents = []nestIndent{
	{name: "4-spaces", unit: "    ", ulist: "    ", ol: "    ", ulMark: "- ", olMark: "1. ", defMarker: ":   ", defContent: "    "},
	{name: "tab", unit: "\t", ulist: "\t", ol: "\t", ulMark: "-\t", olMark: "1.\t", defMarker: ":\t", defContent: "\t"},
	{name: "content-column", unit: "    ", ulist: "  ", ol: "   ", ulMark: "* ", olMark: "2. ", defMarker: ": ", defContent: "  "},
}

// nestOuter holds an inner construct: build returns the page's lines.
type nestOuter struct {
	name       string
	build      func(in nestInner, ind nestIndent) []string
	tag, class string
}

func indent(ls []string, p string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		if l != "" {
			out[i] = p + l
		}
	}
	return out
}

// opening is an inner construct that opens a list item or definition:
// its first line after the marker, the rest indented by the item's
// content indentation (Python-Markdown's 4, or the CommonMark content
// column) plus the construct's own unit, which the lines already have.
func opening(marker, content string, in nestInner) []string {
	out := []string{marker + in.lines[0]}
	return append(out, indent(in.lines[1:], content)...)
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var nestOuters = []nestOuter{
	{"admonition", func(in nestInner, ind nestIndent) []string {
		return cat([]string{`!!! note "Outer"`, ind.unit + "Outer body.", ""}, indent(in.lines, ind.unit))
	}, "div", "note"},
	{"details", func(in nestInner, ind nestIndent) []string {
		return cat([]string{`??? info "Outer"`, ind.unit + "Outer body.", ""}, indent(in.lines, ind.unit))
	}, "details", "info"},
	{"details-open-no-text", func(in nestInner, ind nestIndent) []string {
		return cat([]string{`???+ info "Outer"`}, indent(in.lines, ind.unit))
	}, "details", "info"},
	{"tab", func(in nestInner, ind nestIndent) []string {
		return cat([]string{`=== "Outer tab"`, "", ind.unit + "Outer body.", ""}, indent(in.lines, ind.unit),
			[]string{"", `=== "Second"`, "", ind.unit + "Second body."})
	}, "div", "tabbed-block"},
	{"list-item", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"- First item.", "- Outer item.", ""}, indent(in.lines, ind.ulist), []string{"", "- Last item."})
	}, "li", ""},
	{"ordered-item", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"1. First step.", "", "2. Outer step.", ""}, indent(in.lines, ind.ol), []string{"", "3. Last step."})
	}, "li", ""},
	{"opens-list-item", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"- First item.", ""}, opening(ind.ulMark, ind.ulist, in), []string{"", "- Last item."})
	}, "li", ""},
	{"opens-ordered-item", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"1. First step.", ""}, opening(ind.olMark, ind.ol, in), []string{"", "3. Last step."})
	}, "li", ""},
	{"nested-list-item", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"- Outer item.", "", ind.ulist + "- Nested item.", ""}, indent(in.lines, ind.ulist+ind.ulist))
	}, "li", ""},
	{"opens-nested-item", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"1. Outer step.", ""}, indent(opening(ind.ulMark, ind.ulist, in), ind.ol))
	}, "li", ""},
	{"definition", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"Term", ind.defMarker + "Definition.", ""}, indent(in.lines, ind.defContent))
	}, "dd", ""},
	{"opens-definition", func(in nestInner, ind nestIndent) []string {
		return cat([]string{"Term"}, opening(ind.defMarker, ind.defContent, in))
	}, "dd", ""},
}

// TestNesting renders every outer × inner × indentation and checks the
// structure of the HTML.
func TestNesting(t *testing.T) {
	for _, outer := range nestOuters {
		for _, inner := range nestInners {
			for _, ind := range nestIndents {
				t.Run(outer.name+"/"+inner.name+"/"+ind.name, func(t *testing.T) {
					ls := cat([]string{"# Page", ""}, outer.build(inner, ind), []string{"", "After."})
					checkNesting(t, strings.Join(ls, "\n")+"\n", outer.tag, outer.class, inner)
				})
			}
		}
	}
}

// TestNestingDeep: constructs three deep, as real pages nest them.
func TestNestingDeep(t *testing.T) {
	tip := nestInners[0]
	for _, tc := range []struct {
		name string
		src  string
		// outer element holding tip
		tag, class string
	}{
		{"list-in-admonition", "!!! note\n    - item\n\n        !!! tip \"Inner\"\n            Inner body.\n\nAfter.\n", "li", ""},
		{"opens-item-in-admonition", "!!! note\n    1. ??? info \"x\"\n\n            !!! tip \"Inner\"\n                Inner body.\n\nAfter.\n", "details", "info"},
		{"tab-in-list-in-tab", "=== \"A\"\n\n    - item\n\n        === \"B\"\n\n            !!! tip \"Inner\"\n                Inner body.\n\nAfter.\n", "div", "tabbed-block"},
		{"admonition-in-details-in-definition", "Term\n:   ??? info \"x\"\n\n        !!! tip \"Inner\"\n            Inner body.\n\nAfter.\n", "details", "info"},
		{"tight-details-body", "1. ??? info \"x\"\n    !!! tip \"Inner\"\n        Inner body.\n\nAfter.\n", "details", "info"},
		{"second-tab-of-item", "1. === \"A\"\n\n        a\n\n    === \"B\"\n\n        !!! tip \"Inner\"\n            Inner body.\n\nAfter.\n", "div", "tabbed-set"},
		{"two-space-nested-lists", "- a\n  - b\n\n    !!! tip \"Inner\"\n        Inner body.\n\nAfter.\n", "li", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { checkNesting(t, tc.src, tc.tag, tc.class, tip) })
	}
}

func checkNesting(t *testing.T, src, tag, class string, inner nestInner) {
	t.Helper()
	res, err := Translate([]byte(src), Options{File: "docs/page.md", Extensions: allExtensions, Icons: testIcons{}})
	if err != nil {
		t.Fatal(err)
	}
	out := hugoRender(t, res.Markdown)
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	show := func() string {
		return fmt.Sprintf("source:\n%s\ntranslated:\n%s\nHTML:\n%s", src, res.Markdown, out)
	}
	o := findHolding(doc, tag, class, func(n *html.Node) bool {
		in := findHolding(n, inner.tag, inner.class, func(n *html.Node) bool { return strings.Contains(textOf(n), "Inner body.") })
		return in != nil && in != n
	})
	if o == nil {
		t.Fatalf("no <%s class=%q> holding <%s class=%q> holding the inner body\n%s", tag, class, inner.tag, inner.class, show())
	}
	if after := findHolding(doc, "p", "", func(n *html.Node) bool { return textOf(n) == "After." }); after == nil || inside(after, tag, class) {
		t.Errorf("the text after the constructs is not a paragraph of its own\n%s", show())
	}
	if raw := rawSyntax(doc); raw != "" {
		t.Errorf("MkDocs syntax left as text: %q\n%s", raw, show())
	}
}

// findHolding finds, depth first, an element tag.class for which ok holds.
func findHolding(n *html.Node, tag, class string, ok func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag && (class == "" || hasClass(n, class)) && ok(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findHolding(c, tag, class, ok); f != nil {
			return f
		}
	}
	return nil
}

// inside reports whether an ancestor of n is tag.class.
func inside(n *html.Node, tag, class string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == tag && (class == "" || hasClass(p, class)) {
			return true
		}
	}
	return false
}

// rawSyntax is the first !!!, ??? or === of the text outside code.
func rawSyntax(n *html.Node) string {
	if n.Type == html.ElementNode && (n.Data == "code" || n.Data == "pre") {
		return ""
	}
	if n.Type == html.TextNode {
		for _, m := range []string{"!!!", "???", "==="} {
			if i := strings.Index(n.Data, m); i >= 0 {
				return strings.TrimSpace(n.Data[i:min(len(n.Data), i+30)])
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if r := rawSyntax(c); r != "" {
			return r
		}
	}
	return ""
}
