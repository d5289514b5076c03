package kubeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestLoad(t *testing.T) {
	two, noCurrent := filepath.Join("testdata", "two-contexts.kubeconfig"), filepath.Join("testdata", "no-current.kubeconfig")
	for _, tc := range []struct {
		name          string
		env           string // $KUBECONFIG
		path, context string
		wantHost      string
		wantContext   string
		wantNamespace string
		wantErr       string
	}{
		{name: "current context", path: two, wantHost: "https://dev.example.com:6443", wantContext: "dev", wantNamespace: "default"},
		{name: "--context with its namespace", path: two, context: "prod", wantHost: "https://prod.example.com:6443", wantContext: "prod", wantNamespace: "team-a"},
		{name: "$KUBECONFIG", env: two, context: "prod", wantHost: "https://prod.example.com:6443", wantContext: "prod", wantNamespace: "team-a"},
		{name: "--kubeconfig wins over $KUBECONFIG", env: noCurrent, path: two, wantHost: "https://dev.example.com:6443", wantContext: "dev", wantNamespace: "default"},
		{name: "$KUBECONFIG files merged", env: noCurrent + string(os.PathListSeparator) + two, context: "prod", wantHost: "https://prod.example.com:6443", wantContext: "prod", wantNamespace: "team-a"},
		{name: "missing context", path: two, context: "staging", wantErr: `kubeconfig ` + two + ` has no context "staging"`},
		{name: "no current context", path: noCurrent, wantErr: "kubeconfig " + noCurrent + " has no current context: pass --context"},
		{name: "missing file", path: "testdata/missing", wantErr: "load kubeconfig: stat testdata/missing: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.env)
			t.Setenv("HOME", t.TempDir())
			l, err := Load(tc.path, tc.context)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Config.Host != tc.wantHost || l.Context != tc.wantContext || l.Namespace != tc.wantNamespace {
				t.Errorf("got host %s context %s namespace %s, want %s %s %s", l.Config.Host, l.Context, l.Namespace, tc.wantHost, tc.wantContext, tc.wantNamespace)
			}
		})
	}
}

// TestMinified: the minified kubeconfig holds the chosen context alone,
// with its credentials.
func TestMinified(t *testing.T) {
	l, err := Load(filepath.Join("testdata", "two-contexts.kubeconfig"), "prod")
	if err != nil {
		t.Fatal(err)
	}
	data, err := l.Minified()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "prod" || len(cfg.Contexts) != 1 || len(cfg.Clusters) != 1 || cfg.AuthInfos["prod"].Token != "prod-token" {
		t.Errorf("minified kubeconfig:\n%s", data)
	}
	if strings.Contains(string(data), "dev-token") {
		t.Errorf("minified kubeconfig holds the other context's token:\n%s", data)
	}
}
