package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/mask"
	"github.com/k0rdent/kbook/internal/runbook"
)

func TestOutput(t *testing.T) {
	x := &execution{masker: mask.New(), workdir: "/tmp/w/script-x"}
	tests := []struct {
		name           string
		body           string
		rec            capture
		stdout, stderr string
		exit           int
	}{
		{"known stdout", "> exec echo hi\n[stdout]\nhi\n", capture{stdout: "hi\n", known: true}, "hi\n", "", 0},
		{"known stdout and stderr", "> exec x\n[stdout]\na\n[stderr]\nb\n", capture{stdout: "a\n", stderr: "b\n", known: true}, "a\n", "b\n", 0},
		{"stale stdout of an earlier exec is not shown", "> stdout hi\n", capture{stdout: "hi\n", known: true}, "", "", 0},
		{"stdout with a fake marker inside", "> exec x\n[stdout]\n[stderr]\nnot really\n", capture{stdout: "[stderr]\nnot really\n", known: true}, "[stderr]\nnot really\n", "", 0},
		{"workdir abbreviated", "> exec pwd\n[stdout]\n$WORK\n", capture{stdout: "/tmp/w/script-x\n", known: true}, "$WORK\n", "", 0},
		{"negated exec exit status", "> ! exec false\n[exit status 1]\n", capture{known: true}, "", "", 1},
		{"trailing comment stripped", "> exec echo hi\n[stdout]\nhi\n# next section (0.001s)\n", capture{stdout: "hi\n", known: true}, "hi\n", "", 0},
		{"last command: trailers", "> exec x\n[stdout]\nout\n[stderr]\nerr\n[exit status 2]\nFAIL: a.md:3: unexpected command failure\n", capture{}, "out\n", "err\n", 2},
		{"last command: no newline before exit", "> exec x\n[stdout]\nout\n[exit status 3]\nFAIL: a.md:3: x\n", capture{}, "out\n", "", 3},
		{"last command: stdout without final newline", "> exec x\n[stdout]\nout[stderr]\nerr\n", capture{}, "out", "err\n", 0},
		{"secrets masked", "> exec cat kc\n[stdout]\n    token: abcdefgh\n", capture{stdout: "    token: abcdefgh\n", known: true}, "    token: ***\n", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			so, se, code := x.output(tc.body, tc.rec)
			if so != tc.stdout || se != tc.stderr || code != tc.exit {
				t.Errorf("output = %q %q %d, want %q %q %d", so, se, code, tc.stdout, tc.stderr, tc.exit)
			}
		})
	}
}

func TestShard(t *testing.T) {
	var rbs []*runbook.Runbook
	for _, p := range []string{"a.md", "b.md", "c.md", "d.md", "e.md"} {
		rbs = append(rbs, &runbook.Runbook{Path: p})
	}
	durations := map[string]time.Duration{"a.md": 50 * time.Second, "b.md": 10 * time.Second, "c.md": 30 * time.Second, "d.md": 20 * time.Second}
	tests := []struct {
		shard string
		want  string
	}{
		{"1/1", "a.md b.md c.md d.md e.md"},
		// Longest first to the least loaded shard: a(50)->1, c(30)->2,
		// d(20)->2, then b(10) and e(default 10s) by path: b->1 (50 vs 50:
		// the first), e->2.
		{"1/2", "a.md b.md"},
		{"2/2", "c.md d.md e.md"},
		{"1/5", "a.md"},
		{"5/5", "e.md"},
	}
	for _, tc := range tests {
		s, err := ParseShard(tc.shard)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, rb := range s.Select(rbs, durations) {
			got = append(got, rb.Path)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("shard %s = %v, want %s", tc.shard, got, tc.want)
		}
	}
	// Every runbook lands in exactly one shard.
	for n := 1; n <= 7; n++ {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			for _, rb := range (Shard{k, n}).Select(rbs, durations) {
				seen[rb.Path]++
			}
		}
		for _, rb := range rbs {
			if seen[rb.Path] != 1 {
				t.Errorf("N=%d: %s in %d shards", n, rb.Path, seen[rb.Path])
			}
		}
	}
	for _, bad := range []string{"0/2", "3/2", "x", "1/0", "1-2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
}

