package runner

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
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
	data, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("%s", data)
	if got := rep.Runbooks[1].Status; got != report.Passed {
		t.Errorf("pass.md: %s", got)
	}
	f := rep.Runbooks[0]
	if f.Status != report.Failed || f.Failure == nil || f.Failure.Line != 13 {
		t.Errorf("fail.md: %+v %+v", f, f.Failure)
	}
}
