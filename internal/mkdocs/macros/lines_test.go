package macros

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLines: a page's macros rendered line for line, as kbook run
// reads a page that runs its shell blocks: one line out per line in, a
// set statement's line left empty, what cannot be evaluated as written,
// the plugin's own delimiters, render_macros: false and no plugin.
func TestLines(t *testing.T) {
	vars := map[string]any{"v": "1.2.3", "k": map[string]any{"name": "kcm"}}
	plugin := ReadPlugin(map[string]any{})
	src := "---\ntitle: T\n---\n# {{ k.name }}\n{% set tag = 'v' ~ v %}\n```bash\nhelm install {{ k.name }} --version {{ tag }}\n" +
		"echo {{ nope }} {{ v | upper }}\n```\r\nlast {{ v }}"
	lines, err := Lines("docs/p.md", []byte(src), plugin, vars)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"---", "title: T", "---", "# kcm", "", "```bash", "helm install kcm --version v1.2.3",
		"echo {{ nope }} 1.2.3", "```", "last 1.2.3"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Lines:\n got %q\nwant %q", lines, want)
	}

	delims := ReadPlugin(map[string]any{"j2_variable_start_string": "{{{", "j2_variable_end_string": "}}}"})
	if lines, _ := Lines("p.md", []byte("a {{{ v }}} {{ v }}\n"), delims, vars); len(lines) != 2 || lines[0] != "a 1.2.3 {{ v }}" {
		t.Errorf("custom delimiters: %q", lines)
	}
	if lines, _ := Lines("p.md", []byte("---\nrender_macros: false\n---\n{{ v }}\n"), plugin, vars); lines != nil {
		t.Errorf("render_macros: false rendered: %q", lines)
	}
	if lines, _ := Lines("p.md", []byte("---\nv: 2\n---\n{{ v }} {{ page.meta.v }}\n"), plugin, vars); len(lines) != 5 || lines[3] != "2 2" {
		t.Errorf("the front matter's variables: %q", lines)
	}
	if lines, _ := Lines("p.md", []byte("{% raw %}{{ v }}{% endraw %} {# c #}{{ v }}\n"), plugin, vars); lines[0] != "{{ v }} 1.2.3" {
		t.Errorf("raw and comments: %q", lines)
	}
	strict := ReadPlugin(map[string]any{"on_undefined": "strict", "on_error_fail": true})
	if _, err := Lines("docs/p.md", []byte("a\n{{ nope }}\n"), strict, vars); err == nil || !strings.Contains(err.Error(), "docs/p.md:2: macros: undefined variable \"nope\"") {
		t.Errorf("strict undefined: %v", err)
	}
}

// TestLinesBlocks: an expression over several lines is evaluated, its
// value on its first line and the others empty; {% if %} keeps the
// branch taken and empties the rest and the tags' lines; an if kbook
// cannot evaluate stays as written; {% include %} puts the file's lines,
// rendered, on its line. Every line keeps its number.
func TestLinesBlocks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "inc.sh"), []byte("echo included {{ v }}\necho two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{"v": "1.2.3", "cloud": "aws", "on": true}
	plugin := ReadPlugin(map[string]any{})
	plugin.IncludeDirs = []string{dir}
	src := strings.Join([]string{
		"```bash",
		"helm install kcm --version {{",
		"  v }} --wait",
		"{% if cloud == 'aws' %}",
		"aws sts get-caller-identity",
		"{% elif cloud == 'gcp' %}",
		"gcloud auth list",
		"{% else %}",
		"echo other",
		"{% endif %}",
		"{% if not on %}",
		"echo off",
		"{% endif %}",
		"{% if some.python() %}",
		"echo kept",
		"{% endif %}",
		"  {% include 'inc.sh' %}",
		"echo {{ nope",
		"  }}",
		"```",
	}, "\n")
	lines, err := Lines("docs/p.md", []byte(src), plugin, vars)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"```bash", "helm install kcm --version 1.2.3 --wait", "", "", "aws sts get-caller-identity", "", "", "", "", "",
		"", "", "", "{% if some.python() %}", "echo kept", "{% endif %}", "  echo included 1.2.3\n  echo two", "echo {{ nope", "  }}", "```"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %q", len(lines), len(want), lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], want[i])
		}
	}
}
