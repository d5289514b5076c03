package findings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/output"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

var testRegistry = NewRegistry([]string{"Input", "Checks"},
	Rule{ID: "T001", Category: "Input", Severity: Error, Input: true, Title: "The input loads", Description: "Loads."},
	Rule{ID: "T003", Category: "Checks", Severity: Warning, Title: "Style is good", Description: "Style."},
	Rule{ID: "T002", Category: "Checks", Severity: Error, Title: "The thing is right", Description: "Right."},
)

func TestRegistry(t *testing.T) {
	var ids []string
	for _, r := range testRegistry.Rules() {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "T001,T002,T003" {
		t.Errorf("Rules() = %s, want sorted by ID", got)
	}
	if testRegistry.Severity("T003") != Warning {
		t.Error("Severity(T003)")
	}
	if _, ok := testRegistry.Lookup("T999"); ok {
		t.Error("Lookup(T999) found")
	}
	if err := testRegistry.CheckDisable([]string{"T002", "ORG-1"}, "ORG-1"); err != nil {
		t.Error(err)
	}
	if err := testRegistry.CheckDisable([]string{"T0002"}); err == nil || !strings.Contains(err.Error(), "--disable T0002: no such rule") {
		t.Errorf("CheckDisable(T0002) = %v", err)
	}
	for name, rules := range map[string][]Rule{
		"duplicate":        {{ID: "A", Category: "Checks", Severity: Error, Title: "t", Description: "d"}, {ID: "A", Category: "Checks", Severity: Error, Title: "t", Description: "d"}},
		"unknown category": {{ID: "A", Category: "Nope", Severity: Error, Title: "t", Description: "d"}},
		"no severity":      {{ID: "A", Category: "Checks", Title: "t", Description: "d"}},
		"no title":         {{ID: "A", Category: "Checks", Severity: Error, Description: "d"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewRegistry did not panic", name)
				}
			}()
			NewRegistry([]string{"Checks"}, rules...)
		}()
	}
}

