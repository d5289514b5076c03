package runbook

import (
	"slices"
	"strings"
	"testing"
)

// TestShellBlockOptIn: on a page nothing else opted in, the blocks with
// the run flag run, bare or inside MkDocs' attribute braces, with the
// output block after them, and only they; the page's other shell blocks
// stay shell-not-run, saying how to add them. kbook.yaml's run.pages
// then runs them all, as front matter's run: shell does.
func TestShellBlockOptIn(t *testing.T) {
	src := "# Page\n\n```bash\nexport X=1\n```\n\n```bash run\necho hi\n```\n\n```console\nhi\n```\n\n```console { .no-copy run }\n$ echo two\ntwo\n```\n"
	if !HasRunFlag([]byte(src)) {
		t.Error("HasRunFlag missed the page's run flags")
	}
	rb, err := Parse("page.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if rb.ShellPage() != "the run flag of its block at line 7" {
		t.Errorf("ShellPage() = %q", rb.ShellPage())
	}
	var lines []int
	for _, st := range rb.Steps {
		lines = append(lines, st.Line)
	}
	if !slices.Equal(lines, []int{7, 15}) || rb.Steps[0].Shell.Expected == nil || rb.Steps[0].Shell.Expected.Text != "hi\n" {
		t.Fatalf("steps at %v, want [7 15], the first with its output", lines)
	}
	var notRun []int
	for _, f := range Lint(rb) {
		if f.Rule == RuleShellNotRun {
			notRun = append(notRun, f.Line)
			if !strings.Contains(f.Message, "this page runs only its blocks with the run flag") || !strings.Contains(f.Message, "```bash run") {
				t.Errorf("message %q does not say how to run it", f.Message)
			}
		}
	}
	if !slices.Equal(notRun, []int{3}) {
		t.Errorf("shell-not-run at %v, want [3]", notRun)
	}
	if err := rb.RunShellBlocks("kbook.yaml run.pages"); err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 3 || rb.ShellPage() != "kbook.yaml run.pages" {
		t.Errorf("listed in kbook.yaml: %d steps (%q), want all 3", len(rb.Steps), rb.ShellPage())
	}
	rb, err = Parse("page.md", []byte("---\nrun: shell\n---\n"+src))
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 3 || rb.ShellPage() != "front matter run: shell" {
		t.Errorf("run: shell: %d steps (%q), want all 3", len(rb.Steps), rb.ShellPage())
	}
	// Neither a norun flag, a run= attribute, a YAML key nor a command
	// named run opts a page in.
	for _, no := range []string{"```bash norun\necho\n```\n", "```bash run=yes\necho\n```\n", "```yaml\nrun: x\n```\n", "Run it:\n\n```bash\nrun\n```\n"} {
		if HasRunFlag([]byte(no)) {
			t.Errorf("HasRunFlag(%q) = true", no)
		}
		rb, err := Parse("page.md", []byte(no))
		if err != nil || rb.ShellPage() != "" {
			t.Errorf("%q: opted in (%v)", no, err)
		}
	}
}

// TestShellBlockOptInErrors: the run flag where nothing can run is an
// error at the block's line.
func TestShellBlockOptInErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"run and norun", "# x\n\n```bash run norun\necho\n```\n", "page.md:3: a block has run and norun: drop one"},
		{"run on yaml", "# x\n\n```yaml run\na: 1\n```\n", "page.md:3: the run flag on a yaml block: only bash, sh, shell and console blocks"},
		{"run on output", "# x\n\n```console run\nhi\n```\n", "page.md:3: the run flag on a console block with no $ prompt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("page.md", []byte(c.src))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error = %v, want %q...", err, c.want)
			}
		})
	}
}
