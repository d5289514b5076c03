package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"sigs.k8s.io/kind/pkg/apis/config/defaults"

	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
)

// The --kind-image values that are not an image reference.
const (
	// KindImageAuto takes kind's released node image where the engine has
	// it or a registry answers, else builds kbook's (KindImageBuild).
	KindImageAuto = "auto"
	// KindImageBuild builds kbook's node image (package nodeimage), or
	// takes it from the cache.
	KindImageBuild = "build"
)

// KindReleasedImage is the node image of the kind release kbook uses
// (sigs.k8s.io/kind v0.30): what `kind create cluster` pulls.
var KindReleasedImage = defaults.Image

// CheckKindImage reports a --kind-image value that can be neither a mode
// nor an image reference, as bad input before anything starts.
func CheckKindImage(v string) error {
	switch v {
	case "", KindImageAuto, KindImageBuild:
		return nil
	}
	if _, err := name.ParseReference(v); err != nil {
		return &findings.InputError{Err: fmt.Errorf("--kind-image %q: want auto, build or an image reference: %v", v, err)}
	}
	return nil
}

// KindNodeImage resolves a --kind-image value into the image a kind
// cluster is created from. A reference is used as it is. build is kbook's
// own node image, built here from pinned modules and Debian's packages
// (nodeimage.Build). auto (or empty), as --assets-from auto does for the
// local backend's binaries: kind's released image where the engine has it
// already or the registry answers, else kbook's own, saying why.
func KindNodeImage(ctx context.Context, v, cacheDir string, l log.Logger) (string, error) {
	l = log.Or(l)
	switch v {
	case KindImageBuild:
		return buildNodeImage(ctx, cacheDir, l)
	case "", KindImageAuto:
	default:
		return v, nil
	}
	if haveImage(ctx, KindReleasedImage) {
		return KindReleasedImage, nil
	}
	if img, why, err := nodeimage.Cached(ctx, nodeimage.Options{CacheDir: cacheDir}); err == nil && why == "" {
		l.Infof("kind node image: %s (built by kbook, cached)", img.Ref)
		return img.Ref, nil
	}
	err := registryAnswers(ctx, KindReleasedImage)
	if err == nil {
		return KindReleasedImage, nil
	}
	l.Infof("kind node image: the registry of %s does not answer (%v): building kbook's own", short(KindReleasedImage), err)
	return buildNodeImage(ctx, cacheDir, l)
}

func buildNodeImage(ctx context.Context, cacheDir string, l log.Logger) (string, error) {
	img, err := nodeimage.Build(ctx, nodeimage.Options{CacheDir: cacheDir, Logger: l})
	if err != nil {
		return "", err
	}
	return img.Ref, nil
}

func short(ref string) string {
	r, _, _ := strings.Cut(ref, "@")
	return r
}

// haveImage reports whether the engine has ref already.
func haveImage(ctx context.Context, ref string) bool {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, "docker", "image", "inspect", ref).Run() == nil
}

// registryAnswers asks the registry of ref for its manifest, briefly.
func registryAnswers(ctx context.Context, ref string) error {
	r, err := name.ParseReference(ref)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	_, err = remote.Head(r, remote.WithContext(ctx))
	var dns interface{ Timeout() bool }
	if errors.As(err, &dns) && dns.Timeout() {
		return fmt.Errorf("no answer in 15 s")
	}
	return err
}

// kindNetwork is the engine network kind puts its nodes on.
func kindNetwork() string {
	if n := os.Getenv("KIND_EXPERIMENTAL_DOCKER_NETWORK"); n != "" {
		return n
	}
	return "kind"
}

// removeIdleNetwork removes the network kind made when nothing is attached
// to it any more (another kind cluster, CAPD's machines keep it).
func removeIdleNetwork(network string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "network", "inspect", "--format", "{{len .Containers}}", network).Output()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		return
	}
	_ = exec.CommandContext(ctx, "docker", "network", "rm", network).Run()
}
