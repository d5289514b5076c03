package runbook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, file string) *Runbook {
	t.Helper()
	rb, err := ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

func TestParseBasic(t *testing.T) {
	rb := mustParse(t, "testdata/basic.md")
	m := rb.Meta
	if m.Title != "Basic runbook" || m.Timeout.Duration != 2*time.Minute || m.Weight != 10 ||
		strings.Join(m.Requires, ",") != "exec:kubectl" || strings.Join(m.Tags, ",") != "example" {
		t.Errorf("meta = %+v", m)
	}
	if len(m.RequiresLines) != 1 || m.RequiresLines[0] != 4 {
		t.Errorf("requires lines = %v, want [4]", m.RequiresLines)
	}
	type stepWant struct {
		name  string
		line  int
		lines []int
	}
	want := []stepWant{
		{"Apply it", 20, []int{21, 22, 23, 24}},
		{"compare output", 35, []int{36, 37}},
	}
	if len(rb.Steps) != len(want) {
		t.Fatalf("got %d steps, want %d", len(rb.Steps), len(want))
	}
	for i, w := range want {
		st := rb.Steps[i]
		var lines []int
		for _, l := range st.Script {
			lines = append(lines, l.Num)
		}
		if st.Name != w.name || st.Line != w.line || !equalInts(lines, w.lines) || st.Index != i+1 {
			t.Errorf("step %d = %q line %d script lines %v; want %q line %d %v", i, st.Name, st.Line, lines, w.name, w.line, w.lines)
		}
	}
	if got := rb.Steps[0].Script[0].Text; got != "exec cat values.yaml" {
		t.Errorf("first script line = %q", got)
	}
	files := map[string]int{}
	for _, f := range rb.Files {
		files[f.Name] = f.Line
	}
	if files["values.yaml"] != 14 || files["want.txt"] != 31 || len(files) != 2 {
		t.Errorf("files = %v", files)
	}
	if rb.Files[0].Content != "replicas: 1\n" {
		t.Errorf("values.yaml content = %q", rb.Files[0].Content)
	}
	var sh *Block
	for _, b := range rb.Blocks {
		if b.Lang == "sh" {
			sh = b
		}
	}
	if sh == nil || !sh.Has(NoRun) || sh.Line != 27 {
		t.Errorf("sh block = %+v", sh)
	}
}

func TestParseNested(t *testing.T) {
	rb := mustParse(t, "testdata/nested.md")
	tests := []struct {
		step   int
		line   int
		script string
	}{
		{0, 13, "grep ConfigMap cm.yaml"},
		{1, 19, "exists cm.yaml"},
		{2, 29, "exists doc.md"},
	}
	if len(rb.Steps) != len(tests) {
		t.Fatalf("got %d steps, want %d", len(rb.Steps), len(tests))
	}
	for _, tc := range tests {
		st := rb.Steps[tc.step]
		if st.Line != tc.line || len(st.Script) != 1 || st.Script[0].Text != tc.script || st.Script[0].Num != tc.line+1 {
			t.Errorf("step %d: line %d script %+v; want line %d %q", tc.step, st.Line, st.Script, tc.line, tc.script)
		}
	}
	byName := map[string]*File{}
	for _, f := range rb.Files {
		byName[f.Name] = f
	}
	if c := byName["cm.yaml"].Content; c != "kind: ConfigMap\ndata:\n  a: \"1\"\n" {
		t.Errorf("cm.yaml (indented in a list) = %q", c)
	}
	if p := byName["cm.yaml"].Block.Prefix; p != "   " {
		t.Errorf("cm.yaml prefix = %q", p)
	}
	if c := byName["doc.md"].Content; c != "```testscript\nexec echo nested\n```\n" {
		t.Errorf("doc.md (inner fence) = %q", c)
	}
	if c := byName["empty.txt"].Content; c != "" {
		t.Errorf("empty.txt = %q", c)
	}
}

func TestParseCRLF(t *testing.T) {
	src, err := os.ReadFile("testdata/basic.md")
	if err != nil {
		t.Fatal(err)
	}
	crlf := strings.ReplaceAll(string(src), "\n", "\r\n")
	rb, err := Parse("basic-crlf.md", []byte(crlf))
	if err != nil {
		t.Fatal(err)
	}
	lf := mustParse(t, "testdata/basic.md")
	if rb.Meta.Title != lf.Meta.Title || len(rb.Steps) != len(lf.Steps) {
		t.Fatalf("CRLF parse differs: %+v", rb.Meta)
	}
	for i := range rb.Steps {
		for j := range rb.Steps[i].Script {
			if rb.Steps[i].Script[j] != lf.Steps[i].Script[j] {
				t.Errorf("step %d line %d: %+v != %+v", i, j, rb.Steps[i].Script[j], lf.Steps[i].Script[j])
			}
		}
	}
	if rb.Files[0].Content != "replicas: 1\n" || !rb.Files[0].Block.CRLF {
		t.Errorf("CRLF file = %q crlf=%v", rb.Files[0].Content, rb.Files[0].Block.CRLF)
	}
}

// TestParseFrontMatterDelimiters: a byte order mark before the page and
// blanks after the --- lines (package frontmatter) leave the front matter
// read, and the steps at the lines of the plain page.
func TestParseFrontMatterDelimiters(t *testing.T) {
	src, err := os.ReadFile("testdata/basic.md")
	if err != nil {
		t.Fatal(err)
	}
	lf := mustParse(t, "testdata/basic.md")
	if !strings.HasPrefix(string(src), "---\n") || lf.Meta.Title == "" {
		t.Fatalf("testdata/basic.md should open with front matter that has a title")
	}
	for name, page := range map[string]string{
		"bom":             "\ufeff" + string(src),
		"trailing blanks": strings.Replace(strings.Replace(string(src), "---\n", "--- \t\n", 1), "\n---\n", "\n---\t\n", 1),
	} {
		rb, err := Parse("page.md", []byte(page))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rb.Meta.Title != lf.Meta.Title || len(rb.Steps) != len(lf.Steps) {
			t.Fatalf("%s: title %q, %d steps; want %q, %d", name, rb.Meta.Title, len(rb.Steps), lf.Meta.Title, len(lf.Steps))
		}
		for i := range rb.Steps {
			if rb.Steps[i].Script[0].Num != lf.Steps[i].Script[0].Num {
				t.Errorf("%s: step %d starts at line %d, want %d", name, i, rb.Steps[i].Script[0].Num, lf.Steps[i].Script[0].Num)
			}
		}
	}
}

func TestParseTxtar(t *testing.T) {
	rb := mustParse(t, "testdata/steps-and-files.txtar")
	if rb.Format != Txtar || len(rb.Steps) != 1 || len(rb.Steps[0].Script) != 4 || rb.Steps[0].Script[2].Num != 3 {
		t.Fatalf("txtar = %+v", rb.Steps[0])
	}
	if len(rb.Files) != 2 || rb.Files[0].Line != 5 || rb.Files[1].Line != 7 || rb.Files[1].Content != "hello\n" {
		t.Errorf("files = %+v %+v", rb.Files[0], rb.Files[1])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unterminated fence", "", "testdata/unterminated.md:5: code fence ``` is never closed"},
		{"unterminated front matter", "---\ntitle: x\n", "x.md:1: front matter opened with --- is never closed"},
		{"unknown front matter key", "---\ntitle: x\ntitel: y\n---\n", "x.md:3: front matter: field titel not found"},
		{"bad timeout", "---\ntimeout: soon\n---\n", `x.md:2: front matter: timeout "soon" is not a duration`},
		{"negative timeout", "---\ntimeout: -1s\n---\n", `x.md:2: front matter: timeout must be positive`},
		{"bad yaml", "---\ntitle: [x\n---\n", "x.md:"},
		{"unknown requirement", "---\nrequires:\n  - cluster\n  - kubernetes\n---\n", `x.md:4: front matter: unknown requirement "kubernetes"`},
		{"empty exec requirement", "---\nrequires: [\"exec:\"]\n---\n", `x.md:2: front matter: requirement "exec:" names no program`},
		{"testscript with file", "```testscript file=x\n```\n", "x.md:1: a testscript block cannot also have file=x"},
		{"duplicate file", "```yaml file=a.yaml\n```\n\n```yaml file=a.yaml\n```\n", "x.md:4: file=a.yaml is already defined at line 1"},
		{"absolute file", "```yaml file=/etc/passwd\n```\n", `x.md:1: file="/etc/passwd": must be relative`},
		{"escaping file", "```yaml file=../x\n```\n", `x.md:1: file="../x": must be a clean path`},
		{"bad quote", "```testscript name=\"oops\n```\n", `x.md:1: fence info`},
		{"txtar marker in step", "```testscript\nexec true\n-- f.txt --\n```\n", "x.md:3: txtar file marker"},
		// testscript would fail the runbook there: bad input, as kbook
		// check and kbook run parse it.
		{"unterminated quote", "# T\n\n```testscript\nexec echo hi\nexec echo 'never closed\n```\n", "x.md:5: unterminated quoted argument"},
		{"unterminated quote in a txtar", "exec echo ok\nexec echo 'a''\n-- f --\n", "x.txtar:2: unterminated quoted argument"},
		{"not a runbook", "", "x.yaml: not a runbook"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch {
			case tc.name == "unterminated fence":
				_, err = ParseFile("testdata/unterminated.md")
			case tc.name == "not a runbook":
				_, err = Parse("x.yaml", nil)
			case tc.name == "unterminated quote in a txtar":
				_, err = Parse("x.txtar", []byte(tc.src))
			default:
				_, err = Parse("x.md", []byte(tc.src))
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant prefix %q", err, tc.want)
			}
		})
	}
}

