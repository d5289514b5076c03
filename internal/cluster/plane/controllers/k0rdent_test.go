package controllers

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"golang.org/x/mod/semver"

	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestK0rdentPinsFollowKcm checks that every module of a release is at the
// version kcm's go.mod decides: kcm's wrapper (which builds kcm with exactly
// its own go.mod's versions, TestK0rdentBuildsOwnVersions) names the CAPI,
// Sveltos and Flux API versions, and the Flux controllers are the releases
// of those API modules.
// inClusterPins are the in-cluster modules' versions per release:
// kcm-regional's Chart.yaml pins cluster-api-operator 0.28.0 and
// cert-manager 1.21.0, but from cert-manager v1.12 on its commands are
// nested modules the module proxy does not serve, so kbook builds v1.11.5,
// the newest release whose root module holds them.
var inClusterPins = map[string]map[string]string{"v1.11.4": {"cert-manager": "v1.11.5", "capi-operator": "v0.28.0"}}

func TestK0rdentPinsFollowKcm(t *testing.T) {
	for _, r := range k0rdentReleases {
		t.Run(r.Version, func(t *testing.T) {
			kcm, err := wrapperRequires(r.Version, "kcm")
			if err != nil {
				t.Fatal(err)
			}
			if got := kcm["github.com/K0rdent/kcm"]; got != r.Version {
				t.Errorf("kcm wrapper requires kcm %s, want %s", got, r.Version)
			}
			for _, m := range r.Modules {
				want := ""
				switch m.Key {
				case "kcm":
					want = r.Version
				case "flux-source":
					want = kcm["github.com/fluxcd/source-controller/api"]
				case "flux-helm":
					want = kcm["github.com/fluxcd/helm-controller/api"]
				case "capi", "capd":
					want = kcm["sigs.k8s.io/cluster-api"]
				case "cert-manager", "capi-operator":
					// kcm-regional's subcharts: their versions are the
					// chart's dependencies', but for cert-manager's
					// (see inClusterPins).
					want = inClusterPins[r.Version][m.Key]
				default:
					want = kcm[m.Path]
				}
				if m.Version != want {
					t.Errorf("%s: pinned %s, kcm %s's go.mod decides %s", m.Path, m.Version, r.Version, want)
				}
				req, err := wrapperRequires(r.Version, m.Wrapper)
				if err != nil {
					t.Fatalf("%s: %v", m.Key, err)
				}
				if req[m.Path] != m.Version {
					t.Errorf("wrapper %s requires %s %s, want %s (requires: %s)", m.Wrapper, m.Path, req[m.Path], m.Version, strings.Join(sortedKeys(req)[:3], ", "))
				}
			}
			for _, c := range r.Controllers {
				if r.Module(c.Module).Path == "" {
					t.Errorf("controller %s: no module %q", c.Name, c.Module)
				}
			}
		})
	}
}

func TestK0rdentVersions(t *testing.T) {
	r, err := K0rdent("")
	if err != nil || r.Version != DefaultK0rdentVersion {
		t.Fatalf("K0rdent(\"\") = %v, %v", r, err)
	}
	if r, err := K0rdent("1.11.4"); err != nil || r.Version != "v1.11.4" {
		t.Errorf("K0rdent(1.11.4) = %v, %v", r, err)
	}
	_, err = K0rdent("v0.0.1")
	if err == nil || !strings.Contains(err.Error(), "known: v1.11.4") {
		t.Errorf("unknown version: %v", err)
	}
}

