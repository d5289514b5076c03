package nodeimage

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// lbRoot writes a small merged-/usr Debian root (/bin -> usr/bin, /lib ->
// usr/lib, as bookworm's debootstrap makes it) whose dpkg database has
// haproxy, depending on a library and on adduser (which depends on
// passwd), coreutils and dash listing their files under /bin as bookworm's
// packages do; without haproxy when installed is false.
func lbRoot(t *testing.T, installed bool) string {
	t.Helper()
	root := t.TempDir()
	status := `Package: coreutils
Status: install ok installed
Architecture: amd64
Pre-Depends: libc6

Package: dash
Status: install ok installed
Architecture: amd64

Package: libc6
Status: install ok installed
Architecture: amd64

Package: liblua5.3-0
Status: install ok installed
Architecture: amd64

Package: adduser
Status: install ok installed
Architecture: all
Depends: passwd

Package: passwd
Status: install ok installed
Architecture: amd64
`
	if installed {
		status += `
Package: haproxy
Status: install ok installed
Architecture: amd64
Version: 2.6.12-1+deb12u3
Depends: libc6 (>= 2.34), liblua5.3-0, adduser
`
	}
	files := map[string]string{
		"var/lib/dpkg/status":                      status,
		"var/lib/dpkg/info/haproxy.list":           "/.\n/usr\n/usr/sbin\n/usr/sbin/haproxy\n/etc/haproxy\n/etc/haproxy/haproxy.cfg\n",
		"var/lib/dpkg/info/coreutils.list":         "/.\n/bin\n/bin/cp\n/bin/mkdir\n",
		"var/lib/dpkg/info/dash.list":              "/.\n/bin\n/bin/dash\n",
		"var/lib/dpkg/info/libc6:amd64.list":       "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libc.so.6\n",
		"var/lib/dpkg/info/liblua5.3-0:amd64.list": "/.\n/usr/lib/x86_64-linux-gnu/liblua5.3.so.0\n",
		"var/lib/dpkg/info/adduser.list":           "/.\n/usr/sbin/adduser\n",
		"var/lib/dpkg/info/passwd.list":            "/.\n/usr/sbin/useradd\n",
		"usr/sbin/haproxy":                         "haproxy",
		"etc/haproxy/haproxy.cfg":                  "debian's",
		"usr/bin/cp":                               "cp",
		"usr/bin/mkdir":                            "mkdir",
		"usr/bin/dash":                             "dash",
		"usr/lib/x86_64-linux-gnu/libc.so.6":       "c",
		"usr/lib/x86_64-linux-gnu/liblua5.3.so.0":  "lua",
		"usr/sbin/adduser":                         "adduser",
		"usr/sbin/useradd":                         "useradd",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"bin": "usr/bin", "lib": "usr/lib", "sbin": "usr/sbin"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestLoadBalancerImageDef: the image holds haproxy, cp, mkdir and dash
// with what they depend on but adduser's side, every file at its real
// place under /usr with the merged-/usr links kept (a file below /bin in
// the tar would fail docker load), and kbook's own files; CAPD's
// entrypoint finds the wrapper first on PATH.
func TestLoadBalancerImageDef(t *testing.T) {
	key := LoadBalancerKey()
	def, version, err := lbImageDef(lbRoot(t, true), key)
	if err != nil {
		t.Fatal(err)
	}
	if version != "2.6.12-1+deb12u3" {
		t.Errorf("haproxy version %q", version)
	}
	if want := "kbook.local/haproxy:" + LoadBalancerTag(key); def.Ref != want || !strings.HasPrefix(LoadBalancerTag(key), "bookworm-") {
		t.Errorf("ref %s, want %s", def.Ref, want)
	}
	if strings.Join(def.Entrypoint, " ") != "haproxy -W -db -f /usr/local/etc/haproxy/haproxy.cfg" || def.Labels[LoadBalancerLabel] != key {
		t.Errorf("entrypoint %v, labels %v", def.Entrypoint, def.Labels)
	}
	if len(def.Layers) != 2 {
		t.Fatalf("%d layers", len(def.Layers))
	}
	got := map[string]entry{}
	var names []string
	for _, l := range def.Layers {
		for _, e := range l {
			got[e.Name] = e
			names = append(names, e.Name)
		}
	}
	sort.Strings(names)
	for _, want := range []string{"/usr/sbin/haproxy", "/usr/bin/cp", "/usr/bin/mkdir", "/usr/bin/dash", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/liblua5.3.so.0", "/etc/haproxy/haproxy.cfg", LoadBalancerConfig, "/usr/local/sbin/haproxy", "/etc/haproxy/kbook-limits.cfg"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %s in %v", want, names)
		}
	}
	for _, gone := range []string{"/usr/sbin/adduser", "/usr/sbin/useradd", "/bin/cp", "/lib/x86_64-linux-gnu/libc.so.6"} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s in the image", gone)
		}
	}
	for link, target := range map[string]string{"/bin": "usr/bin", "/lib": "usr/lib", "/sbin": "usr/sbin"} {
		if e := got[link]; e.Link != target {
			t.Errorf("%s: %+v, want a link to %s", link, e, target)
		}
	}
	if w := got["/usr/local/sbin/haproxy"]; w.Mode != 0o755 || !strings.Contains(string(w.Data), `exec /usr/sbin/haproxy "$@" -f /etc/haproxy/kbook-limits.cfg`) {
		t.Errorf("wrapper: mode %o\n%s", w.Mode, w.Data)
	}
	if c := got["/etc/haproxy/kbook-limits.cfg"]; !strings.Contains(string(c.Data), "no strict-limits") {
		t.Errorf("limits:\n%s", c.Data)
	}
	if got["/tmp"].Mode != 0o1777 {
		t.Errorf("/tmp mode %o", got["/tmp"].Mode)
	}
	// The image's layers are a tar docker load takes: every file at a
	// path whose parents are directories or links to ones.
	dir := t.TempDir()
	if _, err := buildImage(dir, "amd64", def); err != nil {
		t.Fatal(err)
	}
}

// TestLoadBalancerImageDefNoHAProxy: a root without haproxy (a
// debootstrap that did not install it) is an error naming the package.
func TestLoadBalancerImageDefNoHAProxy(t *testing.T) {
	_, _, err := lbImageDef(lbRoot(t, false), LoadBalancerKey())
	if err == nil || !strings.Contains(err.Error(), "package haproxy is not installed") {
		t.Fatalf("error %v", err)
	}
}

// TestLoadBalancerKey: the key changes with what the image is made of.
func TestLoadBalancerKey(t *testing.T) {
	k := LoadBalancerKey()
	if len(k) != 64 || k != LoadBalancerKey() {
		t.Fatalf("key %q not stable", k)
	}
	defer func(p []string) { lbImagePackages = p }(lbImagePackages)
	lbImagePackages = append([]string{"procps"}, lbImagePackages...)
	if LoadBalancerKey() == k {
		t.Error("the key does not change with the image's packages")
	}
}
