package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
)

func load(t *testing.T, paths ...string) []*runbook.Runbook {
	t.Helper()
	rbs, err := runbook.Load(paths)
	if err != nil {
		t.Fatal(err)
	}
	return rbs
}

func TestRunPassAndFail(t *testing.T) {
	r, err := New(Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), load(t, "testdata/pass.md", "testdata/fail.md"))
	if len(rep.Runbooks) != 2 {
		t.Fatalf("%d results", len(rep.Runbooks))
	}
	f, p := rep.Runbooks[0], rep.Runbooks[1]
	dump := func(rb *report.Runbook) string { d, _ := json.MarshalIndent(rb, "", "  "); return string(d) }

	if p.Status != report.Passed || len(p.Steps) != 2 {
		t.Fatalf("pass.md:\n%s", dump(p))
	}
	type cmdWant struct {
		line           int
		stdout, stderr string
		exit           int
		skipped        bool
	}
	want := []cmdWant{
		{27, "hello world\n", "", 0, false},
		{28, "", "", 0, false},
		{29, "", "", 1, false},
		{30, "", "", 0, true},
		{31, "", "to-stderr\n", 0, false},
		{32, "", "", 0, false},
	}
	cmds := p.Steps[1].Commands
	if len(cmds) != len(want) {
		t.Fatalf("step 2 has %d commands, want %d:\n%s", len(cmds), len(want), dump(p))
	}
	for i, w := range want {
		c := cmds[i]
		if c.Line != w.line || c.Stdout != w.stdout || c.Stderr != w.stderr || c.ExitCode != w.exit || c.Skipped != w.skipped || c.Failed {
			t.Errorf("command %d = %+v, want %+v", i, c, w)
		}
	}
	if p.Steps[0].Name != "Print it" || p.Steps[1].Name != "compare" {
		t.Errorf("step names %q %q", p.Steps[0].Name, p.Steps[1].Name)
	}

	if f.Status != report.Failed || f.Failure == nil || f.Failure.Line != 13 || f.Failure.File != "testdata/fail.md" {
		t.Fatalf("fail.md:\n%s", dump(f))
	}
	if f.Steps[0].Status != report.Passed || f.Steps[1].Status != report.Failed || !f.Steps[1].Commands[1].Failed {
		t.Errorf("fail.md steps:\n%s", dump(f))
	}
	if !strings.Contains(f.Log, "FAIL: testdata/fail.md:13: no match for `three` found in stdout") || strings.Contains(f.Log, markerCmd) {
		t.Errorf("fail.md log:\n%s", f.Log)
	}
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	src := "# Update\n\n- item\n\n  ```text file=want.txt\n  old\n  ```\n\n```testscript\nexec echo new\ncmp stdout want.txt\n```\n"
	file := filepath.Join(dir, "u.md")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Update: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), load(t, file))
	if rb := rep.Runbooks[0]; rb.Status != report.Passed || strings.Join(rb.Updated, ",") != "want.txt" {
		t.Fatalf("result %+v", rb)
	}
	got, _ := os.ReadFile(file)
	if want := strings.Replace(src, "  old\n", "  new\n", 1); string(got) != want {
		t.Errorf("updated file =\n%s\nwant\n%s", got, want)
	}
}

func TestSkipAndRequires(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	skip := write("skip.md", "```testscript\nexec echo one\nskip 'not today'\n```\n\n```testscript\nexec echo two\n```\n")
	cluster := write("cluster.md", "---\nrequires: [cluster]\n---\n```testscript\nexec echo\n```\n")
	withCluster := write("with.md", "---\nrequires: [cluster]\n---\n```testscript\n[k0rdent] exec echo k0rdent\n[cluster] exec echo cluster\n```\n")

	r, _ := New(Options{})
	rep := r.Run(context.Background(), load(t, skip, cluster))
	for _, rb := range rep.Runbooks {
		if rb.Status != report.Skipped {
			t.Errorf("%s: %s", rb.Path, rb.Status)
		}
	}
	if got := rep.Runbooks[1].Reason; got != "skipped by the script: not today" {
		t.Errorf("skip reason %q", got)
	}
	if got := rep.Runbooks[0].Reason; got != "requires cluster: no cluster is configured for this run" {
		t.Errorf("requires reason %q", got)
	}

	// A backend supplies conditions.
	r, _ = New(Options{Conditions: map[string]Condition{
		"cluster": func(string) (bool, string) { return true, "" },
		"k0rdent": func(string) (bool, string) { return false, "k0rdent is not installed" },
		"api:":    func(arg string) (bool, string) { return arg == "served.example.com", arg + " is not served" },
	}})
	rep = r.Run(context.Background(), load(t, withCluster))
	rb := rep.Runbooks[0]
	if rb.Status != report.Passed || !rb.Steps[0].Commands[0].Skipped || rb.Steps[0].Commands[1].Stdout != "cluster\n" {
		t.Errorf("with cluster: %+v %+v", rb.Steps[0].Commands[0], rb.Steps[0].Commands[1])
	}
}

