package localapi_test

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/assets"
	"github.com/k0rdent/kbook/internal/localapi"
	"github.com/k0rdent/kbook/internal/proc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestMain(m *testing.M) {
	proc.RunWrapper() // the test binary wraps the servers
	os.Exit(m.Run())
}

// TestStartTracked: the servers answer, are recorded, keep their keys and
// data inside the registry (nothing in TMPDIR), and Stop leaves nothing.
func TestStartTracked(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; skipped with -short")
	}
	dir, why := assets.Available()
	if why != "" {
		t.Skip(why)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	reg, err := proc.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	srv, err := localapi.Start(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("the server does not answer: %v", err)
	}
	// Recorded: at least the two servers (envtest may also run a binary
	// briefly, to read its flags).
	records, _ := os.ReadDir(reg.Dir())
	var running []string
	for _, r := range records {
		var p proc.Process
		data, err := os.ReadFile(reg.Dir() + "/" + r.Name())
		if len(r.Name()) < 2 || r.Name()[:2] != "p-" || err != nil || json.Unmarshal(data, &p) != nil {
			continue
		}
		if p.Running() {
			running = append(running, p.Name)
		}
	}
	sort.Strings(running)
	if strings.Join(running, " ") != "etcd kube-apiserver" {
		t.Errorf("running recorded processes %v, want etcd and kube-apiserver", running)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the servers wrote into TMPDIR: %v", left)
	}
	if len(srv.Kubeconfig()) == 0 {
		t.Error("no kubeconfig")
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if subs, _ := os.ReadDir(reg.Dir() + "/tmp"); len(subs) > 0 {
		t.Errorf("Stop left %v", subs)
	}
}
