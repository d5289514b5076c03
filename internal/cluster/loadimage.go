package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/log"
)

// EnvKindCluster names, in a runbook's environment on the kind backend,
// the kind cluster it runs on (kbook cluster load-image's default).
const EnvKindCluster = "KBOOK_KIND_CLUSTER"

// LoadImageOptions are kbook cluster load-image's.
type LoadImageOptions struct {
	// Cluster is the kind cluster (default: $KBOOK_KIND_CLUSTER, else
	// DefaultKindName).
	Cluster string
	// Images are images the engine has (docker save exports them) or
	// image archives (docker-archive or OCI tar files).
	Images []string
	// GoPackage, with Tag, is a Go main package (a folder, a .go file, or
	// an import path of the module in the working directory) built
	// static into an image tagged Tag, holding only the program.
	GoPackage, Tag string
	// Logger hears what is loaded where.
	Logger log.Logger
}

// LoadImages loads images into every node of a kind cluster's
// containerd, as kind load does: no registry involved. It returns the
// references loaded.
func LoadImages(ctx context.Context, o LoadImageOptions) ([]string, error) {
	l := log.Or(o.Logger)
	if o.Cluster == "" {
		o.Cluster = os.Getenv(EnvKindCluster)
	}
	if o.Cluster == "" {
		o.Cluster = DefaultKindName
	}
	if (o.GoPackage == "") != (o.Tag == "") {
		return nil, &findings.InputError{Err: fmt.Errorf("--go and --tag go together: a program and the image reference to give it")}
	}
	if o.GoPackage == "" && len(o.Images) == 0 {
		return nil, &findings.InputError{Err: fmt.Errorf("nothing to load: name images or archives, or a Go program with --go and --tag")}
	}
	if o.Tag != "" {
		if _, err := name.NewTag(o.Tag); err != nil {
			return nil, &findings.InputError{Err: fmt.Errorf("--tag %q: %v", o.Tag, err)}
		}
	}
	rt, err := DetectRuntime()
	if err != nil {
		return nil, fmt.Errorf("kind: %w", err)
	}
	p := newKindProvider(rt, l)
	nodes, err := p.ListInternalNodes(o.Cluster)
	if err != nil {
		return nil, fmt.Errorf("kind cluster %q: %w", o.Cluster, err)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no kind cluster %q (kind get clusters lists them)", o.Cluster)
	}
	work, err := os.MkdirTemp("", "kbook-load-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	type archive struct{ file, ref string }
	var archives []archive
	if o.GoPackage != "" {
		file, err := goImage(ctx, work, o.GoPackage, o.Tag, l)
		if err != nil {
			return nil, err
		}
		archives = append(archives, archive{file, o.Tag})
	}
	for i, img := range o.Images {
		if fi, err := os.Stat(img); err == nil && fi.Mode().IsRegular() {
			archives = append(archives, archive{img, img})
			continue
		}
		file := filepath.Join(work, fmt.Sprintf("image-%d.tar", i))
		out, err := exec.CommandContext(ctx, rt.Name, "save", "-o", file, img).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("%s save %s: %v: %s", rt.Name, img, err, strings.TrimSpace(string(out)))
		}
		archives = append(archives, archive{file, img})
	}
	var loaded []string
	for _, a := range archives {
		if err := nodeimage.LoadIntoNodes(a.file, a.ref, nodes); err != nil {
			return loaded, err
		}
		l.Infof("loaded %s into %d node(s) of kind cluster %q", a.ref, len(nodes), o.Cluster)
		loaded = append(loaded, a.ref)
	}
	return loaded, nil
}

// goImage builds the Go program pkg static and wraps it in an image tagged
// ref, written as an archive in dir.
func goImage(ctx context.Context, dir, pkg, ref string, l log.Logger) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("--go needs the Go toolchain, but go is not on PATH")
	}
	target, wd := pkg, ""
	// A folder or file outside any module builds as its files, like go run
	// main.go does.
	if fi, err := os.Stat(pkg); err == nil {
		if fi.IsDir() {
			if _, err := os.Stat(filepath.Join(pkg, "go.mod")); err == nil {
				target, wd = ".", pkg
			} else if files, _ := filepath.Glob(filepath.Join(pkg, "*.go")); len(files) > 0 && !inModule(pkg) {
				target = ""
				wd = pkg
			}
		}
	}
	name := filepath.Base(strings.TrimSuffix(filepath.Clean(pkg), ".go"))
	if name == "." || name == "/" {
		name = "app"
	}
	bin := filepath.Join(dir, name)
	args := []string{"build", "-ldflags=-s -w", "-o", bin}
	if target != "" {
		args = append(args, target)
	} else {
		files, _ := filepath.Glob(filepath.Join(wd, "*.go"))
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				args = append(args, filepath.Base(f))
			}
		}
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir, cmd.Env = wd, append(os.Environ(), "CGO_ENABLED=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, gobuild.Tail(out.String(), 2000))
	}
	archive := filepath.Join(dir, "go-image.tar")
	if err := nodeimage.BinaryImage(archive, ref, bin); err != nil {
		return "", fmt.Errorf("image %s: %w", ref, err)
	}
	l.Infof("built %s from %s in %s", ref, pkg, time.Since(start).Round(100*time.Millisecond))
	return archive, nil
}

// inModule reports whether dir is inside a Go module (a go.mod above it).
func inModule(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