// TestCacheHitAsksNoCluster: a cached pass is answered without evaluating
// the runbook's cluster requirements, which could start a cluster.
func TestCacheHitAsksNoCluster(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.md")
	if err := os.WriteFile(file, []byte("---\nrequires: [cluster]\n---\n```testscript\nexec echo hi\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cache.Open(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	r, _ := New(Options{Cache: c, KbookID: "test", Conditions: map[string]Condition{
		"cluster": func(string) (bool, string) { asked++; return true, "" },
	}})
	if rep := r.Run(context.Background(), load(t, file)); rep.Runbooks[0].Status != report.Passed || asked != 1 {
		t.Fatalf("first run: %s, condition asked %d times", rep.Runbooks[0].Status, asked)
	}
	rep := r.Run(context.Background(), load(t, file))
	if !rep.Runbooks[0].Cached || asked != 1 {
		t.Errorf("second run: cached=%v, condition asked %d times in all", rep.Runbooks[0].Cached, asked)
	}
}

// slowTarget takes wait to start, as the local backend does while its
// binaries are built or another process holds the build lock.
type slowTarget struct {
	wait    time.Duration
	started bool
}

func (s *slowTarget) ID() string                       { return "slow" }
func (s *slowTarget) Conditions() map[string]Condition { return nil }
func (s *slowTarget) Start(context.Context) error {
	if !s.started {
		time.Sleep(s.wait)
		s.started = true
	}
	return nil
}
func (s *slowTarget) Prepare(context.Context, *runbook.Runbook, *testscript.Env) (Session, error) {
	if !s.started {
		time.Sleep(s.wait) // what Prepare would wait without Start
		s.started = true
	}
	return nil, nil
}

// TestStartNotCounted checks that the time a target takes to start counts
// neither in the runbook's duration (which balances shards) nor against its
// time limit.
func TestStartNotCounted(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rb.md")
	if err := os.WriteFile(p, []byte("---\ntimeout: 1s\n---\n```testscript\nexec echo hi\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rbs := load(t, p)
	// In a synctest bubble the target's start takes 1.5 s of fake time, at
	// once; only the echo takes real time, during which fake time stands.
	synctest.Test(t, func(t *testing.T) {
		r, err := New(Options{Parallel: 1, Target: &slowTarget{wait: 1500 * time.Millisecond}, NeedsTarget: func(*runbook.Runbook) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		rep := r.Run(context.Background(), rbs)
		res := rep.Runbooks[0]
		if res.Status != report.Passed {
			t.Fatalf("%s: %s", res.Status, res.Reason)
		}
		if res.Duration > time.Second {
			t.Errorf("duration %s counts the target's start", res.Duration)
		}
		if rep.Duration < 1500*time.Millisecond {
			t.Errorf("the run took %s, less than the target's start", rep.Duration)
		}
	})
}

// TestScriptsShareTheCache: a script's KBOOK_CACHE_DIR is the run's cache
// folder, so that a kbook a step runs builds nothing the run has built;
// --env sets another.
func TestScriptsShareTheCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.md")
	page := "# The cache\n\n```testscript\nexec echo cache=$KBOOK_CACHE_DIR\nstdout '^cache=' + want\n```\n"
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"the run's", Options{CacheDir: "/the/cache"}, "/the/cache"},
		{"--env", Options{CacheDir: "/the/cache", Env: []string{cache.EnvDir + "=/another"}}, "/another"},
	} {
		if err := os.WriteFile(path, []byte(strings.Replace(page, "' + want", c.want+"$'", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		c.opts.Parallel = 1
		r, err := New(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		rep := r.Run(context.Background(), load(t, path))
		if got := rep.Runbooks[0]; got.Status != report.Passed {
			t.Errorf("%s: %s, want passed:\n%s", c.name, got.Status, got.Log)
		}
	}
}
