package cluster

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane"
)

// etcdLike writes a directory shaped like etcd's data: a small database
// and a write-ahead log that is mostly preallocated zeros.
func etcdLike(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"member/snap/db":                  bytes.Repeat([]byte("bolt"), 5000),
		"member/wal/0000000000000000.wal": append([]byte("records"), make([]byte, 3<<20)...),
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testSnapshot(t *testing.T, crds ...string) *snapshot {
	t.Helper()
	s, err := snapshotFor(Options{Backend: Local, CRDs: crds, SnapshotDir: t.TempDir()}, "/nonexistent/assets", nil, nil)
	if err != nil || s == nil {
		t.Fatalf("snapshotFor = %v, %v", s, err)
	}
	return s
}

func TestSnapshotRoundTrip(t *testing.T) {
	data := etcdLike(t)
	s := testSnapshot(t, "testdata/crds")
	if m, err := s.manifest(); m != nil || err != nil {
		t.Fatalf("before save: manifest = %v, %v; want none", m, err)
	}
	if err := s.save(data, []string{"widgets.example.kbook.io"}, nil); err != nil {
		t.Fatal(err)
	}
	m, err := s.manifest()
	if err != nil || m == nil {
		t.Fatalf("after save: manifest = %v, %v", m, err)
	}
	if len(m.Files) != 2 || strings.Join(m.CRDs, ",") != "widgets.example.kbook.io" {
		t.Fatalf("manifest = %+v", m)
	}
	dst := t.TempDir()
	if err := s.restore(m, dst); err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		want, _ := os.ReadFile(filepath.Join(data, f.Path))
		got, err := os.ReadFile(filepath.Join(dst, f.Path))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: restored %d bytes (%v), want %d", f.Path, len(got), err, len(want))
		}
	}
}

