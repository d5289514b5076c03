package nodeimage

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fakeRoot writes a small Debian root: a dpkg database whose tool depends
// on a library (through Pre-Depends with an architecture qualifier), on
// libc, and on a virtual package another provides; a package that is only
// configured, not installed; and the alternatives dpkg made for tool. The
// files are made here, not stored: dpkg's "pkg:arch.list" names hold a
// colon, which a Go module's files may not.
func fakeRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"var/lib/dpkg/status": `Package: tool
Status: install ok installed
Architecture: amd64
Version: 1.0-1
Depends: libtool1 (>= 1.0), libc6 (>= 2.34), awk | mawk
Description: a tool
 over lines

Package: libtool1
Status: install ok installed
Architecture: amd64
Pre-Depends: libc6:any
Depends: netbase

Package: libc6
Status: install ok installed
Architecture: amd64

Package: mawk
Status: install ok installed
Architecture: amd64
Provides: awk

Package: netbase
Status: deinstall ok config-files
Architecture: all

Package: unrelated
Status: install ok installed
Architecture: amd64
`,
		"var/lib/dpkg/info/tool.list":           "/.\n/usr\n/usr/sbin\n/usr/sbin/tool-nft\n/usr/share/doc/tool\n/usr/share/doc/tool/copyright\n",
		"var/lib/dpkg/info/libtool1:amd64.list": "/.\n/usr\n/usr/lib\n/usr/lib/libtool.so.1\n",
		"var/lib/dpkg/info/libc6:amd64.list":    "/.\n/usr/lib/libc.so.6\n",
		"var/lib/dpkg/info/mawk.list":           "/.\n/usr/bin/mawk\n",
		"var/lib/dpkg/info/unrelated.list":      "/.\n/usr/bin/unrelated\n",
		"var/lib/dpkg/alternatives/tool":        "auto\n/usr/sbin/tool\ntool-save\n/usr/sbin/tool-save\n\n/usr/sbin/tool-nft\n20\n/usr/sbin/tool-nft-save\n\n",
		"var/lib/dpkg/alternatives/other":       "auto\n/usr/bin/other\n\n/usr/bin/elsewhere\n10\n\n",
		"usr/sbin/tool-nft":                     "#!/bin/sh\necho nft\n",
		"usr/lib/libtool.so.1":                  "lib",
		"usr/lib/libc.so.6":                     "c",
		"usr/bin/mawk":                          "awk",
		"usr/share/doc/tool/copyright":          "c",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "usr/sbin/tool-nft"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "etc/alternatives"), 0o755)
	for link, target := range map[string]string{
		"etc/alternatives/tool":      "/usr/sbin/tool-nft",
		"etc/alternatives/tool-save": "/usr/sbin/tool-nft-save",
		"etc/alternatives/other":     "/usr/bin/elsewhere",
		"usr/sbin/tool":              "/etc/alternatives/tool",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDpkgClosure(t *testing.T) {
	db, err := readDpkg(fakeRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.closure("tool")
	if err != nil {
		t.Fatal(err)
	}
	// netbase is only configured, so libtool1's dependency on it is
	// dropped; awk is mawk's; unrelated is not pulled in.
	if want := []string{"libc6", "libtool1", "mawk", "tool"}; !reflect.DeepEqual(got, want) {
		t.Errorf("closure = %v, want %v", got, want)
	}
	if _, err := db.closure("netbase"); err == nil {
		t.Error("closure of a package that is not installed: want an error")
	}
}

func TestDpkgFiles(t *testing.T) {
	root := fakeRoot(t)
	db, err := readDpkg(root)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, _ := db.closure("tool")
	files, err := db.files(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	// The documentation is left out; the alternatives whose choice is a
	// file of these packages come with both their links (tool-save's
	// choice, tool-nft-save, is not among the files: left out), other's
	// not at all.
	want := []string{"/etc/alternatives/tool", "/usr", "/usr/bin/mawk", "/usr/lib", "/usr/lib/libc.so.6", "/usr/lib/libtool.so.1", "/usr/sbin", "/usr/sbin/tool", "/usr/sbin/tool-nft"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files =\n %v\nwant\n %v", files, want)
	}
	entries, err := rootEntries(root, files)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, e := range entries {
		switch {
		case e.Link != "":
			kinds[e.Name] = "-> " + e.Link
		case e.Dir:
			kinds[e.Name] = "dir"
		default:
			kinds[e.Name] = e.Mode.String()
		}
	}
	if kinds["/usr/sbin/tool"] != "-> /etc/alternatives/tool" || kinds["/etc/alternatives/tool"] != "-> /usr/sbin/tool-nft" ||
		kinds["/usr/sbin/tool-nft"] != "-rwxr-xr-x" || kinds["/usr/lib"] != "dir" || kinds["/usr/lib/libc.so.6"] != "-rw-r--r--" {
		t.Errorf("entries = %v", kinds)
	}
}

func TestReadDpkgEmpty(t *testing.T) {
	root := t.TempDir()
	if _, err := readDpkg(root); err == nil {
		t.Error("no dpkg database: want an error")
	}
	os.MkdirAll(filepath.Join(root, "var/lib/dpkg"), 0o755)
	os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), []byte("Package: x\nStatus: purge ok not-installed\n"), 0o644)
	if _, err := readDpkg(root); err == nil {
		t.Error("no installed package: want an error")
	}
}
