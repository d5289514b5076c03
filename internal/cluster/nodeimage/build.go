package nodeimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/yaml"
)

// The images the node preloads, as kubeadm v1.34 names them (kubeadm config
// images list) and as kbook's manifests refer to theirs.
const (
	registry      = "registry.k8s.io"
	etcdTag       = "3.6.5-0" // kubeadm's DefaultEtcdVersion for 1.34; the binary is binaries.EtcdVersion
	coreDNSTag    = "v1.12.1" // kubeadm's CoreDNSVersion; built from that CoreDNS release
	pauseTag      = "3.10.1"  // kubeadm's PauseVersion, and the node's sandbox_image
	localRegistry = "kbook.local"
	// Repository is where kbook tags the node images it builds.
	Repository = localRegistry + "/kind-node"
	// LabelKey is the image label holding a built node image's cache key.
	LabelKey = "io.k0rdent.kbook.node-image.key"
	// BuildLabel marks kbook's build containers, so that a later run
	// removes one a killed build left.
	BuildLabel = "io.k0rdent.kbook.node-image.build"
)

// recipe is bumped whenever what Build makes changes in a way its inputs'
// hashes do not show.
const recipe = "kbook-node-1"

//go:embed files manifests
var nodeFS embed.FS

// Packages are the Debian packages of the node's base: what kind's base
// image has that the node needs (systemd, containerd, runc, iptables and
// nftables, the CNI plugins, conntrack, mount tools), from Debian
// bookworm, plus busybox for the storage helper's image.
var Packages = []string{
	"systemd", "systemd-sysv", "dbus", "containerd", "runc",
	"iptables", "nftables", "iproute2", "containernetworking-plugins",
	"conntrack", "ethtool", "socat", "util-linux", "mount", "kmod",
	"procps", "ca-certificates", "libseccomp2", "busybox-static",
}

// Suite and Mirror are the Debian release and mirror the base comes from.
const (
	Suite         = "bookworm"
	DefaultMirror = "http://deb.debian.org/debian"
)

// Options configure Build.
type Options struct {
	// CacheDir is kbook's cache root (default cache.DefaultDir()): the
	// base root file system, the binaries and the record of the image
	// built go under it.
	CacheDir string
	// Mirror is the Debian mirror the base is bootstrapped from (default
	// DefaultMirror).
	Mirror string
	// Rebuild builds even when the cache has the image.
	Rebuild bool
	// Logger hears progress.
	Logger log.Logger
}

// Image is a kind node image kbook built, as its cache record keeps it.
type Image struct {
	// Ref is the image's tag in the engine.
	Ref string `json:"ref"`
	// ID is the engine's image ID (the digest of its configuration).
	ID string `json:"id"`
	// Key is the content hash of everything the image is made of.
	Key string `json:"key"`
	// Kubernetes is the version its kubelet, kubeadm and control plane run.
	Kubernetes string `json:"kubernetes"`
	// Size is the image's size in bytes, as the engine counts it.
	Size int64 `json:"size"`
	// Images are the images preloaded into the node's containerd.
	Images []string `json:"images"`
	// Built is when it was built; Seconds how long the node's assembly
	// took (the binaries and the base are cached on their own).
	Built   time.Time `json:"built"`
	Seconds float64   `json:"seconds"`
	// Cached says this call found it in the cache.
	Cached bool `json:"cached"`
}

func (o *Options) defaults() {
	if o.CacheDir == "" {
		o.CacheDir = cache.DefaultDir()
	}
	if o.Mirror == "" {
		o.Mirror = DefaultMirror
	}
	o.Logger = log.Or(o.Logger)
}

// dir is where node image state lives in the cache.
func (o *Options) dir() string { return filepath.Join(o.CacheDir, "nodeimage") }

