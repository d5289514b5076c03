package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/log"
)

// TestClusterFlags: the cluster the flags name, and the one error of
// flags that cannot work together, before anything starts.
func TestClusterFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   ClusterFlags
		want    Cluster
		wantErr string
	}{
		{name: "none", flags: ClusterFlags{Backend: None}, want: Cluster{None: true}},
		{name: "none refuses --crds", flags: ClusterFlags{Backend: None, Changed: map[string]bool{"crds": true}},
			wantErr: "--crds: --cluster none starts no cluster and uses none"},
		{name: "none refuses --keep", flags: ClusterFlags{Backend: None, Changed: map[string]bool{"keep": true, "timeout": true}},
			wantErr: "--keep: --cluster none"},
		{name: "reuse default name", flags: ClusterFlags{Backend: cluster.Auto, Reuse: true, StateRoot: "/s", Options: cluster.Options{CRDs: []string{"c"}}},
			want: Cluster{Reuse: cluster.DefaultName, StateRoot: "/s", Options: cluster.Options{CRDs: []string{"c"}}}},
		{name: "reuse named", flags: ClusterFlags{Backend: cluster.Auto, Reuse: true, Options: cluster.Options{Name: "dev"}},
			want: Cluster{Reuse: "dev"}},
		{name: "auto is local", flags: ClusterFlags{Backend: cluster.Auto},
			want: Cluster{Auto: true, Options: cluster.Options{Backend: cluster.Local}}},
		{name: "auto with --context is kubeconfig", flags: ClusterFlags{Backend: cluster.Auto, Changed: map[string]bool{"context": true}, Options: cluster.Options{Context: "dev"}},
			want: Cluster{Auto: true, Options: cluster.Options{Backend: cluster.Kubeconfig, Context: "dev"}}},
		{name: "local given", flags: ClusterFlags{Backend: cluster.Local},
			want: Cluster{Options: cluster.Options{Backend: cluster.Local}}},
		{name: "kind gets its default name", flags: ClusterFlags{Backend: cluster.Kind},
			want: Cluster{Options: cluster.Options{Backend: cluster.Kind, Name: cluster.DefaultKindName}}},
		{name: "unknown backend", flags: ClusterFlags{Backend: "eks"}, wantErr: `--cluster "eks": want auto, local, kind, kubeconfig or none`},
		{name: "api-only alone", flags: ClusterFlags{Backend: cluster.Local, Options: cluster.Options{K0rdentAPIOnly: true}}, wantErr: "--k0rdent-api-only needs --k0rdent VERSION"},
		{name: "k0rdent on kubeconfig", flags: ClusterFlags{Backend: cluster.Kubeconfig, Options: cluster.Options{K0rdent: "v1.11.4"}}, wantErr: "--k0rdent runs the k0rdent plane on the local backend or installs it into a kind cluster, not on --cluster kubeconfig"},
		{name: "k0rdent api-only on kind", flags: ClusterFlags{Backend: cluster.Kind, Options: cluster.Options{K0rdent: "v1.11.4", K0rdentAPIOnly: true}}, wantErr: "--k0rdent-api-only is the local backend's"},
		{name: "unknown k0rdent", flags: ClusterFlags{Backend: cluster.Local, Options: cluster.Options{K0rdent: "v0.0.1"}}, wantErr: "--k0rdent: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.flags.Cluster()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.None != tc.want.None || got.Auto != tc.want.Auto || got.Reuse != tc.want.Reuse || got.StateRoot != tc.want.StateRoot ||
				got.Options.Backend != tc.want.Options.Backend || got.Options.Name != tc.want.Options.Name ||
				got.Options.Context != tc.want.Options.Context || strings.Join(got.Options.CRDs, ",") != strings.Join(tc.want.Options.CRDs, ",") {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestKubeconfigNotice: with $KUBECONFIG set, --cluster auto still runs on
// a cluster kbook starts (a runbook creates and deletes objects: the
// cluster a shell's KUBECONFIG names may be anyone's), and says so once
// as the run's cluster is made, with how to use KUBECONFIG's cluster
// instead; a backend given, or auto choosing kubeconfig, says nothing.
func TestKubeconfigNotice(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "config"))
	for _, tc := range []struct {
		name string
		rc   runCluster
		want bool
	}{
		{"auto chose local", runCluster{auto: true, opts: cluster.Options{Backend: cluster.Local}}, true},
		{"local given", runCluster{opts: cluster.Options{Backend: cluster.Local}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logged strings.Builder
			target, err := tc.rc.target(context.Background(), &Options{Parallel: 1}, log.To{W: &logged}, nil)
			if err != nil || target == nil {
				t.Fatalf("target %v, %v", target, err)
			}
			got := strings.Contains(logged.String(), "KUBECONFIG is set, but runbooks run on a cluster kbook starts") &&
				strings.Contains(logged.String(), "--cluster kubeconfig runs them on KUBECONFIG's cluster")
			if got != tc.want {
				t.Errorf("notice %v, want %v: %q", got, tc.want, logged.String())
			}
		})
	}
}
