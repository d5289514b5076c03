package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"k8s.io/client-go/rest"
)

// TestBadInterval: a bad --interval is bad input naming the flag, before
// the chart is read or the cluster reached.
func TestBadInterval(t *testing.T) {
	connect := func() (*rest.Config, string, error) {
		t.Error("the cluster was reached")
		return nil, "", nil
	}
	for _, iv := range []string{"soon", "-1m", "0s"} {
		_, err := Publish(context.Background(), "no-such-chart", connect, helmrepo.PublishOptions{Interval: iv})
		if !findings.IsInput(err) || !strings.HasPrefix(err.Error(), "--interval: ") {
			t.Errorf("--interval %s: %v, want bad input naming --interval", iv, err)
		}
	}
}
