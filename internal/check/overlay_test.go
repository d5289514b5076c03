package check

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/testfile"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/run"
)

// TestCheckOverlays: kbook check reads the overlays as kbook run does -
// kbook.yaml's run.overlay, the docs root's kbook.overlay.yaml and
// --overlay files - and a bad overlay, or a rule that matches nothing,
// is bad input (exit 2) at its file and line; the same rules in
// kbook.yaml apply to a run as a kbook.overlay.yaml's do.
func TestCheckOverlays(t *testing.T) {
	const (
		head    = "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\nrules:\n"
		matches = "  - page: docs/page.md\n    command: ^aws\n    skip: needs an AWS account\n"
		nothing = "  - page: docs/page.md\n    command: ^gcloud\n    skip: needs a Google account\n"
	)
	kbookYAML := func(rules string) string {
		return "run:\n  pages: [docs/*.md]\n  overlay:\n" + indent(rules, "  ")
	}
	for _, tc := range []struct {
		name               string
		kbook, root, extra string // kbook.yaml, kbook.overlay.yaml, an --overlay file ("": none)
		want               string // the bad input's file:line and words; "": no error
	}{
		{name: "kbook.yaml's rule matches", kbook: kbookYAML(matches)},
		{name: "kbook.yaml's rule matches nothing", kbook: kbookYAML(nothing),
			want: "kbook.yaml:4: the rule matches nothing: no shell block of docs/page.md has a first command matching \"^gcloud\""},
		{name: "kbook.yaml's rule has an unknown key", kbook: kbookYAML(strings.Replace(matches, "skip:", "skipp:", 1)),
			want: `kbook.yaml:6: rule: unknown key "skipp"`},
		{name: "kbook.yaml's overlay is not a list", kbook: "run:\n  pages: [docs/*.md]\n  overlay: {page: docs/page.md}\n",
			want: "kbook.yaml:3: run.overlay: want a list of rules"},
		{name: "kbook.overlay.yaml's rule matches nothing", root: head + nothing,
			want: "kbook.overlay.yaml:4: the rule matches nothing"},
		{name: "kbook.overlay.yaml does not parse", root: head + "  - page: [\n",
			want: "kbook.overlay.yaml:"},
		{name: "--overlay's rule matches nothing", extra: head + matches + nothing,
			want: "extra.yaml:7: the rule matches nothing"},
		{name: "all three", kbook: kbookYAML(matches), root: head + matches, extra: head + matches},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			kb := tc.kbook
			if kb == "" {
				kb = "run:\n  pages: [docs/*.md]\n"
			}
			testfile.Write(t, dir, "kbook.yaml", kb)
			page := testfile.Write(t, dir, "docs/page.md", "# Cloud\n\n```bash\naws-kbook-none s3 ls\n```\n\n```bash\necho ok\n```\n")
			if tc.root != "" {
				testfile.Write(t, dir, "kbook.overlay.yaml", tc.root)
			}
			var extra []string
			if tc.extra != "" {
				extra = append(extra, testfile.Write(t, t.TempDir(), "extra.yaml", tc.extra))
			}
			_, err := Check(context.Background(), Options{Paths: []string{page}, Overlays: extra})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("kbook check: %v", err)
				}
				return
			}
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("kbook check: %v, want bad input with %q", err, tc.want)
			}
			// kbook run says the same, before anything runs.
			rep, err := run.Run(context.Background(), run.Options{Paths: []string{page}, Overlays: extra, Timeout: time.Minute, NoCache: true, Cluster: run.Cluster{None: true}, IOStreams: log.IOStreams{Out: new(bytes.Buffer)}})
			if rep != nil || !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("kbook run: %v, want bad input with %q", err, tc.want)
			}
		})
	}

	// kbook.yaml's rules apply to a run, at their line of kbook.yaml.
	dir := t.TempDir()
	testfile.Write(t, dir, "kbook.yaml", kbookYAML(matches))
	page := testfile.Write(t, dir, "docs/page.md", "# Cloud\n\n```bash\naws-kbook-none s3 ls\n```\n\n```bash\necho ok\n```\n")
	var out bytes.Buffer
	rep, err := run.Run(context.Background(), run.Options{Paths: []string{page}, Timeout: time.Minute, NoCache: true, Cluster: run.Cluster{None: true}, IOStreams: log.IOStreams{Out: &out}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "page.md:3: bash block skipped: needs an AWS account (" + filepath.Join(dir, "kbook.yaml") + ":4)"; !strings.Contains(out.String(), want) ||
		rep.Runbooks[0].Shell == nil || rep.Runbooks[0].Shell.Skipped != 1 {
		t.Errorf("kbook.yaml's skip is not the block's result (want %q):\n%s", want, out.String())
	}
}

// indent puts prefix before each line of s.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
