package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/findings"
)

// fakeAPIAssets makes a folder holding executables named kube-apiserver and
// etcd, as KUBEBUILDER_ASSETS names one; without exec, they are not
// executable.
func fakeAPIAssets(t *testing.T, exec bool) string {
	t.Helper()
	dir := t.TempDir()
	mode := os.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	for _, n := range []string{binaries.KubeAPIServer, binaries.Etcd} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAssets: the API server's folder comes from KUBEBUILDER_ASSETS when
// it is set (checked, never built), and an unknown k0rdent release is bad
// input, named, before anything is fetched or built.
func TestAssets(t *testing.T) {
	good, notExec := fakeAPIAssets(t, true), fakeAPIAssets(t, false)
	for _, tc := range []struct {
		name, env, k0rdent string
		want               string // the folder; "" for an error
		wantErr            []string
		input              bool // the error is a findings.InputError
	}{
		{name: "KUBEBUILDER_ASSETS", env: good, want: good},
		{name: "KUBEBUILDER_ASSETS without executables", env: notExec,
			wantErr: []string{"KUBEBUILDER_ASSETS=" + notExec, "kube-apiserver (not executable)"}},
		{name: "unknown release", env: good, k0rdent: "v0.0.1",
			wantErr: []string{"k0rdent v0.0.1", "known: v1.11.4"}, input: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(binaries.EnvAssets, tc.env)
			t.Setenv("KBOOK_CACHE_DIR", t.TempDir()) // nothing of the real cache is used
			got, err := Assets(context.Background(), AssetsOptions{K0rdent: tc.k0rdent, From: assetsfrom.Auto})
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Fatalf("Assets = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Assets = %q, want an error", got)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var ie *findings.InputError
			if errors.As(err, &ie) != tc.input {
				t.Errorf("error %v: an InputError is %v, want %v", err, !tc.input, tc.input)
			}
		})
	}
}
