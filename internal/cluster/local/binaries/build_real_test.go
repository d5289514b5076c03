package binaries

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"
)

// testLogger sends progress to the test log.
type testLogger struct{ t *testing.T }

func (l testLogger) Infof(format string, args ...any) {
	l.t.Helper()
	l.t.Logf(format, args...)
}

// TestBuildReal builds the real binaries into the cache (the default one,
// or $KBOOK_CACHE_DIR), unless they are there already, and runs them. The
// first run takes about 15 minutes on 2 cores, so give go test a longer
// timeout:
//
//	KBOOK_TEST_BUILD_ASSETS=1 go test -run TestBuildReal -timeout 40m -v ./internal/cluster/local/binaries/
func TestBuildReal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kube-apiserver: not with -short")
	}
	if os.Getenv("KBOOK_TEST_BUILD_ASSETS") != "1" {
		t.Skip("set KBOOK_TEST_BUILD_ASSETS=1 to build the real binaries")
	}
	t.Setenv(EnvAssets, "")
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	dir, err := Dir(ctx, WithSource(assetsfrom.Build), WithKubectl(true), WithLogger(testLogger{t}))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("binaries in %s", dir)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{Etcd, []string{"--version"}, "etcd Version: " + strings.TrimPrefix(EtcdVersion, "v")},
		{KubeAPIServer, []string{"--version"}, "Kubernetes " + KubernetesVersion},
		{Kubectl, []string{"version", "--client"}, "Client Version: " + KubernetesVersion},
	} {
		out, err := exec.CommandContext(ctx, filepath.Join(dir, tc.name), tc.args...).CombinedOutput()
		if err != nil {
			t.Errorf("%s %s: %v\n%s", tc.name, strings.Join(tc.args, " "), err, out)
			continue
		}
		t.Logf("%s %s:\n%s", tc.name, strings.Join(tc.args, " "), out)
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s %s: output lacks %q", tc.name, strings.Join(tc.args, " "), tc.want)
		}
	}
}
