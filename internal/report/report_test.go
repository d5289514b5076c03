package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func sample() *Report {
	return &Report{FormatVersion: FormatVersion, Kbook: "v0", Backend: "none", Started: t0, Duration: 3 * time.Second,
		Runbooks: []*Runbook{
			{Path: "runbooks/b.md", Title: "B: with, commas", Status: Failed, Reason: "boom", Verified: t0,
				Failure: &Failure{File: "runbooks/b.md", Line: 12, Message: "no match for `x`\nsecond line 100%"},
				Log:     "> exec x\nFAIL: runbooks/b.md:12: boom\n",
				Steps: []*Step{
					{Index: 1, Name: "setup", Line: 3, Status: Passed, Commands: []*Command{{Line: 4, Text: "exec echo <hi>", Stdout: "<hi>\n"}}},
					{Index: 2, Name: "check", Line: 11, Status: Failed, Failure: &Failure{File: "runbooks/b.md", Line: 12, Message: "boom"}},
					{Index: 3, Name: "later", Line: 20, Status: Skipped, Reason: "not run: an earlier step failed"},
				}},
			{Path: "runbooks/a.md", Title: "A", Status: Skipped, Reason: "requires cluster: none",
				Steps: []*Step{{Index: 1, Name: "only", Line: 2, Status: Skipped, Reason: "requires cluster: none"}}},
		}}
}

func TestJUnit(t *testing.T) {
	data, err := sample().JUnit()
	if err != nil {
		t.Fatal(err)
	}
	var s junitSuites
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, data)
	}
	if s.Tests != 4 || s.Failures != 1 || s.Skipped != 2 || len(s.Suites) != 2 {
		t.Errorf("counts: tests %d failures %d skipped %d suites %d", s.Tests, s.Failures, s.Skipped, len(s.Suites))
	}
	b := s.Suites[0]
	if b.Name != "runbooks/b.md" || b.Cases[1].Failure == nil || b.Cases[1].Failure.Message != "runbooks/b.md:12: boom" || b.Cases[1].Line != 11 {
		t.Errorf("suite b = %+v", b)
	}
	if !strings.Contains(b.Cases[0].SystemOut, "> exec echo <hi>\n<hi>") {
		t.Errorf("system-out = %q", b.Cases[0].SystemOut)
	}
	if s.Suites[1].Cases[0].Skipped.Message != "requires cluster: none" {
		t.Errorf("skip message = %+v", s.Suites[1].Cases[0].Skipped)
	}
}

