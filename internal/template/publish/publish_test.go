package publish

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmrepo"
)

// TestBadInterval: a bad --interval is bad input naming the flag, before
// the chart is read or the kubeconfig (here a file that is not there).
func TestBadInterval(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "no-such-kubeconfig")
	for _, iv := range []string{"soon", "-1m", "0s"} {
		_, err := Publish(context.Background(), Options{Chart: "no-such-chart", Kubeconfig: kubeconfig, PublishOptions: helmrepo.PublishOptions{Interval: iv}})
		if !findings.IsInput(err) || !strings.HasPrefix(err.Error(), "--interval: ") {
			t.Errorf("--interval %s: %v, want bad input naming --interval", iv, err)
		}
	}
}

// TestBadChartFirst: a chart that is not there is bad input naming it,
// before the kubeconfig is read.
func TestBadChartFirst(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "no-such-kubeconfig")
	_, err := Publish(context.Background(), Options{Chart: "no-such-chart", Kubeconfig: kubeconfig})
	if !findings.IsInput(err) || !strings.HasPrefix(err.Error(), "chart no-such-chart: ") {
		t.Errorf("%v, want bad input naming the chart", err)
	}
}
