package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/proc"
)

func TestDetectRuntime(t *testing.T) {
	noEngine := "Client:\n Version: 28.2.2\nCannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"
	tests := []struct {
		name    string
		answers map[string]error
		outputs map[string]string
		want    string
		wantErr string
	}{
		{"docker answers", map[string]error{"docker": nil}, nil, "docker", ""},
		{"docker client without engine, podman answers",
			map[string]error{"docker": errors.New("exit status 1"), "podman": nil},
			map[string]string{"docker": noEngine}, "podman", ""},
		{"nothing runs",
			map[string]error{"docker": errors.New("exit status 1"), "podman": errors.New("not installed"), "nerdctl": errors.New("not installed")},
			map[string]string{"docker": noEngine}, "",
			"no container runtime is running (docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?; podman: not installed; nerdctl: not installed): start Docker (sudo systemctl start docker; without systemd, dockerd & as root) - see https://docs.docker.com/engine/install/ and kbook's kind page"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := func(name string, args ...string) (string, error) {
				if strings.Join(args, " ") != "info" {
					t.Fatalf("ran %s %v", name, args)
				}
				err, ok := tc.answers[name]
				if !ok {
					err = errors.New("not installed")
				}
				return tc.outputs[name], err
			}
			rt, err := detectRuntime(run)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || !errors.Is(err, ErrNoRuntime) {
					t.Fatalf("error = %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || rt.Name != tc.want {
				t.Fatalf("runtime = %q, %v; want %q", rt.Name, err, tc.want)
			}
		})
	}
}

// TestUnownedKindName: a kind cluster another running kbook made (or is
// making) is not reused: the default name gives way to the first free
// kbook-N, a name given is an error; a cluster no running kbook owns is
// used as it is.
func TestUnownedKindName(t *testing.T) {
	root := t.TempDir()
	mine, err := proc.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	other, err := proc.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var heard gobuild.Lines
	if n, err := unowned(DefaultKindName, []string{DefaultKindName}, mine, &heard); n != DefaultKindName || err != nil {
		t.Errorf("nobody's cluster: %q %v, want it reused", n, err)
	}
	for _, n := range []string{DefaultKindName, DefaultKindName + "-2", "mine"} {
		if err := other.TrackExternal(proc.External{Kind: kindReaper, Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := unowned(DefaultKindName, []string{DefaultKindName, DefaultKindName + "-3"}, mine, &heard)
	if n != DefaultKindName+"-4" || err != nil {
		t.Errorf("another kbook's default cluster: %q %v, want kbook-4 (kbook-2 is another's, kbook-3 exists)", n, err)
	}
	if !strings.Contains(heard.String(), `kind cluster "kbook" belongs to another kbook (pid `) || !strings.Contains(heard.String(), `this run makes "kbook-4"`) {
		t.Errorf("said: %s", heard.String())
	}
	if _, err := unowned("mine", nil, mine, &heard); err == nil || !strings.Contains(err.Error(), `kind cluster "mine" belongs to another kbook`) {
		t.Errorf("a name given, another's: %v", err)
	}
	if n, err := unowned(DefaultKindName, nil, nil, &heard); n != DefaultKindName || err != nil {
		t.Errorf("no registry: %q %v", n, err)
	}
}

// TestEngineSocketMount: the node gets the engine's socket where CAPD's
// Deployment mounts it from, from DOCKER_HOST's unix path or the default.
func TestEngineSocketMount(t *testing.T) {
	for host, want := range map[string]string{"": "/var/run/docker.sock", "unix:///run/user/0/docker.sock": "/run/user/0/docker.sock", "tcp://10.0.0.1:2375": "/var/run/docker.sock"} {
		t.Setenv("DOCKER_HOST", host)
		m := engineSocketMount()
		if len(m) != 1 || m[0].HostPath != want || m[0].ContainerPath != "/var/run/docker.sock" {
			t.Errorf("DOCKER_HOST=%q: %+v, want %s mounted at /var/run/docker.sock", host, m, want)
		}
	}
}
