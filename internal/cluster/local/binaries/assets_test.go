package binaries

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// recLogger records progress lines.
type recLogger = gobuild.Lines

// writeExe writes an executable shell script.
func writeExe(t *testing.T, p, script string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeBinary is what the fake go writes, and what tests put in place of a
// real binary.
const fakeBinary = "#!/bin/sh\necho fake\n"

// fakeGo is a go command that checks it runs in the extracted module,
// appends each package it builds to $FAKE_GO_LOG and writes a script for
// each into the -o directory (one go build makes them all).
// FAKE_GO_SLEEP delays it (in a child, to exercise process-group kills);
// FAKE_GO_FAIL makes it fail like a compile error.
const fakeGo = `#!/bin/sh
PATH=/usr/bin:/bin:$PATH
out=""; pkgs=""
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out="$2"; shift ;;
	./cmd/*) pkgs="$pkgs ${1#./cmd/}" ;;
	esac
	shift
done
case "$out" in
*/) ;;
*) echo "-o $out: want a directory (one build of several packages)" >&2; exit 5 ;;
esac
for pkg in $pkgs; do
	echo "$pkg" >> "$FAKE_GO_LOG"
	if ! test -f go.mod || ! test -f go.sum || ! test -f "cmd/$pkg/main.go"; then
		echo "not in the extracted module" >&2
		exit 3
	fi
done
if [ "$CGO_ENABLED" != 0 ] || [ "$GOWORK" != off ]; then
	echo "unexpected environment" >&2
	exit 4
fi
if [ -n "$FAKE_GO_SLEEP" ]; then sleep "$FAKE_GO_SLEEP"; fi
for pkg in $pkgs; do
	if [ -n "$FAKE_GO_FAIL" ]; then echo "cmd/$pkg/main.go:1: compile error" >&2; exit 1; fi
	printf '#!/bin/sh\necho %s\n' "$pkg" > "$out$pkg"
	chmod +x "$out$pkg"
done
`

// fakeEnv makes PATH hold only a fake go (and kubectl if asked) and returns
// the file the fake go logs its builds to.
func fakeEnv(t *testing.T, withGo, withKubectl bool) (goLog string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake go is a shell script")
	}
	bin := t.TempDir()
	if withGo {
		writeExe(t, filepath.Join(bin, "go"), fakeGo)
	}
	if withKubectl {
		writeExe(t, filepath.Join(bin, "kubectl"), fakeBinary)
	}
	goLog = filepath.Join(t.TempDir(), "go.log")
	t.Setenv("PATH", bin)
	t.Setenv("FAKE_GO_LOG", goLog)
	t.Setenv("FAKE_GO_SLEEP", "")
	t.Setenv("FAKE_GO_FAIL", "")
	t.Setenv(EnvAssets, "")
	return goLog
}

