package report

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		if err := r.WriteJSON(filepath.Join(dir, name)); err != nil {
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
