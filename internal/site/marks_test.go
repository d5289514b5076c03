package site

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/report"
)

// TestShellBlockMarks: on a built page that runs its shell blocks, each
// block shows its commands, what the run captured, and a mark with its
// result in words (passed, ran, provided, skipped, failed), the reason
// on hover (title) and in an expandable note; the page's verdict has
// the counts, and a page whose only passing blocks are provided by kbook
// is never verified.
func TestShellBlockMarks(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"mkdocs.yml":    "site_name: Marks\n",
		"kbook.yaml":    "run:\n  pages: [docs/all.md, docs/provided.md, docs/failed.md, docs/verified.md]\n",
		"docs/index.md": "# Home\n",
		"docs/all.md": "# All\n\n```bash\nNAME=world\n```\n\n" +
			"```bash\necho \"hello $NAME\"\n```\n\n```console\nhello world\n```\n\n" +
			"```bash\necho example\n```\n\n```text output=illustrative\nan example\n```\n\n" +
			"```bash provided=\"the run's cluster\"\nk0s install controller\n```\n\n" +
			"```bash skip=\"needs a human\"\nvi settings.yaml\n```\n\n" +
			"```bash\ncat > f.txt <<EOF\n# kept\nEOF\necho \\\n  done\n```\n",
		"docs/provided.md": "# Provided\n\n```bash provided=\"kbook does it\"\nk0s install controller\n```\n",
		"docs/failed.md":   "# Failed\n\n```bash\necho before\nfalse\n```\n",
		"docs/verified.md": "# Verified\n\n```console\n$ echo one\none\n$ echo two\ntwo\n```\n",
	})
	out := runAndRender(t, dir, nil)
	page := func(name string) string { return read(t, filepath.Join(out, "next", name, "index.html")) }
	block := func(html string, n int) string { t.Helper(); return stepHTML(t, html, n) }

	all := page("all")
	mustContain(t, "all: the verdict", all,
		`kb-badge-partial`, `>Partially verified</span>`,
		`<p class="kb-verify-reason">partially verified: 4 of 6 ran; 1 provided by kbook; 1 skipped; 0 failed</p>`,
		`<dt>Shell blocks</dt><dd>3 passed, 1 ran, 1 provided by kbook, 1 skipped, 0 failed, of 6</dd>`)
	mustContain(t, "all: passed, no output shown", block(all, 1),
		`data-result="passed"`, `<span class="kb-mark kb-mark-passed" title="Passed: exit 0; the page shows no output for it">`,
		`<span class="kb-result kb-result-passed" title="exit 0; the page shows no output for it">Passed</span>`,
		`<span class="kb-ps" aria-hidden="true">$ </span>NAME=world</span>`,
		`<details class="kb-step-why"><summary>Passed</summary>`)
	mustContain(t, "all: passed, output compared", block(all, 2),
		`data-result="passed"`, `exit 0, output matched the page&#39;s (shape)`)
	mustContain(t, "all: ran", block(all, 3),
		`data-result="ran"`, `kb-mark-ran`, `>Ran</span>`, `exit 0; its output is illustrative, not compared`)
	// The page shows their output in the block after them: the run's is
	// not shown a second time.
	for _, n := range []int{2, 3} {
		if b := block(all, n); strings.Contains(b, `kb-out`) {
			t.Errorf("block %d shows the run's output above the page's own: %s", n, b)
		}
	}
	mustContain(t, "all: the page's own output", all, `<span class="go">hello world`)
	if strings.Contains(all, `<span class="kb-out">hello world`) {
		t.Error("the page shows hello world twice: the run's output above its own console block")
	}
	mustContain(t, "all: provided", block(all, 4),
		`data-result="provided"`, `kb-mark-provided`, `>Provided by kbook</span>`,
		`<details class="kb-step-why" open><summary>Provided by kbook</summary><p>the run&#39;s cluster (its provided= attribute)</p></details>`,
		`kb-o-notrun`)
	mustContain(t, "all: skipped", block(all, 5),
		`data-result="skipped"`, `kb-mark-skipped`, `title="Skipped: needs a human (its skip= attribute)"`,
		`<details class="kb-step-why" open><summary>Skipped</summary><p>needs a human (its skip= attribute)</p></details>`)
	// A heredoc's body and a continued line get no prompt of their own.
	b6 := block(all, 6)
	mustContain(t, "all: heredoc", b6, `</span>cat &gt; f.txt &lt;&lt;EOF</span>`, `data-line="33"># kept</span>`, `</span>echo \</span>`, `data-line="36">  done</span>`)
	if n := strings.Count(b6, `class="kb-ps"`); n != 2 {
		t.Errorf("the heredoc block has %d prompts, want 2 (cat, echo)", n)
	}
	for _, b := range []string{block(all, 4), block(all, 5)} {
		if strings.Contains(b, `kb-out`) {
			t.Errorf("a block that did not run shows output: %s", b)
		}
	}

	provided := page("provided")
	mustContain(t, "provided only: never verified", provided, `kb-badge-partial`,
		`partially verified: 0 of 1 ran; 1 provided by kbook; 0 failed`)
	if strings.Contains(provided, `kb-badge-verified`) {
		t.Error("a page whose only block is provided by kbook is shown as verified")
	}

	failed := page("failed")
	mustContain(t, "failed", failed, `kb-badge-failed`,
		`<dt>Shell blocks</dt><dd>0 passed, 0 ran, 0 provided by kbook, 0 skipped, 1 failed, of 1</dd>`)
	mustContain(t, "failed: the block", block(failed, 1),
		`data-result="failed"`, `kb-mark-failed`, `>Failed</span>`,
		`<details class="kb-step-why" open><summary>Failed</summary><p>bash block exited with status 1</p></details>`,
		`<span class="kb-out">before</span>`, `[exit status 1]`)

	verified := page("verified")
	mustContain(t, "verified", verified, `kb-badge-verified`, `>Verified</span>`,
		`<dd>1 passed, 0 ran, 0 provided by kbook, 0 skipped, 0 failed, of 1</dd>`,
		`</span>echo one</span>`, `</span>echo two</span>`, `data-copy="echo one
echo two"`)
	if strings.Contains(verified, `kb-verify-reason`) {
		t.Error("a verified page gives a reason")
	}
}