// built returns the packages the fake go built, in order.
func built(t *testing.T, goLog string) []string {
	t.Helper()
	data, err := os.ReadFile(goLog)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// populate fills dir with the given fake binaries and, if stamp, a stamp.
func populate(t *testing.T, dir string, stamp bool, names ...string) {
	t.Helper()
	for _, n := range names {
		writeExe(t, filepath.Join(dir, n), fakeBinary)
	}
	if stamp {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeStamp(dir); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDirKubebuilderAssets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []string
		opts    []Option
		nonExec bool   // make the files non-executable
		wantErr string // "" for success
	}{
		{name: "all three", files: []string{KubeAPIServer, Etcd, Kubectl}},
		{name: "kubectl optional", files: []string{KubeAPIServer, Etcd}},
		{name: "kubectl optional when not wanted", files: []string{KubeAPIServer, Etcd}, opts: []Option{WithKubectl(false)}},
		{name: "kubectl wanted", files: []string{KubeAPIServer, Etcd}, opts: []Option{WithKubectl(true)}, wantErr: "lacks kubectl (missing)"},
		{name: "no etcd", files: []string{KubeAPIServer, Kubectl}, wantErr: "lacks etcd (missing)"},
		{name: "empty", wantErr: "lacks kube-apiserver (missing), etcd (missing)"},
		{name: "not executable", files: []string{KubeAPIServer, Etcd}, nonExec: true, wantErr: "kube-apiserver (not executable), etcd (not executable)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goLog := fakeEnv(t, true, false)
			dir := t.TempDir()
			populate(t, dir, false, tc.files...)
			if tc.nonExec {
				for _, f := range tc.files {
					if err := os.Chmod(filepath.Join(dir, f), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			t.Setenv(EnvAssets, dir)
			cacheRoot := t.TempDir()
			got, err := Dir(context.Background(), append(tc.opts, WithCacheDir(cacheRoot))...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), EnvAssets) {
					t.Fatalf("Dir() = %q, %v; want error containing %q", got, err, tc.wantErr)
				}
			} else if err != nil || got != dir {
				t.Fatalf("Dir() = %q, %v; want %q", got, err, dir)
			}
			if b := built(t, goLog); len(b) > 0 {
				t.Errorf("built %v with KUBEBUILDER_ASSETS set", b)
			}
			if entries, _ := os.ReadDir(cacheRoot); len(entries) > 0 {
				t.Errorf("cache root written with KUBEBUILDER_ASSETS set: %v", entries)
			}
		})
	}
}

func TestDirCache(t *testing.T) {
	core := []string{KubeAPIServer, Etcd}
	all := []string{KubeAPIServer, Etcd, Kubectl}
	for _, tc := range []struct {
		name        string
		present     []string // fake binaries already in the cache dir
		stamp       bool     // stamp already in the cache dir
		opts        []Option
		kubectlPATH bool     // a kubectl on PATH
		wantBuilt   []string // what go build is run for, in order
		wantFiles   []string // binaries in the dir afterwards
	}{
		{name: "hit", present: core, stamp: true, kubectlPATH: true, wantFiles: core},
		{name: "hit with kubectl", present: all, stamp: true, wantFiles: all},
		{name: "hit, kubectl not wanted", present: core, stamp: true, opts: []Option{WithKubectl(false)}, wantFiles: core},
		{name: "empty, kubectl on PATH", kubectlPATH: true, wantBuilt: core2(), wantFiles: core},
		{name: "empty, no kubectl on PATH", wantBuilt: all2(), wantFiles: all},
		{name: "empty, kubectl wanted", kubectlPATH: true, opts: []Option{WithKubectl(true)}, wantBuilt: all2(), wantFiles: all},
		{name: "empty, kubectl not wanted", opts: []Option{WithKubectl(false)}, wantBuilt: core2(), wantFiles: core},
		{name: "stamp missing", present: all, kubectlPATH: true, wantBuilt: core2(), wantFiles: core},
		{name: "stamp missing, half built", present: []string{Etcd}, opts: []Option{WithKubectl(false)}, wantBuilt: core2(), wantFiles: core},
		{name: "stamp without binaries", stamp: true, opts: []Option{WithKubectl(false)}, wantBuilt: core2(), wantFiles: core},
		{name: "only kubectl missing", present: core, stamp: true, wantBuilt: []string{Kubectl}, wantFiles: all},
		{name: "only kubectl missing and wanted", present: core, stamp: true, kubectlPATH: true, opts: []Option{WithKubectl(true)}, wantBuilt: []string{Kubectl}, wantFiles: all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goLog := fakeEnv(t, true, tc.kubectlPATH)
			log := &recLogger{}
			opts := append([]Option{WithCacheDir(t.TempDir()), WithLogger(log)}, tc.opts...)
			want, err := CacheDir(opts...)
			if err != nil {
				t.Fatal(err)
			}
			populate(t, want, tc.stamp, tc.present...)

			got, err := Dir(context.Background(), opts...)
			if err != nil {
				t.Fatalf("Dir: %v\nlog:\n%s", err, log)
			}
			if got != want {
				t.Errorf("Dir() = %q, want %q", got, want)
			}
			if b := built(t, goLog); !slices.Equal(b, tc.wantBuilt) {
				t.Errorf("built %v, want %v", b, tc.wantBuilt)
			}
			var files []string
			entries, err := os.ReadDir(got)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() != stampName {
					files = append(files, e.Name())
				}
			}
			if w := slices.Sorted(slices.Values(tc.wantFiles)); !slices.Equal(files, w) {
				t.Errorf("dir holds %v, want %v", files, w)
			}
			if !hasCore(got) {
				t.Errorf("no stamp after Dir")
			}
			for _, n := range tc.wantBuilt {
				if !strings.Contains(log.String(), n+" "+version(n)) || !strings.Contains(log.String(), "(first run only") {
					t.Errorf("log lacks the building line for %s:\n%s", n, log)
				}
				// A rebuilt binary replaced the stale one.
				data, _ := os.ReadFile(filepath.Join(got, n))
				if !strings.Contains(string(data), "echo "+n) {
					t.Errorf("%s was not replaced by the built one: %q", n, data)
				}
			}
			if len(tc.wantBuilt) == 0 && log.String() != "" {
				t.Errorf("cache hit logged:\n%s", log)
			}
			assertNoTemp(t, filepath.Dir(got))
		})
	}
}