// Key is the content hash of the node image Build makes: the recipe, the
// node's files and manifests, the Debian packages and suite, the pinned
// modules of every binary, the Go version, the platform.
func Key() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s/%s\n%s\n%s\n", recipe, binaries.KubernetesVersion, runtime.GOOS, runtime.GOARCH, runtime.Version(), Suite)
	fmt.Fprintf(h, "packages %s\n", strings.Join(Packages, ","))
	files, err := gobuild.HashTree(nodeFS, ".")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "files %s\n", files)
	for _, k := range []string{binaries.SourcesHash(), addonsHash()} {
		fmt.Fprintf(h, "src %s\n", k)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Ref is the tag of the node image with key.
func Ref(key string) string { return Repository + ":" + binaries.KubernetesVersion + "-" + key[:12] }

// recordFile is the cache record of the image with key.
func (o *Options) recordFile(key string) string {
	return filepath.Join(o.dir(), "image-"+key[:16]+".json")
}

// Cached returns the node image for this kbook if the cache records it and
// the engine has it, unchanged; why says otherwise what is missing.
func Cached(ctx context.Context, o Options) (img Image, why string, err error) {
	o.defaults()
	d, err := newDocker()
	if err != nil {
		return Image{}, "", err
	}
	key, err := Key()
	if err != nil {
		return Image{}, "", err
	}
	return cached(ctx, d, &o, key)
}

func cached(ctx context.Context, d docker, o *Options, key string) (Image, string, error) {
	return readRecord[Image](ctx, d, o.recordFile(key), key)
}

// A record is an image's cache record: Image or LoadBalancerImage.
type record interface {
	head() (ref, id, key string)
	// markCached returns the record marked Cached, with the image ID id.
	markCached(id string) any
}

func (i Image) head() (string, string, string) { return i.Ref, i.ID, i.Key }
func (i Image) markCached(id string) any       { i.Cached, i.ID = true, id; return i }

// readRecord reads the cache record file of the image with key and checks
// it against the engine: the image, marked Cached, when the engine has it
// unchanged, or has at its reference an image whose LabelKey label is key
// (the same build made again by a kbook with another cache, as a
// runbook's own `kbook template init --kind-image build` does); else why
// it does not count (not built, corrupt, the image gone or changed).
func readRecord[T record](ctx context.Context, d docker, file, key string) (T, string, error) {
	var zero, img T
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return zero, "not built yet", nil
	}
	if err != nil {
		return zero, "", err
	}
	err = json.Unmarshal(data, &img)
	ref, id, k := img.head()
	if err != nil || k != key || ref == "" || id == "" {
		return zero, fmt.Sprintf("its cache record %s is corrupt", file), nil
	}
	now, err := d.imageID(ctx, ref)
	if err != nil {
		return zero, "", err
	}
	switch {
	case now == "":
		return zero, fmt.Sprintf("the engine no longer has %s", ref), nil
	case now != id:
		label, err := d.imageLabel(ctx, ref, LabelKey)
		if err != nil {
			return zero, "", err
		}
		if label != key {
			return zero, fmt.Sprintf("%s in the engine is %s, not the %s recorded", ref, shortID(now), shortID(id)), nil
		}
	}
	return img.markCached(now).(T), "", nil
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		id = id[:12]
	}
	return id
}

// Build returns kbook's kind node image, building it when the cache does
// not have it (a missing, corrupt or changed entry is rebuilt, with a
// warning saying why). The image is what kind's own create path expects
// of a node image (sigs.k8s.io/kind/pkg/build/nodeimage): a Debian base
// with systemd, containerd and the CNI plugins, kubelet, kubeadm and
// kubectl in /usr/bin, /kind/version, the default CNI and storage
// manifests under /kind/manifests, and every image kubeadm and those
// manifests use preloaded into the node's containerd - all built here:
// the Kubernetes binaries from the pinned k8s.io/kubernetes module,
// CoreDNS and the local-path provisioner from theirs, the base from
// Debian's packages (debootstrap). Concurrent builds wait for one.
func Build(ctx context.Context, o Options) (Image, error) {
	o.defaults()
	key, err := Key()
	if err != nil {
		return Image{}, err
	}
	return buildCached(ctx, &o, "kind node image", "build.lock", o.recordFile(key), key,
		func(ctx context.Context, d docker, o *Options) (Image, error) {
			reapBuildContainers(ctx, d, o.Logger)
			return build(ctx, d, o, key)
		})
}

// buildCached returns the image the cache record file keeps when the
// engine has it unchanged (readRecord), else makes it with make, under the
// cross-process lock lockName (a concurrent build is waited for, and what
// it built used), after saying why a record that exists did not count.
func buildCached[T record](ctx context.Context, o *Options, what, lockName, file, key string, make func(context.Context, docker, *Options) (T, error)) (T, error) {
	var zero T
	d, err := newDocker()
	if err != nil {
		return zero, err
	}
	if err := d.ping(ctx); err != nil {
		return zero, err
	}
	if !o.Rebuild {
		img, why, err := readRecord[T](ctx, d, file, key)
		if err != nil || why == "" {
			return img, err
		}
		if why != "not built yet" {
			log.Warnf(o.Logger, "%s: %s: rebuilding it", what, why)
		}
	}
	if err := os.MkdirAll(o.dir(), 0o755); err != nil {
		return zero, err
	}
	lk, err := gobuild.Lock(ctx, filepath.Join(o.dir(), lockName), "building the "+what, func(msg string) { o.Logger.Infof("%s", msg) })
	if err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	defer lk.Unlock()
	o.Logger = lk.Logger(o.Logger)
	if !o.Rebuild {
		if img, why, err := readRecord[T](ctx, d, file, key); err != nil || why == "" {
			return img, err // built while we waited
		}
	}
	return make(ctx, d, o)
}

