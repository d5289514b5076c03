package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
)

// Identity names the cluster the options select without starting or
// contacting it - the backend, what decides its Kubernetes version, and a
// digest of the CRDs it gets - so that results produced against one cluster
// are not taken for results against another (the runner's cache keys and
// reports). It fails early on options that can never work: an unknown
// backend, a missing CRD path, a kubeconfig that does not load.
func Identity(o Options) (string, error) {
	if err := CheckCRDPaths(o.CRDs); err != nil {
		return "", err
	}
	crdSum, err := crdHash(o.CRDs)
	if err != nil {
		return "", err
	}
	var id string
	switch o.Backend {
	case Local:
		id = "local " + localServers(o.AssetsDir, o.AssetsFrom)
		if r, err := o.k0rdentRelease(); err != nil {
			return "", err
		} else if r != nil {
			id += " + " + K0rdentID(r.Version, o.K0rdentAPIOnly)
		}
	case Kind:
		id = "kind " + o.Name + " " + o.KindImage
	case Kubeconfig:
		l, err := kubeconfig.Load(o.Kubeconfig, o.Context)
		if err != nil {
			return "", err
		}
		id = "kubeconfig " + l.Context + " " + l.Config.Host
	default:
		return "", fmt.Errorf("unknown cluster backend %q (want %s)", o.Backend, strings.Join(Backends, ", "))
	}
	if crdSum != "" {
		id += " crds " + crdSum
	}
	return id, nil
}

// crdHash digests the CRD files.
func crdHash(paths []string) (string, error) {
	files, err := CRDFiles(paths)
	if err != nil || len(files) == 0 {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("CRDs: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// localServers names the local backend's binaries: the pinned versions
// when they come from kbook's own build, the archive (name and sha512)
// when downloaded, else (KUBEBUILDER_ASSETS pointing elsewhere, say
// setup-envtest's) the files themselves. Before a first download the
// pinned versions stand for it. Without dir, the binaries are where
// KUBEBUILDER_ASSETS or, for from, kbook's cache has them.
func localServers(dir string, from assetsfrom.Source) string {
	if dir == "" {
		dir = os.Getenv(binaries.EnvAssets)
	}
	if dir == "" {
		dir = binaries.Cached(binaries.WithSource(from))
	}
	return serversIn(dir)
}

// serversIn is localServers of the binaries in dir ("": not there yet).
func serversIn(dir string) string {
	pinned := "kube-apiserver " + binaries.KubernetesVersion + " etcd " + binaries.EtcdVersion
	if dir == "" {
		return pinned
	}
	if a := binaries.Downloaded(dir); a != "" {
		return "envtest archive " + a
	}
	own, err := binaries.CacheDir()
	if abs, aerr := filepath.Abs(dir); err == nil && aerr == nil && abs == own {
		return pinned
	}
	var parts []string
	for _, name := range []string{binaries.KubeAPIServer, binaries.Etcd} {
		f := filepath.Join(dir, name)
		fi, err := os.Stat(f)
		if err != nil {
			parts = append(parts, name+" "+f+" (missing)")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%d bytes, modified %s)", name, f, fi.Size(), fi.ModTime().UTC().Format("2006-01-02T15:04:05.000000000Z")))
	}
	return strings.Join(parts, " ")
}
