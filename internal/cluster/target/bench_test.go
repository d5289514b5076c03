package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
)

func benchAssets(b *testing.B) string {
	dir, why := binaries.Available()
	if why != "" {
		b.Skip(why)
	}
	return dir
}

// BenchmarkRunbooks runs N small cluster runbooks on one shared cluster
// and with a cluster started for each runbook: the cost kbook saves by
// sharing one cluster per run.
func BenchmarkRunbooks(b *testing.B) {
	dir := benchAssets(b)
	const n = 5
	tmp := b.TempDir()
	var paths []string
	for i := range n {
		p := filepath.Join(tmp, fmt.Sprintf("rb%d.md", i))
		src := "---\nrequires: [cluster]\n---\n```testscript\nawait --for=jsonpath='{.status.phase}'=Active ns/$NAMESPACE\n```\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	rbs, err := runbook.Load(paths)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, rbs []*runbook.Runbook) {
		t, err := New(context.Background(), cluster.Options{Backend: cluster.Local, AssetsDir: dir, Procs: apitest.Procs(b)})
		if err != nil {
			b.Fatal(err)
		}
		r, err := runner.New(runner.Options{Parallel: 1, Target: t, Cmds: kubecmd.Commands()})
		if err != nil {
			b.Fatal(err)
		}
		rep := r.Run(context.Background(), rbs)
		if err := t.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
		if s := rep.Summary(); s.Passed != len(rbs) {
			b.Fatalf("%d of %d passed: %+v", s.Passed, len(rbs), rep.Runbooks[0])
		}
	}
	b.Run(fmt.Sprintf("shared-cluster-%d", n), func(b *testing.B) {
		for b.Loop() {
			run(b, rbs)
		}
	})
	b.Run(fmt.Sprintf("cluster-per-runbook-%d", n), func(b *testing.B) {
		for b.Loop() {
			for _, rb := range rbs {
				run(b, []*runbook.Runbook{rb})
			}
		}
	})
}
