package controllergen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/cache"
)

// Version is the controller-gen (sigs.k8s.io/controller-tools) the
// scaffold of kbook provider init --controller ships the output of, and
// examples/providers/inventory's Makefile runs.
const Version = "v0.19.0"

const pkg = "sigs.k8s.io/controller-tools/cmd/controller-gen"

// Binary returns the path of controller-gen Version, building it first
// into $KBOOK_CACHE_DIR/tools (once; later calls need no network) with the
// local Go toolchain. Modules already in the Go module cache are used
// before the configured GOPROXY is asked.
func Binary(ctx context.Context) (string, error) {
	dir := filepath.Join(cache.DefaultDir(), "tools", "controller-gen-"+Version)
	bin := filepath.Join(dir, "controller-gen")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("controller-gen: %w", err)
	}
	// Built into a directory of its own and renamed into place: a
	// concurrent build or an interrupted one never leaves half a binary.
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return "", fmt.Errorf("controller-gen: %w", err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "go", "install", pkg+"@"+Version)
	cmd.Dir = tmp // outside any module
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=", "GOPROXY="+proxy())
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("controller-gen: go install %s@%s: %w\n%s", pkg, Version, err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "controller-gen"), bin); err != nil {
		return "", fmt.Errorf("controller-gen: %w", err)
	}
	return bin, nil
}

// proxy is the module cache as a file proxy, then what go env says.
func proxy() string {
	local := ""
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		local = "file://" + filepath.ToSlash(filepath.Join(strings.TrimSpace(string(out)), "cache", "download"))
	}
	env := "https://proxy.golang.org,direct"
	if out, err := exec.Command("go", "env", "GOPROXY").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		env = strings.TrimSpace(string(out))
	}
	if local == "" || env == "off" {
		return env
	}
	return local + "," + env
}

// Options says what to generate from a Go module.
type Options struct {
	// Dir is the module's directory, where controller-gen runs.
	Dir string
	// APIPaths are the packages of the types (deepcopy and CRDs), e.g.
	// ./api/...; one package, since the deepcopy file lands in Out/object.
	APIPaths string
	// RBACPaths are the packages with +kubebuilder:rbac markers; with
	// RoleName, the ClusterRole goes to Out/rbac/role.yaml.
	RBACPaths string
	RoleName  string
}

// Generate runs controller-gen bin as a project's Makefile does, writing
// into out instead of the project: out/object/zz_generated.deepcopy.go,
// out/crd/<group>_<plural>.yaml and out/rbac/role.yaml.
func Generate(ctx context.Context, bin string, o Options, out string) error {
	if o.Dir == "" || o.APIPaths == "" {
		return errors.New("controller-gen: Dir and APIPaths are required")
	}
	runs := [][]string{{"object", "crd:crdVersions=v1", "paths=" + o.APIPaths,
		"output:object:dir=" + filepath.Join(out, "object"), "output:crd:dir=" + filepath.Join(out, "crd")}}
	if o.RBACPaths != "" {
		runs = append(runs, []string{"rbac:roleName=" + o.RoleName, "paths=" + o.RBACPaths, "output:rbac:dir=" + filepath.Join(out, "rbac")})
	}
	for _, args := range runs {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = o.Dir
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("controller-gen %s (in %s): %w\n%s", strings.Join(args, " "), o.Dir, err, b)
		}
	}
	return nil
}

// Layout is where a project commits what Generate writes.
type Layout struct {
	// ObjectDir holds zz_generated.deepcopy.go, e.g. api/v1alpha1.
	ObjectDir string
	// CRDDir holds the CRDs, e.g. config/crd/bases.
	CRDDir string
	// RBACDir holds role.yaml, e.g. config/rbac; empty when not generated.
	RBACDir string
}

// Stale compares what Generate wrote into out with what the project in
// dir commits at l, and returns one line per file that differs, is
// missing or is extra (no lines: the project is current).
func Stale(out, dir string, l Layout) ([]string, error) {
	pairs := [][2]string{{filepath.Join(out, "object", "zz_generated.deepcopy.go"), filepath.Join(dir, l.ObjectDir, "zz_generated.deepcopy.go")}}
	if l.RBACDir != "" {
		pairs = append(pairs, [2]string{filepath.Join(out, "rbac", "role.yaml"), filepath.Join(dir, l.RBACDir, "role.yaml")})
	}
	gen, err := filepath.Glob(filepath.Join(out, "crd", "*.yaml"))
	if err != nil {
		return nil, err
	}
	committed, err := filepath.Glob(filepath.Join(dir, l.CRDDir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, g := range gen {
		seen[filepath.Base(g)] = true
		pairs = append(pairs, [2]string{g, filepath.Join(dir, l.CRDDir, filepath.Base(g))})
	}
	var stale []string
	for _, c := range committed {
		if !seen[filepath.Base(c)] {
			stale = append(stale, fmt.Sprintf("%s: not generated from the types any more", c))
		}
	}
	for _, p := range pairs {
		want, err := os.ReadFile(p[0])
		if err != nil {
			return nil, err
		}
		got, err := os.ReadFile(p[1])
		switch {
		case errors.Is(err, os.ErrNotExist):
			stale = append(stale, fmt.Sprintf("%s: missing, controller-gen generates it", p[1]))
		case err != nil:
			return nil, err
		case string(got) != string(want):
			stale = append(stale, fmt.Sprintf("%s: differs from what controller-gen %s generates (first difference at line %d)", p[1], Version, firstDiff(string(got), string(want))))
		}
	}
	return stale, nil
}

func firstDiff(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range la {
		if i >= len(lb) || la[i] != lb[i] {
			return i + 1
		}
	}
	return len(la) + 1
}
