package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// eachWrapMode runs f for each wrapper mode this machine has: setpriv
// (with util-linux's setpriv; goWrapper false) and kbook's own Go wrapper
// mode (goWrapper true).
func eachWrapMode(t *testing.T, f func(t *testing.T, goWrapper bool)) {
	t.Helper()
	requireLinux(t)
	for _, mode := range []string{"setpriv", "go"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "setpriv" && findSetpriv() == "" {
				t.Skip("no setpriv with --pdeathsig on this machine (util-linux): the Go wrapper mode alone is used")
			}
			f(t, mode == "go")
		})
	}
}

// wrapModes runs f with a registry of this process in each wrapper mode.
func wrapModes(t *testing.T, f func(t *testing.T, r *Registry)) {
	t.Helper()
	eachWrapMode(t, func(t *testing.T, goWrapper bool) {
		r, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		r.goWrapper = goWrapper
		t.Cleanup(func() { _, _ = r.Close() })
		f(t, r)
	})
}

// fakeBinary writes an executable that records that it ran, prints its
// arguments and exits with status 3.
func fakeBinary(t *testing.T) (bin, ran string) {
	t.Helper()
	dir := t.TempDir()
	bin, ran = filepath.Join(dir, "fake"), filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho ran >" + ran + "\necho \"args: $*\"\nexit 3\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, ran
}

// TestWrapRuns: the wrapper runs the binary with the same arguments,
// output and exit status, recorded under the binary's own pid.
func TestWrapRuns(t *testing.T) {
	wrapModes(t, func(t *testing.T, r *Registry) {
		bin, ran := fakeBinary(t)
		w, err := r.Wrap(bin, "fake")
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(w, "a b", "c").CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 3 {
			t.Fatalf("exit %v, want status 3; output %q", err, out)
		}
		if string(out) != "args: a b c\n" {
			t.Errorf("output %q", out)
		}
		if _, err := os.Stat(ran); err != nil {
			t.Error("the binary did not run")
		}
		recs, _ := filepath.Glob(filepath.Join(r.Dir(), procPrefix+"*.json"))
		if len(recs) != 1 {
			t.Fatalf("records %v, want one", recs)
		}
		var p Process
		if err := readJSON(recs[0], &p); err != nil || p.Name != "fake" || p.Start == 0 || !sameFile(p.Exe, bin) || recs[0] != filepath.Join(r.Dir(), procRecord(p.PID)) {
			t.Errorf("record %s: %+v %v", recs[0], p, err)
		}
	})
}

// TestWrapRefusesOrphan: a wrapper whose parent is not the registry's
// owner (the owner died before the parent-death signal was armed, here
// played by an extra shell in between) runs nothing.
func TestWrapRefusesOrphan(t *testing.T) {
	wrapModes(t, func(t *testing.T, r *Registry) {
		bin, ran := fakeBinary(t)
		w, err := r.Wrap(bin, "fake")
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("/bin/sh", "-c", shellQuote(w)+"; exit $?").CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 127 || !strings.Contains(string(out), "is gone") {
			t.Fatalf("exit %v, output %q: want status 127 and the owner named gone", err, out)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Error("the binary ran")
		}
	})
}

// TestWrapHelp: with WithHelp a lone --help is answered from the file,
// without running the binary; anything else runs it.
func TestWrapHelp(t *testing.T) {
	wrapModes(t, func(t *testing.T, r *Registry) {
		bin, ran := fakeBinary(t)
		help := filepath.Join(t.TempDir(), "help.txt")
		if err := os.WriteFile(help, []byte("Usage: fake --flag\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := r.Wrap(bin, "fake", WithHelp(help))
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(w, "--help").CombinedOutput()
		if err != nil || string(out) != "Usage: fake --flag\n" {
			t.Fatalf("--help: %q %v", out, err)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Fatal("--help ran the binary")
		}
		if out, _ := exec.Command(w, "--help", "x").CombinedOutput(); string(out) != "args: --help x\n" {
			t.Errorf("--help x: %q, want the binary's", out)
		}
	})
}