func TestFilter(t *testing.T) {
	rb := &runbook.Runbook{Path: "runbooks/create-template.md"}
	st := &runbook.Step{Name: "apply the template"}
	tests := []struct {
		pattern       string
		runbook, step bool
	}{
		{"", true, true},
		{"create", true, true},
		{"^template", false, true},
		{"create-template$", true, true},
		{"create/apply", true, true},
		{"create/^validate", true, false},
		{"/apply", true, true},
	}
	for _, tc := range tests {
		f, err := ParseFilter(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if f.MatchRunbook(rb) != tc.runbook || f.MatchStep(st) != tc.step {
			t.Errorf("%q: runbook %v step %v", tc.pattern, f.MatchRunbook(rb), f.MatchStep(st))
		}
	}
	if _, err := ParseFilter("(/x"); err == nil {
		t.Error("bad regexp accepted")
	}
}

func TestValidate(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		script, want string
	}{
		{"exec echo\n[linux] exec echo\n[!exec:foo] stop\n! exists x\n[go1.22] exec echo\n# comment\n", ""},
		{"kubctl get ns\n", `x.md:2: unknown command "kubctl"`},
		{"[cluster] exec echo\n[kind] [k0rdent] exec echo\n", ""},
		{"[clsuter] exec echo\n", "x.md:2: unknown condition [clsuter]"},
		{"[linux exec echo\n", "x.md:2: condition [linux is not closed"},
		{"!\n", "x.md:2: no command"},
		{"sh -c true\n", "x.md:2: unknown command \"sh\": to run the program sh, write exec sh -c true"},
	}
	for _, tc := range tests {
		rb, err := runbook.Parse("x.md", []byte("```testscript\n"+tc.script+"```\n"))
		if err != nil {
			t.Fatal(err)
		}
		err = r.Validate([]*runbook.Runbook{rb})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("Validate(%q) = %v, want %q", tc.script, err, tc.want)
		}
	}
}

func TestFailLine(t *testing.T) {
	tests := []struct{ in, file, line, msg string }{
		{"FAIL: /tmp/k/a.txtar:12: no match for `x` found in stdout", "/tmp/k/a.txtar", "12", "no match for `x` found in stdout"},
		// Messages with host:port must not be taken for the location.
		{`FAIL: /tmp/k/a.txtar:0: setup: cannot reach https://127.0.0.1:1: dial tcp 127.0.0.1:1: refused`, "/tmp/k/a.txtar", "0", `setup: cannot reach https://127.0.0.1:1: dial tcp 127.0.0.1:1: refused`},
	}
	for _, tc := range tests {
		m := failLine.FindStringSubmatch(tc.in)
		if m == nil || m[1] != tc.file || m[2] != tc.line || m[3] != tc.msg {
			t.Errorf("failLine(%q) = %q", tc.in, m)
		}
	}
}

// TestFilterCheck: a -run that selects nothing is an error, one that
// selects something is not.
func TestFilterCheck(t *testing.T) {
	rb, err := runbook.Parse("runbooks/apply.md", []byte("# Apply\n\n```testscript name=create\nexec echo\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pattern, err string
	}{
		{"", ""},
		{"app", ""},
		{"apply/create", ""},
		{"/create", ""},
		{"delete", "-run delete matches no runbook (runbook names: apply)"},
		{"apply/delete", `-run: step pattern delete matches no step of the runbooks selected (steps: "create")`},
	} {
		f, err := ParseFilter(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := f.Check([]*runbook.Runbook{rb}); err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("-run %q: error %q, want %q", tc.pattern, got, tc.err)
		}
	}
}

// TestEnvSets: the names a testscript env command sets, which a page's
// bash session is given; not those bash cannot take, nor other commands'.
func TestEnvSets(t *testing.T) {
	for line, want := range map[string]string{
		"env A=1 B=two":                   "A B",
		"[linux] env A=1":                 "A",
		"[!windows] [short] env C=":       "C",
		"! env A=1":                       "A",
		"env 'Q=a b' R=$WORK/x":           "Q R",
		"env A":                           "",
		"env 1X=1 a-b=2 BASH_ENV=x PWD=/": "",
		"exec env A=1":                    "",
		"envx A=1":                        "",
	} {
		if got := strings.Join(envSets(line), " "); got != want {
			t.Errorf("envSets(%q) = %q, want %q", line, got, want)
		}
	}
}
