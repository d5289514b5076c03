package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
)

// UpOptions are kbook cluster up's: a named cluster that outlives the
// command.
type UpOptions struct {
	// Root is the state folder (kbook's cache); Name the cluster's.
	Root, Name string
	// Cluster is the backend's (local or kind) and the logger's.
	Cluster Options
	// Exe is the kbook binary whose "cluster serve" runs a local cluster
	// in the background (default: this one).
	Exe string
}

// StartDetached starts the named cluster unless it is already up, and
// returns its state: a kind cluster kept after kbook exits, or a local
// one served by a detached "kbook cluster serve" that this waits for.
// A stale state is cleaned up first. Another backend is a
// findings.InputError; ctx cancelled stops the starting server and
// returns ctx's error.
func StartDetached(ctx context.Context, o UpOptions) (*State, error) {
	log := log.Or(o.Cluster.Logger)
	if s, err := ReadState(o.Root, o.Name); err == nil {
		if _, err := Reuse(ctx, s); err == nil {
			log.Infof("cluster %q (%s) is already up", o.Name, s.Backend)
			return s, nil
		}
		// Stale: stop what its process left running, then forget it.
		if err := Down(ctx, o.Root, s, log); err != nil {
			return nil, err
		}
	}
	switch o.Cluster.Backend {
	case Kind:
		if o.Cluster.K0rdent == "" {
			return startKind(ctx, o, log)
		}
		// k0rdent's chart registry lives in a background process, as
		// long as the cluster: cluster down stops both.
		return serveDetached(ctx, o, "", log)
	case Local:
	default:
		return nil, &findings.InputError{Err: fmt.Errorf("kbook cluster up starts local or kind clusters; for an existing cluster use kbook run --kubeconfig")}
	}
	// Build the binaries here, with progress, before the background
	// process needs them.
	dir, err := binaries.Dir(ctx, binaries.WithLogger(log), binaries.WithSource(o.Cluster.AssetsFrom))
	if err != nil {
		return nil, err
	}
	if o.Cluster.K0rdent != "" {
		r, err := controllers.K0rdent(o.Cluster.K0rdent)
		if err != nil {
			return nil, &findings.InputError{Err: err}
		}
		if _, err := controllers.K0rdentDir(ctx, r, controllers.APIOnly(o.Cluster.K0rdentAPIOnly), controllers.K0rdentLogger(log), controllers.K0rdentAssetsFrom(o.Cluster.AssetsFrom)); err != nil {
			return nil, err
		}
	}
	return serveDetached(ctx, o, dir, log)
}

// kindName is the kind cluster behind kbook cluster up's cluster name.
func kindName(name string) string {
	if name == DefaultName {
		return DefaultKindName
	}
	return DefaultKindName + "-" + name
}

func startKind(ctx context.Context, o UpOptions, log log.Logger) (*State, error) {
	c, err := Up(ctx, Options{Backend: Kind, Name: kindName(o.Name), CRDs: o.Cluster.CRDs, KindImage: o.Cluster.KindImage, KindWorkers: o.Cluster.KindWorkers, KeepCluster: true, Logger: log, Procs: o.Cluster.Procs})
	if err != nil {
		return nil, err
	}
	kc, err := c.Kubeconfig()
	if err != nil {
		return nil, err
	}
	s := &State{Name: o.Name, Backend: Kind, KindName: c.Name(), Server: c.RESTConfig().Host, Started: time.Now(), CRDs: o.Cluster.CRDs}
	if err := WriteState(o.Root, s, kc); err != nil {
		return nil, err
	}
	return s, nil
}

// serveDetached starts "kbook cluster serve" in the background with the
// local backend's binaries in dir and waits until it has written its
// state.
func serveDetached(ctx context.Context, o UpOptions, dir string, log log.Logger) (*State, error) {
	stateDir := StateDir(o.Root, o.Name)
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	logFile := filepath.Join(stateDir, "serve.log")
	lf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	exe := o.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	args := []string{"cluster", "serve", "--name", o.Name}
	if o.Cluster.Backend == Kind {
		args = append(args, "--cluster", Kind, "--kind-name", kindName(o.Name), "--kind-workers", strconv.Itoa(o.Cluster.KindWorkers), "--assets-from", o.Cluster.AssetsFrom.String())
		if o.Cluster.KindImage != "" {
			args = append(args, "--kind-image", o.Cluster.KindImage)
		}
	} else {
		args = append(args, "--assets", dir)
	}
	if o.Cluster.K0rdent != "" {
		args = append(args, "--k0rdent", o.Cluster.K0rdent)
		if o.Cluster.K0rdentAPIOnly {
			args = append(args, "--k0rdent-api-only")
		}
	}
	for _, c := range o.Cluster.CRDs {
		abs, _ := filepath.Abs(c)
		args = append(args, "--crds", abs)
	}
	serve := exec.Command(exe, args...)
	serve.Stdout, serve.Stderr = lf, lf
	Detach(serve)
	if err := serve.Start(); err != nil {
		return nil, fmt.Errorf("start cluster process: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	log.Infof("starting %s cluster %q (log: %s)", o.Cluster.Backend, o.Name, logFile)
	// The background process's progress (a plane's bootstrap, a wait for
	// another kbook's plane) is shown here as it comes.
	progress := &lineRelay{path: logFile, log: log}
	for {
		progress.relay()
		if s, err := ReadState(o.Root, o.Name); err == nil && s.PID == serve.Process.Pid {
			progress.relay()
			log.Infof("cluster %q is up at %s", o.Name, s.Server)
			return s, nil
		}
		select {
		case err := <-exited:
			progress.relay()
			return nil, fmt.Errorf("cluster process exited (%v); its log is %s", err, logFile)
		case <-ctx.Done():
			_ = serve.Process.Signal(os.Interrupt)
			<-exited
			// Interrupted before it was up: nothing of it stays (on a
			// failure its log does, for the error names it).
			_ = os.RemoveAll(stateDir)
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lineRelay sends the complete lines a growing file gains to a logger.
type lineRelay struct {
	path    string
	log     log.Logger
	off     int64
	partial []byte
}

// relay sends the lines written since the last call; a line not yet ended
// waits for its newline.
func (r *lineRelay) relay() {
	f, err := os.Open(r.path)
	if err != nil {
		return
	}
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, r.off, 1<<40))
	if err != nil {
		return
	}
	r.off += int64(len(b))
	b = append(r.partial, b...)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimRight(string(b[:i]), "\r"); line != "" {
			r.log.Infof("%s", line)
		}
		b = b[i+1:]
	}
	r.partial = append([]byte(nil), b...)
}