func build(ctx context.Context, d docker, o *Options, key string) (Image, error) {
	// The three inputs side by side: debootstrap mostly waits for the
	// mirror and the disk, so on a first build it costs the two go builds
	// nothing, and they share no package (the addons pin other Kubernetes
	// libraries). The first to fail cancels the others.
	var bins, addons, root, base string
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		bins, err = binaries.NodeDir(gctx, binaries.WithCacheDir(o.CacheDir), binaries.WithLogger(o.Logger))
		return err
	})
	g.Go(func() (err error) {
		addons, err = buildAddons(gctx, o)
		return err
	})
	g.Go(func() (err error) {
		if root, err = baseRoot(gctx, o); err != nil {
			return err
		}
		base, err = baseImage(gctx, d, o, root)
		return err
	})
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return Image{}, context.Cause(ctx)
		}
		return Image{}, fmt.Errorf("kind node image: %w", err)
	}
	start := time.Now()
	o.Logger.Infof("assembling the kind node image (Kubernetes %s)", binaries.KubernetesVersion)
	work, err := os.MkdirTemp(o.dir(), ".work-")
	if err != nil {
		return Image{}, err
	}
	defer os.RemoveAll(work)
	defs, err := imageDefs(root, bins, addons)
	if err != nil {
		return Image{}, fmt.Errorf("kind node image: %w", err)
	}
	var archives []entry
	var refs []string
	for _, def := range defs {
		img, err := buildImage(work, runtime.GOARCH, def)
		if err != nil {
			return Image{}, fmt.Errorf("kind node image: %w", err)
		}
		file := filepath.Join(work, safeName(def.Ref)+".oci.tar")
		if err := writeArchive(file, def.Ref, img); err != nil {
			return Image{}, fmt.Errorf("kind node image: image %s: %w", def.Ref, err)
		}
		archives = append(archives, fileEntry("/kind/images/"+filepath.Base(file), file, false))
		refs = append(refs, def.Ref)
	}
	files, err := nodeFiles(bins, refs)
	if err != nil {
		return Image{}, fmt.Errorf("kind node image: %w", err)
	}
	ref := Ref(key)
	id, err := assemble(ctx, d, base, ref, key, append(files, archives...), refs)
	if err != nil {
		return Image{}, fmt.Errorf("kind node image: %w", err)
	}
	// Each node image is some 700 MB: keep this one and the newest other.
	if gone := d.pruneImages(ctx, Repository, ref, 1); len(gone) > 0 {
		o.Logger.Infof("removed older kind node images: %s", strings.Join(gone, ", "))
	}
	size, _ := d.run(ctx, nil, "image", "inspect", "--format", "{{.Size}}", ref)
	n, _ := strconv.ParseInt(size, 10, 64)
	sort.Strings(refs)
	img := Image{Ref: ref, ID: id, Key: key, Kubernetes: binaries.KubernetesVersion, Size: n, Images: refs, Built: time.Now().UTC(), Seconds: time.Since(start).Seconds()}
	data, _ := json.MarshalIndent(img, "", "  ")
	if err := atomicWrite(o.recordFile(key), data); err != nil {
		return Image{}, err
	}
	o.Logger.Infof("built %s (%s, %d images preloaded) in %s", ref, humanBytes(n), len(refs), time.Since(start).Round(time.Second))
	return img, nil
}

// nodeFiles are the node's own files: kbook's entrypoint, systemd units
// and containerd configuration, kind's well-known paths, and kubelet,
// kubeadm and kubectl.
func nodeFiles(bins string, refs []string) ([]entry, error) {
	var out []entry
	err := fs.WalkDir(nodeFS, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := nodeFS.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "files")
		mode := os.FileMode(0o644)
		if bytes.HasPrefix(b, []byte("#!")) {
			mode = 0o755
		}
		out = append(out, entry{Name: name, Data: b, Mode: mode})
		return nil
	})
	if err != nil {
		return nil, err
	}
	cni, err := manifest("cni.yaml")
	if err != nil {
		return nil, err
	}
	storage, err := manifest("storage.yaml")
	if err != nil {
		return nil, err
	}
	out = append(out,
		entry{Name: "/kind/version", Data: []byte(binaries.KubernetesVersion)},
		entry{Name: "/kind/manifests/default-cni.yaml", Data: cni},
		entry{Name: "/kind/manifests/default-storage.yaml", Data: storage},
		entry{Name: "/kind/images.txt", Data: []byte(strings.Join(refs, "\n") + "\n")},
		// kind's node images keep the CNI plugins where containerd looks.
		entry{Name: "/opt/cni/bin", Link: "/usr/lib/cni"},
		entry{Name: "/etc/systemd/system/multi-user.target.wants/kubelet.service", Link: "/etc/systemd/system/kubelet.service"},
		entry{Name: "/etc/crictl.yaml", Data: []byte("runtime-endpoint: unix:///run/containerd/containerd.sock\n")},
	)
	for _, b := range []string{"kubelet", "kubeadm", "kubectl"} {
		out = append(out, fileEntry("/usr/bin/"+b, filepath.Join(bins, b), true))
	}
	return out, nil
}

