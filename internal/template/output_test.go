package template

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

var update = flag.Bool("update", false, "rewrite the golden files of the output tests")

// goldenResult validates a fixture with findings of every shape: without a
// file (SCHEMA001), on Chart.yaml, on a rendered object, in a config file
// with a values path, and from a policy.
func goldenResult(t *testing.T) *findings.Report {
	t.Helper()
	dir, opts := setupFixture(t, "POLICY-fail")
	opts.Config = chartsDir + "/VALUES007-fail/values.dev.yaml"
	res, err := ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	res.Name, res.Base = "charts/docker-kubeadm", "charts/docker-kubeadm" // not the temporary directory
	return res
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

func TestWriteText(t *testing.T) {
	var buf bytes.Buffer
	if err := findings.WriteText(&buf, goldenResult(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "result.txt", buf.Bytes())

	buf.Reset()
	_ = findings.WriteText(&buf, &findings.Report{Name: "charts/ok"})
	if got := buf.String(); got != "charts/ok: no problems found\n" {
		t.Errorf("clean result: %q", got)
	}
}

func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := findings.WriteJSON(&buf, goldenResult(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "result.json", buf.Bytes())

	buf.Reset()
	if err := findings.WriteJSON(&buf, &findings.Report{Kind: "chart", Name: "charts/ok"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"findings": []`) {
		t.Errorf("a clean result has an empty findings list, not null:\n%s", buf.String())
	}
}

func TestWriteSARIF(t *testing.T) {
	defer func(f func() string) { findings.SARIFVersion = f }(findings.SARIFVersion)
	findings.SARIFVersion = func() string { return "v0.0.0-test" }

	// The golden file holds the rules the findings use, so that editing
	// another rule's description does not change it.
	res := goldenResult(t)
	var used []findings.Rule
	for _, r := range Registry.Rules() {
		if slices.ContainsFunc(res.Findings, func(f findings.Finding) bool { return f.Rule == r.ID }) {
			used = append(used, r)
		}
	}
	var buf bytes.Buffer
	if err := findings.WriteSARIF(&buf, used, res); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "result.sarif", buf.Bytes())

	buf.Reset()
	if err := findings.WriteSARIF(&buf, Registry.Rules(), res); err != nil {
		t.Fatal(err)
	}

	// The structure code scanning tools rely on.
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string `json:"id"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex *int   `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(Registry.Rules()) {
		t.Errorf("%d rules, want %d", len(run.Tool.Driver.Rules), len(Registry.Rules()))
	}
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range run.Results {
		if r.Level != "error" && r.Level != "warning" && r.Level != "note" {
			t.Errorf("%s: level %q", r.RuleID, r.Level)
		}
		if r.RuleIndex != nil && run.Tool.Driver.Rules[*r.RuleIndex].ID != r.RuleID {
			t.Errorf("%s: ruleIndex %d points at %s", r.RuleID, *r.RuleIndex, run.Tool.Driver.Rules[*r.RuleIndex].ID)
		}
		if r.RuleIndex == nil && !strings.HasPrefix(r.RuleID, "ORG-") {
			t.Errorf("%s: registered rule without ruleIndex", r.RuleID)
		}
		if len(r.Locations) != 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("%s: locations %+v", r.RuleID, r.Locations)
		}
	}
}
