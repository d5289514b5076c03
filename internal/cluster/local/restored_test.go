package local

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
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
	if err := s.StopSaving(func(data string) error { return copyDir(data, saved[0]) }); err != nil {
		t.Fatal(err)
	}
	for i, from := range saved {
		s, err := Start(dir, nil, WithData(func(data string) error { return copyDir(from, data) }))
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
			err = s.StopSaving(func(data string) error { return copyDir(data, saved[1]) })
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

func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o600)
	})
}
