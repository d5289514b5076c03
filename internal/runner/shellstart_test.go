package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/report"
)

// pageFile writes src as a file (a page) named name in a folder of the
// test's, and returns its path.
func pageFile(t *testing.T, name, src string) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

// countShells counts the bash sessions pages start until the test ends.
func countShells(t *testing.T) *atomic.Int32 {
	var n atomic.Int32
	orig := shellStart
	shellStart = func(bash, dir string, env []string, nonce string) (*shellSession, error) {
		n.Add(1)
		return orig(bash, dir, env, nonce)
	}
	t.Cleanup(func() { shellStart = orig })
	return &n
}

// shellOutputs runs a page and returns what each of its commands printed,
// with the run's own folders named as the page names them.
func shellOutputs(t *testing.T, opts Options, page string) []string {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), load(t, page))
	res := rep.Runbooks[0]
	if res.Status != report.Passed {
		t.Fatalf("%s:\n%s", page, dumpResult(res))
	}
	var outs []string
	for _, st := range res.Steps {
		for _, c := range st.Commands {
			outs = append(outs, c.Stdout)
		}
	}
	return outs
}

// TestShellStartsEarly: a page's bash starts before its work directory
// and environment exist, and its first block gives them to it. What the
// blocks see is what a bash started with them sees (the variables and
// which are exported, the folder, OLDPWD, $0, what a child inherits),
// and no second bash is started. The page's testscript block before its
// first shell block changes a variable the shell must see changed.
func TestShellStartsEarly(t *testing.T) {
	src := "---\nrun: shell\n---\n\n# State\n\n```testscript\nenv RUNBOOK=from-script\n```\n\n" +
		"```bash\ndeclare -p OLDPWD PWD SHLVL HOME TMPDIR WORK RUNBOOK\necho \"$0 $- $BASH_ARGV0\"\nenv | LC_ALL=C sort\n```\n\n" +
		"```bash\ncd \"$TMPDIR\" && cd - && declare -p OLDPWD\n```\n"
	page := pageFile(t, "state.md", src)
	starts := countShells(t)
	early := shellOutputs(t, Options{Parallel: 1}, page)
	if n := starts.Load(); n != 1 {
		t.Errorf("%d bash sessions started for the page, want 1 (the one started early, given the environment)", n)
	}
	earlyShells = false
	defer func() { earlyShells = true }()
	late := shellOutputs(t, Options{Parallel: 1}, page)
	if len(early) != len(late) {
		t.Fatalf("%d outputs started early, %d late", len(early), len(late))
	}
	for i := range early {
		if a, b := workless(early[i]), workless(late[i]); a != b {
			t.Errorf("output %d, bash started early:\n%s\nstarted at the first block:\n%s", i, a, b)
		}
	}
	if !strings.Contains(early[1], `declare -x RUNBOOK="from-script"`) || !strings.Contains(early[1], "bash hBE bash") {
		t.Errorf("the first block's output:\n%s", early[1])
	}
}

// workless names a run's work folder $WORK in s: it differs between runs.
func workless(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(l, "WORK="); ok {
			return strings.ReplaceAll(s, v, "$WORK")
		}
	}
	return s
}

// TestShellEarlyStartsAgain: where the environment holds what bash takes
// only when it starts (BASH_ENV: a file it runs first), the bash started
// early is ended and one started with the environment runs the blocks.
func TestShellEarlyStartsAgain(t *testing.T) {
	rc := pageFile(t, "rc.sh", "hello() { echo \"hello from $1\"; }\n")
	page := pageFile(t, "page.md", "---\nrun: shell\n---\n\n# Hi\n\n```bash\nhello rc\n```\n\n```console\nhello from rc\n```\n")
	starts := countShells(t)
	outs := shellOutputs(t, Options{Parallel: 1, Env: []string{"BASH_ENV=" + rc}}, page)
	if n := starts.Load(); n != 2 || outs[0] != "hello from rc\n" {
		t.Errorf("%d sessions started (want 2: early, then with BASH_ENV); output %q", n, outs)
	}
}