func TestParseInfo(t *testing.T) {
	tests := []struct {
		info, lang string
		attrs      map[string]string
		flags      []string
	}{
		{"yaml file=values.yaml", "yaml", map[string]string{"file": "values.yaml"}, nil},
		{`testscript name="apply the template" norun`, "testscript", map[string]string{"name": "apply the template"}, []string{"norun"}},
		{"  sh   norun  ", "sh", map[string]string{}, []string{"norun"}},
		{"file=x.txt", "", map[string]string{"file": "x.txt"}, nil},
		{`text file="a b.txt"`, "text", map[string]string{"file": "a b.txt"}, nil},
	}
	for _, tc := range tests {
		lang, attrs, flags, err := parseInfo(tc.info)
		if err != nil || lang != tc.lang || !equalMaps(attrs, tc.attrs) || strings.Join(flags, ",") != strings.Join(tc.flags, ",") {
			t.Errorf("parseInfo(%q) = %q %v %v %v", tc.info, lang, attrs, flags, err)
		}
	}
	for _, bad := range []string{`x name="open`, "x =v", "x a=1 a=2"} {
		if _, _, _, err := parseInfo(bad); err == nil {
			t.Errorf("parseInfo(%q): no error", bad)
		}
	}
}

func TestLoad(t *testing.T) {
	rbs, err := Load([]string{"testdata"})
	if err == nil {
		t.Fatalf("Load(testdata) should fail on unterminated.md, got %d runbooks", len(rbs))
	}
	dir := t.TempDir()
	for _, f := range []string{"basic.md", "README.md", "steps-and-files.txtar"} {
		copyFile(t, filepath.Join("testdata", f), filepath.Join(dir, f))
	}
	copyFile(t, "testdata/nested.md", filepath.Join(dir, "sub", "nested.md"))
	copyFile(t, "testdata/nested.md", filepath.Join(dir, ".hidden", "nested.md"))
	copyFile(t, "testdata/nested.md", filepath.Join(dir, "testdata", "nested.md"))
	rbs, err = Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rb := range rbs {
		rel, _ := filepath.Rel(dir, rb.Path)
		got = append(got, rel)
	}
	if strings.Join(got, " ") != "basic.md steps-and-files.txtar sub/nested.md" {
		t.Errorf("Load = %v", got)
	}
	if _, err := Load([]string{filepath.Join(dir, "README.md")}); err == nil || !strings.Contains(err.Error(), "no testscript blocks") {
		t.Errorf("Load(README.md) error = %v", err)
	}
	if _, err := Load([]string{filepath.Join(dir, "missing.md")}); err == nil || !strings.Contains(err.Error(), "missing.md: no such file") {
		t.Errorf("Load(missing) error = %v", err)
	}
	empty := t.TempDir()
	if _, err := Load([]string{empty}); err == nil || !strings.Contains(err.Error(), "no runbooks found") {
		t.Errorf("Load(empty) error = %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
