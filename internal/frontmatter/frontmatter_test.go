package frontmatter

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, src string
		yaml      string // "<nil>" for no block
		lines     int
		body      string
		unclosed  bool
	}{
		{"none", "# Title\n", "<nil>", 0, "# Title\n", false},
		{"empty page", "", "<nil>", 0, "", false},
		{"one line", "---", "<nil>", 0, "---", false},
		{"plain", "---\ntitle: A\n---\n# A\n", "title: A\n", 3, "# A\n", false},
		{"dots close", "---\ntitle: A\n...\nbody\n", "title: A\n", 3, "body\n", false},
		{"empty block", "---\n---\nbody\n", "", 2, "body\n", false},
		{"no newline after close", "---\na: 1\n---", "a: 1\n", 3, "", false},
		{"crlf", "---\r\ntitle: A\r\n---\r\nbody\r\n", "title: A\r\n", 3, "body\r\n", false},
		{"trailing blanks", "--- \t\ntitle: A\n---\t \nbody\n", "title: A\n", 3, "body\n", false},
		{"tab and cr on the close", "---\na: 1\n...\t\r\nbody\n", "a: 1\n", 3, "body\n", false},
		{"bom", BOM + "---\ntitle: A\n---\nbody\n", "title: A\n", 3, "body\n", false},
		{"bom and crlf", BOM + "---\r\ntitle: A\r\n---\r\nbody\r\n", "title: A\r\n", 3, "body\r\n", false},
		{"bom without block", BOM + "# A\n", "<nil>", 0, BOM + "# A\n", false},
		{"leading blank is no block", " ---\na: 1\n---\n", "<nil>", 0, " ---\na: 1\n---\n", false},
		{"four dashes are no block", "----\na: 1\n----\n", "<nil>", 0, "----\na: 1\n----\n", false},
		{"indented close does not close", "---\na: 1\n ---\n", "<nil>", 0, "---\na: 1\n ---\n", true},
		{"unclosed", "---\ntitle: A\nbody\n", "<nil>", 0, "---\ntitle: A\nbody\n", true},
		{"thematic break later", "# A\n\n---\n\nb\n", "<nil>", 0, "# A\n\n---\n\nb\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := Split([]byte(tc.src))
			got := "<nil>"
			if b.YAML != nil {
				got = string(b.YAML)
			}
			if got != tc.yaml || b.Lines != tc.lines || b.Unclosed != tc.unclosed || b.Found() != (tc.lines > 0) {
				t.Errorf("Split(%q) = yaml %q, lines %d, unclosed %v; want %q, %d, %v", tc.src, got, b.Lines, b.Unclosed, tc.yaml, tc.lines, tc.unclosed)
			}
			if body := string(Body([]byte(tc.src))); body != tc.body {
				t.Errorf("Body(%q) = %q, want %q", tc.src, body, tc.body)
			}
			if b.Found() && strings.Count(tc.src[:b.End], "\n") != b.Lines && b.End != len(tc.src) {
				t.Errorf("End %d is not after line %d of %q", b.End, b.Lines, tc.src)
			}
		})
	}
}

// TestBlank: the block turns to spaces, its newlines and the body stay,
// so offsets and line numbers of the copy are those of the page.
func TestBlank(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"---\na: 1\n---\n# A\n", "   \n    \n   \n# A\n"},
		{BOM + "---\r\na: 1\r\n---\r\n# A\r\n", "       \n     \n    \n# A\r\n"},
		{"# A\n", "# A\n"},
		{"---\nnever closed\n", "---\nnever closed\n"},
	} {
		src := []byte(tc.src)
		got := string(Blank(src))
		if got != tc.want {
			t.Errorf("Blank(%q) = %q, want %q", tc.src, got, tc.want)
		}
		if string(src) != tc.src {
			t.Errorf("Blank changed its argument to %q", src)
		}
	}
}

// TestYAMLDoesNotAlias: appending to the YAML does not write into the page.
func TestYAMLDoesNotAlias(t *testing.T) {
	src := []byte("---\na: 1\n---\nbody\n")
	b := Split(src)
	_ = append(b.YAML, "x: 2\n"...)
	if string(src) != "---\na: 1\n---\nbody\n" {
		t.Errorf("append to YAML changed the page: %q", src)
	}
}
