package site

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// TestHighlightStyleSameHTML: with classes (kbook's theme colours code by
// chroma's classes), the empty style writes the HTML Hugo's default
// style writes, token for token: only the formatter's work is saved.
func TestHighlightStyleSameHTML(t *testing.T) {
	for _, tc := range []struct{ lang, code string }{
		{"yaml", "apiVersion: v1 # a comment\nkind: ConfigMap\nmetadata:\n  name: \"x\"\n  labels: {a: 'b'}\ndata:\n  n: 3\n  on: true\n  text: |\n    two\n    lines\n---\n- &anchor item\n"},
		{"bash", "export A=1\nkubectl patch m kcm --patch \"{\\\"spec\\\":{}}\" --type=merge # patch\nfor i in $(seq 3); do echo \"$i\"; done\n"},
		{"json", `{"a": [1, 2.5, true, null], "b": "c"}`},
		{"go", "package main\n\nfunc main() { println(\"hi\") }\n"},
		{"console", "$ kbook build\nkbook build: wrote out/next (3 pages)\n"},
	} {
		var out []string
		for _, name := range []string{"monokai", highlightStyle} {
			lexer := lexers.Get(tc.lang)
			if lexer == nil {
				t.Fatalf("no lexer %s", tc.lang)
			}
			it, err := chroma.Coalesce(lexer).Tokenise(nil, tc.code)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := html.New(html.WithClasses(true)).Format(&b, styles.Get(name), it); err != nil {
				t.Fatal(err)
			}
			out = append(out, b.String())
		}
		if styles.Get(highlightStyle).Name != highlightStyle {
			t.Fatalf("style %s is not registered", highlightStyle)
		}
		if out[0] != out[1] {
			t.Errorf("%s: the HTML differs:\nmonokai: %s\n%s: %s", tc.lang, out[0], highlightStyle, out[1])
		}
	}
}
