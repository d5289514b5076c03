package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The test commands honour "!" (they ignored it, so "! report-check"
// passed whatever the report said): testdata/negate/pass.txtar negates
// each where the check does not hold and must pass; every fail_*.txtar
// negates one where it holds (or negates report-output) and must fail.
func TestScriptCmdsNegate(t *testing.T) {
	files, err := filepath.Glob("testdata/negate/*.txtar")
	if err != nil || len(files) < 2 {
		t.Fatalf("scripts: %v %v", files, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ft := &scriptT{name: file}
			testscript.RunT(ft, testscript.Params{
				Files: []string{file},
				Setup: func(env *testscript.Env) error {
					env.Setenv("PATH", filepath.Dir(kbookBin)+":"+env.Getenv("PATH"))
					env.Setenv("KBOOK_CACHE_DIR", filepath.Join(env.WorkDir, ".cache"))
					return nil
				},
				Cmds: scriptCmds,
			})
			wantFail := strings.HasPrefix(filepath.Base(file), "fail_")
			if ft.failed != wantFail {
				t.Errorf("failed = %v, want %v; log:\n%s", ft.failed, wantFail, ft.log.String())
			}
		})
	}
}

// scriptT is a testscript.T that records a failure instead of failing the
// test: FailNow stops the script (as testing.T's does) and Run catches it.
type scriptT struct {
	name   string
	mu     sync.Mutex
	failed bool
	log    strings.Builder
}

type stopScript struct{}

func (t *scriptT) Skip(args ...any) { t.Log(args...); panic(stopScript{}) }
func (t *scriptT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}
func (t *scriptT) Parallel() {}
func (t *scriptT) Log(args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range args {
		t.log.WriteString(fmt.Sprint(a) + "\n")
	}
}
func (t *scriptT) FailNow() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
	panic(stopScript{})
}
func (t *scriptT) Verbose() bool { return false }
func (t *scriptT) Run(_ string, f func(testscript.T)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopScript); !ok {
				panic(r)
			}
		}
	}()
	f(t)
}
