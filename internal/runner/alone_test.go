package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
)

// recordTarget records which runbooks use the cluster at once: each
// Prepare opens a runbook's use, its session's Close ends it.
type recordTarget struct {
	mu     sync.Mutex
	active map[string]bool
	// with are, per runbook, the runbooks that used the cluster while it did.
	with map[string]map[string]bool
}

func (r *recordTarget) ID() string                       { return "record" }
func (r *recordTarget) Conditions() map[string]Condition { return nil }
func (r *recordTarget) Prepare(_ context.Context, rb *runbook.Runbook, _ *testscript.Env) (Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := filepath.Base(rb.Path)
	for other := range r.active {
		r.with[name][other] = true
		r.with[other][name] = true
	}
	r.active[name] = true
	return &recordSession{r, name}, nil
}

type recordSession struct {
	t    *recordTarget
	name string
}

func (s *recordSession) Diagnose(context.Context) string { return "" }
func (s *recordSession) Close(context.Context) error {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	delete(s.t.active, s.name)
	return nil
}

// TestPageAlone: a page that names a namespace of its own runs alone on
// the run's cluster, no other runbook beside it, and the report says
// why; the pages that do not share it as before.
func TestPageAlone(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	write := func(name, src string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	write("alone.md", "---\nrun: shell\n---\n\n```bash\ncat > cm.yaml <<EOF\nmetadata:\n  namespace: kcm-system\nEOF\n```\n")
	for i := range 4 {
		write(fmt.Sprintf("shared%d.md", i), "---\nrun: shell\n---\n\n```bash\necho shared\n```\n")
	}
	rbs := load(t, paths...)
	tg := &recordTarget{active: map[string]bool{}, with: map[string]map[string]bool{}}
	for _, rb := range rbs {
		tg.with[filepath.Base(rb.Path)] = map[string]bool{}
	}
	r, err := New(Options{Parallel: 5, Target: tg, NeedsTarget: func(*runbook.Runbook) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), rbs)
	if s := rep.Summary(); s.Passed != 5 {
		t.Fatalf("summary %+v", s)
	}
	if w := tg.with["alone.md"]; len(w) > 0 {
		t.Errorf("alone.md shared the cluster with %v", w)
	}
	for _, res := range rep.Runbooks {
		want := ""
		if strings.HasSuffix(res.Path, "alone.md") {
			want = "it names the namespace kcm-system (" + res.Path + ":8)"
		}
		if res.Alone != want {
			t.Errorf("%s: Alone = %q, want %q", res.Path, res.Alone, want)
		}
		if res.Status != report.Passed {
			t.Errorf("%s: %s", res.Path, res.Status)
		}
	}
}

// restoreTarget says, per runbook, why Prepare was told it runs alone
// (AloneKey), and its sessions report a restore.
type restoreTarget struct {
	mu    sync.Mutex
	alone map[string]string
}

func (r *restoreTarget) ID() string                       { return "restore" }
func (r *restoreTarget) Conditions() map[string]Condition { return nil }
func (r *restoreTarget) Prepare(_ context.Context, rb *runbook.Runbook, env *testscript.Env) (Session, error) {
	why, _ := env.Values[AloneKey{}].(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.alone[filepath.Base(rb.Path)] = why
	return &restoreSession{alone: why != ""}, nil
}

type restoreSession struct{ alone, closed bool }

func (s *restoreSession) Diagnose(context.Context) string { return "" }
func (s *restoreSession) Close(context.Context) error     { s.closed = true; return nil }

// Restored answers after Close, and only for a page that ran alone.
func (s *restoreSession) Restored() *report.Restored {
	if !s.alone || !s.closed {
		return nil
	}
	r := &report.Restored{}
	r.Changed.Add("namespaces/default")
	return r
}

// TestAloneRestoreReported: the target's Prepare is told which runbook
// runs alone and why, what its session restored reaches the result (and
// the terminal's words), and a result the cache reuses restored nothing.
func TestAloneRestoreReported(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, "alone.md")
	shared := filepath.Join(dir, "shared.md")
	for p, src := range map[string]string{
		alone:  "---\nrun: shell\n---\n\n```bash\nkubectl -n kcm-system get management\n```\n",
		shared: "---\nrun: shell\n---\n\n```bash\necho shared\n```\n",
	} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// kubectl is whatever the machine has: a stand-in that prints nothing.
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	c, err := cache.Open(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	run := func() *report.Report {
		tg := &restoreTarget{alone: map[string]string{}}
		r, err := New(Options{Parallel: 2, Target: tg, Cache: c, KbookID: "test", NeedsTarget: func(*runbook.Runbook) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		rep := r.Run(context.Background(), load(t, alone, shared))
		if len(tg.alone) > 0 {
			if why := tg.alone["alone.md"]; !strings.Contains(why, "kcm-system") {
				t.Errorf("Prepare of alone.md was told %q", why)
			}
			if why, ok := tg.alone["shared.md"]; !ok || why != "" {
				t.Errorf("Prepare of shared.md was told %q (%v)", why, ok)
			}
		}
		return rep
	}
	for _, res := range run().Runbooks {
		if res.Status != report.Passed {
			t.Fatalf("%s: %s: %s\n%s", res.Path, res.Status, res.Reason, res.Log)
		}
		got := ""
		if res.Restored != nil {
			got = res.Restored.String()
		}
		want := ""
		if strings.HasSuffix(res.Path, "alone.md") {
			want = "restored 1 changed object (namespaces/default) in 0s"
		}
		if got != want {
			t.Errorf("%s: restored %q, want %q", res.Path, got, want)
		}
	}
	for _, res := range run().Runbooks {
		if !res.Cached || res.Restored != nil {
			t.Errorf("%s from the cache: cached %v, restored %+v", res.Path, res.Cached, res.Restored)
		}
	}
}
