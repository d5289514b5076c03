package nodeimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// baseKey names the base root: the suite, the packages, the mirror.
func baseKey(o *Options) string { return rootKey(o, Packages) }

// rootKey names a debootstrap root of pkgs: the suite, the packages, the
// mirror.
func rootKey(o *Options, pkgs []string) string {
	h := sha256.Sum256([]byte(Suite + "\n" + strings.Join(pkgs, ",") + "\n" + o.Mirror))
	return hex.EncodeToString(h[:])[:16]
}

const stamp = ".kbook-complete"

// baseRoot returns the Debian root file system of the node's base, made
// once with debootstrap (minbase and Packages) into the cache: a directory
// without its completion stamp is a leftover of an interrupted run and is
// made anew. It needs root and debootstrap.
func baseRoot(ctx context.Context, o *Options) (string, error) {
	return debootstrapRoot(ctx, o, "base", "the node's base", Packages)
}

// debootstrapRoot returns a Debian root file system of minbase and pkgs,
// made once into the cache under prefix (what names it in messages), as
// baseRoot describes.
func debootstrapRoot(ctx context.Context, o *Options, prefix, what string, pkgs []string) (string, error) {
	dir := filepath.Join(o.dir(), prefix+"-"+Suite+"-"+rootKey(o, pkgs))
	root := filepath.Join(dir, "rootfs")
	if _, err := os.Stat(filepath.Join(dir, stamp)); err == nil {
		return root, nil
	}
	deb, err := exec.LookPath("debootstrap")
	if err != nil {
		return "", fmt.Errorf("%s is a Debian %s root made by debootstrap, which is not installed (apt-get install debootstrap), or use a released node image (--kind-image REF) where a registry is reachable", what, Suite)
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("%s is a Debian %s root made by debootstrap, which needs root: run kbook cluster image as root once (the image is then cached), or use a released node image (--kind-image REF)", what, Suite)
	}
	// A root an earlier debootstrap did not finish (killed, or failed)
	// may still have its proc and sys mounted: unmounted first, it can
	// be removed.
	if err := unmountUnder(dir); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	o.Logger.Infof("making %s: debootstrap %s with %d packages from %s (about 3 minutes, once)", what, Suite, len(pkgs), o.Mirror)
	start := time.Now()
	cmd := exec.CommandContext(ctx, deb, "--variant=minbase", "--include="+strings.Join(pkgs, ","), Suite, root, o.Mirror)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	gobuild.KillGroupOnCancel(cmd)
	cmd.WaitDelay = 10 * time.Second
	stop := gobuild.Still(o.Logger, "debootstrap")
	err = cmd.Run()
	stop()
	if err != nil {
		// What it mounted in the root goes now, not at the next run.
		_ = unmountUnder(dir)
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return "", fmt.Errorf("debootstrap %s: %w\n%s", Suite, err, gobuild.Tail(out.String(), 3000))
	}
	// What an image never needs: package caches and lists, documentation.
	for _, p := range []string{"var/cache/apt/archives", "var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale"} {
		full := filepath.Join(root, p)
		entries, _ := os.ReadDir(full)
		for _, e := range entries {
			if e.Name() != "lock" && e.Name() != "partial" {
				_ = os.RemoveAll(filepath.Join(full, e.Name()))
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, stamp), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return "", err
	}
	o.Logger.Infof("made %s in %s", what, time.Since(start).Round(time.Second))
	return root, nil
}

// baseImage imports the base root into the engine as an image (once: it is
// tagged with the base's key).
func baseImage(ctx context.Context, d docker, o *Options, root string) (string, error) {
	ref := localRegistry + "/kind-base:" + Suite + "-" + baseKey(o)
	if id, err := d.imageID(ctx, ref); err != nil || id != "" {
		return ref, err
	}
	o.Logger.Infof("importing the node's base into the engine as %s", ref)
	// GNU tar keeps owners, modes and special bits as they are; docker
	// import reads the stream.
	tarCmd := exec.CommandContext(ctx, "tar", "-C", root, "--numeric-owner", "--xattrs", "-c", ".")
	pipe, err := tarCmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var tarErr bytes.Buffer
	tarCmd.Stderr = &tarErr
	if err := tarCmd.Start(); err != nil {
		return "", err
	}
	_, importErr := d.run(ctx, pipe, "import", "-", ref)
	if err := tarCmd.Wait(); err != nil && importErr == nil {
		return "", fmt.Errorf("tar of the base root: %w: %s", err, tarErr.String())
	}
	return ref, importErr
}
