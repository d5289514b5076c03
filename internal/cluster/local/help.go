package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/proc"
)

// Before every start envtest runs kube-apiserver and etcd with --help, to
// see which flags they have (controller-runtime
// pkg/internal/testing/controlplane: APIServer.discoverFlags looks for
// --insecure-port, Etcd for --unsafe-no-fsync). That is a whole start of
// the binary (a quarter of a second of kube-apiserver's, on the way to a
// served API) for the same text every time: the wrapper answers it from a
// file holding the binary's own output, made by running it once.

// helpFile is the file holding what bin --help prints (its combined
// output), made by running it the first time: one per binary, named by
// its path, size and modification time, so a binary rebuilt or replaced
// in place gets its own. "" when it cannot be made (the binary fails
// --help, the directory is not writable): the wrapper then runs the
// binary for it, as without a file.
func helpFile(dir, bin string) string {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	h := sha256.Sum256([]byte(abs + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)))
	file := filepath.Join(dir, filepath.Base(abs)+"-"+hex.EncodeToString(h[:12])+".txt")
	if _, err := os.Stat(file); err == nil {
		return file
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, abs, "--help")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() == 0 {
		return ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	if err := atomicfile.Write(file, out.Bytes()); err != nil {
		return ""
	}
	return file
}

// wrapBinaries wraps etcd and kube-apiserver of dir in procs, each one's
// --help answered from its help file in help/ of kbook's cache (both made
// side by side the first time).
func wrapBinaries(procs *proc.Registry, dir string) (etcd, api string, err error) {
	names := []string{binaries.Etcd, binaries.KubeAPIServer}
	helps := make([]string, len(names))
	if procs != nil {
		helpDir := filepath.Join(cache.DefaultDir(), "help")
		var wg sync.WaitGroup
		for i, name := range names {
			wg.Go(func() { helps[i] = helpFile(helpDir, filepath.Join(dir, name)) })
		}
		wg.Wait()
	}
	paths := make([]string, len(names))
	for i, name := range names {
		var opts []proc.WrapOption
		if helps[i] != "" {
			opts = append(opts, proc.WithHelp(helps[i]))
		}
		if paths[i], err = procs.Wrap(filepath.Join(dir, name), name, opts...); err != nil {
			return "", "", err
		}
	}
	return paths[0], paths[1], nil
}
