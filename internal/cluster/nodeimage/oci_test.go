package nodeimage

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestWriteTar(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	os.WriteFile(bin, []byte("\x7fELF"), 0o600)
	var buf bytes.Buffer
	err := writeTar(&buf, []entry{
		fileEntry("/usr/local/bin/prog", bin, true),
		{Name: "/etc/conf", Data: []byte("x=1\n")},
		{Name: "/bin/sh", Link: "busybox"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(epoch) || h.Uid != 0 || h.Uname != "root" {
			t.Errorf("%s: time %v, owner %d %s: want epoch and root", h.Name, h.ModTime, h.Uid, h.Uname)
		}
		got = append(got, h.Name+" "+os.FileMode(h.Mode).String())
	}
	// Sorted, every parent folder present, the program executable
	// whatever its mode on disk.
	want := []string{"bin/ -rwxr-xr-x", "bin/sh -rwxrwxrwx", "etc/ -rwxr-xr-x", "etc/conf -rw-r--r--",
		"usr/ -rwxr-xr-x", "usr/local/ -rwxr-xr-x", "usr/local/bin/ -rwxr-xr-x", "usr/local/bin/prog -rwxr-xr-x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tar =\n %v\nwant\n %v", got, want)
	}
}

func TestBinaryImage(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hello")
	os.WriteFile(bin, []byte("#!/bin/sh\necho hello\n"), 0o755)
	ref := "kbook.local/hello:v1"
	var digests []string
	for i := 0; i < 2; i++ {
		archive := filepath.Join(dir, "img.tar")
		if err := BinaryImage(archive, ref, bin); err != nil {
			t.Fatal(err)
		}
		tag, _ := name.NewTag(ref)
		img, err := tarball.ImageFromPath(archive, &tag)
		if err != nil {
			t.Fatalf("the archive does not hold %s: %v", ref, err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cf.Config.Entrypoint, []string{"/usr/local/bin/hello"}) || cf.OS != "linux" || len(cf.Config.Env) == 0 {
			t.Errorf("config: entrypoint %v, os %s, env %v", cf.Config.Entrypoint, cf.OS, cf.Config.Env)
		}
		layers, _ := img.Layers()
		if len(layers) != 1 {
			t.Fatalf("%d layers, want 1", len(layers))
		}
		d, _ := img.Digest()
		digests = append(digests, d.String())
	}
	// The same program makes the same image: its digest depends on content
	// alone (the cache key of node images relies on it).
	if digests[0] != digests[1] {
		t.Errorf("two builds of one program: digests %s and %s", digests[0], digests[1])
	}
}

// TestProgramImageUser: a program image of a non-root user runs as it,
// with HOME the writable /tmp; root's has no HOME set (the runtime's).
func TestProgramImageUser(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "manager")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	for user, wantHome := range map[string]bool{"65532:65532": true, "1000": true, "": false, "0:0": false} {
		archive := filepath.Join(dir, "img.tar")
		ref := "kbook.local/manager:v1"
		if err := WriteProgramImage(archive, ProgramImage{Ref: ref, Bin: bin, Path: "/manager", User: user}); err != nil {
			t.Fatal(err)
		}
		tag, _ := name.NewTag(ref)
		img, err := tarball.ImageFromPath(archive, &tag)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.Config.User != user || slices.Contains(cf.Config.Env, "HOME=/tmp") != wantHome {
			t.Errorf("user %q: config user %q, env %v", user, cf.Config.User, cf.Config.Env)
		}
	}
}
