package upgrade

import (
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/kubeversion"
)

// TestFindingLines: UPG011 points at where the target's Kubernetes
// version is set, UPG020 at the config's value the target rejects.
func TestFindingLines(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, config, rule string
		file                         string
		line                         int
	}{
		{"minor skipped: the target chart's default", "base", "skip", "", ruleK8sSkip, filepath.Join(charts("skip"), "values.yaml"), 10},
		{"downgrade: the target chart's default", "base", "downgrade", "", ruleK8sDowngrade, filepath.Join(charts("downgrade"), "values.yaml"), 0},
		{"config rejected: the config's key", "base", "schema", "custom-image.yaml", ruleConfigRejected, "testdata/configs/custom-image.yaml", 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, tc.from, tc.to, tc.config, nil)
			var f *findings.Finding
			for i := range r.Findings {
				if r.Findings[i].Rule == tc.rule {
					f = &r.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no %s finding: %+v", tc.rule, r.Findings)
			}
			if filepath.ToSlash(f.File) != filepath.ToSlash(tc.file) || (tc.line > 0 && f.Line != tc.line) || f.Line == 0 {
				t.Errorf("%s at %s:%d, want %s:%d", tc.rule, f.File, f.Line, tc.file, tc.line)
			}
		})
	}
}

// TestVersionAt: each source of a Kubernetes version has its place: the
// config's key, the chart's values.yaml or Chart.yaml annotation.
func TestVersionAt(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("testdata", "configs", "pinned-by-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cd, err := loadSide(Side{Chart: charts("skip")})
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{in: Input{Deployment: cfg.Deployment}}
	for _, tc := range []struct {
		src  kubeversion.Source
		file string
		line int
	}{
		{kubeversion.Source{Kind: kubeversion.FromConfig, Path: "k0s.version"}, "testdata/configs/pinned-by-config.yaml", 14},
		{kubeversion.Source{Kind: kubeversion.FromChartDefault, Path: "k0s.version"}, filepath.Join(charts("skip"), "values.yaml"), 10},
		{kubeversion.Source{Kind: kubeversion.FromSpec}, "", 0},
	} {
		file, line := c.versionAt(cd, tc.src, nil)
		if filepath.ToSlash(file) != filepath.ToSlash(tc.file) || line != tc.line {
			t.Errorf("%s: %s:%d, want %s:%d", tc.src.Kind, file, line, tc.file, tc.line)
		}
	}
	declared, err := loadSide(Side{Chart: charts("declared")})
	if err != nil {
		t.Fatal(err)
	}
	if file, line := c.versionAt(declared, kubeversion.Source{Kind: kubeversion.FromAnnotation}, nil); filepath.ToSlash(file) != filepath.ToSlash(filepath.Join(charts("declared"), "Chart.yaml")) || line != 5 {
		t.Errorf("annotation at %s:%d, want the chart's Chart.yaml:5", file, line)
	}
	// A value the config does not set: the chart's default.
	if file, line := c.valueAt(cd, findings.Path{"worker", "image"}); filepath.ToSlash(file) != filepath.ToSlash(filepath.Join(charts("skip"), "values.yaml")) || line != 7 {
		t.Errorf("worker.image at %s:%d, want the chart's values.yaml:7", file, line)
	}
}
