package outmatch

import (
	"strings"
	"testing"
)

const pods = `NAME                     READY   STATUS    RESTARTS   AGE
nginx-7c5ddbdf54-x2b9k   1/1     Running   0          12s
redis-0                  1/1     Running   0          3m
`

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		name      string
		mode      Mode
		want, got string
		// line is the expected output's line of the mismatch, -1 for a match.
		line int
		why  string
	}{
		{name: "exact same", mode: Exact, want: "a\nb\n", got: "a\nb\n", line: -1},
		{name: "exact ignores trailing spaces and blank ends", mode: Exact, want: "\na  \nb\n\n", got: "a\nb", line: -1},
		{name: "exact differs", mode: Exact, want: "a\nb\n", got: "a\nc\n", line: 2, why: `expected line 2 (line): want "b", got "c"`},
		{name: "exact counts dropped leading blank lines", mode: Exact, want: "\n\na\n", got: "b\n", line: 3},
		{name: "exact has no ellipsis", mode: Exact, want: "a\n...\n", got: "a\nb\nc\n", line: 2},
		{name: "exact output shorter", mode: Exact, want: "a\nb\n", got: "a\n", line: 2, why: `the output ended; expected line 2: "b"`},
		{name: "exact output longer", mode: Exact, want: "a\n", got: "a\nb\n", line: 0, why: `the output goes on after the expected output's last line: "b"`},
		{name: "illustrative never compares", mode: Illustrative, want: "anything", got: "else", line: -1},
		{name: "shape table: other cells and widths differ", mode: Shape, want: pods,
			got: "NAME   READY   STATUS   RESTARTS   AGE\nnginx-6d4cf56db6-5wzqp   0/1   Pending   4 (2m ago)   1d\nredis-0   1/1   Running   0   1s\n", line: -1},
		{name: "shape table: another row key", mode: Shape, want: pods,
			got: "NAME READY STATUS RESTARTS AGE\nnginx-7c5ddbdf54-x2b9k 1/1 Running 0 1s\nmysql-0 1/1 Running 0 1s\n", line: 3,
			why: `expected line 3 (table row): want "redis-0                  1/1     Running   0          3m", got "mysql-0 1/1 Running 0 1s"`},
		{name: "shape table: another header", mode: Shape, want: pods, got: "NAME READY STATUS AGE\nnginx-7c5ddbdf54-x2b9k 1/1 Running 1s\nredis-0 1/1 Running 1s\n", line: 1},
		{name: "shape table: a row more", mode: Shape, want: pods, got: pods + "extra-0 1/1 Running 0 1s\n", line: 0},
		{name: "shape table: a row more under ...", mode: Shape, want: pods + "...\n", got: pods + "extra-0 1/1 Running 0 1s\n", line: -1},
		{name: "shape generated suffix is not any suffix", mode: Shape, want: "NAME  AGE\nkcm-proxy  1s\n", got: "NAME  AGE\nkcm-abcde  1s\n", line: 2},
		{name: "shape -A keys on namespace and name", mode: Shape,
			want: "NAMESPACE   NAME   AGE\nkcm-system   kcm-controller-manager-5d9f8b6c4-pq2xv   5m\n",
			got:  "NAMESPACE   NAME   AGE\nkcm-system   kcm-controller-manager-78bd9cf7f4-zr8mn   1s\n", line: -1},
		{name: "shape -A another namespace", mode: Shape,
			want: "NAMESPACE   NAME   AGE\nkcm-system   kcm   5m\n",
			got:  "NAMESPACE   NAME   AGE\ndefault   kcm   1s\n", line: 2},
		{name: "shape text word for word, spacing free", mode: Shape, want: "Hello,   world\n", got: "Hello, world\n", line: -1},
		{name: "shape text differs", mode: Shape, want: "deployment.apps/nginx created\n", got: "deployment.apps/nginx configured\n", line: 1},
		{name: "shape timestamps wildcarded", mode: Shape, want: "started at 2024-01-02T03:04:05Z ok\n", got: "started at 2026-12-06T08:46:50.123+01:00 ok\n", line: -1},
		{name: "shape ellipsis in the middle", mode: Shape, want: "begin\n...\nend\n", got: "begin\nx\ny\nend\n", line: -1},
		{name: "shape ellipsis matches no lines", mode: Shape, want: "begin\n...\nend\n", got: "begin\nend\n", line: -1},
		{name: "shape ellipsis then a line that never comes", mode: Shape, want: "begin\n...\nend\n", got: "begin\nx\n", line: 3},
		{name: "shape blank line ends a table", mode: Shape, want: "NAME  AGE\na  1s\n\nplain text\n", got: "NAME AGE\na 2s\n\nplain text\n", line: -1},
		{name: "shape empty both", mode: Shape, want: "", got: "\n", line: -1},
		{name: "shape expected nothing, got something", mode: Shape, want: "", got: "x\n", line: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Compare(c.mode, c.want, c.got)
			switch {
			case c.line < 0 && m != nil:
				t.Fatalf("want a match, got mismatch %+v", m)
			case c.line < 0:
				return
			case m == nil:
				t.Fatalf("want a mismatch at line %d, got a match", c.line)
			case m.Line != c.line:
				t.Fatalf("mismatch at line %d, want %d: %s", m.Line, c.line, m.Why)
			case c.why != "" && m.Why != c.why:
				t.Fatalf("why = %q\nwant  %q", m.Why, c.why)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Shape, "shape": Shape, "exact": Exact, "illustrative": Illustrative} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("fuzzy"); err == nil || !strings.Contains(err.Error(), "shape, exact, illustrative") {
		t.Errorf("ParseMode(fuzzy) = %v, want an error listing the modes", err)
	}
}

func TestIsHeader(t *testing.T) {
	for l, want := range map[string]bool{
		"NAME   READY   STATUS":            true,
		"NAME\tNAMESPACE\tREVISION":        true,
		"LAST SEEN   TYPE   REASON":        true,
		"NAME READY":                       false, // one space: a sentence in capitals, not a table
		"WARNING":                          false,
		"NAME   ready":                     false,
		"NOMINATED NODE   READINESS GATES": true,
	} {
		if got := isHeader(l); got != want {
			t.Errorf("isHeader(%q) = %v, want %v", l, got, want)
		}
	}
}
