package plane

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/k0rdent/kbook/internal/proc"
)

// fakeDocker puts a docker command on PATH that answers as an engine
// would the calls the plane makes for CAPD's docker backend, keeping the
// network's existence in a file and logging every call; engine false: no
// engine answers (the client's "Cannot connect" failure).
func fakeDocker(t *testing.T, engine, network bool) (calls func() string, state string) {
	t.Helper()
	dir := t.TempDir()
	state = filepath.Join(dir, "network")
	if network {
		if err := os.WriteFile(state, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logf := filepath.Join(dir, "calls")
	noEngine := ""
	if !engine {
		noEngine = `echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1`
	}
	script := `#!/bin/sh
echo "$*" >> ` + logf + `
` + noEngine + `
case "$*" in
"version --format {{.Server.Version}}") echo 20.10.24 ;;
"network inspect --format {{.Name}} kind") [ -f ` + state + ` ] || { echo "Error: No such network: kind" >&2; exit 1; }; echo kind ;;
"network inspect bridge --format "*) echo 1450 ;;
"network create "*" kind") touch ` + state + ` ;;
"ps -a -q --filter label=io.x-k8s.kind.cluster=dev-1") printf 'c1\nc2\n' ;;
"ps -a -q --filter label=io.x-k8s.kind.cluster="*) ;;
"rm -f -v c1 c2") ;;
"network inspect --format {{len .Containers}} kind") echo 0 ;;
"network rm kind") rm -f ` + state + ` ;;
*) echo "unexpected: $*" >&2; exit 3 ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"/usr/bin:/bin")
	return func() string { b, _ := os.ReadFile(logf); return string(b) }, state
}

// clusterList is the plane's DockerClusters as a test sets them.
type clusterList struct {
	mu    sync.Mutex
	names []string
	err   error
	calls int
}

// settled waits until keep has listed twice more: whatever it did with
// the list it had before is done.
func (c *clusterList) settled(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	n := c.calls
	c.mu.Unlock()
	eventually(t, "keep does not list the DockerClusters", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.calls >= n+2
	})
}

func (c *clusterList) set(err error, names ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names, c.err = names, err
}

func (c *clusterList) list() ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	return c.names, c.err
}

// eventually waits for cond, failing with what after a while.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestCAPDEngine: with an engine, the plane makes CAPD's network as kind
// does once it has a DockerCluster (not before: a plane that makes no
// docker machines leaves the engine alone), makes it again when it goes
// meanwhile, removes it once no DockerCluster is left, and at close
// removes the containers CAPD left of the DockerClusters it had.
func TestCAPDEngine(t *testing.T) {
	calls, state := fakeDocker(t, true, false)
	defer func(d time.Duration) { keepEvery = d }(keepEvery)
	keepEvery = 10 * time.Millisecond
	out := &lines{}
	var cl clusterList
	e := startEngine(context.Background(), out, "the plane", cl.list)
	if e == nil {
		t.Fatalf("no engine: %s", out)
	}
	if !strings.Contains(out.String(), `CAPD's docker backend: Docker 20.10.24 (network "kind" while the plane has a DockerCluster)`) {
		t.Errorf("log: %s", out)
	}
	cl.settled(t)
	if strings.Contains(calls(), "network create") {
		t.Fatalf("network made without a DockerCluster:\n%s", calls())
	}
	cl.set(nil, "dev-1")
	eventually(t, "network not made for a DockerCluster", func() bool { return exists(state) })
	if c := calls(); !strings.Contains(c, "network create -d=bridge -o com.docker.network.bridge.enable_ip_masquerade=true --label io.k0rdent.kbook.plane=") ||
		!strings.Contains(c, "-o com.docker.network.driver.mtu=1450 kind") {
		t.Errorf("network not made as kind makes it:\n%s", c)
	}
	// kind deletes its network with its last cluster: the plane makes it
	// again; an API server that does not answer changes nothing.
	cl.set(errors.New("API server busy"))
	cl.settled(t)
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	cl.settled(t)
	if exists(state) {
		t.Fatal("network made while the DockerClusters are unknown")
	}
	cl.set(nil, "dev-1")
	eventually(t, "network not made again", func() bool { return exists(state) })
	// The last DockerCluster gone, the network the plane made goes.
	cl.set(nil)
	eventually(t, "network left after the last DockerCluster", func() bool { return !exists(state) })
	cl.set(nil, "dev-1")
	eventually(t, "network not made for a new DockerCluster", func() bool { return exists(state) })

	e.close([]string{"dev-1", "dev-2"})
	if !strings.Contains(out.String(), "removed 2 container(s) CAPD left of DockerCluster dev-1") || strings.Contains(out.String(), "dev-2") {
		t.Errorf("log: %s", out)
	}
	if !strings.Contains(calls(), "rm -f -v c1 c2\n") {
		t.Errorf("left containers not removed:\n%s", calls())
	}
	if exists(state) {
		t.Errorf("the network the plane made is still there:\n%s", calls())
	}
	if strings.Contains(out.String(), "cleaning up") {
		t.Errorf("close failed: %s", out)
	}
}

// TestCAPDEngineNetworkThere: a network that was there (kind's, another
// plane's) is used and left alone.
func TestCAPDEngineNetworkThere(t *testing.T) {
	calls, state := fakeDocker(t, true, true)
	defer func(d time.Duration) { keepEvery = d }(keepEvery)
	keepEvery = 10 * time.Millisecond
	out := &lines{}
	var cl clusterList
	cl.set(nil, "dev-1")
	e := startEngine(context.Background(), out, "the plane", cl.list)
	if e == nil {
		t.Fatalf("no engine: %s", out)
	}
	eventually(t, "network not looked at", func() bool { return strings.Contains(calls(), "network inspect --format {{.Name}} kind") })
	cl.set(nil)
	cl.settled(t)
	e.close(nil)
	if strings.Contains(calls(), "network create") || strings.Contains(calls(), "network rm") {
		t.Errorf("network made or removed:\n%s", calls())
	}
	if !exists(state) {
		t.Error("the network that was there is gone")
	}
}

// TestCAPDEngineNone: without an engine, or without a docker command, the
// plane runs CAPD without its docker backend, saying so when a docker
// command is there but no engine answers; close is a no-op.
func TestCAPDEngineNone(t *testing.T) {
	calls, _ := fakeDocker(t, false, false)
	out := &lines{}
	none := func() ([]string, error) { return []string{"dev-1"}, nil }
	e := startEngine(context.Background(), out, "the plane", none)
	if e != nil {
		t.Fatal("an engine without one answering")
	}
	if !strings.Contains(out.String(), "CAPD's docker backend: no container engine answers, so docker machines cannot be made") || !strings.Contains(out.String(), "Cannot connect to the Docker daemon") {
		t.Errorf("log: %s", out)
	}
	if strings.Contains(calls(), "network") {
		t.Errorf("network calls without an engine:\n%s", calls())
	}
	e.close([]string{"dev-1"}) // nil: nothing

	t.Setenv("PATH", t.TempDir())
	out = &lines{}
	if e := startEngine(context.Background(), out, "the plane", none); e != nil || out.String() != "" {
		t.Errorf("no docker command: engine %v, log %q", e, out)
	}
}

// TestDockerClustersLister: the lister reports an API server that does not
// answer as an error, not as no DockerCluster (which would remove the
// network under CAPD's machines).
func TestDockerClustersLister(t *testing.T) {
	list := dockerClusters(&rest.Config{Host: "https://127.0.0.1:1", Timeout: time.Second})
	if names, err := list(); err == nil {
		t.Errorf("no API server: %v, no error", names)
	}
}

// TestCAPDEngineRecordsClusters: each DockerCluster the plane sees is
// recorded once in the process registry, under the kind of kind clusters
// (CAPD's containers carry kind's label), so a later kbook removes the
// containers of a plane killed with kill -9.
func TestCAPDEngineRecordsClusters(t *testing.T) {
	root := t.TempDir()
	reg, err := proc.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	e := &capdEngine{}
	e.record(reg)
	e.track([]string{"dev-1", "dev-1", "dev-2"})
	entries, _ := os.ReadDir(reg.Dir())
	n := 0
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), "x-") {
			n++
		}
	}
	if n != 2 || len(e.recorded) != 2 {
		t.Errorf("%d records, %d recorded; want 2 (one per DockerCluster)", n, len(e.recorded))
	}
	var none *capdEngine
	none.record(reg) // no engine: nothing to record, no panic
	(&capdEngine{}).track([]string{"x"})
}
