package nodeimage

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// addonsVersion tags the add-on images kbook builds: the local-path
// provisioner release.
const addonsVersion = "v0.0.30"

//go:embed addons
var addonsFS embed.FS

// addonsHash is the content hash of the add-ons' module.
func addonsHash() string {
	h, _ := gobuild.HashTree(addonsFS, "addons") // embedded: cannot fail
	return h
}

// buildAddons builds coredns and local-path-provisioner from the embedded
// module into the cache, once (a directory without its stamp is rebuilt).
func buildAddons(ctx context.Context, o *Options) (string, error) {
	dir := filepath.Join(o.CacheDir, "nodebin", "addons-"+addonsHash()[:16])
	if _, err := os.Stat(filepath.Join(dir, stamp)); err == nil {
		return dir, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building CoreDNS and the local-path provisioner needs the Go toolchain, but go is not on PATH")
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), ".addons-")
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		if work, err = os.MkdirTemp(filepath.Dir(dir), ".addons-"); err != nil {
			return "", err
		}
	}
	defer os.RemoveAll(work)
	src, out := filepath.Join(work, "src"), filepath.Join(work, "out")
	if err := gobuild.ExtractTxt(addonsFS, "addons", src); err != nil {
		return "", err
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", err
	}
	o.Logger.Infof("building CoreDNS %s and the local-path provisioner %s (first run only, a few minutes on 2 cores)…", coreDNSTag, addonsVersion)
	start := time.Now()
	cmd := exec.CommandContext(ctx, goBin, "build", "-ldflags", "-s -w", "-o", out+string(filepath.Separator), "./cmd/coredns", "github.com/rancher/local-path-provisioner")
	cmd.Dir, cmd.Env = src, gobuild.Env()
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	gobuild.KillGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	stop := gobuild.Still(o.Logger, "coredns, local-path-provisioner")
	err = cmd.Run()
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return "", fmt.Errorf("build CoreDNS and the local-path provisioner: %w\n%s", err, gobuild.Tail(log.String(), 4000))
	}
	if err := os.WriteFile(filepath.Join(out, stamp), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return "", err
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(out, dir); err != nil {
		return "", err
	}
	o.Logger.Infof("built CoreDNS and the local-path provisioner in %s", time.Since(start).Round(time.Second))
	return dir, nil
}
