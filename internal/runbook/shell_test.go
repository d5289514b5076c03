package runbook

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/outmatch"
)

func TestShellPage(t *testing.T) {
	rb := mustParse(t, "testdata/shell-page.md")
	if rb.ShellPage() != "front matter run: shell" {
		t.Fatalf("ShellPage() = %q", rb.ShellPage())
	}
	type want struct {
		line                   int
		lang, script, expected string
		expectedLine           int
		mode                   outmatch.Mode
	}
	wants := []want{
		{line: 8, lang: "bash", script: "export GREETING=hello|declare -A seen=([a]=1)|cd /tmp", mode: outmatch.Shape},
		{line: 16, lang: "sh", script: `echo "$GREETING"`, expected: "hello\n", expectedLine: 23, mode: outmatch.Shape},
		{line: 28, lang: "console", script: `echo one \|two|printf 'x\n'`, expected: "one two\nx\n", expectedLine: 31, mode: outmatch.Shape},
		{line: 48, lang: "testscript"},
	}
	if len(rb.Steps) != len(wants) {
		t.Fatalf("got %d steps, want %d", len(rb.Steps), len(wants))
	}
	for i, w := range wants {
		st := rb.Steps[i]
		if st.Line != w.line || st.Block.Lang != w.lang {
			t.Errorf("step %d: line %d lang %s, want %d %s", i+1, st.Line, st.Block.Lang, w.line, w.lang)
		}
		if w.lang == StepLang {
			if st.Shell != nil || len(st.Script) != 1 {
				t.Errorf("testscript step %d: shell %v, script %v", i+1, st.Shell, st.Script)
			}
			continue
		}
		sh := st.Shell
		if sh == nil {
			t.Fatalf("step %d is no shell step", i+1)
		}
		var texts []string
		for _, l := range sh.Script {
			texts = append(texts, l.Text)
		}
		if got := strings.Join(texts, "|"); got != w.script {
			t.Errorf("step %d script = %q, want %q", i+1, got, w.script)
		}
		switch {
		case w.expected == "" && sh.Expected != nil:
			t.Errorf("step %d: expected output %q, want none", i+1, sh.Expected.Text)
		case w.expected != "" && (sh.Expected == nil || sh.Expected.Text != w.expected || sh.Expected.Line != w.expectedLine):
			t.Errorf("step %d: expected output %+v, want %q at %d", i+1, sh.Expected, w.expected, w.expectedLine)
		}
		if sh.Mode != w.mode {
			t.Errorf("step %d: mode %s, want %s", i+1, sh.Mode, w.mode)
		}
	}
	// The console transcript's lines keep their source lines.
	if l := rb.Steps[2].Shell.Script[1]; l.Num != 30 {
		t.Errorf("continuation line at %d, want 30", l.Num)
	}
	// declare gets -g: the session runs each block inside a function.
	if run := rb.Steps[0].Shell.Run; !strings.Contains(run, "declare -g -A seen") {
		t.Errorf("Run = %q, want declare -g", run)
	}
	// Lint: the zsh block and the text block after the transcript are not
	// run; the page's own blocks and the expected output are.
	var lines []int
	for _, f := range Lint(rb) {
		if f.Rule == RuleShellNotRun {
			lines = append(lines, f.Line)
			if !strings.Contains(f.Message, "this page runs bash, sh, shell and console blocks") {
				t.Errorf("message %q does not say what runs", f.Message)
			}
		}
	}
	if len(lines) != 1 || lines[0] != 40 {
		t.Errorf("shell-not-run at %v, want [40]", lines)
	}
}

func TestShellNotOptedIn(t *testing.T) {
	src := "# Page\n\n```bash\necho hi\n```\n\n```console\nhi\n```\n"
	rb, err := Parse("page.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 0 || rb.ShellPage() != "" {
		t.Fatalf("a page that did not opt in has %d steps (%q)", len(rb.Steps), rb.ShellPage())
	}
	fs := Lint(rb)
	n := 0
	for _, f := range fs {
		if f.Rule == RuleShellNotRun {
			n++
			if !strings.Contains(f.Message, "run: shell in its front matter, or its path under run.pages in kbook.yaml") {
				t.Errorf("message %q does not say how to opt in", f.Message)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d shell-not-run findings, want 2", n)
	}
	if err := rb.RunShellBlocks("kbook.yaml run.pages"); err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 1 || rb.Steps[0].Shell.Expected == nil || rb.ShellPage() != "kbook.yaml run.pages" {
		t.Fatalf("after RunShellBlocks: %d steps", len(rb.Steps))
	}
}

func TestShellErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"bad run value", "---\ntitle: x\nrun: everything\n---\n", `page.md:3: front matter: run: "everything"`},
		{"bad page output mode", "---\nrun: shell\noutput: fuzzy\n---\n", `page.md:3: front matter: output: unknown output mode "fuzzy"`},
		{"bad block output mode", "---\nrun: shell\n---\n\n```bash output=fuzzy\necho\n```\n", `page.md:5: unknown output mode "fuzzy"`},
		{"two modes", "---\nrun: shell\n---\n\n```bash output=exact\necho\n```\n\n```console output=shape\n\n```\n", "page.md:9: output=shape here, but the shell block at line 5 says output=exact"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("page.md", []byte(c.src))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error = %v, want %q...", err, c.want)
			}
		})
	}
}

