package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestRunBadInput: every bad option is one InputError naming it, before
// anything runs.
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	rb := filepath.Join(dir, "a.md")
	if err := os.WriteFile(rb, []byte("# A\n\n```testscript\nexec true\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := Options{Paths: []string{rb}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"parallel", func(o *Options) { o.Parallel = -1 }, "--parallel -1"},
		{"timeout", func(o *Options) { o.Timeout = 0 }, "--timeout 0s"},
		{"progress", func(o *Options) { o.Progress = "fancy" }, `--progress "fancy"`},
		{"env key", func(o *Options) { o.Env = []string{"=x"} }, `--env "=x"`},
		{"env unset", func(o *Options) { o.Env = []string{"KBOOK_RUN_TEST_UNSET"} }, "KBOOK_RUN_TEST_UNSET is not set"},
		{"same report", func(o *Options) { o.JSON, o.JUnit = filepath.Join(dir, "r"), filepath.Join(dir, "r") }, "one report would overwrite the other"},
		{"report dir", func(o *Options) { o.JSON = filepath.Join(dir, "no", "r.json") }, "does not exist"},
		{"shard", func(o *Options) { o.Shard = "3/2" }, "3/2"},
		{"missing runbook", func(o *Options) { o.Paths = []string{filepath.Join(dir, "none.md")} }, "none.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			rep, err := Run(context.Background(), o)
			if err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want an input error containing %q", err, tc.want)
			}
			if rep != nil {
				t.Errorf("a report beside bad input")
			}
		})
	}
}

// TestRunPassesEnv: --env KEY passes kbook's own value; KEY=VALUE is kept.
func TestRunPassesEnv(t *testing.T) {
	t.Setenv("KBOOK_RUN_TEST", "from-host")
	got, err := passEnv([]string{"KBOOK_RUN_TEST", "B=2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"KBOOK_RUN_TEST=from-host", "B=2"}; !slices.Equal(got, want) {
		t.Errorf("env %q, want %q", got, want)
	}
}

// TestRunReport: a run writes the summary and its JSON report, failures
// in the report, not as an error.
func TestRunReport(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"ok.md": "exec true", "bad.md": "exec false"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# T\n\n```testscript\n"+body+"\n```\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	js := filepath.Join(t.TempDir(), "r.json")
	rep, err := Run(context.Background(), Options{Paths: []string{dir}, Parallel: 1, Timeout: time.Minute, NoCache: true,
		Cluster: Cluster{None: true}, JSON: js, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary(); s.Failed != 1 || s.Passed != 1 {
		t.Errorf("summary %+v, want 1 passed, 1 failed", s)
	}
	if _, err := os.Stat(js); err != nil {
		t.Errorf("JSON report: %v", err)
	}
	if out.Len() == 0 {
		t.Errorf("no summary printed")
	}
}
