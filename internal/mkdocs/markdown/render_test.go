package markdown

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gohugoio/hugo/common/loggers"
	"github.com/gohugoio/hugo/config"
	"github.com/gohugoio/hugo/config/testconfig"
	"github.com/gohugoio/hugo/markup/converter"
	"github.com/gohugoio/hugo/markup/converter/hooks"
	"github.com/gohugoio/hugo/markup/goldmark"
	"github.com/gohugoio/hugo/markup/highlight"
	"golang.org/x/net/html"
)

// hugoRender renders Markdown with Hugo's own goldmark converter,
// configured with Goldmark() as kbook's site build configures it.
func hugoRender(t testing.TB, md []byte) string {
	t.Helper()
	cfg := config.New()
	cfg.Set("markup", map[string]any{"goldmark": Goldmark()})
	pconf := converter.ProviderConfig{Logger: loggers.NewDefault(), Conf: testconfig.GetTestConfig(nil, cfg)}
	p, err := goldmark.Provider.New(pconf)
	if err != nil {
		t.Fatal(err)
	}
	hl := highlight.New(pconf.MarkupConfig().Highlight)
	conv, err := p.New(converter.DocumentContext{DocumentID: "page"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conv.Convert(converter.RenderContext{Ctx: context.Background(), Src: md, GetRenderer: func(rt hooks.RendererType, _ any) any {
		if rt == hooks.CodeBlockRendererType {
			return hl
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(res.Bytes())
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				if c == class {
					return true
				}
			}
		}
	}
	return false
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// TestRenderedStructure renders fixtures' translations with Hugo's
// goldmark and checks the HTML: the bodies of admonitions, details and
// tabs are Markdown rendered inside their wrappers, lists keep them.
func TestRenderedStructure(t *testing.T) {
	tests := []struct {
		fixture string
		// path: outer element, then the element expected inside it
		outerTag, outerClass, innerTag, innerText string
	}{
		{"admonition", "div", "note", "strong", "bold"},
		{"admonition", "div", "note", "code", "a: 1"},
		{"admonition", "div", "tip", "div", "Inner."},
		{"admonition", "li", "", "div", "In a list."},
		{"details", "details", "note", "p", "Hidden body."},
		{"details", "li", "", "details", "Detail."},
		{"tabs", "div", "tabbed-block", "code", "curl x"},
		{"tabs", "div", "tabbed-labels", "label", "Linux"},
		{"callouts", "div", "tip", "p", "Two paragraphs."},
		{"md-in-html", "div", "grid", "strong", "One"},
		{"md-in-html", "div", "grid", "li", "Two"},
		{"attr-list", "h2", "big", "", "Install"},
		{"attr-list", "p", "lead", "", "A paragraph with a class."},
		{"attr-list", "span", "md-button", "a", "Get started"},
		{"attr-list", "div", "md-no-copy", "code", "kbook run"},
		{"mermaid", "pre", "mermaid", "code", "A --> B & C"},
		{"inline", "p", "", "kbd", "Ctrl"},
		{"inline", "p", "", "abbr", "HTML"},
		{"snippets", "li", "", "strong", "file"},
		{"lists-defs-footnotes", "dl", "", "dd", "A fruit."},
		{"lists-defs-footnotes", "dd", "", "p", "More about apples."},
		{"lists-defs-footnotes", "div", "footnotes", "li", "The note."},
		{"lists-defs-footnotes", "li", "", "input", ""},
		{"include-markdown", "p", "", "strong", "A"},
		{"adjacent", "p", "", "strong", "bold"},
		{"adjacent", "p", "", "em", "em"},
		{"adjacent", "div", "note", "p", "Body."},
		{"macros-delimiters", "p", "", "code", "src_var('CoreDNSImage')"},
	}
	cache := map[string]*html.Node{}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.outerTag+"."+tt.outerClass+"/"+tt.innerTag, func(t *testing.T) {
			doc := cache[tt.fixture]
			if doc == nil {
				in, opts, _ := loadFixture(t, filepath.Join("testdata", tt.fixture+".txtar"))
				res, err := Translate(in, opts)
				if err != nil {
					t.Fatal(err)
				}
				out := hugoRender(t, res.Markdown)
				if doc, err = html.Parse(strings.NewReader(out)); err != nil {
					t.Fatal(err)
				}
				cache[tt.fixture] = doc
			}
			outer := findWith(doc, tt.outerTag, tt.outerClass, tt.innerTag, tt.innerText)
			if outer == nil {
				var b strings.Builder
				_ = html.Render(&b, doc)
				t.Fatalf("no <%s class=%q> holding <%s> %q in\n%s", tt.outerTag, tt.outerClass, tt.innerTag, tt.innerText, b.String())
			}
		})
	}
}

// findWith finds an element tag.class that holds an element innerTag
// whose text contains innerText (or, innerTag empty, whose own text does).
func findWith(n *html.Node, tag, class, innerTag, innerText string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag && (class == "" || hasClass(n, class)) {
		if innerTag == "" && strings.Contains(textOf(n), innerText) {
			return n
		}
		if innerTag != "" && holds(n, innerTag, innerText) {
			return n
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findWith(c, tag, class, innerTag, innerText); f != nil {
			return f
		}
	}
	return nil
}

func holds(n *html.Node, tag, text string) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == tag && strings.Contains(textOf(c), text) {
			return true
		}
		if holds(c, tag, text) {
			return true
		}
	}
	return false
}
