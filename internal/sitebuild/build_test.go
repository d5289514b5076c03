package sitebuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/testfile"
)

// TestBadInput: bad options are bad input before anything is built,
// each naming the flag (package serve's TestBadInput is kbook serve's).
func TestBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"--version", Build(ctx, Options{Dir: missing, Version: "../x"}), "--version: "},
		{"--alias", Build(ctx, Options{Dir: missing, Version: "v1", Aliases: []string{"a/b"}}), "--alias: "},
		{"no project", Build(ctx, Options{Dir: missing, Version: "v1"}), "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !findings.IsInput(tc.err) || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", tc.err, tc.want)
			}
		})
	}
}

// TestShellSyntaxBeforeWork: a shell block that does not parse is bad
// input at its line before anything is built, with --report too (which
// runs nothing that would find it later), as kbook run and check say it.
func TestShellSyntaxBeforeWork(t *testing.T) {
	dir := t.TempDir()
	testfile.Write(t, dir, "mkdocs.yml", "site_name: Syn\ndocs_dir: docs\n")
	page := testfile.Write(t, dir, "docs/index.md", "---\nrun: shell\n---\n# Syn\n\n```bash\necho hi\n```\n\n```bash\nif true; then echo x\n```\n")
	rep := testfile.Write(t, dir, "report.json", `{"formatVersion": 1, "runbooks": []}`)
	out := filepath.Join(dir, "public")
	for _, o := range []Options{
		{Dir: dir, OutDir: out, Version: "next", Reports: []string{rep}},
		{Dir: dir, OutDir: out, Version: "next", NoRun: true},
	} {
		err := Build(context.Background(), o)
		want := page + ":11: bash syntax: `if` statement must end with `fi`"
		if !findings.IsInput(err) || err.Error() != want {
			t.Errorf("reports %v, no-run %v: error %v, want bad input %q", o.Reports, o.NoRun, err, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("reports %v, no-run %v: %s written (err %v)", o.Reports, o.NoRun, out, err)
		}
	}
}

func TestVerificationLine(t *testing.T) {
	for _, tc := range []struct {
		rows []site.Verification
		want string
	}{
		{nil, "no runbooks"},
		{[]site.Verification{{Status: site.Verified}, {Status: site.Failed}, {Status: site.Verified}},
			"3 runbooks: 2 verified, 0 partially verified, 1 failed, 0 not verified"},
	} {
		if got := VerificationLine(tc.rows); got != tc.want {
			t.Errorf("VerificationLine(%v) = %q, want %q", tc.rows, got, tc.want)
		}
	}
}
