package template

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkValidate20Charts validates 20 copies of the base chart (each:
// load, lint, values, 3 value sets rendered twice, every rule) and reports
// the throughput in charts/s. The crds=true variant also checks every
// object against the shared CAPI CRDs (skipped when they are absent).
func BenchmarkValidate20Charts(b *testing.B) {
	for _, withCRDs := range []bool{false, true} {
		b.Run(fmt.Sprintf("crds=%v", withCRDs), func(b *testing.B) {
			var opts ChartOptions
			if withCRDs {
				opts.Schemas = capiValidator(b)
			}
			root := b.TempDir()
			charts := make([]string, 20)
			for i := range charts {
				charts[i] = filepath.Join(root, fmt.Sprintf("chart-%02d", i))
				copyTree(b, baseChart, charts[i], nil)
			}
			start := time.Now()
			n := 0
			for b.Loop() {
				for _, c := range charts {
					res, err := ValidateChart(c, opts)
					if err != nil {
						b.Fatal(err)
					}
					if res.Errors() > 0 {
						b.Fatalf("%s: %d errors", c, res.Errors())
					}
					n++
				}
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "charts/s")
		})
	}
}