// The images kbook's own manifests use.
var (
	netImage         = localRegistry + "/kbooknet:" + binaries.KubernetesVersion
	provisionerImage = localRegistry + "/local-path-provisioner:" + addonsVersion
	helperImage      = localRegistry + "/local-path-helper:" + addonsVersion
)

func manifest(name string) ([]byte, error) {
	b, err := nodeFS.ReadFile(path.Join("manifests", name))
	if err != nil {
		return nil, err
	}
	r := strings.NewReplacer("@NET_IMAGE@", netImage, "@PROVISIONER_IMAGE@", provisionerImage, "@HELPER_IMAGE@", helperImage)
	return []byte(r.Replace(string(b))), nil
}

// imageDefs are the images the node preloads.
func imageDefs(root, bins, addons string) ([]imageDef, error) {
	db, err := readDpkg(root)
	if err != nil {
		return nil, err
	}
	layerOf := func(pkgs ...string) ([]entry, error) {
		all, err := db.closure(pkgs...)
		if err != nil {
			return nil, err
		}
		files, err := db.files(all)
		if err != nil {
			return nil, err
		}
		return rootEntries(root, files)
	}
	// kube-proxy's iptables and nftables, with the libraries they need.
	netTools, err := layerOf("iptables", "nftables", "conntrack")
	if err != nil {
		return nil, err
	}
	// The storage helper runs shell scripts: busybox, as its applets.
	shell := []entry{fileEntry("/bin/busybox", filepath.Join(root, "bin/busybox"), true)}
	for _, a := range []string{"sh", "mkdir", "rm", "chmod", "ls", "cat", "echo", "mv", "cp", "sleep", "test", "["} {
		shell = append(shell, entry{Name: "/bin/" + a, Link: "busybox"})
	}
	bin := func(dir, name string) []entry {
		return []entry{fileEntry("/usr/local/bin/"+name, filepath.Join(dir, name), true)}
	}
	k8s := binaries.KubernetesVersion
	return []imageDef{
		{Ref: registry + "/kube-apiserver:" + k8s, Layers: [][]entry{bin(bins, "kube-apiserver")}, Entrypoint: []string{"/usr/local/bin/kube-apiserver"}},
		{Ref: registry + "/kube-controller-manager:" + k8s, Layers: [][]entry{bin(bins, "kube-controller-manager")}, Entrypoint: []string{"/usr/local/bin/kube-controller-manager"}},
		{Ref: registry + "/kube-scheduler:" + k8s, Layers: [][]entry{bin(bins, "kube-scheduler")}, Entrypoint: []string{"/usr/local/bin/kube-scheduler"}},
		{Ref: registry + "/kube-proxy:" + k8s, Layers: [][]entry{netTools, bin(bins, "kube-proxy")}, Entrypoint: []string{"/usr/local/bin/kube-proxy"}},
		{Ref: registry + "/etcd:" + etcdTag, Layers: [][]entry{bin(bins, "etcd")}, Entrypoint: []string{"/usr/local/bin/etcd"},
			Labels: map[string]string{"org.opencontainers.image.version": binaries.EtcdVersion}},
		{Ref: registry + "/coredns/coredns:" + coreDNSTag, Layers: [][]entry{{fileEntry("/coredns", filepath.Join(addons, "coredns"), true)}}, Entrypoint: []string{"/coredns"}},
		{Ref: registry + "/pause:" + pauseTag, Layers: [][]entry{{fileEntry("/pause", filepath.Join(bins, "pause"), true)}}, Entrypoint: []string{"/pause"}},
		{Ref: netImage, Layers: [][]entry{bin(bins, "kbooknet")}, Entrypoint: []string{"/usr/local/bin/kbooknet"}},
		{Ref: provisionerImage, Layers: [][]entry{bin(addons, "local-path-provisioner")}, Entrypoint: []string{"/usr/local/bin/local-path-provisioner"}},
		{Ref: helperImage, Layers: [][]entry{shell}, Cmd: []string{"/bin/sh"}},
	}, nil
}