// runAndRender runs the runbooks of the project in dir, lets edit change
// the report (nil: none) and renders the site; it returns the folder.
func runAndRender(t *testing.T, dir string, edit func(*report.Report)) string {
	t.Helper()
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := runAll(t, p)
	if edit != nil {
		edit(rep)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p, Results: rep}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	return out
}

// stepHTML returns the HTML of step n of a built page.
func stepHTML(t *testing.T, html string, n int) string {
	t.Helper()
	start := strings.Index(html, `id="step-`+strconv.Itoa(n)+`"`)
	if start < 0 {
		t.Fatalf("no step %d", n)
	}
	end := strings.Index(html[start:], "</figure>")
	return html[start : start+end]
}

// TestInterruptedBlockNotes: a block whose command kbook interrupted once
// the expected output's last row appeared (a bounded watch), or that the
// run's Ctrl-C stopped, says so on the site, not "exit 0".
func TestInterruptedBlockNotes(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"mkdocs.yml":    "site_name: Watch\n",
		"kbook.yaml":    "run:\n  pages: [docs/watch.md, docs/stopped.md]\n",
		"docs/index.md": "# Home\n",
		"docs/watch.md": "# Watch\n\n```bash\nprintf 'a\\nb\\n' > f.txt\n```\n\n" +
			"```bash\ntail -f f.txt\n```\n\n```console\na\nb\n```\n\n" +
			"```bash\ntail -f f.txt\n```\n\n```text output=illustrative\na\nb\n```\n",
		"docs/stopped.md": "# Stopped\n\n```bash\necho start\n```\n",
	})
	out := runAndRender(t, dir, func(rep *report.Report) {
		// What the runner reports of a block the run's Ctrl-C stopped
		// (markInterrupted): the step interrupted, the block failed,
		// with no exit status of its own.
		for _, rb := range rep.Runbooks {
			if strings.HasSuffix(rb.Path, "stopped.md") {
				rb.Status, rb.Reason = report.Interrupted, "interrupted"
				st := rb.Steps[0]
				st.Status, st.Reason, st.Failure = report.Interrupted, "interrupted", nil
				st.Shell.Result, st.Shell.ExitCode = report.BlockFailed, 0
			}
		}
	})
	watch := read(t, filepath.Join(out, "next", "watch", "index.html"))
	mustContain(t, "watch: passed", stepHTML(t, watch, 2), `data-result="passed"`,
		`title="output matched the page&#39;s (shape); kbook then interrupted tail -f f.txt (line 8), as a reader&#39;s Ctrl-C would, after its expected output&#39;s last row">Passed</span>`)
	mustContain(t, "watch: ran", stepHTML(t, watch, 3), `data-result="ran"`,
		`<p>its output is illustrative, not compared; kbook interrupted tail -f f.txt (line 17), as a reader&#39;s Ctrl-C would, once it had printed as many lines as the page shows</p>`)
	stopped := stepHTML(t, read(t, filepath.Join(out, "next", "stopped", "index.html")), 1)
	mustContain(t, "stopped", stopped, `>Interrupted</span>`,
		`<details class="kb-step-why" open><summary>Interrupted</summary><p>interrupted: the run was stopped while the block ran, so it did not finish</p></details>`)
	for _, html := range []string{stepHTML(t, watch, 2), stepHTML(t, watch, 3), stopped} {
		if strings.Contains(html, "exit 0") {
			t.Errorf("an interrupted block says exit 0: %s", html)
		}
	}
}

// TestShellVerdictUnflagged: a page that ran only its flagged blocks
// says how many it left out.
func TestShellVerdictUnflagged(t *testing.T) {
	c := report.CountShell([]*report.Step{{Shell: &report.ShellBlock{Result: report.BlockPassed}}}, true, 2)
	want := "partially verified: 1 of 1 ran on local; 0 provided by kbook; 2 more without the run flag not run; 0 failed"
	if got := shellVerdict(c, &report.Environment{Backend: "local"}); got != want {
		t.Errorf("shellVerdict = %q, want %q", got, want)
	}
}
