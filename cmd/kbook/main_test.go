package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/rogpeppe/go-internal/testscript"
)

// kbookBin is kbook for the end-to-end tests: this test binary itself,
// which testscript.Main links into a directory it puts first on PATH,
// named kbook. Run so, the binary is kbook (main), and so is every
// process kbook starts from its own executable (the process wrapper, the
// Hugo build, the cluster server): no separate build of kbook, whose link
// alone costs about 15 CPU seconds each time its code changed.
var kbookBin string

// sharedCRDs is the read-only reference data beside the repository.
var sharedCRDs, _ = filepath.Abs("../../../shared/crds")

func TestMain(m *testing.M) {
	// Servers an in-process test starts through package proc's wrapper
	// run this binary as the wrapper.
	proc.RunWrapper()
	testscript.Main(kbookTests{m}, map[string]func(){
		"kbook": main,
	})
}

// kbookTests runs the tests once testscript.Main has put kbook on PATH.
type kbookTests struct{ m *testing.M }

func (k kbookTests) Run() int {
	bin, err := exec.LookPath("kbook")
	if err != nil {
		fmt.Fprintln(os.Stderr, "kbook is not on PATH:", err)
		return 1
	}
	kbookBin = bin
	return k.m.Run()
}

// TestScripts runs the end-to-end scripts in testdata/script against the
// test binary as kbook (kbookBin).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(kbookBin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("KBOOK_CACHE_DIR", filepath.Join(env.WorkDir, ".cache"))
			// The local backend's binaries: scripts that start a cluster
			// are guarded by [assets] and never build them.
			// Without them, a directory that does not exist: a script
			// that starts a cluster by mistake fails at once instead of
			// building kube-apiserver for ten minutes.
			assetsDir := os.Getenv("KUBEBUILDER_ASSETS")
			if assetsDir == "" {
				assetsDir = filepath.Join(env.WorkDir, "no-assets")
			}
			env.Setenv("KUBEBUILDER_ASSETS", assetsDir)
			// A script that failed after kbook cluster up leaves no server behind.
			cacheDir := filepath.Join(env.WorkDir, ".cache")
			env.Defer(func() {
				if _, err := os.Stat(filepath.Join(cacheDir, "clusters")); err != nil {
					return
				}
				down := exec.Command(kbookBin, "cluster", "down")
				down.Env = append(os.Environ(), "KBOOK_CACHE_DIR="+cacheDir)
				_ = down.Run()
			})
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "assets":
				return os.Getenv("KUBEBUILDER_ASSETS") != "", nil
			case "container-runtime":
				_, err := cluster.DetectRuntime()
				return err == nil, nil
			case "shared":
				_, err := os.Stat(sharedCRDs)
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds:               scriptCmds,
		RequireUniqueNames: true,
	})
}

// scriptCmds are the test commands kbook's scripts add. Each honours "!":
// "! exitcode 1 kbook ..." passes when the status is not 1, "!
// report-check ..." when the runbook's status is not the one named;
// report-output prints and cannot be negated. A usage error fails either
// way.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"junit-valid":   negatable(junitValid),
	"report-check":  negatable(reportCheck),
	"exitcode":      negatable(exitCode),
	"report-output": reportOutput,
}

// negatable turns a check that returns what it found wrong (nil when the
// check holds) into a command: without "!" it fails on that, with "!" it
// fails when the check holds.
func negatable(check func(ts *testscript.TestScript, args []string) error) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		err := check(ts, args)
		switch {
		case !neg && err != nil:
			ts.Fatalf("%v", err)
		case neg && err == nil:
			ts.Fatalf("unexpected success: %s", strings.Join(args, " "))
		}
	}
}

// exitcode N CMD ARGS... runs a command and checks its exit status.
func exitCode(ts *testscript.TestScript, args []string) error {
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	prog := args[1]
	if prog == "kbook" {
		prog = kbookBin
	}
	cmd := exec.Command(prog, args[2:]...)
	cmd.Env = os.Environ()
	for _, k := range []string{"PATH", "KBOOK_CACHE_DIR", "HOME", "GITHUB_ACTIONS", "TMPDIR", "KUBEBUILDER_ASSETS", "DOCKER_HOST", "KUBECONFIG"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	cmd.Dir = ts.MkAbs(".")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	if fmt.Sprint(code) != args[0] {
		return fmt.Errorf("exit status %d, want %s\nstdout:\n%s\nstderr:\n%s", code, args[0], stdout.String(), stderr.String())
	}
	return nil
}

// junit-valid FILE checks a JUnit file is well-formed XML with the
// expected root and counts: junit-valid FILE TESTS FAILURES SKIPPED.
func junitValid(ts *testscript.TestScript, args []string) error {
	if len(args) != 4 {
		ts.Fatalf("usage: junit-valid FILE TESTS FAILURES SKIPPED")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	dec := xml.NewDecoder(f)
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s is not well-formed XML: %v", args[0], err)
		}
	}
	var suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    string   `xml:"tests,attr"`
		Failures string   `xml:"failures,attr"`
		Skipped  string   `xml:"skipped,attr"`
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if err := xml.Unmarshal(data, &suites); err != nil {
		return fmt.Errorf("%s: %v", args[0], err)
	}
	if suites.Tests != args[1] || suites.Failures != args[2] || suites.Skipped != args[3] {
		return fmt.Errorf("junit counts tests=%s failures=%s skipped=%s, want %s %s %s", suites.Tests, suites.Failures, suites.Skipped, args[1], args[2], args[3])
	}
	return nil
}

// report-check FILE PATH STATUS [CACHED] checks a runbook's status in a
// JSON report.
func reportCheck(ts *testscript.TestScript, args []string) error {
	if len(args) < 3 {
		ts.Fatalf("usage: report-check FILE RUNBOOK STATUS [cached]")
	}
	rep, err := report.ReadJSON(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, rb := range rep.Runbooks {
		if rb.Path != args[1] {
			continue
		}
		if string(rb.Status) != args[2] {
			data, _ := json.MarshalIndent(rb, "", "  ")
			return fmt.Errorf("%s: status %s, want %s\n%s", rb.Path, rb.Status, args[2], data)
		}
		if len(args) > 3 && args[3] == "cached" && !rb.Cached {
			return fmt.Errorf("%s: not from the cache", rb.Path)
		}
		return nil
	}
	return fmt.Errorf("%s: no runbook %s in the report", args[0], args[1])
}

// report-output FILE RUNBOOK LINE prints what the JSON report recorded for
// the command at that runbook line: its stdout, then its stderr, each
// quoted, for scripts to match.
func reportOutput(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("report-output prints; it cannot be negated")
	}
	if len(args) != 3 {
		ts.Fatalf("usage: report-output FILE RUNBOOK LINE")
	}
	rep, err := report.ReadJSON(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, rb := range rep.Runbooks {
		if rb.Path != args[1] {
			continue
		}
		for _, st := range rb.Steps {
			for _, c := range st.Commands {
				if fmt.Sprint(c.Line) == args[2] {
					fmt.Fprintf(ts.Stdout(), "stdout %q\nstderr %q\n", c.Stdout, c.Stderr)
					return
				}
			}
		}
	}
	ts.Fatalf("%s: no command at %s:%s", args[0], args[1], args[2])
}