func core2() []string { return []string{Etcd, KubeAPIServer} }
func all2() []string  { return []string{Etcd, KubeAPIServer, Kubectl} }

// assertNoTemp checks that no temporary build directory is left in parent.
func assertNoTemp(t *testing.T, parent string) {
	t.Helper()
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary directory left: %s", e.Name())
		}
	}
}

func TestDirNoGo(t *testing.T) {
	goLog := fakeEnv(t, false, true)
	root := t.TempDir()
	_, err := Dir(context.Background(), WithCacheDir(root))
	if err == nil || !strings.Contains(err.Error(), "install Go") || !strings.Contains(err.Error(), EnvAssets) {
		t.Fatalf("Dir() error = %v; want one telling to install Go or set %s", err, EnvAssets)
	}
	if b := built(t, goLog); len(b) > 0 {
		t.Errorf("built %v", b)
	}
}

func TestDirBuildFails(t *testing.T) {
	fakeEnv(t, true, true)
	t.Setenv("FAKE_GO_FAIL", "1")
	root := t.TempDir()
	_, err := Dir(context.Background(), WithCacheDir(root))
	if err == nil || !strings.Contains(err.Error(), "build etcd") || !strings.Contains(err.Error(), "compile error") {
		t.Fatalf("Dir() error = %v; want the failing build and its output", err)
	}
	dir, _ := CacheDir(WithCacheDir(root))
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cache dir exists after a failed build: %v", err)
	}
	assertNoTemp(t, filepath.Dir(dir))
}

func TestDirCancel(t *testing.T) {
	goLog := fakeEnv(t, true, true)
	t.Setenv("FAKE_GO_SLEEP", "30")
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once go build runs.
		for range 200 {
			if len(built(t, goLog)) > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	_, err := Dir(ctx, WithCacheDir(root))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Dir() error = %v; want context.Canceled", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Dir took %s after cancellation", d)
	}
	dir, _ := CacheDir(WithCacheDir(root))
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cache dir exists after cancellation: %v", err)
	}
	assertNoTemp(t, filepath.Dir(dir))
}

func TestDirConcurrent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("locking is Linux-only")
	}
	goLog := fakeEnv(t, true, true)
	t.Setenv("FAKE_GO_SLEEP", "0.3")
	root := t.TempDir()
	want, _ := CacheDir(WithCacheDir(root))
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			got, err := Dir(context.Background(), WithCacheDir(root))
			if err == nil && got != want {
				err = fmt.Errorf("got %q", got)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if b := built(t, goLog); !slices.Equal(b, core2()) {
		t.Errorf("built %v, want %v once", b, core2())
	}
}

