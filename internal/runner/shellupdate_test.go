package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/report"
)

// updatePage has two exact blocks whose output differs from the page's,
// a shape block and an illustrative block whose output differs in bytes
// but not in what they compare, and a testscript block.
const updatePage = "---\nrun: shell\n---\n\n# Update\n\n" +
	"- An exact block, its output after it:\n\n" +
	"  ```bash output=exact\n  echo one; echo two\n  ```\n\n" +
	"  ```console { .no-copy }\n  one\n  three\n  ```\n\n" +
	"```console output=exact\n$ printf 'a\\n\\n'\nb\n```\n\n" +
	"```bash\nprintf 'NAME   READY   STATUS    AGE\\nweb-7c5ddbdf54-x2b9k   1/1     Running   5s\\n'\n```\n\n" +
	"```text\nNAME  READY  STATUS  AGE\nweb-7c5ddbdf54-x2b9k 0/1 Pending 2d\n```\n\n" +
	"```sh output=illustrative\necho real\n```\n\n" +
	"```text\nan example\n```\n\n" +
	"```testscript\nexec true\n```\n"

func runUpdate(t *testing.T, page string, update bool) *report.Runbook {
	t.Helper()
	r, err := New(Options{Parallel: 1, Update: update})
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(context.Background(), load(t, page)).Runbooks[0]
}

// TestShellUpdate: kbook run --update rewrites the expected output of
// exact blocks only, keeps every other byte (CRLF and a list item's
// indentation included), and the page then passes as it is.
func TestShellUpdate(t *testing.T) {
	for _, crlf := range []bool{false, true} {
		src := updatePage
		if crlf {
			src = strings.ReplaceAll(src, "\n", "\r\n")
		}
		page := filepath.Join(t.TempDir(), "page.md")
		if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if res := runUpdate(t, page, false); res.Status != report.Failed {
			t.Fatalf("crlf=%v: before --update: %s", crlf, dumpResult(res))
		}
		res := runUpdate(t, page, true)
		if res.Status != report.Passed || strings.Join(res.Updated, ", ") != "the expected output at line 14, the expected output at line 20" {
			t.Fatalf("crlf=%v: --update: %s", crlf, dumpResult(res))
		}
		got, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.NewReplacer("  one\n  three\n", "  one\n  two\n", "$ printf 'a\\n\\n'\nb\n", "$ printf 'a\\n\\n'\na\n").Replace(updatePage)
		if crlf {
			want = strings.ReplaceAll(want, "\n", "\r\n")
		}
		if string(got) != want {
			t.Fatalf("crlf=%v: page after --update:\n%q\nwant\n%q", crlf, got, want)
		}
		if res := runUpdate(t, page, false); res.Status != report.Passed {
			t.Fatalf("crlf=%v: after --update: %s", crlf, dumpResult(res))
		}
		// Nothing differs now: a second --update writes nothing.
		if res := runUpdate(t, page, true); res.Status != report.Passed || len(res.Updated) != 0 {
			t.Fatalf("crlf=%v: second --update: %s", crlf, dumpResult(res))
		}
		if again, _ := os.ReadFile(page); string(again) != want {
			t.Fatalf("crlf=%v: second --update changed the page", crlf)
		}
	}
}

// TestShellUpdateFailedPage: a page that fails for another reason (a
// shape block's output differs) is not rewritten, exact blocks included.
func TestShellUpdateFailedPage(t *testing.T) {
	src := "---\nrun: shell\n---\n\n```bash output=exact\necho new\n```\n\n```text\nold\n```\n\n```bash\necho got\n```\n\n```text\nwant\n```\n"
	page := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runUpdate(t, page, true)
	if res.Status != report.Failed || len(res.Updated) != 0 || !strings.Contains(res.Reason, "output differs from the expected output (shape)") {
		t.Fatalf("%s", dumpResult(res))
	}
	if got, _ := os.ReadFile(page); string(got) != src {
		t.Errorf("a failed page was rewritten:\n%s", got)
	}
}
