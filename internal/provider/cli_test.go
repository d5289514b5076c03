package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestCheckOptions: an empty Target is k0rdent's, as the flag's default;
// another target is bad input naming --target; a context already done
// checks nothing.
func TestCheckOptions(t *testing.T) {
	paths := []string{"testdata/valid/bootstrap-controlplane.yaml"}
	res, err := Check(context.Background(), Options{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Check(context.Background(), Options{Paths: paths, Target: TargetK0rdent})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != len(want.Findings) {
		t.Errorf("empty target: %d findings, k0rdent: %d", len(res.Findings), len(want.Findings))
	}
	if _, err := Check(context.Background(), Options{Paths: paths, Target: "kcm"}); !findings.IsInput(err) || !strings.HasPrefix(err.Error(), `--target "kcm": `) {
		t.Errorf("target kcm: %v, want bad input naming --target", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped")
	cancel(stop)
	if _, err := Check(ctx, Options{Paths: paths}); !errors.Is(err, stop) {
		t.Errorf("done context: %v, want its cause", err)
	}
}
