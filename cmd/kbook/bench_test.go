package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/template/scaffold"
)

// BenchmarkTemplateValidate20 validates 20 ClusterTemplate charts with
// kbook and, for the baseline, runs `helm lint` and `helm template` on
// them - what a pipeline without kbook would do, and which checks much
// less. helm is taken from PATH or bin/ (make bench builds it there).
func BenchmarkTemplateValidate20(b *testing.B) {
	dir := b.TempDir()
	var charts []string
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("chart%02d", i))
		if _, _, err := scaffold.Init(scaffold.ChartOptions{Name: fmt.Sprintf("chart%02d", i), Dir: p, Provider: scaffold.ProviderNames()[i%2]}); err != nil {
			b.Fatal(err)
		}
		charts = append(charts, p)
	}
	// Exit status 1 (findings) is a result, not a failure of the run.
	run := func(b *testing.B, name string, args ...string) {
		out, err := exec.Command(name, args...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	b.Run("kbook-one-process", func(b *testing.B) {
		for b.Loop() {
			run(b, kbookBin, append([]string{"template", "validate"}, charts...)...)
		}
	})
	b.Run("kbook-per-chart", func(b *testing.B) {
		for b.Loop() {
			for _, c := range charts {
				run(b, kbookBin, "template", "validate", c)
			}
		}
	})
	helm, err := exec.LookPath("helm")
	if err != nil {
		if p, _ := filepath.Abs("../../bin/helm"); fileExists(p) {
			helm = p
		}
	}
	b.Run("helm-lint+template", func(b *testing.B) {
		if helm == "" {
			b.Skip("no helm on PATH or in bin/ (make bench builds it)")
		}
		for b.Loop() {
			for _, c := range charts {
				run(b, helm, "lint", c)
				run(b, helm, "template", "dev-1", c, "--set", "clusterIdentity.name=x")
			}
		}
	})
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
