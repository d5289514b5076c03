package local

import (
	"context"
	"os"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestStartFromSavedData: a server started from the data another one saved
// serves that data's objects; it can save its own in turn (StopSaving
// waits for envtest's full start, which goes on after Start returned) and
// be stopped at once (Stop ends that wait): the life of a snapshot.
func TestStartFromSavedData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver: not with -short")
	}
	dir, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	saved := []string{t.TempDir(), t.TempDir()}
	s, err := Start(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(s.Config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, metav1.CreateOptions{}); err != nil {
		_ = s.Stop()
		t.Fatal(err)
	}
	if err := s.StopSaving(func(data string) error { return os.CopyFS(saved[0], os.DirFS(data)) }); err != nil {
		t.Fatal(err)
	}
	for i, from := range saved {
		s, err := Start(dir, nil, WithData(func(data string) error { return os.CopyFS(data, os.DirFS(from)) }))
		if err != nil {
			t.Fatalf("start %d from saved data: %v", i+1, err)
		}
		cs, err := kubernetes.NewForConfig(s.Config())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().Namespaces().Get(ctx, "kept", metav1.GetOptions{}); err != nil {
			_ = s.Stop()
			t.Fatalf("start %d from saved data: namespace kept: %v", i+1, err)
		}
		if i == 0 {
			err = s.StopSaving(func(data string) error { return os.CopyFS(saved[1], os.DirFS(data)) })
		} else {
			err = s.Stop()
		}
		if err != nil {
			t.Fatalf("stop %d: %v", i+1, err)
		}
		for _, d := range []string{s.certDir, s.etcdDir} {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("stop %d left %s", i+1, d)
			}
		}
	}
}
