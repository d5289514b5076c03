package upgrade

import (
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/template"
)

// BenchmarkCheckRealTemplate checks kcm's aws-standalone-cp against an
// edited copy (a Kubernetes minor upgrade, a changed default, a renamed
// value the config sets) in one process. The baseline is the two
// renderings alone, which every check needs: the ratio is what the
// analysis costs on top.
func BenchmarkCheckRealTemplate(b *testing.B) {
	src := filepath.Join(sharedTemplates(b), "aws-standalone-cp")
	dst := b.TempDir()
	copyChart(b, src, dst, map[string][2]string{
		"Chart.yaml":  {`(?m)^version: .*$`, "version: 1.1.0"},
		"values.yaml": {`(?m)^  version: v1\.36\.3\+k0s\.2`, "  version: v1.37.0+k0s.0"},
		"templates/awsmachinetemplate-worker.yaml": {`rootVolume:\n        size: \{\{ \.Values\.worker\.rootVolumeSize \}\}`,
			"rootVolume:\n        size: {{ .Values.worker.rootVolumeSize }}\n        type: gp3"},
	})
	config := map[string]any{
		"region":        "eu-west-1",
		"controlPlane":  map[string]any{"instanceType": "t3.large"},
		"worker":        map[string]any{"instanceType": "t3.medium", "rootVolumeSize": 40},
		"workersNumber": 3,
	}
	in := Input{From: Side{Chart: src}, To: Side{Chart: dst}, Deployment: Deployment{Name: "dev-1", Namespace: "team-a", Config: config}}
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := Predict(in)
			if err != nil {
				b.Fatal(err)
			}
			if len(r.Rollouts) == 0 || r.Hazards() == 0 {
				b.Fatalf("expected a rollout and the immutable template:\n%s", dump(r))
			}
		}
	})
	b.Run("baseline-render-both", func(b *testing.B) {
		b.ReportAllocs()
		opts := template.RenderOptions{ReleaseName: "dev-1", Namespace: "team-a", ConfigValues: config}
		for b.Loop() {
			if _, err := template.Render(src, opts); err != nil {
				b.Fatal(err)
			}
			if _, err := template.Render(dst, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
