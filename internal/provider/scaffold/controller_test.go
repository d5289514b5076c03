package scaffold

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/k0rdent/kbook/internal/controllergen"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/testctx"
)

var update = flag.Bool("update", false, "rewrite the controller skeleton's generated files (controller-gen's output, go.mod, go.sum) from a scaffold")

// samples are scaffolds whose names appear nowhere else in the skeleton, so
// update can turn what controller-gen generates for the first back into
// templates; the second sorts its kinds and group before the skeleton's
// shared types and Cluster API's groups.
var samples = []Options{
	{Name: "frob", Kind: "Widget", Group: "infra.grp.example", APIVersion: "v1alpha9", Module: "example.org/mod/path"},
	{Name: "acme", Group: "aaa.acme.example", Module: "github.com/acme/cluster-api-provider-acme"},
	{Name: "averyveryverylongprovidername-x", Kind: "Z", Group: "infrastructure.averyveryverylongprovidername.example.com", APIVersion: "v2", Module: "github.com/acme/x"},
}

// templated is how update turns the first sample's names back into the
// skeleton's template fields, longest first.
var templated = strings.NewReplacer("infra.grp.example", "[[ .Group ]]", "v1alpha9", "[[ .APIVersion ]]",
	"Widget", "[[ .Kind ]]", "widget", "[[ .Lower ]]", "frob", "[[ .Name ]]")

func scaffoldController(t *testing.T, o Options) string {
	t.Helper()
	o.Controller = true
	o.Dir = filepath.Join(t.TempDir(), "cluster-api-provider-"+o.Name)
	if _, _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	return o.Dir
}

// validate runs provider validate on the release and the chart of a
// controller scaffold and reports every finding that is an error.
func validate(t *testing.T, dir string) {
	t.Helper()
	paths := []string{filepath.Join(dir, "infrastructure-components.yaml"), filepath.Join(dir, "metadata.yaml"), filepath.Join(dir, "chart")}
	s, err := provider.Load(paths, provider.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := provider.Validate(s, provider.Options{})
	for _, f := range r.Findings {
		if f.Severity == findings.Error {
			t.Errorf("%s:%d: %s [%s]", f.File, f.Line, f.Message, f.Rule)
		}
	}
}

// TestControllerValidates: the controller scaffold's release and chart pass
// provider validate (no Go toolchain needed).
func TestControllerValidates(t *testing.T) {
	for _, o := range samples {
		dir := scaffoldController(t, o)
		validate(t, dir)
		for _, f := range []string{"go.mod", "go.sum", "api/" + versionOr(o.APIVersion) + "/zz_generated.deepcopy.go", "config/rbac/role.yaml", "chart/Chart.yaml"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", o.Name, err)
			}
		}
	}
}

func versionOr(v string) string {
	if v == "" {
		return "v1alpha1"
	}
	return v
}

// TestControllerVersions: the skeleton's go.mod requires the
// controller-runtime and Kubernetes versions kbook's own go.mod does (the
// example provider's), and the Makefile runs controllergen.Version.
func TestControllerVersions(t *testing.T) {
	want := requires(t, kbookGoMod)
	if ControllerRuntimeVersion != want["sigs.k8s.io/controller-runtime"] || KubernetesVersion != want["k8s.io/apimachinery"] {
		t.Errorf("ControllerRuntimeVersion %s, KubernetesVersion %s; kbook's go.mod: %s, %s", ControllerRuntimeVersion, KubernetesVersion,
			want["sigs.k8s.io/controller-runtime"], want["k8s.io/apimachinery"])
	}
	// The chart installs the release of the module's GitHub repository.
	vals, err := os.ReadFile(filepath.Join(scaffoldController(t, samples[1]), "chart", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `url: "https://github.com/acme/cluster-api-provider-acme/releases/v0.1.0/infrastructure-components.yaml"`; !bytes.Contains(vals, []byte(want)) {
		t.Errorf("chart/values.yaml: want %s:\n%s", want, vals)
	}
	dir := scaffoldController(t, samples[0])
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sk, err := gobuild.Requires("go.mod", data)
	if err != nil {
		t.Fatal(err)
	}
	// Every module the scaffold shares with kbook is at kbook's version (the
	// ones kbook's releases are tested with), and a scaffold's build reuses
	// what kbook's compiled; update keeps it so.
	diff, shared := gobuild.VersionDiff(sk, want)
	for _, d := range diff {
		t.Errorf("%s (skeleton go.mod, kbook's go.mod); run go test ./internal/provider/scaffold -run TestControllerBuilds -update", d)
	}
	if shared < 40 {
		t.Errorf("the skeleton's go.mod shares only %d modules with kbook's", shared)
	}
	mf, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mf.Go == nil || !strings.HasPrefix(mf.Go.Version+".", goVersion+".") {
		t.Errorf("skeleton go.mod: go directive %v, the Dockerfile builds with golang:%s", mf.Go, goVersion)
	}
	if v, ok := sk["sigs.k8s.io/cluster-api"]; ok {
		t.Errorf("skeleton go.mod requires sigs.k8s.io/cluster-api %s: the skeleton reads Cluster API's objects unstructured", v)
	}
	if mk, _ := os.ReadFile(filepath.Join(dir, "Makefile")); !bytes.Contains(mk, []byte("controller-gen@"+controllergen.Version)) {
		t.Errorf("Makefile does not run controller-gen@%s", controllergen.Version)
	}
}

func goCmd(t *testing.T, ctx context.Context, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	// -mod=readonly: go.mod and go.sum are complete as scaffolded. The
	// module cache serves what kbook's own build fetched; the proxy only
	// the rest, on a first run.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
	// Only stdout is the answer: on a fresh module cache stderr has "go:
	// downloading" lines, which made a tidy module look untidy.
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s (in %s): %v\n%s%s", strings.Join(args, " "), dir, err, out, stderr.Bytes())
	}
	return string(out)
}

// TestControllerBuilds: a controller scaffold is what controller-gen
// generates from its types and markers (deepcopy, CRDs, ClusterRole), its
// go.mod and go.sum are tidy, and it builds, vets and passes its own
// reconciler tests. With -update it
// rewrites those files of the skeleton from the first sample instead.
func TestControllerBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a controller-runtime module and controller-gen " + controllergen.Version + "; run without -short")
	}
	ctx, cancel := testctx.New(t)
	defer cancel()
	bin, err := controllergen.Binary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range samples {
		if *update && i > 0 {
			break
		}
		t.Run(o.Name, func(t *testing.T) {
			dir := scaffoldController(t, o)
			if *update {
				updateSkeleton(t, ctx, bin, dir)
				return
			}
			out := t.TempDir()
			if err := controllergen.Generate(ctx, bin, controllergen.Options{Dir: dir, APIPaths: "./api/...",
				RBACPaths: "./internal/controller/...", RoleName: o.Name + "-manager"}, out); err != nil {
				t.Fatal(err)
			}
			stale, err := controllergen.Stale(out, dir, controllergen.Layout{ObjectDir: "api/" + versionOr(o.APIVersion), CRDDir: "config/crd/bases", RBACDir: "config/rbac"})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range stale {
				t.Errorf("%s; run go test ./internal/provider/scaffold -run TestControllerBuilds -update", strings.TrimPrefix(s, dir+"/"))
			}
			if diff := goCmd(t, ctx, dir, "mod", "tidy", "-diff"); diff != "" {
				t.Errorf("go.mod/go.sum not tidy:\n%s", diff)
			}
			goCmd(t, ctx, dir, "build", "./...")
			goCmd(t, ctx, dir, "vet", "./...")
			goCmd(t, ctx, dir, "test", "./...")
		})
	}
}

