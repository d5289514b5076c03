package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/examples/providers/inventory/inventory"
)

// TestReadURLFile: list --url-file takes a URL only once the file holds a
// whole line. (A soak of the runbooks lost a run to list reading the empty
// file os.WriteFile had just created: it then polled "" for 20 s.)
func TestReadURLFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          string // "" = not yet
	}{
		{"missing", "-", ""},
		{"empty", "", ""},
		{"half written", "http://127.0.0", ""},
		{"blank line", "\n", ""},
		{"whole", "http://127.0.0.1:4321\n", "http://127.0.0.1:4321"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if tc.content != "-" {
				if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := readURLFile(p)
			if tc.want == "" && err == nil {
				t.Errorf("readURLFile(%q) = %q, want an error (not yet)", tc.content, got)
			}
			if tc.want != "" && (err != nil || got != tc.want) {
				t.Errorf("readURLFile(%q) = %q, %v, want %q", tc.content, got, err, tc.want)
			}
		})
	}
}

// TestWriteAtomic: the file has all of its content and the temporary file
// is gone; rewriting replaces it whole.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "addr")
	for _, content := range []string{"http://127.0.0.1:1\n", "http://127.0.0.1:22\n"} {
		if err := writeAtomic(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if data, err := os.ReadFile(p); err != nil || string(data) != content {
			t.Fatalf("after writeAtomic: %q, %v, want %q", data, err, content)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want only addr", len(entries))
	}
	if err := writeAtomic(filepath.Join(dir, "missing", "addr"), []byte("x\n")); err == nil {
		t.Error("writeAtomic into a missing folder: no error")
	}
}

// TestListFromURLFile: list reads the server's URL from an --addr-file
// written by writeAtomic and lists its machines; a missing URL is exit 2.
func TestListFromURLFile(t *testing.T) {
	srv := httptest.NewServer(inventory.NewServer("tok", inventory.Pool(2, []string{"zone-a"})))
	defer srv.Close()
	dir := t.TempDir()
	addr, tok := filepath.Join(dir, "addr"), filepath.Join(dir, "token")
	if err := writeAtomic(addr, []byte(srv.URL+"\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tok, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rc := list([]string{"--url-file", addr, "--token-file", tok, "--wait", "30s"}); rc != 0 {
		t.Errorf("list = %d, want 0", rc)
	}
	if rc := list([]string{"--token-file", tok}); rc != 2 {
		t.Errorf("list without a URL = %d, want 2", rc)
	}
}
