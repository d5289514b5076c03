package scaffold

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestNew: a new chart and its next line; the flags that go with
// --extend alone, and bad labels, are bad input before anything is written.
func TestNew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	c, err := New(context.Background(), Options{ChartOptions: ChartOptions{Name: "acme", Dir: dir, Provider: "docker"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir != dir || c.Next != "kbook template validate "+dir || len(c.Files) == 0 {
		t.Errorf("got %+v", c)
	}
	for _, tc := range []struct {
		name string
		r    Options
		want string
	}{
		{"registry without extend", Options{ChartOptions: ChartOptions{Name: "b", Provider: "docker"}, Registry: "r.io"}, "--registry and --label go with --extend"},
		{"label without extend", Options{ChartOptions: ChartOptions{Name: "b", Provider: "docker"}, Labels: []string{"a=b"}}, "--registry and --label go with --extend"},
		{"label without =", Options{ChartOptions: ChartOptions{Name: "b"}, Extend: "./base", Labels: []string{"team"}}, `--label "team": want KEY=VALUE`},
		{"label without key", Options{ChartOptions: ChartOptions{Name: "b"}, Extend: "./base", Labels: []string{"=x"}}, `--label "=x": want KEY=VALUE`},
		{"kind image with extend", Options{ChartOptions: ChartOptions{Name: "b", MachineImage: "kbook.local/kind-node:v1"}, Extend: "./base"}, "--kind-image goes with a new chart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "b")
			tc.r.Dir = out
			var in *findings.InputError
			if _, err := New(context.Background(), tc.r); !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want bad input %q", err, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("written despite the error")
			}
		})
	}
}

func TestParseLabels(t *testing.T) {
	m, err := ParseLabels([]string{"acme.io/cost-center=platform", "empty="})
	if err != nil || len(m) != 2 || m["acme.io/cost-center"] != "platform" || m["empty"] != "" {
		t.Errorf("got %v, %v", m, err)
	}
}

// TestUseKindImage: --kind-image with an image reference sets the node
// image alone; auto, a provider other than docker, --extend and a bad
// reference are bad input. (build needs an engine: see runbooks/capd-docker.md.)
func TestUseKindImage(t *testing.T) {
	r := Options{ChartOptions: ChartOptions{Name: "a", Provider: "docker"}}
	if err := useKindImage(context.Background(), &r); err != nil || r.MachineImage != "" {
		t.Fatalf("no --kind-image: %v, %+v", err, r.ChartOptions)
	}
	r.KindImage = "registry.example.com/kind-node:v1.34.12"
	if err := useKindImage(context.Background(), &r); err != nil ||
		r.MachineImage != "registry.example.com/kind-node:v1.34.12" || r.LoadBalancerRepository != "" || r.ImageK8sVersion != "" {
		t.Fatalf("a reference: %v, %+v", err, r.ChartOptions)
	}
	for _, tc := range []struct {
		name, image string
		r           Options
		want        string
	}{
		{"auto", "auto", Options{ChartOptions: ChartOptions{Provider: "docker"}}, "--kind-image auto: not for a template"},
		{"other provider", "build", Options{ChartOptions: ChartOptions{Provider: "inmemory"}}, "--kind-image goes with a new chart for --provider docker"},
		{"extend", "build", Options{ChartOptions: ChartOptions{Provider: "docker"}, Extend: "./base"}, "--kind-image goes with a new chart"},
		{"bad reference", "Not An Image", Options{ChartOptions: ChartOptions{Provider: "docker"}}, `--kind-image "Not An Image": want build or an image reference`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.KindImage = tc.image
			err := useKindImage(context.Background(), &tc.r)
			var in *findings.InputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want bad input %q", err, tc.want)
			}
			if tc.r.MachineImage != "" {
				t.Errorf("image set despite the error: %s", tc.r.MachineImage)
			}
		})
	}
}
