package cluster

import (
	"errors"
	"strings"
	"testing"
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