// TestShellSyntax: a block that does not parse is an error at its line
// once the overlays have applied (ShellSyntax), not while the page is
// read, so that an overlay can still skip it; a block that parses only
// with its placeholders filled in needs a human, and is skipped saying
// so; a real syntax error beside a placeholder stays one.
func TestShellSyntax(t *testing.T) {
	page := func(blocks string) string { return "---\nrun: shell\n---\n\n" + blocks }
	for _, c := range []struct {
		name, src string
		// want is ShellSyntax's error ("" none); skip the first
		// block's skip reason.
		want, skip string
	}{
		{"unclosed if, at the line of what is unclosed", page("```bash\necho ok\nif true; then\n  echo never closed\n```\n"), "page.md:7: bash syntax:", ""},
		{"console, at the prompt's line", page("```console\n$ echo ok\nok\n$ echo (\n```\n"), "page.md:8: bash syntax:", ""},
		{"a placeholder file name", page("```bash\nkubectl create secret generic gcp --from-file=<gcpJSONCredentialsFileName>\n```\n"), "", "needs a human: fill in <gcpJSONCredentialsFileName>"},
		{"placeholders in a console block, each once", page("```console\n$ export A=<OS_AUTH_URL> B=<OS_REGION_NAME>\n$ echo <OS_AUTH_URL>\n```\n"), "", "needs a human: fill in <OS_AUTH_URL>, <OS_REGION_NAME>"},
		{"a placeholder with spaces", page("```bash\ngcloud config set project <your project id>\n```\n"), "", "needs a human: fill in <your project id>"},
		{"a placeholder path", page("```bash\nexport KUBECONFIG=</path/to/kubeconfig/management/cluster>\n```\n"), "", "needs a human: fill in </path/to/kubeconfig/management/cluster>"},
		{"placeholders with commas and a quoted default", page("```bash\nkubectl create secret generic smtp --from-literal=BCC=<optional, cc email addresses> --from-literal=PORT=<port, defaults to \"587\">\n```\n"), "", "needs a human: fill in <optional, cc email addresses>, <port, defaults to \"587\">"},
		{"a placeholder bash reads as redirections", page("```bash\nkubectl create secret generic slack --from-literal=SLACK_CHANNEL_ID=<your channel id> \\\n  --from-literal=TOKEN=<token>\n```\n"), "", "needs a human: fill in <your channel id>, <token>"},
		{"a redirection without spaces parses: no placeholder", page("```bash\nwc -l </etc/hosts>count\n```\n"), "", ""},
		{"a placeholder and a real syntax error", page("```bash\necho <name>\nif true; then\n```\n"), "page.md:7: bash syntax:", ""},
		{"a skip= attribute hides a syntax error", page("```bash skip=\"broken on purpose\"\necho 'never closed\n```\n"), "", "broken on purpose"},
		{"a provided= attribute hides one", page("```bash provided=\"kbook does it\"\nfi\n```\n"), "", ""},
		{"redirections are no placeholders", page("```bash\ncat <<EOF >out\nhi\nEOF\nwc -l <out >count\n```\n"), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rb, err := Parse("page.md", []byte(c.src))
			if err != nil {
				t.Fatalf("Parse: %v (a syntax error is no error until ShellSyntax)", err)
			}
			err = rb.ShellSyntax()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("ShellSyntax: %v, want none", err)
			case c.want != "" && (err == nil || !findings.IsInput(err) || !strings.HasPrefix(err.Error(), c.want)):
				t.Fatalf("ShellSyntax: %v, want bad input starting %q", err, c.want)
			}
			sh := rb.Steps[0].Shell
			if sh.Skip != c.skip {
				t.Errorf("skip %q, want %q", sh.Skip, c.skip)
			}
			if c.want == "" && sh.Skip == "" && sh.Provided == "" && sh.Run == "" {
				t.Errorf("a block that parses has nothing to run")
			}
		})
	}
}

