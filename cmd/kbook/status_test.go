package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/proc"
)

// errInterrupted is why a command's context is cancelled on Ctrl-C.
var errInterrupted = proc.ErrInterrupted

// Ctrl-C ends kbook status, --watch or not, with 130 as it ends every
// command (it exited 0). The context is cancelled before the command
// starts, so no server is needed: the kubeconfig names one that is never
// contacted before the cancellation is seen.
func TestStatusInterruptedExits130(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: ns}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"status", "dev-1", "--kubeconfig", kubeconfig},
		{"status", "dev-1", "--watch", "--kubeconfig", kubeconfig},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errInterrupted)
		if code := execute(ctx, args, os.Stdout, os.Stderr); code != 130 {
			t.Errorf("kbook %v, interrupted: exit %d, want 130", args, code)
		}
	}
}