// TestK0rdentBuildSteps runs K0rdentDir with a fake go: the trees come from
// go mod download's Dir, each controller is built once, an
// interrupted build keeps the binaries it finished, the stamps come last.
// fakeK0rdent puts a fake go first on PATH that "downloads" the release's
// modules from a fake module cache (a file in each tree the plane reads)
// and "builds" a script per controller, logging both to the returned file.
func fakeK0rdent(t *testing.T) (r *K0rdentRelease, log, modCache string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	bin := t.TempDir()
	modCache = t.TempDir()
	r, _ = K0rdent("")
	for _, m := range r.Modules {
		for _, tree := range m.Trees {
			p := filepath.Join(modCache, m.Key, filepath.FromSlash(tree), "x.yaml")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("kind: X\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	log = filepath.Join(t.TempDir(), "go.log")
	writeExe(t, filepath.Join(bin, "go"), `#!/bin/sh
PATH=/usr/bin:/bin
test -f go.mod && test -f go.sum || { echo "not in a wrapper" >&2; exit 3; }
case "$1" in
mod)
	mod="$4"; path="${mod%@*}"
	key=""
	case "$path" in
	github.com/K0rdent/kcm) key=kcm ;;
	github.com/projectsveltos/addon-controller) key=sveltos-addon ;;
	github.com/projectsveltos/libsveltos) key=sveltos-lib ;;
	github.com/fluxcd/source-controller) key=flux-source ;;
	github.com/fluxcd/helm-controller) key=flux-helm ;;
	sigs.k8s.io/cluster-api) key=capi ;;
	sigs.k8s.io/cluster-api/test) key=capd ;;
	github.com/cert-manager/cert-manager) key=cert-manager ;;
	sigs.k8s.io/cluster-api-operator) key=capi-operator ;;
	esac
	echo "download $mod" >> "$FAKE_GO_LOG"
	printf '{"Path":"%s","Dir":"%s/%s"}\n' "$path" "$FAKE_MODCACHE" "$key" ;;
build)
	while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift ;; esac; pkg="$1"; shift; done
	echo "build $pkg" >> "$FAKE_GO_LOG"
	if [ -n "$FAKE_GO_FAIL" ] && [ "$pkg" = "$FAKE_GO_FAIL" ]; then echo "compile error" >&2; exit 1; fi
	printf '#!/bin/sh\necho %s\n' "$pkg" > "$out"; chmod +x "$out" ;;
esac
`)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_GO_LOG", log)
	t.Setenv("FAKE_MODCACHE", modCache)
	return r, log, modCache
}

func TestK0rdentBuildSteps(t *testing.T) {
	r, log, _ := fakeK0rdent(t)
	cacheRoot := t.TempDir()
	ctx, cancel := testctx.New(t)
	defer cancel()

	// API only: trees, no builds.
	p, err := K0rdentDir(ctx, r, APIOnly(true), K0rdentCacheDir(cacheRoot), K0rdentAssetsFrom(assetsfrom.Build))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.ModuleDir("capi"), "bootstrap/kubeadm/config/x.yaml")); err != nil {
		t.Errorf("capi trees not copied: %v", err)
	}
	if data, _ := os.ReadFile(log); strings.Contains(string(data), "build ") {
		t.Errorf("API-only built something:\n%s", data)
	}
	if _, why := K0rdentAvailable(r, true, K0rdentCacheDir(cacheRoot)); why != "" {
		t.Errorf("API only not available after fetch: %s", why)
	}
	if _, why := K0rdentAvailable(r, false, K0rdentCacheDir(cacheRoot)); why == "" {
		t.Errorf("controllers reported available before any build")
	}

	// A build that fails on helm-controller keeps what came before it.
	t.Setenv("FAKE_GO_FAIL", "github.com/fluxcd/helm-controller")
	if _, err := K0rdentDir(ctx, r, K0rdentCacheDir(cacheRoot), K0rdentAssetsFrom(assetsfrom.Build)); err == nil || !strings.Contains(err.Error(), "compile error") {
		t.Fatalf("failing build: %v", err)
	}
	if gobuild.CheckBinary(p.Binary(KCM)) != "" || gobuild.CheckBinary(p.Binary(HelmController)) == "" {
		t.Errorf("after a failed build: kcm %q, helm-controller %q", gobuild.CheckBinary(p.Binary(KCM)), gobuild.CheckBinary(p.Binary(HelmController)))
	}
	if _, why := K0rdentAvailable(r, false, K0rdentCacheDir(cacheRoot)); why == "" {
		t.Errorf("stamped after a failed build")
	}
	t.Setenv("FAKE_GO_FAIL", "")
	os.Remove(log)
	if _, err := K0rdentDir(ctx, r, K0rdentCacheDir(cacheRoot), K0rdentAssetsFrom(assetsfrom.Build)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	if strings.Contains(string(data), "K0rdent/kcm/cmd") || strings.Contains(string(data), "download") {
		t.Errorf("rebuilt or refetched what was there:\n%s", data)
	}
	for _, c := range r.Controllers {
		if why := gobuild.CheckBinary(p.Binary(c.Name)); why != "" {
			t.Errorf("%s: %s", c.Name, why)
		}
	}
	if _, why := K0rdentAvailable(r, false, K0rdentCacheDir(cacheRoot)); why != "" {
		t.Errorf("not available after the build: %s", why)
	}
	// A complete cache builds nothing.
	os.Remove(log)
	if _, err := K0rdentDir(ctx, r, K0rdentCacheDir(cacheRoot), K0rdentAssetsFrom(assetsfrom.Build)); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(log); err == nil {
		t.Errorf("complete cache ran go:\n%s", data)
	}
	// WithInCluster builds the in-cluster controllers only; after it, a
	// plane-only call and a WithInCluster call build nothing.
	if _, why := K0rdentAvailable(r, false, K0rdentCacheDir(cacheRoot), WithInCluster(true)); why == "" {
		t.Errorf("in-cluster controllers reported available before their build")
	}
	if _, err := K0rdentDir(ctx, r, K0rdentCacheDir(cacheRoot), K0rdentAssetsFrom(assetsfrom.Build), WithInCluster(true)); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(log)
	for _, c := range r.InCluster {
		if !strings.Contains(string(data), "build "+c.Package+"\n") {
			t.Errorf("WithInCluster did not build %s:\n%s", c.Name, data)
		}
	}
	if strings.Contains(string(data), "K0rdent/kcm/cmd") {
		t.Errorf("WithInCluster rebuilt kcm:\n%s", data)
	}
	os.Remove(log)
	for _, opt := range []K0rdentOption{WithInCluster(false), WithInCluster(true)} {
		if _, err := K0rdentDir(ctx, r, K0rdentCacheDir(cacheRoot), K0rdentAssetsFrom(assetsfrom.Build), opt); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile(log); err == nil {
		t.Errorf("complete cache ran go:\n%s", data)
	}
}

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

// waitLogger sends each line to a channel.
type waitLogger chan string

func (w waitLogger) Infof(format string, args ...any) { w <- fmt.Sprintf(format, args...) }

// TestK0rdentAwait: with nobody preparing the release, K0rdentAwait says
// at once what is missing; while another holder has the release's lock it
// waits, says for whom, and reports what the holder left once it is done.
func TestK0rdentAwait(t *testing.T) {
	ctx, cancel := testctx.New(t)
	defer cancel()
	r, _ := K0rdent("")
	root := t.TempDir()
	if _, why := K0rdentAwait(ctx, r, false, K0rdentCacheDir(root)); !strings.Contains(why, "not in") {
		t.Fatalf("empty cache: why = %q", why)
	}
	p, _ := K0rdentPathsFor(r, K0rdentCacheDir(root))
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lk, err := gobuild.Lock(ctx, p.Dir+".lock", preparing(r, p), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(waitLogger, 100)
	done := make(chan string, 1)
	go func() {
		_, why := K0rdentAwait(ctx, r, false, K0rdentCacheDir(root), K0rdentLogger(msgs))
		done <- why
	}()
	select {
	case m := <-msgs:
		if !strings.Contains(m, preparing(r, p)) {
			t.Errorf("waiting message %q does not say what the holder does", m)
		}
	case why := <-done:
		t.Fatalf("returned %q while the lock was held", why)
	}
	for stamp, data := range map[string][]byte{sourcesStamp: sourcesStampContent(r), binStamp: []byte(ldflagsLines(r, r.Controllers, p))} {
		if err := os.WriteFile(filepath.Join(p.Dir, stamp), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lk.Unlock()
	if why := <-done; why != "" {
		t.Errorf("after the holder finished: why = %q", why)
	}
}

// exactModules are, per release, the module keys whose controllers the
// shared wrappers build with exactly the versions of the module's own
// go.mod; the others' go.mod versions may be raised by a wrapper-mate's.
var exactModules = map[string][]string{"v1.11.4": {"kcm", "capd", "cert-manager", "capi-operator"}}

// TestK0rdentBuildsOwnVersions reads each controller module's own go.mod
// (through the module proxy, or the module cache) and compares it with the
// wrapper the module is built in: kcm, and CAPD, at exactly their versions;
// every other module at its versions or, by minimal version selection,
// newer, never older. It logs what a shared wrapper raises.
func TestK0rdentBuildsOwnVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: reads go.mod files through the module proxy")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs go")
	}
	for _, r := range k0rdentReleases {
		t.Run(r.Version, func(t *testing.T) {
			exact := exactModules[r.Version]
			if len(exact) == 0 {
				t.Fatalf("exactModules has no entry for %s", r.Version)
			}
			seen := map[string]bool{}
			for _, c := range append(slices.Clip(r.Controllers), r.InCluster...) {
				m := r.Module(c.Module)
				if seen[m.Key] {
					continue
				}
				seen[m.Key] = true
				own := ownRequires(t, goBin, m.Path+"@"+m.Version)
				wrapper, err := wrapperRequires(r.Version, m.Wrapper)
				if err != nil {
					t.Fatal(err)
				}
				var raised []string
				for mod, v := range own {
					w, ok := wrapper[mod]
					switch {
					case !ok:
						// Not needed by the wrapper's packages (tidy dropped it).
					case semver.Compare(w, v) < 0:
						t.Errorf("%s: wrapper %s has %s %s, older than the %s its go.mod requires", m.Path, m.Wrapper, mod, w, v)
					case w != v:
						raised = append(raised, mod+" "+v+" -> "+w)
					}
				}
				slices.Sort(raised)
				if slices.Contains(exact, m.Key) && len(raised) > 0 {
					t.Errorf("%s is built with exactly its go.mod's versions, but wrapper %s raises %d: %s", m.Path, m.Wrapper, len(raised), strings.Join(raised, ", "))
				} else if len(raised) > 0 {
					t.Logf("%s: wrapper %s raises %d of %d modules: %s", m.Path, m.Wrapper, len(raised), len(own), strings.Join(raised, ", "))
				}
			}
		})
	}
}

// ownRequires is what a module version's own go.mod requires
// (gobuild.Requires), read through go list -m, which fetches only the
// go.mod; it skips the test when the proxy cannot be reached.
func ownRequires(t *testing.T, goBin, mod string) map[string]string {
	t.Helper()
	cmd := exec.Command(goBin, "list", "-m", "-json", mod)
	cmd.Dir = t.TempDir()
	cmd.Env = append(gobuild.Env(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var res struct{ GoMod string }
	if err == nil {
		err = json.Unmarshal(out, &res)
	}
	if err != nil || res.GoMod == "" {
		t.Skipf("the go.mod of %s is neither in the module cache nor on the module proxy: %v", mod, err)
	}
	data, err := os.ReadFile(res.GoMod)
	if err != nil {
		t.Fatal(err)
	}
	req, err := gobuild.Requires(res.GoMod, data)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestInClusterStamp: a plane-only build keeps the stamp lines of the
// in-cluster controllers a kind install built before (so they are not
// rebuilt), drops those whose binary is gone, and WithInCluster wants them.
func TestInClusterStamp(t *testing.T) {
	r, _ := K0rdent("")
	root := t.TempDir()
	p, _ := K0rdentPathsFor(r, K0rdentCacheDir(root))
	if err := os.MkdirAll(p.Bin, 0o755); err != nil {
		t.Fatal(err)
	}
	all := newK0rdentConfig([]K0rdentOption{WithInCluster(true)}).wanted(r)
	if len(all) != len(r.Controllers)+len(r.InCluster) || len(r.InCluster) == 0 {
		t.Fatalf("WithInCluster wants %d controllers, release has %d + %d", len(all), len(r.Controllers), len(r.InCluster))
	}
	if got := newK0rdentConfig(nil).wanted(r); len(got) != len(r.Controllers) {
		t.Fatalf("without WithInCluster: %d controllers wanted", len(got))
	}
	for _, c := range all {
		if err := os.WriteFile(p.Binary(c.Name), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stamp := filepath.Join(p.Dir, binStamp)
	if err := os.WriteFile(stamp, []byte(ldflagsLines(r, all, p)), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := staleBinaries(r, all, p); len(s) != 0 {
		t.Fatalf("after a full build, stale: %v", s)
	}
	gone := r.InCluster[0].Name
	if err := os.Remove(p.Binary(gone)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stamp, []byte(ldflagsLines(r, r.Controllers, p)), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := staleBinaries(r, r.Controllers, p); len(s) != 0 {
		t.Errorf("after a plane-only build, the plane's stale: %v", s)
	}
	if s := staleBinaries(r, all, p); !slices.Equal(s, []string{gone}) {
		t.Errorf("after a plane-only build, stale in-cluster: %v, want [%s] (its binary is gone)", s, gone)
	}
}

// TestK0rdentAwaitReadyBeforeHolderDone: a waiter whose controllers are
// ready returns while the lock's holder goes on (building the in-cluster
// ones, as make test's second `cluster assets` does).
func TestK0rdentAwaitReadyBeforeHolderDone(t *testing.T) {
	ctx, cancel := testctx.New(t)
	defer cancel()
	r, _ := K0rdent("")
	root := t.TempDir()
	p, _ := K0rdentPathsFor(r, K0rdentCacheDir(root))
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lk, err := gobuild.Lock(ctx, p.Dir+".lock", preparing(r, p), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	msgs := make(waitLogger, 100)
	done := make(chan string, 1)
	go func() {
		_, why := K0rdentAwait(ctx, r, false, K0rdentCacheDir(root), K0rdentLogger(msgs))
		done <- why
	}()
	<-msgs // waiting
	for stamp, data := range map[string][]byte{sourcesStamp: sourcesStampContent(r), binStamp: []byte(ldflagsLines(r, r.Controllers, p))} {
		if err := os.WriteFile(filepath.Join(p.Dir, stamp), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if why := <-done; why != "" {
		t.Errorf("with the plane's controllers stamped: why = %q", why)
	}
}
