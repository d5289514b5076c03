package release

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// installScript is the script action.yml runs, relative to this package.
const installScript = "../../hack/install.sh"

// releaseHost serves release folders as GitHub does:
// /download/<tag>/<file>, and /latest/download/<file> for the tag latest
// names. It records the paths asked for.
type releaseHost struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string
}

func newReleaseHost(t *testing.T, root, latest string) *releaseHost {
	h := &releaseHost{}
	files := http.FileServer(http.Dir(root))
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.asked = append(h.asked, r.URL.Path)
		h.mu.Unlock()
		if rest, ok := strings.CutPrefix(r.URL.Path, "/latest/download/"); ok {
			r.URL.Path = "/download/" + latest + "/" + rest
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *releaseHost) paths() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.asked...)
}

// fakeRelease writes a release of tag for this platform into
// root/download/<tag>/: an archive whose kbook is a script that says it is
// kbook <says>, and SHA256SUMS.
func fakeRelease(t *testing.T, root, tag, says string) string {
	t.Helper()
	dir := filepath.Join(root, "download", tag)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "kbook")
	body := "#!/bin/sh\necho 'kbook " + says + " (commit 0123456789ab, " + Host().String() + " go1.26.8)'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeArchive(filepath.Join(dir, Host().Archive()), script, time.Unix(1_800_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := writeSums(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runInstall runs the install script with env (and PATH) and returns its
// output.
func runInstall(t *testing.T, env ...string) (string, error) {
	t.Helper()
	// Read here, not only by sh: go test's cache then knows the test
	// depends on the script.
	if _, err := os.ReadFile(installScript); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", installScript)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestInstallScript: the install script installs a release archive whose
// SHA-256 is the one SHA256SUMS lists, from a tag's address or latest's,
// and tells GitHub Actions the folder and version; it refuses, installing
// nothing and leaving a kbook already there as it was, an archive whose
// digest differs from SHA256SUMS or from KBOOK_SHA256, a SHA256SUMS that
// does not list it, an archive of another version, a release that is not
// there and a platform kbook is not released for.
func TestInstallScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("neither curl nor wget: the install script cannot download")
		}
	}
	root := t.TempDir()
	good := fakeRelease(t, root, "v1.0.0", "v1.0.0")
	fakeRelease(t, root, "v1.1.0", "v0.9.0") // an archive of another version
	tampered := fakeRelease(t, root, "v1.2.0", "v1.2.0")
	// The archive changes after SHA256SUMS was written: a corrupt or
	// replaced download.
	other := filepath.Join(t.TempDir(), "kbook")
	if err := os.WriteFile(other, []byte("#!/bin/sh\necho 'kbook v1.2.0 (evil)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeArchive(filepath.Join(tampered, Host().Archive()), other, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	unlisted := fakeRelease(t, root, "v1.3.0", "v1.3.0")
	if err := os.WriteFile(filepath.Join(unlisted, SumsFile), []byte(strings.Repeat("0", 64)+"  kbook-plan9-mips.tar.gz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goodSum, err := hashFile(filepath.Join(good, Host().Archive()))
	if err != nil {
		t.Fatal(err)
	}
	host := newReleaseHost(t, root, "v1.0.0")

	t.Run("installs", func(t *testing.T) {
		for _, tc := range []struct{ version, path string }{
			{"v1.0.0", "/download/v1.0.0/"},
			{"latest", "/latest/download/"},
		} {
			dir, gh := t.TempDir(), t.TempDir()
			out, err := runInstall(t, "KBOOK_VERSION="+tc.version, "KBOOK_BASE_URL="+host.URL+"/", "KBOOK_INSTALL_DIR="+dir,
				"KBOOK_SHA256="+goodSum.SHA256, "GITHUB_PATH="+filepath.Join(gh, "path"), "GITHUB_OUTPUT="+filepath.Join(gh, "output"))
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.version, err, out)
			}
			if !strings.Contains(out, "installed kbook v1.0.0") || !strings.Contains(out, goodSum.SHA256) {
				t.Errorf("%s: output %q", tc.version, out)
			}
			said, err := exec.Command(filepath.Join(dir, "kbook"), "version").Output()
			if err != nil || !strings.HasPrefix(string(said), "kbook v1.0.0 ") {
				t.Errorf("%s: installed kbook says %q, %v", tc.version, said, err)
			}
			ghPath, _ := os.ReadFile(filepath.Join(gh, "path"))
			ghOut, _ := os.ReadFile(filepath.Join(gh, "output"))
			if string(ghPath) != dir+"\n" || string(ghOut) != "version=v1.0.0\npath="+filepath.Join(dir, "kbook")+"\n" {
				t.Errorf("%s: GITHUB_PATH %q, GITHUB_OUTPUT %q", tc.version, ghPath, ghOut)
			}
			asked := strings.Join(host.paths(), " ")
			for _, f := range []string{SumsFile, Host().Archive()} {
				if !strings.Contains(asked, tc.path+f) {
					t.Errorf("%s: %s%s not asked for: %s", tc.version, tc.path, f, asked)
				}
			}
		}
	})

	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"archive differs from SHA256SUMS", []string{"KBOOK_VERSION=v1.2.0"}, "checksum mismatch for " + Host().Archive() + ": SHA256SUMS says"},
		{"archive differs from KBOOK_SHA256", []string{"KBOOK_VERSION=v1.0.0", "KBOOK_SHA256=" + strings.Repeat("ab", 32)}, "checksum mismatch for " + Host().Archive() + ": KBOOK_SHA256 says"},
		{"SHA256SUMS lacks the archive", []string{"KBOOK_VERSION=v1.3.0"}, "SHA256SUMS lists no " + Host().Archive()},
		{"another version inside", []string{"KBOOK_VERSION=v1.1.0"}, "of v1.1.0 holds kbook v0.9.0"},
		{"no such release", []string{"KBOOK_VERSION=v9.9.9"}, "download " + host.URL + "/download/v9.9.9/SHA256SUMS failed"},
		{"no such platform", []string{"KBOOK_VERSION=v1.0.0", "KBOOK_ARCH=riscv64"}, "no kbook release for riscv64"},
		{"no version", nil, "no version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			old := filepath.Join(dir, "kbook")
			if err := os.WriteFile(old, []byte("the kbook installed before"), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := runInstall(t, append(tc.env, "KBOOK_BASE_URL="+host.URL, "KBOOK_INSTALL_DIR="+dir)...)
			if err == nil {
				t.Fatalf("installed:\n%s", out)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output %q, want %q", out, tc.want)
			}
			if b, _ := os.ReadFile(old); string(b) != "the kbook installed before" {
				t.Errorf("the kbook there before was replaced by %d bytes", len(b))
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("left in the install folder: %v", entries)
			}
		})
	}
}