// TestVersionsMatchGoMod checks KubernetesVersion and EtcdVersion against
// the embedded go.mod, and that every k8s.io staging module is replaced by
// the release matching KubernetesVersion.
func TestVersionsMatchGoMod(t *testing.T) {
	data, err := srcFS.ReadFile("src/go.mod.txt")
	if err != nil {
		t.Fatal(err)
	}
	staging := "v0" + strings.TrimPrefix(KubernetesVersion, "v1") // v1.34.12 -> v0.34.12
	required, replaced := readGoMod(t, "src/go.mod.txt", data)
	for m, v := range replaced {
		if v.Path != m {
			t.Errorf("replace %s => %s: want the same module at another version", m, v.Path)
		}
	}
	if got := required["k8s.io/kubernetes"]; got != KubernetesVersion {
		t.Errorf("go.mod.txt requires k8s.io/kubernetes %q, KubernetesVersion is %q", got, KubernetesVersion)
	}
	if got := required["go.etcd.io/etcd/server/v3"]; got != EtcdVersion {
		t.Errorf("go.mod.txt requires go.etcd.io/etcd/server/v3 %q, EtcdVersion is %q", got, EtcdVersion)
	}
	if len(replaced) == 0 {
		t.Fatal("go.mod.txt replaces no k8s.io staging module")
	}
	for m, v := range replaced {
		if v.Version != staging {
			t.Errorf("replace %s => %s, want %s to match KubernetesVersion %s", m, v.Version, staging, KubernetesVersion)
		}
	}
	stagingMinor := staging[:strings.LastIndex(staging, ".")+1] // v0.34.
	for m, v := range required {
		if _, ok := replaced[m]; strings.HasPrefix(m, "k8s.io/") && (v == "v0.0.0" || strings.HasPrefix(v, stagingMinor)) && !ok {
			t.Errorf("go.mod.txt requires staging module %s %s without a replace", m, v)
		}
	}
	sum, err := srcFS.ReadFile("src/go.sum.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"k8s.io/kubernetes " + KubernetesVersion + " h1:",
		"go.etcd.io/etcd/server/v3 " + EtcdVersion + " h1:",
		"k8s.io/apiserver " + staging + " h1:",
	} {
		if !bytes.Contains(sum, []byte(want)) {
			t.Errorf("go.sum.txt lacks %q", want)
		}
	}
}

// TestSourcesPinKbooksVersions checks that every module both kbook's go.mod
// and the local API server's sources require is at one version in both: the
// build then reuses the packages kbook's own build compiled (about half of
// kube-apiserver's). A bump of one is made in the other (go get the higher
// version in both, then go mod tidy).
func TestSourcesPinKbooksVersions(t *testing.T) {
	src, err := srcFS.ReadFile("src/go.mod.txt")
	if err != nil {
		t.Fatal(err)
	}
	const kbookMod = "../../../../go.mod"
	own, err := os.ReadFile(kbookMod)
	if err != nil {
		t.Fatal(err)
	}
	kbook, err := gobuild.Requires(kbookMod, own)
	if err != nil {
		t.Fatal(err)
	}
	pins, err := gobuild.Requires("src/go.mod.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	diff, shared := gobuild.VersionDiff(kbook, pins)
	for _, d := range diff {
		t.Errorf("%s (kbook's go.mod, src/go.mod.txt): go get the higher in both", d)
	}
	if shared < 50 {
		t.Errorf("only %d modules in both go.mod files; kbook and kube-apiserver share their Kubernetes libraries", shared)
	}
}

// readGoMod parses a go.mod: the required version of each module and, for a
// replaced module, what replaces it.
func readGoMod(t *testing.T, name string, data []byte) (required map[string]string, replaced map[string]module.Version) {
	t.Helper()
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	required, replaced = map[string]string{}, map[string]module.Version{}
	for _, r := range f.Require {
		required[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range f.Replace {
		replaced[r.Old.Path] = r.New
	}
	return required, replaced
}

func TestExtract(t *testing.T) {
	// go:embed would refuse these, but check that nobody renamed one back.
	err := fs.WalkDir(srcFS, "src", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.HasSuffix(p, ".txt") {
			t.Errorf("embedded %s lacks the .txt suffix", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := extract(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "go.sum", "cmd/etcd/main.go", "cmd/kube-apiserver/main.go", "cmd/kubectl/main.go"} {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Error(err)
			continue
		}
		if len(data) == 0 {
			t.Errorf("%s is empty", f)
		}
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !bytes.Contains(mod, []byte("\nmodule kbook.local/envtest-assets\n")) {
		t.Errorf("go.mod does not declare kbook.local/envtest-assets")
	}
}

func TestLdflags(t *testing.T) {
	got := ldflags()
	minor := strings.Split(KubernetesVersion, ".")[1]
	for _, want := range []string{
		"-X k8s.io/component-base/version.gitVersion=" + KubernetesVersion,
		"-X k8s.io/component-base/version.gitMajor=1",
		"-X k8s.io/component-base/version.gitMinor=" + minor,
		"-X k8s.io/client-go/pkg/version.gitVersion=" + KubernetesVersion,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ldflags() = %q, lacks %q", got, want)
		}
	}
}