// assemble runs a build container from the base, copies the node's files
// in, imports the image archives into the node's containerd (started for
// the purpose, as kind's node image build does), and commits the result as
// ref. The build container is removed whatever happens.
func assemble(ctx context.Context, d docker, base, ref, key string, files []entry, refs []string) (string, error) {
	name := fmt.Sprintf("%s%d", buildContainerPrefix, os.Getpid())
	cleanup := func() { _, _ = d.run(context.WithoutCancel(ctx), nil, "rm", "-f", "-v", name) }
	cleanup()
	if _, err := d.run(ctx, nil, "run", "-d", "--name", name, "--label", BuildLabel+"="+strconv.Itoa(os.Getpid()),
		"--entrypoint", "sleep", "--security-opt", "seccomp=unconfined", base, "infinity"); err != nil {
		return "", err
	}
	defer cleanup()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeTar(pw, files)) }()
	if _, err := d.run(ctx, pr, "cp", "-", name+":/"); err != nil {
		return "", fmt.Errorf("copy the node's files: %w", err)
	}
	script := `set -e
containerd >/tmp/containerd.log 2>&1 &
for i in $(seq 1 100); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && break; sleep 0.1; done
ctr version >/dev/null || { cat /tmp/containerd.log; exit 1; }
for f in /kind/images/*.tar; do
  ctr --namespace=k8s.io images import --no-unpack --digests "$f" >/dev/null
done
ctr --namespace=k8s.io images list -q
kill %1; wait || true
rm -rf /kind/images /tmp/containerd.log /run/containerd
`
	out, err := d.run(ctx, nil, "exec", name, "bash", "-c", script)
	if err != nil {
		return "", fmt.Errorf("preload the images into the node's containerd: %w", err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	for _, r := range refs {
		if !have[r] {
			return "", fmt.Errorf("preload: the node's containerd does not list %s after the import", r)
		}
	}
	old, _ := d.imageID(ctx, ref)
	if _, err := d.run(ctx, nil, "commit",
		"--change", `ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]`,
		"--change", `CMD []`,
		"--change", "LABEL "+LabelKey+"="+key,
		name, ref); err != nil {
		return "", err
	}
	id, err := d.imageID(ctx, ref)
	if err == nil && old != "" && old != id {
		// The image this one replaces (a rebuild) would be left untagged.
		_, _ = d.run(ctx, nil, "image", "rm", old)
	}
	return id, err
}

// buildContainerPrefix names assemble's build container (with its
// kbook's pid).
const buildContainerPrefix = "kbook-node-build-"

// orphanBuild reports whether a container labelled BuildLabel (name, the
// label's value) is a build container whose kbook no longer runs. The
// label alone does not say: docker commit copies it into the image, so
// every kind node made from the image carries it too.
func orphanBuild(name, pid string, alive func(int) bool) bool {
	n, err := strconv.Atoi(pid)
	if err != nil || name != buildContainerPrefix+pid {
		return false
	}
	return n == os.Getpid() || !alive(n)
}

// reapBuildContainers removes build containers whose kbook no longer runs
// (a build killed with kill -9 leaves one sleeping).
func reapBuildContainers(ctx context.Context, d docker, l log.Logger) {
	out, err := d.run(ctx, nil, "ps", "-a", "--filter", "label="+BuildLabel, "--format", `{{.Names}} {{.Label "`+BuildLabel+`"}}`)
	if err != nil {
		return
	}
	for _, line := range strings.Split(out, "\n") {
		name, pid, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || !orphanBuild(name, pid, alive) {
			continue
		}
		if _, err := d.run(ctx, nil, "rm", "-f", "-v", name); err == nil {
			l.Infof("removed %s, the build container of a kbook that no longer runs", name)
		}
	}
}

// alive says whether pid runs (a zombie does not).
func alive(pid int) bool {
	_, err := proc.Inspect(pid)
	return err == nil
}

func atomicWrite(file string, data []byte) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d B", n)
}

// Write prints an image's record as format: text (its reference, what a
// --kind-image flag takes), json or yaml (the whole record).
func Write[T record](w io.Writer, format string, img T) error {
	switch format {
	case "json":
		data, err := json.MarshalIndent(img, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(data))
		return err
	case "yaml":
		data, err := yaml.Marshal(img)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	ref, _, _ := img.head()
	_, err := fmt.Fprintln(w, ref)
	return err
}
