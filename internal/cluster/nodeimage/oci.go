package nodeimage

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
)

// epoch is every file's and image's time: the same inputs make the same
// layers, so image digests depend on content alone.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// entry is one file, directory or symbolic link of a layer.
type entry struct {
	Name string      // absolute path in the image
	Src  string      // a file on disk to copy; else Data
	Data []byte      // content of a regular file
	Link string      // target of a symbolic link
	Dir  bool        // a directory
	Mode os.FileMode // permission bits (default 0644, 0755 for directories)
}

// fileEntry copies a file on disk to name, executable or not.
func fileEntry(name, src string, exec bool) entry {
	m := os.FileMode(0o644)
	if exec {
		m = 0o755
	}
	return entry{Name: name, Src: src, Mode: m}
}

// rootEntries reads paths (absolute in root) from a root file system as
// they are there: directories, symbolic links, regular files with their
// modes. Anything else (devices, sockets) is left out.
func rootEntries(root string, paths []string) ([]entry, error) {
	var out []entry
	for _, p := range paths {
		full := filepath.Join(root, p)
		fi, err := os.Lstat(full)
		if os.IsNotExist(err) {
			continue // a conffile removed, a diverted file
		}
		if err != nil {
			return nil, err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(full)
			if err != nil {
				return nil, err
			}
			out = append(out, entry{Name: p, Link: t})
		case fi.IsDir():
			out = append(out, entry{Name: p, Dir: true, Mode: fi.Mode().Perm()})
		case fi.Mode().IsRegular():
			out = append(out, entry{Name: p, Src: full, Mode: fi.Mode().Perm()})
		}
	}
	return out, nil
}

// writeTar writes entries as a tar stream, sorted by name, with every
// missing parent directory, owned by root, at epoch.
func writeTar(w io.Writer, entries []entry) error {
	byName := map[string]entry{}
	for _, e := range entries {
		e.Name = path.Clean("/" + e.Name)
		byName[e.Name] = e
		for d := path.Dir(e.Name); d != "/"; d = path.Dir(d) {
			if _, ok := byName[d]; !ok {
				byName[d] = entry{Name: d, Dir: true}
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tar.NewWriter(w)
	for _, n := range names {
		e := byName[n]
		h := &tar.Header{Name: strings.TrimPrefix(n, "/"), ModTime: epoch, Uname: "root", Gname: "root", Format: tar.FormatPAX}
		switch {
		case e.Link != "":
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, e.Link, 0o777
		case e.Dir:
			h.Typeflag, h.Mode = tar.TypeDir, int64(orMode(e.Mode, 0o755))
			h.Name += "/"
		default:
			h.Typeflag, h.Mode = tar.TypeReg, int64(orMode(e.Mode, 0o644))
		}
		if h.Typeflag != tar.TypeReg {
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			continue
		}
		if err := writeFile(tw, h, e); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return tw.Close()
}

func orMode(m, def os.FileMode) os.FileMode {
	if m == 0 {
		return def
	}
	return m
}

func writeFile(tw *tar.Writer, h *tar.Header, e entry) error {
	if e.Src == "" {
		h.Size = int64(len(e.Data))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(e.Data)
		return err
	}
	f, err := os.Open(e.Src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	h.Size = fi.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// writeTarFile writes entries to a tar file.
func writeTarFile(file string, entries []entry) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := writeTar(f, entries); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// imageDef is one image the node preloads.
type imageDef struct {
	Ref        string    // e.g. registry.k8s.io/kube-apiserver:v1.34.12
	Layers     [][]entry // bottom first
	Entrypoint []string
	Cmd        []string
	Env        []string
	Labels     map[string]string
	User       string // the image's user ("": root)
}

// defaultPath is the PATH of every image: kubeadm's static pods run their
// binary by name.
const defaultPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// buildImage assembles d as a linux/amd64 (this machine's) OCI image, its
// layers written as tar files under dir and compressed fast.
func buildImage(dir, arch string, d imageDef) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for i, l := range d.Layers {
		file := filepath.Join(dir, fmt.Sprintf("%s-%d.tar", safeName(d.Ref), i))
		if err := writeTarFile(file, l); err != nil {
			return nil, fmt.Errorf("image %s: layer %d: %w", d.Ref, i, err)
		}
		layer, err := tarball.LayerFromFile(file, tarball.WithCompressionLevel(gzip.BestSpeed), tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return nil, fmt.Errorf("image %s: layer %d: %w", d.Ref, i, err)
		}
		if img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "kbook cluster image"}}); err != nil {
			return nil, fmt.Errorf("image %s: %w", d.Ref, err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Created = arch, "linux", v1.Time{Time: epoch}
	cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.Labels, cf.Config.User = d.Entrypoint, d.Cmd, d.Labels, d.User
	cf.Config.Env = append([]string{defaultPath}, d.Env...)
	return mutate.ConfigFile(img, cf)
}

// writeArchive writes img as a docker-archive (what docker save and ctr
// images import read) tagged ref.
func writeArchive(file, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	return tarball.WriteToFile(file, tag, img)
}

func safeName(ref string) string {
	return strings.NewReplacer("/", "_", ":", "_", "@", "_").Replace(ref)
}

// BinaryImage writes, to archive (a docker-archive tar), an image tagged
// ref that holds the static program bin as /usr/local/bin/<name> and runs
// it: the image of a Go program a runbook builds and loads into a
// cluster (kbook cluster load-image --go).
func BinaryImage(archive, ref, bin string) error {
	return WriteProgramImage(archive, ProgramImage{Ref: ref, Bin: bin})
}

// ProgramImage is an image holding one static program and running it.
type ProgramImage struct {
	// Ref is the image's reference; Bin the program on disk.
	Ref, Bin string
	// Path is the program's path in the image (default
	// /usr/local/bin/<name>): a controller's Deployment may run it by
	// path (command: [/manager]).
	Path string
	// User is the image's user, numeric for pods that must not run as
	// root (runAsNonRoot): "65532:65532" as distroless's nonroot. Empty:
	// root.
	User string
}

// WriteProgramImage writes p's image to archive (a docker-archive tar),
// with a world-writable /tmp, which is also HOME for a non-root user:
// distroless's nonroot has a home of its own, and programs write under it
// (the Cluster API operator's clusterctl library its config folder).
func WriteProgramImage(archive string, p ProgramImage) error {
	if p.Path == "" {
		p.Path = "/usr/local/bin/" + filepath.Base(p.Bin)
	}
	var env []string
	if p.User != "" && !strings.HasPrefix(p.User, "0:") && p.User != "0" {
		env = append(env, "HOME=/tmp")
	}
	work, err := os.MkdirTemp(filepath.Dir(archive), ".image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	img, err := buildImage(work, runtimeArch(), imageDef{
		Ref:        p.Ref,
		Layers:     [][]entry{{{Name: "/tmp", Dir: true, Mode: 0o1777 /* tar mode bits: sticky, rwx for all */}, fileEntry(p.Path, p.Bin, true)}},
		Entrypoint: []string{p.Path},
		Env:        env,
		User:       p.User,
	})
	if err != nil {
		return err
	}
	return writeArchive(archive, p.Ref, img)
}

func runtimeArch() string { return runtime.GOARCH }

// LoadIntoNodes loads the image archive file (docker-archive or OCI tar),
// tagged ref, into the containerd of every node, as kind load does.
func LoadIntoNodes(file, ref string, ns []nodes.Node) error {
	for _, n := range ns {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		err = nodeutils.LoadImageArchive(n, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("load %s into node %s: %w", ref, n.String(), err)
		}
	}
	return nil
}
