package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
)

// TestCommand runs the command as make test does: it prints the folder and
// exits 0, and bad input is one line on stderr and exit 2.
func TestCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kbook-assets")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	assets := t.TempDir()
	for _, n := range []string{binaries.KubeAPIServer, binaries.Etcd} {
		if err := os.WriteFile(filepath.Join(assets, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		out, inErr string
	}{
		{"the API server's folder", nil, 0, assets + "\n", ""},
		{"a bad --assets-from", []string{"-assets-from", "elsewhere"}, 2, "", `kbook-assets: --assets-from "elsewhere": want auto, download, build`},
		{"an argument", []string{"extra"}, 2, "", `kbook-assets: unexpected arguments ["extra"]`},
		{"an unknown release", []string{"-k0rdent", "v0.0.1"}, 2, "", "kbook-assets: k0rdent v0.0.1: kbook has no pins for it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(os.Environ(), binaries.EnvAssets+"="+assets, "KBOOK_CACHE_DIR="+t.TempDir())
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || stdout.String() != tc.out || !strings.Contains(stderr.String(), tc.inErr) {
				t.Errorf("kbook-assets %q: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q",
					tc.args, code, stdout.String(), stderr.String(), tc.code, tc.out, tc.inErr)
			}
		})
	}
}