func TestFinish(t *testing.T) {
	fs := []Finding{
		{Rule: "T003", File: "b.yaml", Line: 2, Message: "style", Config: "ci/a.yaml"},
		{Rule: "T002", File: "b.yaml", Line: 1, Message: "wrong", Config: "defaults"},
		{Rule: "T003", File: "b.yaml", Line: 2, Message: "style", Config: "defaults"}, // repeat under another config
		{Rule: "T002", File: "a.yaml", Line: 9, Message: "wrong", Severity: Warning},  // own severity wins
		{Rule: "ORG-1", File: "a.yaml", Line: 1, Message: "policy", Severity: Error},
		{Rule: "T001", File: "Chart.yaml", Message: "does not load"},
	}
	got := testRegistry.Finish(fs, []string{"ORG-1", "T001"})
	var lines []string
	for _, f := range got {
		lines = append(lines, f.String()+" "+f.Config)
	}
	want := []string{
		"Chart.yaml: error: does not load [T001] ", // Input rules cannot be disabled
		"a.yaml:9: warning: wrong [T002] ",
		"b.yaml:1: error: wrong [T002] defaults",
		"b.yaml:2: warning: style [T003] ci/a.yaml",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Finish =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got := testRegistry.Finish(nil, nil); got == nil {
		t.Error("Finish(nil) is nil, want an empty list")
	}
}

func TestExitCode(t *testing.T) {
	clean := &Report{Findings: []Finding{{Rule: "T003", Severity: Warning}}}
	failed := &Report{Findings: []Finding{{Rule: "T002", Severity: Error}}}
	bad := &Report{Findings: []Finding{{Rule: "T001", Severity: Error}}}
	for _, tc := range []struct {
		reports []*Report
		want    int
	}{
		{nil, ExitOK},
		{[]*Report{clean}, ExitOK},
		{[]*Report{clean, failed}, ExitErrors},
		{[]*Report{failed, bad}, ExitBadInput},
	} {
		if got := testRegistry.ExitCode(tc.reports...); got != tc.want {
			t.Errorf("ExitCode(%d reports) = %d, want %d", len(tc.reports), got, tc.want)
		}
	}
	err := fmt.Errorf("load: %w", Inputf("cd.yaml", 3, "does not parse: %s", "x"))
	if !IsInput(err) || err.Error() != "load: cd.yaml:3: does not parse: x" {
		t.Errorf("InputError: %v", err)
	}
	if IsInput(errors.New("other")) {
		t.Error("IsInput(plain error)")
	}
	if in := Input(err); in != err {
		t.Errorf("Input wrapped an input error again: %v", in)
	}
	if in := Input(errors.New("--port 70000")); !IsInput(in) || in.Error() != "--port 70000" {
		t.Errorf("Input(plain error) = %v", in)
	}
	if Input(nil) != nil {
		t.Error("Input(nil) is not nil")
	}
}

// TestLocated: the one located error reads "file:line: message" (line 0:
// "file: message"), the texts the runbook, MkDocs and site readers each
// had before they shared it, and Located finds it under wrappers, past an
// InputError that names no file.
func TestLocated(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Inputf("docs/a.md", 12, "code fence %s is never closed", "```"), "docs/a.md:12: code fence ``` is never closed"},
		{Inputf("mkdocs.yml", 0, "no such file: not an MkDocs project"), "mkdocs.yml: no such file: not an MkDocs project"},
		{&InputError{Err: errors.New("--port 70000")}, "--port 70000"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	at := &InputError{File: "kbook.yaml", Line: 3, Err: errors.New("versions: v1 is already listed at line 2")}
	for _, err := range []error{at, fmt.Errorf("load: %w", at), Input(fmt.Errorf("load: %w", at)), &InputError{Err: fmt.Errorf("x: %w", at)}} {
		if got := Located(err); got != at {
			t.Errorf("Located(%v) = %v, want the kbook.yaml error", err, got)
		}
	}
	for _, err := range []error{nil, errors.New("plain"), Input(errors.New("no file"))} {
		if got := Located(err); got != nil {
			t.Errorf("Located(%v) = %v, want nil", err, got)
		}
	}
}

// TestExitFor: a command's error to the exit-code table; bad input is
// bad input even when the command was interrupted.
func TestExitFor(t *testing.T) {
	input := fmt.Errorf("load: %w", Inputf("cd.yaml", 3, "does not parse"))
	for _, tc := range []struct {
		name        string
		err         error
		interrupted bool
		want        int
	}{
		{"none", nil, false, ExitOK},
		{"none, interrupted", nil, true, ExitOK},
		{"bad input", input, false, ExitBadInput},
		{"bad input, interrupted", input, true, ExitBadInput},
		{"failure", errors.New("apply failed"), false, ExitErrors},
		{"interrupted", errors.New("interrupted"), true, ExitInterrupted},
	} {
		if got := ExitFor(tc.err, tc.interrupted); got != tc.want {
			t.Errorf("%s: ExitFor = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func testReport() *Report {
	return &Report{
		Kind: "chart", Name: "charts/demo", Base: "charts/demo", Given: []string{"cd.yaml"}, Default: "defaults",
		Findings: []Finding{
			{Rule: "T002", Severity: Error, Message: "no CRDs"},
			{Rule: "T002", Severity: Error, File: "templates/c.yaml", Line: 4, Object: "v1 Secret s", Message: "bad", Config: "defaults"},
			{Rule: "T003", Severity: Warning, File: "values.yaml", Line: 2, Path: "a.b", Message: "odd", Config: "ci/x.yaml", Hint: "rename it"},
			{Rule: "T002", Severity: Error, File: "cd.yaml", Line: 1, Message: "given", Config: "cd.yaml"},
		},
	}
}

func TestWriteText(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "text", testRegistry, testReport(), &Report{Name: "charts/ok"}); err != nil {
		t.Fatal(err)
	}
	want := `charts/demo: error: no CRDs [T002]
charts/demo/templates/c.yaml:4: error: v1 Secret s: bad [T002]
charts/demo/values.yaml:2: warning: odd (with ci/x.yaml) [T003]
    fix: rename it
cd.yaml:1: error: given [T002]
charts/demo: 3 errors, 1 warning
charts/ok: no problems found
`
	if buf.String() != want {
		t.Errorf("text =\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestWriteTextColor: on a terminal the severities and the summary line
// are coloured (errors red, warnings yellow, no problems green); to a
// buffer (TestWriteText), or with $NO_COLOR set, nothing is.
func TestWriteTextColor(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	var buf bytes.Buffer
	if err := Write(output.Terminal{Writer: &buf}, "text", testRegistry, testReport(), &Report{Name: "charts/ok"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"charts/demo/templates/c.yaml:4: \033[31merror\033[0m: v1 Secret s: bad [T002]\n",
		"charts/demo/values.yaml:2: \033[33mwarning\033[0m: odd (with ci/x.yaml) [T003]\n",
		"\033[31mcharts/demo: 3 errors, 1 warning\033[0m\n",
		"\033[32mcharts/ok: no problems found\033[0m\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text on a terminal has no %q:\n%q", want, buf.String())
		}
	}
	t.Setenv("NO_COLOR", "1")
	buf.Reset()
	if err := Write(output.Terminal{Writer: &buf}, "text", testRegistry, testReport()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "\033") {
		t.Errorf("NO_COLOR=1, colour all the same:\n%q", buf.String())
	}
}

// TestWriteYAML: -o yaml carries -o json's fields.
func TestWriteYAML(t *testing.T) {
	var j, y bytes.Buffer
	if err := Write(&j, "json", testRegistry, testReport()); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, "yaml", testRegistry, testReport()); err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := sigsyaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Errorf("yaml:\n%s\nis not json's\n%s", y.String(), j.String())
	}
}

func TestWriteJSON(t *testing.T) {
	var one, two bytes.Buffer
	if err := WriteJSON(&one, testReport()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(one.String(), "{\n  \"chart\": \"charts/demo\",\n  \"errors\": 3,\n  \"warnings\": 1,\n  \"findings\": [") {
		t.Errorf("one report:\n%s", one.String())
	}
	var got struct {
		Findings []Finding `json:"findings"`
	}
	if err := json.Unmarshal(one.Bytes(), &got); err != nil || len(got.Findings) != 4 || got.Findings[2].Hint != "rename it" || got.Findings[1].File != "templates/c.yaml" {
		t.Errorf("findings do not round-trip (%v): %+v", err, got.Findings)
	}
	if err := WriteJSON(&two, testReport(), &Report{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	if err := json.Unmarshal(two.Bytes(), &list); err != nil || len(list) != 2 || list[1]["name"] != "x" {
		t.Errorf("two reports: %v\n%s", err, two.String())
	}
	if !strings.Contains(two.String(), `"findings": []`) {
		t.Errorf("a clean report has an empty findings list, not null:\n%s", two.String())
	}
}

func TestWriteSARIF(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "sarif", testRegistry, testReport()); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Name string `json:"name"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleIndex *int `json:"ruleIndex"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Properties map[string]string `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if log.Version != "2.1.0" || len(run.Tool.Driver.Rules) != 3 || run.Tool.Driver.Rules[1].Name != "TheThingIsRight" {
		t.Fatalf("driver: %+v", run.Tool.Driver)
	}
	var uris []string
	for _, r := range run.Results {
		uris = append(uris, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	if got := strings.Join(uris, " "); got != "charts/demo charts/demo/templates/c.yaml charts/demo/values.yaml cd.yaml" {
		t.Errorf("uris: %s", got)
	}
	if p := run.Results[2].Properties; p["hint"] != "rename it" || p["path"] != "a.b" || *run.Results[2].RuleIndex != 2 {
		t.Errorf("result 2: %+v", run.Results[2])
	}
	if err := Write(&buf, "xml", testRegistry); err == nil || err.Error() != `-o "xml": want text, json, yaml or sarif` {
		t.Errorf("Write(xml) = %v", err)
	}
}

func TestYAMLError(t *testing.T) {
	for _, tc := range []struct {
		data string
		line int
		msg  string
	}{
		{"a: 1\nb: [1, 2\nc: 3\n", 3, "did not find expected ',' or ']'"},
		{"a: 1\n\tb: 2\n", 2, "found a tab character that violates indentation"},
		{"a: 1\nb: 2\n  c: 3\n", 3, "mapping values are not allowed in this context"},
		// Errors at the end of the input: the parsers name the line after
		// it; the problem is on the last line that is not blank.
		{"a: [1, 2\n", 1, "did not find expected ',' or ']'"},
		{"a: [1, 2", 1, "did not find expected ',' or ']'"},
		{"a: 1\nb: {x: 1\n\n  \n", 2, "did not find expected ',' or '}'"},
		{"a: \"x\n", 1, "found unexpected end of stream"},
		{"a:\n  - b\n  c: 1\n", 3, "did not find expected '-' indicator"},
	} {
		var v any
		err := yaml.Unmarshal([]byte(tc.data), &v)
		if err == nil {
			t.Fatalf("%q parses", tc.data)
		}
		line, msg := YAMLError([]byte(tc.data), err)
		if line != tc.line || msg != tc.msg {
			t.Errorf("YAMLError(%q) = %d %q, want %d %q", tc.data, line, msg, tc.line, tc.msg)
		}
	}
	if l, m := SplitYAMLError(errors.New("error converting YAML to JSON: yaml: line 7: bad")); l != 7 || m != "bad" {
		t.Errorf("SplitYAMLError = %d %q", l, m)
	}
	if l := LineIn("cannot load values.yaml: error converting YAML to JSON: yaml: line 3: x"); l != 3 {
		t.Errorf("LineIn = %d", l)
	}
}

func TestWriteCatalogue(t *testing.T) {
	var b strings.Builder
	if err := WriteCatalogue(&b, testRegistry); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"| [T001](#t001) | error | The input loads |\n",
		"\n## Input\n\n### T001\n\n**The input loads** - default severity: error\n\nLoads.\n",
		"\n## Checks\n\n### T002\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("catalogue lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "## Input") > strings.Index(got, "## Checks") {
		t.Error("categories are not in catalogue order")
	}
}

func TestInfo(t *testing.T) {
	r := &Report{Kind: "chart", Name: "c", Findings: []Finding{{Rule: "T003", Severity: Info, Message: "note"}}}
	var text, js, sarif bytes.Buffer
	_ = WriteText(&text, r)
	if !strings.HasSuffix(text.String(), "c: info: note [T003]\nc: no problems found, 1 info\n") {
		t.Errorf("text:\n%s", text.String())
	}
	_ = WriteJSON(&js, r)
	if !strings.Contains(js.String(), `"warnings": 0,
  "infos": 1,`) {
		t.Errorf("json:\n%s", js.String())
	}
	_ = WriteSARIF(&sarif, nil, r)
	if !strings.Contains(sarif.String(), `"level": "note"`) {
		t.Errorf("sarif:\n%s", sarif.String())
	}
	if testRegistry.ExitCode(r) != ExitOK {
		t.Error("an info fails")
	}
	if _, err := ParseSeverity("info"); err != nil {
		t.Error(err)
	}
}

// TestOutput: -o defaults to the first format, takes any of them, and
// refuses another as the flag is parsed, in pflag's words.
func TestOutput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		formats []string
		args    []string
		want    string
		wantErr string
	}{
		{"default", Formats, nil, "text", ""},
		{"sarif", Formats, []string{"-o", "sarif"}, "sarif", ""},
		{"long flag", []string{"text", "json", "yaml"}, []string{"--output=yaml"}, "yaml", ""},
		{"other default", []string{"yaml", "json"}, nil, "yaml", ""},
		{"unknown", Formats, []string{"-o", "xml"}, "text", `invalid argument "xml" for "-o, --output" flag: want text, json, yaml or sarif`},
		{"another tool's format", []string{"text", "json"}, []string{"-o", "sarif"}, "text", `invalid argument "sarif" for "-o, --output" flag: want text or json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fl := pflag.NewFlagSet("test", pflag.ContinueOnError)
			fl.SetOutput(io.Discard)
			var got string
			o := NewOutput(&got, tc.formats...)
			fl.VarP(o, "output", "o", o.Usage())
			err := fl.Parse(tc.args)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("parse %q: %v", tc.args, err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("parse %q: error %v, want %q", tc.args, err, tc.wantErr)
			}
			if got != tc.want || o.String() != tc.want {
				t.Errorf("-o is %q (String %q), want %q", got, o.String(), tc.want)
			}
			if f := fl.Lookup("output"); f.DefValue != tc.formats[0] || o.Type() != "string" {
				t.Errorf("default %q, type %q: want %q, string", f.DefValue, o.Type(), tc.formats[0])
			}
		})
	}
	var p string
	if got, want := NewOutput(&p, Formats...).Usage(), "output format: text, json, yaml or sarif"; got != want {
		t.Errorf("usage %q, want %q", got, want)
	}
}