// TestShellBlockShorterThanLast: a block kept where a longer one was
// runs alone, nothing of the last one after it.
func TestShellBlockShorterThanLast(t *testing.T) {
	long := strings.Repeat("echo long-block-line-that-must-not-run-again\n", 40)
	page := pageFile(t, "page.md", "---\nrun: shell\n---\n\n# Two\n\n```bash\n"+long+"```\n\n```bash\necho short\n```\n\n```console\nshort\n```\n")
	outs := shellOutputs(t, Options{Parallel: 1}, page)
	if len(outs) != 2 || outs[1] != "short\n" {
		t.Errorf("outputs %q", outs)
	}
}

// TestShellBlockNotFound: a block whose last command is not found (a
// name the probe cannot see before the block runs) fails with status 127
// and bash's message, and the session goes on to the page's end.
func TestShellBlockNotFound(t *testing.T) {
	src := "---\nrun: shell\n---\n\n# Missing\n\n```bash\necho before\n\"$(echo no-such-command)\" --version\n```\n\n```bash\necho next\n```\n"
	page := pageFile(t, "page.md", src)
	r, err := New(Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := r.Run(ctx, load(t, page)).Runbooks[0]
	if res.Status != report.Failed || len(res.Steps) == 0 || res.Steps[0].Shell == nil || res.Steps[0].Shell.ExitCode != 127 {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
	if out := res.Steps[0].Commands[0].Stdout; !strings.Contains(out, "no-such-command: command not found") {
		t.Errorf("the block's output %q: want bash's message", out)
	}
}

// TestShellDrainsBetweenBlocks: what a block sent to the background goes
// on printing while the page is between shell blocks (here in a
// testscript block that waits for it to end): kbook reads it, so it never
// blocks on a full pipe (64 KiB; it prints about 600).
func TestShellDrainsBetweenBlocks(t *testing.T) {
	src := "---\nrun: shell\n---\n\n# Background\n\n```bash\n(seq 1 100000 | sed 's/^/background line /'; touch bg.done) &\n```\n\n" +
		"```testscript\nexec sh -c 'i=0; while [ ! -e bg.done ]; do i=$((i+1)); [ $i -lt 600 ] || exit 1; sleep 0.05; done'\n```\n\n" +
		"```bash\nwait\necho done\n```\n\n```console\ndone\n```\n"
	page := pageFile(t, "page.md", src)
	if res := runShell(t, page); res.Status != report.Passed {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
}

// TestShellDrainArmed: the drainer starts only when armed (after a block,
// once drainAfter has passed without the next): a timer that fires after
// the next block disarmed it starts nothing, and one that fires while
// armed starts it, which the next block stops.
func TestShellDrainArmed(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	s, err := startShell(bash, t.TempDir(), nil, "nonce")
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	running := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.drain != nil
	}
	s.stopDrain()  // the first block comes
	s.startDrain() // the timer armed at the start fires late
	if running() {
		t.Error("a drainer started after the block disarmed it")
	}
	s.armDrain()   // the block ends
	s.startDrain() // the timer fires
	if !running() {
		t.Error("no drainer started while armed")
	}
	s.stopDrain() // the next block
	if running() {
		t.Error("the drainer still runs during the next block")
	}
}

// TestShellGetsScriptEnv: what a testscript block's env command sets
// reaches the shell blocks after it, a variable new to the script as
// well as one it had; a variable a shell block set stays, unless a
// testscript block sets it after.
func TestShellGetsScriptEnv(t *testing.T) {
	src := "---\nrun: shell\n---\n\n# Env\n\n```testscript\nenv A=from-testscript\n```\n\n" +
		"```bash\necho \"$A\"\nA=shell\nexport C=shell-c\n```\n\n```console\nfrom-testscript\n```\n\n" +
		"```testscript\nenv B=two\nenv RUNBOOK=changed\n```\n\n" +
		"```bash\necho \"$A $B $C $RUNBOOK\"\n```\n\n```console\nshell two shell-c changed\n```\n\n" +
		"```testscript\nenv A=again\n```\n\n" +
		"```bash\necho \"$A\"\nbash -c 'echo \"child $A $B\"'\n```\n\n```console\nagain\nchild again two\n```\n"
	page := pageFile(t, "env.md", src)
	if res := runShell(t, page); res.Status != report.Passed {
		t.Fatalf("env.md:\n%s", dumpResult(res))
	}
}