// kbookGoMod is kbook's own go.mod.
const kbookGoMod = "../../../go.mod"

// requires reads the go.mod at path (gobuild.Requires).
func requires(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	req, err := gobuild.Requires(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// pinKbooksVersions runs go mod tidy in dir and moves every module it
// shares with kbook's go.mod to kbook's version, until tidy changes none.
func pinKbooksVersions(t *testing.T, ctx context.Context, dir string) {
	kbook := requires(t, kbookGoMod)
	run := func(args ...string) {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for range 5 {
		run("mod", "tidy")
		req := requires(t, filepath.Join(dir, "go.mod"))
		edit := []string{"mod", "edit"}
		for m, v := range req {
			if kv, ok := kbook[m]; ok && kv != v {
				edit = append(edit, "-require="+m+"@"+kv)
			}
		}
		if len(edit) == 2 {
			return
		}
		run(edit...)
	}
	t.Fatal("go mod tidy keeps moving modules off kbook's versions")
}

// updateSkeleton writes what controller-gen and go mod tidy make of a
// scaffold of samples[0] back into skeleton/controller.
func updateSkeleton(t *testing.T, ctx context.Context, bin, dir string) {
	pinKbooksVersions(t, ctx, dir)
	out := t.TempDir()
	if err := controllergen.Generate(ctx, bin, controllergen.Options{Dir: dir, APIPaths: "./api/...",
		RBACPaths: "./internal/controller/...", RoleName: samples[0].Name + "-manager"}, out); err != nil {
		t.Fatal(err)
	}
	const sk = "skeleton/controller/"
	write := func(name string, data []byte) {
		p := filepath.Join(sk, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", p)
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	mod := read(filepath.Join(dir, "go.mod"))
	write("go.mod.tmpl", []byte(strings.Replace(mod, "module "+samples[0].Module+"\n", "module [[ .Module ]]\n", 1)))
	write("go.sum", []byte(read(filepath.Join(dir, "go.sum"))))
	write("api/{version}/zz_generated.deepcopy.go.tmpl", []byte(templated.Replace(read(filepath.Join(out, "object", "zz_generated.deepcopy.go")))))
	write("config/rbac/role.yaml.tmpl", []byte(templated.Replace(read(filepath.Join(out, "rbac", "role.yaml")))))
	old, _ := filepath.Glob(filepath.Join(sk, "config/crd/bases/*.tmpl"))
	for _, o := range old {
		os.Remove(o)
	}
	crds, _ := filepath.Glob(filepath.Join(out, "crd", "*.yaml"))
	for _, c := range crds {
		name := strings.Replace(filepath.Base(c), samples[0].Group+"_", "{group}_", 1)
		name = strings.Replace(name, "widget", "{lower}", 1)
		write("config/crd/bases/"+name+".tmpl", []byte(templated.Replace(read(c))))
	}
}
