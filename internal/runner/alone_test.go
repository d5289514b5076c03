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