// TestPlaceholderDependants: a block that needs a human still says what
// it would set and write (read with its placeholders filled in), so that
// the blocks that use it are skipped after it, not failed; an overlay
// stand-in that fills the placeholder in makes it run.
func TestPlaceholderDependants(t *testing.T) {
	rb, err := Parse("page.md", []byte("---\nrun: shell\n---\n\n```bash\nexport PROJECT=<project-id>\necho x > creds.json\n```\n\n```bash\necho $PROJECT\ncat creds.json\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	sh := rb.Steps[0].Shell
	if !slices.Contains(sh.Needs.Sets, "PROJECT") || !slices.Contains(sh.Needs.Writes, "creds.json") {
		t.Errorf("needs of the block that needs a human: sets %v, writes %v", sh.Needs.Sets, sh.Needs.Writes)
	}
	may := rb.ShellMayRun(func(string) bool { return true }, func(string) bool { return false })
	if may[rb.Steps[0]] || may[rb.Steps[1]] {
		t.Errorf("may run: %v, want neither (the first needs a human, the second uses what it makes)", may)
	}
	if err := sh.SetScript("overlay.yaml", []Line{{Text: "export PROJECT=demo", Num: 6}, {Text: "echo x > creds.json", Num: 7}}); err != nil {
		t.Fatal(err)
	}
	if sh.Skip != "" || sh.Fill != nil || sh.Run == "" {
		t.Errorf("filled in by a stand-in: skip %q, fill %v, run %q", sh.Skip, sh.Fill, sh.Run)
	}
}

// TestMayRunAfter: a block that uses what only a block that does not run
// would make may not run either, whether it names the file as an
// argument or gives it to the command in a variable.
func TestMayRunAfter(t *testing.T) {
	for _, c := range []struct{ name, use string }{
		{"argument", "kubectl --kubeconfig child.kubeconfig get pods"},
		{"variable given to the command", `KUBECONFIG="child.kubeconfig" kubectl get pods -A`},
		{"variable the block reads", "echo $CHILD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rb, err := Parse("page.md", []byte("---\nrun: shell\n---\n\n```bash skip=\"needs a cloud\"\nCHILD=x\nkubectl get secret k -o name > child.kubeconfig\n```\n\n```bash\n"+c.use+"\n```\n"))
			if err != nil {
				t.Fatal(err)
			}
			may := rb.ShellMayRun(func(string) bool { return true }, func(string) bool { return false })
			if may[rb.Steps[1]] {
				t.Errorf("%q may run after the block that writes child.kubeconfig was skipped", c.use)
			}
		})
	}
}

func TestLoadShell(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.md")
	if err := os.WriteFile(page, []byte("# Page\n\n```bash\necho hi\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load([]string{page})
	if err == nil || !strings.Contains(err.Error(), "the page has 1 shell block, which runs when it opts in") {
		t.Fatalf("Load of a page that did not opt in: %v", err)
	}
	rbs, err := LoadShell([]string{dir}, func(p string) string {
		if filepath.Base(p) == "page.md" {
			return "kbook.yaml run.pages"
		}
		return ""
	}, nil)
	if err != nil || len(rbs) != 1 || len(rbs[0].Steps) != 1 {
		t.Fatalf("LoadShell: %v, %d runbooks", err, len(rbs))
	}
}

// TestBashTranscript: a bash block whose first line is a "$ " prompt is
// a transcript, read as a console block: prompt lines are the commands,
// the rest their expected output; a bash block with a "$ " further down
// is bash.
func TestBashTranscript(t *testing.T) {
	rb, err := Parse("page.md", []byte("---\nrun: shell\n---\n\n```bash\n$ echo hi \\\n> there\nhi there\n```\n\n```sh\necho a\n$ b\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(rb.Steps))
	}
	sh := rb.Steps[0].Shell
	if len(sh.Script) != 2 || sh.Script[0].Text != "echo hi \\" || sh.Script[0].Num != 6 || sh.Expected == nil || sh.Expected.Text != "hi there\n" || sh.Expected.Line != 8 {
		t.Errorf("transcript: script %+v, expected %+v", sh.Script, sh.Expected)
	}
	if sh := rb.Steps[1].Shell; len(sh.Script) != 2 || sh.Expected != nil {
		t.Errorf("a bash block with a later $ line: script %+v, expected %+v", sh.Script, sh.Expected)
	}
}

// TestBashTranscriptComments: comment lines before the first prompt, and
// before each later one, of a bash transcript are comments: the block is
// still a transcript and they are neither commands nor expected output;
// a comment line followed by output stays output.
func TestBashTranscriptComments(t *testing.T) {
	rb, err := Parse("page.md", []byte("---\nrun: shell\n---\n\n```bash\n# Push the chart first\n$ echo pushed\npushed\n# a line of output\n\n# Sign it\n$ echo signed\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 1 {
		t.Fatalf("%d steps, want 1", len(rb.Steps))
	}
	sh := rb.Steps[0].Shell
	var cmds []string
	for _, l := range sh.Script {
		cmds = append(cmds, fmt.Sprintf("%d:%s", l.Num, l.Text))
	}
	if strings.Join(cmds, ",") != "7:echo pushed,12:echo signed" {
		t.Errorf("commands %q, want the two prompts at lines 7 and 12", cmds)
	}
	if sh.Expected == nil || sh.Expected.Text != "pushed\n# a line of output\n\n" || sh.Expected.Line != 8 {
		t.Errorf("expected %+v: want pushed and the output's comment-looking line, from line 8", sh.Expected)
	}
}