// A snapshot that does not match its manifest, or has none, is refused
// with the reason; the caller removes it and makes it anew.
func TestSnapshotRefused(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(t *testing.T, s *snapshot)
		wantErr string // from manifest() or, if it passes, restore()
	}{
		{"a byte changed", func(t *testing.T, s *snapshot) {
			p := filepath.Join(s.dir(), "member", "snap", "db")
			b, _ := os.ReadFile(p)
			b[10] ^= 0xff
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "member/snap/db differs from its manifest"},
		{"a file cut short", func(t *testing.T, s *snapshot) {
			if err := os.Truncate(filepath.Join(s.dir(), "member", "wal", "0000000000000000.wal"), 100); err != nil {
				t.Fatal(err)
			}
		}, "member/wal/0000000000000000.wal differs from its manifest (100 bytes"},
		{"a file missing", func(t *testing.T, s *snapshot) {
			if err := os.Remove(filepath.Join(s.dir(), "member", "snap", "db")); err != nil {
				t.Fatal(err)
			}
		}, "no such file or directory"},
		{"no manifest", func(t *testing.T, s *snapshot) {
			if err := os.Remove(filepath.Join(s.dir(), manifestName)); err != nil {
				t.Fatal(err)
			}
		}, "has no " + manifestName},
		{"a manifest of another key", func(t *testing.T, s *snapshot) {
			p := filepath.Join(s.dir(), manifestName)
			b, _ := os.ReadFile(p)
			if err := os.WriteFile(p, bytes.Replace(b, []byte(s.key), []byte(strings.Repeat("0", len(s.key))), 1), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a snapshot of this key and format"},
		{"a manifest that is not JSON", func(t *testing.T, s *snapshot) {
			if err := os.WriteFile(filepath.Join(s.dir(), manifestName), []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testSnapshot(t, "testdata/crds")
			if err := s.save(etcdLike(t), nil, nil); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, s)
			m, err := s.manifest()
			if err == nil {
				err = s.restore(m, t.TempDir())
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// A plane snapshot keeps the plane's wiring beside the etcd data, mode
// 0600 (it holds the CA's key), checked against the manifest as the data
// is: a damaged file is refused (the caller rewires instead); a snapshot
// saved without one has none.
func TestSnapshotWiring(t *testing.T) {
	w := &plane.Wiring{WebhookPorts: map[string]int{"kcm": 17001, "capd-controller-manager": 17002}, CACert: []byte("cert"), CAKey: []byte("key")}
	for _, tc := range []struct {
		name    string
		wiring  *plane.Wiring
		damage  func(t *testing.T, p string)
		wantErr string
	}{
		{"kept", w, nil, ""},
		{"none saved", nil, nil, ""},
		{"a byte changed", w, func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			b[5] ^= 0xff
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "wiring.json differs from its manifest"},
		{"missing", w, func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSnapshot(t, "testdata/crds")
			if err := s.save(etcdLike(t), nil, tc.wiring); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(s.dir(), wiringName)
			if tc.wiring != nil {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("%s: %v, %v; want mode 0600", p, fi, err)
				}
			}
			if tc.damage != nil {
				tc.damage(t, p)
			}
			m, err := s.manifest()
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.wiring(m)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wiring == nil {
				if got != nil {
					t.Fatalf("wiring = %+v, want none", got)
				}
				return
			}
			if got == nil || !maps.Equal(got.WebhookPorts, w.WebhookPorts) || !bytes.Equal(got.CACert, w.CACert) || !bytes.Equal(got.CAKey, w.CAKey) {
				t.Fatalf("wiring = %+v, want %+v", got, w)
			}
		})
	}
}

// A save that was killed leaves a temporary directory only: no later run
// takes it for a snapshot, and a save an hour later removes it.
func TestSnapshotKilledSave(t *testing.T) {
	s := testSnapshot(t, "testdata/crds")
	tmp := filepath.Join(s.root, ".tmp-"+s.key+"-123")
	if err := os.MkdirAll(filepath.Join(tmp, "member", "snap"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "member", "snap", "db"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if m, err := s.manifest(); m != nil || err != nil {
		t.Fatalf("manifest = %v, %v; want no snapshot", m, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	if err := s.save(etcdLike(t), nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the killed save's %s is still there (%v)", tmp, err)
	}
	if m, err := s.manifest(); m == nil || err != nil {
		t.Fatalf("manifest = %v, %v", m, err)
	}
}

// The key changes with every input: a CRD's content, the binaries.
func TestSnapshotKey(t *testing.T) {
	dir := t.TempDir()
	crd, _ := os.ReadFile("testdata/crds/widgets.yaml")
	write := func(data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key := func(assets string) string {
		s, err := snapshotFor(Options{Backend: Local, CRDs: []string{dir}}, assets, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.key
	}
	write(crd)
	a := key("/a")
	if b := key("/a"); b != a {
		t.Errorf("same inputs, keys %s and %s", a, b)
	}
	if b := key("/b"); b == a {
		t.Errorf("other binaries, same key %s", a)
	}
	write(bytes.Replace(crd, []byte("integer"), []byte("string"), 1))
	if b := key("/a"); b == a {
		t.Errorf("a changed CRD, same key %s", a)
	}
	for _, o := range []Options{
		{Backend: Local},
		{Backend: Local, CRDs: []string{dir}, NoSnapshot: true},
		{Backend: Local, CRDs: []string{dir}, K0rdent: "v1.11.4"},
	} {
		if s, err := snapshotFor(o, "/a", nil, nil); s != nil || err != nil {
			t.Errorf("%+v: snapshot %v, %v; want none", o, s, err)
		}
	}
}

// A plane with controllers has a snapshot only with its inputs, and its
// key changes with each of them; it is never the API-only key.
func TestSnapshotKeyPlane(t *testing.T) {
	o := Options{Backend: Local, K0rdent: "v1.11.4"}
	inputs := []plane.SnapshotInput{{What: "controller kcm", Data: []byte("/bin/kcm 100 1")}, {What: "crd a.yaml", Data: []byte("a")}}
	key := func(o Options, in []plane.SnapshotInput) string {
		t.Helper()
		s, err := snapshotFor(o, "/a", nil, in)
		if err != nil || s == nil {
			t.Fatalf("snapshotFor = %v, %v", s, err)
		}
		return s.key
	}
	a := key(o, inputs)
	if b := key(o, slices.Clone(inputs)); b != a {
		t.Errorf("same inputs, keys %s and %s", a, b)
	}
	for i := range inputs {
		changed := slices.Clone(inputs)
		changed[i].Data = append(slices.Clone(changed[i].Data), 'x')
		if b := key(o, changed); b == a {
			t.Errorf("input %q changed, same key %s", inputs[i].What, a)
		}
	}
	if b := key(Options{Backend: Local, K0rdent: "v1.11.4", CRDs: []string{"testdata/crds"}}, inputs); b == a {
		t.Errorf("CRDs added, same key %s", a)
	}
	for _, o := range []Options{o, {Backend: Local, K0rdent: "v1.11.4", NoSnapshot: true}} {
		in := inputs
		if !o.NoSnapshot {
			in = nil
		}
		if s, err := snapshotFor(o, "/a", nil, in); s != nil || err != nil {
			t.Errorf("%+v with %d inputs: snapshot %v, %v; want none", o, len(in), s, err)
		}
	}
}
