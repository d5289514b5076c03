package binaries

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// NodeNames are the binaries a kind node image holds beside kube-apiserver,
// etcd and kubectl, built from the same module (package nodeimage):
// kubelet, kubeadm, the rest of the control plane, kube-proxy, kbooknet
// (the node image's pod network) and pause (the pod sandbox).
var NodeNames = []string{"kubelet", "kubeadm", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kbooknet", "pause"}

// SourcesHash is the content hash of the embedded module the binaries are
// built from.
func SourcesHash() string {
	h, _ := gobuild.HashTree(srcFS, "src") // embedded: cannot fail
	return h
}

// NodeDir returns a directory holding kube-apiserver, etcd, kubectl and
// NodeNames, built once into the cache with one go build (about a minute
// and a half on two cores once kube-apiserver's packages are compiled: the
// commands share most of theirs). A directory without its stamp is the
// leftover of an interrupted build and is built anew. KUBEBUILDER_ASSETS is
// not used: a node's binaries must all be of one version.
func NodeDir(ctx context.Context, opts ...Option) (string, error) {
	c := newConfig(opts)
	root, err := filepath.Abs(c.cacheRoot)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "nodebin", fmt.Sprintf("k8s-%s-%s-%s-%s", KubernetesVersion, runtime.GOOS, runtime.GOARCH, SourcesHash()[:12]))
	names := append([]string{KubeAPIServer, Etcd, Kubectl}, NodeNames...)
	if nodeComplete(dir, names) {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	lk, err := gobuild.Lock(ctx, dir+".lock", "building the kind node's Kubernetes binaries into "+dir, func(msg string) { c.log.Infof("%s", msg) })
	if err != nil {
		return "", fmt.Errorf("node binaries: lock %s: %w", dir, err)
	}
	defer lk.Unlock()
	c.log = lk.Logger(c.log)
	if nodeComplete(dir, names) {
		return dir, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("node binaries: building them needs the Go toolchain, but go is not on PATH")
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-"+filepath.Base(dir)+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	srcDir, outDir := filepath.Join(work, "src"), filepath.Join(work, "out")
	if err := extract(srcDir); err != nil {
		return "", fmt.Errorf("node binaries: extract sources: %w", err)
	}
	if err := os.Mkdir(outDir, 0o755); err != nil {
		return "", err
	}
	if err := c.build(ctx, goBin, srcDir, outDir, names); err != nil {
		return "", fmt.Errorf("node binaries: %w", err)
	}
	if err := writeStamp(outDir); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Rename(outDir, dir); err != nil {
		return "", fmt.Errorf("node binaries: install: %w", err)
	}
	return dir, nil
}

func nodeComplete(dir string, names []string) bool {
	if _, err := os.Stat(filepath.Join(dir, stampName)); err != nil {
		return false
	}
	for _, n := range names {
		if gobuild.CheckBinary(filepath.Join(dir, n)) != "" {
			return false
		}
	}
	return true
}