func TestGitHubAnnotations(t *testing.T) {
	var buf bytes.Buffer
	sample().GitHubAnnotations(&buf)
	want := "::error file=runbooks/b.md,line=12,title=kbook%3A B%3A with%2C commas::no match for `x`%0Asecond line 100%25\n"
	if buf.String() != want {
		t.Errorf("annotations =\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestJSONRoundTripAndMerge(t *testing.T) {
	dir := t.TempDir()
	a := sample()
	a.Runbooks = a.Runbooks[:1]
	b := sample()
	b.Runbooks = b.Runbooks[1:]
	b.Started = t0.Add(time.Second)
	b.Duration = 5 * time.Second
	for name, r := range map[string]*Report{"a.json": a, "b.json": b} {
		if err := r.WriteJSON(filepath.Join(dir, name), nil); err != nil {
			t.Fatal(err)
		}
	}
	ra, err := ReadJSON(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := ReadJSON(filepath.Join(dir, "b.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := Merge(ra, rb)
	if len(m.Runbooks) != 2 || m.Runbooks[0].Path != "runbooks/a.md" || m.Duration != 6*time.Second || !m.Started.Equal(t0) {
		t.Errorf("merged: %d runbooks, first %s, duration %s, started %s", len(m.Runbooks), m.Runbooks[0].Path, m.Duration, m.Started)
	}
	if s := m.Summary(); s.Failed != 1 || s.Skipped != 1 {
		t.Errorf("summary = %+v", s)
	}
	if m.Runbooks[1].Steps[0].Commands[0].Stdout != "<hi>\n" {
		t.Error("command output lost in the round trip")
	}
	if _, err := ReadJSON(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("no error for a missing report")
	}
	mf, err := MergeFiles(filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"))
	if err != nil || len(mf.Runbooks) != 2 || mf.Duration != m.Duration {
		t.Errorf("MergeFiles: %v, %+v", err, mf)
	}
	if _, err := MergeFiles(filepath.Join(dir, "a.json"), filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("MergeFiles with a missing report: %v", err)
	}
}

// interruptedSample is a run stopped by Ctrl-C: one runbook stopped in
// its second step, one never started.
func interruptedSample() *Report {
	stopped := &Failure{File: "runbooks/c.md", Line: 9, Message: "interrupted while running exec sleep 60"}
	return &Report{FormatVersion: FormatVersion, Started: t0, Duration: time.Second, Interrupted: true, Runbooks: []*Runbook{
		{Path: "runbooks/c.md", Status: Interrupted, Reason: stopped.Message, Failure: stopped, Steps: []*Step{
			{Index: 1, Name: "first", Line: 3, Status: Passed},
			{Index: 2, Name: "wait", Line: 8, Status: Interrupted, Reason: stopped.Message, Failure: stopped},
			{Index: 3, Name: "last", Line: 12, Status: Skipped, Reason: "not run: the run was interrupted"},
		}},
		{Path: "runbooks/d.md", Status: Skipped, Reason: "not run: the run was interrupted",
			Steps: []*Step{{Index: 1, Name: "only", Line: 2, Status: Skipped, Reason: "not run: the run was interrupted"}}},
	}}
}

// TestInterruptedReports: an interrupted runbook is no failure in any
// report: JUnit's <skipped> with the reason (no <failure>, no <error>,
// which JUnit readers count as failed), no ::error annotation, its own
// count in the summary.
func TestInterruptedReports(t *testing.T) {
	r := interruptedSample()
	data, err := r.JUnit()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("<failure")) || bytes.Contains(data, []byte("<error")) {
		t.Errorf("JUnit has a failure or an error for an interrupted run:\n%s", data)
	}
	var s junitSuites
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Tests != 4 || s.Failures != 0 || s.Skipped != 3 {
		t.Errorf("counts: tests %d failures %d skipped %d", s.Tests, s.Failures, s.Skipped)
	}
	if c := s.Suites[0].Cases[1]; c.Skipped == nil || c.Skipped.Message != "interrupted while running exec sleep 60" {
		t.Errorf("the interrupted step: %+v", c)
	}
	var buf bytes.Buffer
	r.GitHubAnnotations(&buf)
	if buf.Len() > 0 {
		t.Errorf("annotations for an interrupted run: %q", buf.String())
	}
	if sum := r.Summary(); sum != (Summary{Interrupted: 1, Skipped: 1}) {
		t.Errorf("summary %+v", sum)
	}
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"status": "interrupted"`)) {
		t.Errorf("JSON without the interrupted status:\n%s", js)
	}
}

// TestReportsToStdout: "-" writes a report to the stdout given, never to
// a file named "-"; merging to stdout works the same, and both reports
// to stdout is bad input.
func TestReportsToStdout(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	r := sample()
	var out bytes.Buffer
	if err := r.WriteJSON(Stdout, &out); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJUnit(Stdout, &out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was written`)
	}
	if !strings.HasPrefix(out.String(), "{\n") || !strings.Contains(out.String(), "<testsuites") {
		t.Errorf("stdout: %q", out.String())
	}
	if err := r.WriteJSON(Stdout, nil); err == nil {
		t.Error("no error for a report to stdout without one")
	}

	if err := r.WriteJSON("r.json", nil); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	merged, err := MergeInto(Stdout, "m.xml", &out, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || len(back.Runbooks) != len(merged.Runbooks) {
		t.Errorf("merged JSON on stdout: %v\n%s", err, out.String())
	}
	if _, err := os.Stat("m.xml"); err != nil {
		t.Errorf("the JUnit file beside it: %v", err)
	}
	if _, err := MergeInto(Stdout, Stdout, &out, "r.json"); !errors.Is(err, ErrBothStdout) || !findings.IsInput(err) {
		t.Errorf("both to stdout: %v", err)
	}
}

// TestMergeKeepsLatestRun: a runbook run on two backends keeps the later
// result, pass or fail; a later skip (a backend that cannot run it) does
// not hide an earlier result, and an earlier skip gives way.
func TestMergeKeepsLatestRun(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	rep := func(at time.Duration, st Status) *Report {
		return &Report{FormatVersion: FormatVersion, Started: t0.Add(at), Runbooks: []*Runbook{{Path: "a.md", Status: st, Verified: t0.Add(at)}}}
	}
	for _, c := range []struct {
		first, second Status
		want          Status
	}{
		{Passed, Failed, Failed},
		{Failed, Passed, Passed},
		{Passed, Skipped, Passed},
		{Skipped, Passed, Passed},
		{Skipped, Skipped, Skipped},
	} {
		got := Merge(rep(0, c.first), rep(time.Minute, c.second))
		if len(got.Runbooks) != 1 || got.Runbooks[0].Status != c.want {
			t.Errorf("%s then %s: %v, want %s", c.first, c.second, got.Runbooks[0].Status, c.want)
		}
	}
}

// TestRestoredString: what the terminal says of a restore, with the
// first few objects named and the rest counted.
func TestRestoredString(t *testing.T) {
	r := &Restored{Duration: 41 * time.Millisecond}
	if got, want := r.String(), "nothing to restore (checked in 41ms)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r.Changed.Add("managements.k0rdent.mirantis.com/kcm")
	r.Changed.Add("namespaces/default")
	r.Recreated.Add("configmaps/x -n default")
	for i := range 7 {
		r.Deleted.Add(fmt.Sprintf("configmaps/n%d -n kcm-system", i))
	}
	want := "restored 2 changed objects (managements.k0rdent.mirantis.com/kcm, namespaces/default), re-created 1 (configmaps/x -n default), " +
		"deleted 7 new (configmaps/n0 -n kcm-system, configmaps/n1 -n kcm-system, configmaps/n2 -n kcm-system, configmaps/n3 -n kcm-system, configmaps/n4 -n kcm-system, and 2 more) in 41ms"
	if got := r.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	failed := &Restored{Failed: []string{"services/s -n default: put back: field is immutable"}}
	if got, want := failed.String(), "nothing restored (in 0s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestJUnitProperties: a page of shell blocks that ran alone carries its
// verdict, why it ran alone and what was restored after it as its
// suite's properties, before its test cases; a plain runbook has none.
func TestJUnitProperties(t *testing.T) {
	r := sample()
	rb := r.Runbooks[0]
	rb.Shell = &ShellCounts{Blocks: 2, Passed: 1, Provided: 1, Verification: PartlyVerified}
	rb.Alone = "it names the namespace kcm-system (page.md:3)"
	rb.Restored = &Restored{}
	rb.Restored.Changed.Add("namespaces/default")
	data, err := r.JUnit()
	if err != nil {
		t.Fatal(err)
	}
	var s junitSuites
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, data)
	}
	p := s.Suites[0].Properties
	if p == nil || len(p.Property) != 3 {
		t.Fatalf("properties = %+v\n%s", p, data)
	}
	want := map[string]string{
		"kbook.shell":    "partially verified: 1 of 2 ran; 1 provided by kbook; 0 skipped; 0 failed",
		"kbook.alone":    rb.Alone,
		"kbook.restored": "restored 1 changed object (namespaces/default) in 0s",
	}
	for _, pr := range p.Property {
		if want[pr.Name] != pr.Value {
			t.Errorf("%s = %q, want %q", pr.Name, pr.Value, want[pr.Name])
		}
	}
	if i, j := strings.Index(string(data), "<properties>"), strings.Index(string(data), "<testcase"); i < 0 || i > j {
		t.Errorf("properties do not come before the test cases:\n%s", data)
	}
	if s.Suites[1].Properties != nil {
		t.Errorf("a plain runbook has properties: %+v", s.Suites[1].Properties)
	}
}
