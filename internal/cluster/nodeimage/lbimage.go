package nodeimage

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The load balancer image. Cluster API's Docker provider (CAPD) puts a
// load balancer container in front of every cluster's control plane, one
// control-plane machine or several (test/infrastructure/docker/internal/
// docker/loadbalancer.go): the image <repository>/haproxy:<tag> from the
// DockerCluster's spec.loadBalancer (default kindest/haproxy from Docker
// Hub), run with the entrypoint haproxy -W -db -f LoadBalancerConfig; CAPD
// writes that file by docker exec of mkdir -p and cp /dev/stdin, reads it
// back with cp, and sends the container SIGHUP for haproxy's master to
// reload. kind's own kindest/haproxy is haproxy, cp and mkdir with their
// libraries and a minimal configuration; this image is the same, from
// Debian's packages, built here with no registry, haproxy 2.6 run by a
// wrapper so that it starts where the open-file limit is low (lb/haproxy).
const (
	// LoadBalancerName is the image name CAPD appends to the repository.
	LoadBalancerName = "haproxy"
	// LoadBalancerRepository is where kbook tags its load balancer image:
	// a DockerCluster's spec.loadBalancer.imageRepository.
	LoadBalancerRepository = localRegistry
	// LoadBalancerConfig is where CAPD and kind write haproxy's
	// configuration.
	LoadBalancerConfig = "/usr/local/etc/haproxy/haproxy.cfg"
	// LoadBalancerLabel is the image label holding its cache key.
	LoadBalancerLabel = "io.k0rdent.kbook.load-balancer-image.key"
	lbRecipe          = "kbook-haproxy-1"
)

// LoadBalancerPackages are what the load balancer's root is bootstrapped
// with, beside minbase (which has coreutils' cp and mkdir).
var LoadBalancerPackages = []string{"haproxy"}

// lbImagePackages are the packages whose files (with what they depend on)
// make the image (dash runs the wrapper lb/haproxy), and lbSkip the
// dependencies left out: adduser (and what it pulls in) serves haproxy's
// maintainer scripts only.
var (
	lbImagePackages = []string{"haproxy", "coreutils", "dash"}
	lbSkip          = map[string]bool{"adduser": true}
)

// lbFS holds the image's own files: the configuration haproxy starts
// with, and the wrapper and configuration that keep it running where the
// open-file limit is low (see lb/haproxy).
//
//go:embed lb
var lbFS embed.FS

// lbFiles are lbFS's files, by where they go in the image.
var lbFiles = []struct{ src, dst string }{
	{"lb/haproxy.cfg", LoadBalancerConfig},
	{"lb/haproxy", "/usr/local/sbin/haproxy"},
	{"lb/kbook-limits.cfg", "/etc/haproxy/kbook-limits.cfg"},
}

// LoadBalancerImage is a load balancer image kbook built, as its cache
// record keeps it.
type LoadBalancerImage struct {
	// Ref is Repository/haproxy:Tag, the image's tag in the engine.
	Ref        string `json:"ref"`
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
	// ID is the engine's image ID.
	ID string `json:"id"`
	// Key is the content hash of what the image is made of.
	Key string `json:"key"`
	// HAProxy is the version of Debian's haproxy package it holds.
	HAProxy string `json:"haproxy"`
	// Size is the image's size in bytes, as the engine counts it.
	Size    int64     `json:"size"`
	Built   time.Time `json:"built"`
	Seconds float64   `json:"seconds"`
	// Cached says this call found it in the cache.
	Cached bool `json:"cached"`
}

// LoadBalancerKey is the content hash of the load balancer image: the
// recipe, the Debian suite and packages, its own files, the platform.
func LoadBalancerKey() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n%s\n", lbRecipe, runtime.GOOS, runtime.GOARCH, Suite)
	fmt.Fprintf(h, "packages %s\nimage %s\nskip %s\n", strings.Join(LoadBalancerPackages, ","), strings.Join(lbImagePackages, ","), "adduser")
	for _, f := range lbFiles {
		b, _ := lbFS.ReadFile(f.src)
		fmt.Fprintf(h, "file %s %x\n", f.dst, sha256.Sum256(b))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// LoadBalancerTag is the tag of the load balancer image with key.
func LoadBalancerTag(key string) string { return Suite + "-" + key[:12] }

func (o *Options) lbRecordFile(key string) string {
	return filepath.Join(o.dir(), "haproxy-"+key[:16]+".json")
}

// CachedLoadBalancer returns the load balancer image if the cache records
// it and the engine has it, unchanged; why says otherwise what is missing.
func CachedLoadBalancer(ctx context.Context, o Options) (img LoadBalancerImage, why string, err error) {
	o.defaults()
	d, err := newDocker()
	if err != nil {
		return LoadBalancerImage{}, "", err
	}
	return cachedLB(ctx, d, &o, LoadBalancerKey())
}

func cachedLB(ctx context.Context, d docker, o *Options, key string) (LoadBalancerImage, string, error) {
	return readRecord[LoadBalancerImage](ctx, d, o.lbRecordFile(key), key)
}

func (i LoadBalancerImage) head() (string, string, string) { return i.Ref, i.ID, i.Key }
func (i LoadBalancerImage) markCached(id string) any       { i.Cached, i.ID = true, id; return i }

// BuildLoadBalancer returns kbook's load balancer image for CAPD's docker
// backend, building it when the cache does not have it (a missing, corrupt
// or changed entry is rebuilt, with a warning saying why): Debian's
// haproxy, cp and mkdir with the libraries they need, from a root made by
// debootstrap (once, about two minutes), and the files of lb/; loaded into the engine as LoadBalancerRepository/haproxy:TAG.
// Concurrent builds wait for one.
func BuildLoadBalancer(ctx context.Context, o Options) (LoadBalancerImage, error) {
	o.defaults()
	key := LoadBalancerKey()
	return buildCached(ctx, &o, "load balancer image", "haproxy.lock", o.lbRecordFile(key), key,
		func(ctx context.Context, d docker, o *Options) (LoadBalancerImage, error) {
			img, err := buildLB(ctx, d, o, key)
			if err != nil {
				return LoadBalancerImage{}, fmt.Errorf("load balancer image: %w", err)
			}
			return img, nil
		})
}

func buildLB(ctx context.Context, d docker, o *Options, key string) (LoadBalancerImage, error) {
	root, err := debootstrapRoot(ctx, o, "haproxy", "the load balancer's root", LoadBalancerPackages)
	if err != nil {
		return LoadBalancerImage{}, err
	}
	start := time.Now()
	def, version, err := lbImageDef(root, key)
	if err != nil {
		return LoadBalancerImage{}, err
	}
	work, err := os.MkdirTemp(o.dir(), ".work-")
	if err != nil {
		return LoadBalancerImage{}, err
	}
	defer os.RemoveAll(work)
	img, err := buildImage(work, runtime.GOARCH, def)
	if err != nil {
		return LoadBalancerImage{}, err
	}
	file := filepath.Join(work, "haproxy.tar")
	if err := writeArchive(file, def.Ref, img); err != nil {
		return LoadBalancerImage{}, err
	}
	if _, err := d.run(ctx, nil, "load", "-q", "-i", file); err != nil {
		return LoadBalancerImage{}, err
	}
	id, err := d.imageID(ctx, def.Ref)
	if err != nil {
		return LoadBalancerImage{}, err
	}
	if id == "" {
		return LoadBalancerImage{}, fmt.Errorf("docker load did not tag %s", def.Ref)
	}
	size, _ := d.run(ctx, nil, "image", "inspect", "--format", "{{.Size}}", def.Ref)
	n, _ := strconv.ParseInt(size, 10, 64)
	out := LoadBalancerImage{
		Ref: def.Ref, Repository: LoadBalancerRepository, Tag: LoadBalancerTag(key), ID: id, Key: key,
		HAProxy: version, Size: n, Built: time.Now().UTC(), Seconds: time.Since(start).Seconds(),
	}
	data, _ := json.MarshalIndent(out, "", "  ")
	if err := atomicWrite(o.lbRecordFile(key), data); err != nil {
		return LoadBalancerImage{}, err
	}
	o.Logger.Infof("built %s (haproxy %s, %s) in %s", out.Ref, version, humanBytes(n), time.Since(start).Round(time.Second))
	return out, nil
}

// lbImageDef is the load balancer image of a root that has haproxy
// installed: the files of lbImagePackages and what they depend on
// (adduser's side left out), and lbFiles. It returns haproxy's package
// version too.
func lbImageDef(root, key string) (imageDef, string, error) {
	db, err := readDpkg(root)
	if err != nil {
		return imageDef{}, "", err
	}
	pkgs, err := db.closureWithout(lbSkip, lbImagePackages...)
	if err != nil {
		return imageDef{}, "", err
	}
	files, err := db.files(pkgs)
	if err != nil {
		return imageDef{}, "", err
	}
	layer, err := rootEntries(root, files)
	if err != nil {
		return imageDef{}, "", err
	}
	layer, err = usrMerged(root, layer)
	if err != nil {
		return imageDef{}, "", err
	}
	own := []entry{
		// CAPD mounts a tmpfs on both; kind does not.
		{Name: "/run", Dir: true},
		{Name: "/tmp", Dir: true, Mode: 0o1777}, // as tar mode bits: sticky
	}
	for _, f := range lbFiles {
		b, err := lbFS.ReadFile(f.src)
		if err != nil {
			return imageDef{}, "", err
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(string(b), "#!") {
			mode = 0o755
		}
		own = append(own, entry{Name: f.dst, Data: b, Mode: mode})
	}
	return imageDef{
		Ref:        LoadBalancerRepository + "/" + LoadBalancerName + ":" + LoadBalancerTag(key),
		Layers:     [][]entry{layer, own},
		Entrypoint: []string{"haproxy", "-W", "-db", "-f", LoadBalancerConfig},
		Labels:     map[string]string{LoadBalancerLabel: key},
	}, db.pkgs["haproxy"].Version, nil
}

// usrMerged moves entries under the root's top-level symbolic links to
// directories (Debian bookworm's merged /usr: /bin -> usr/bin, /lib ->
// usr/lib) to where they really are, and keeps the links themselves:
// packages list their files under the old names, and a layer that holds
// a file below a symbolic link whose target directory comes later in the
// tar fails docker load ("open /bin/cat: no such file or directory").
func usrMerged(root string, in []entry) ([]entry, error) {
	tops, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	links := map[string]string{} // "/bin" -> "/usr/bin"
	var out []entry
	for _, d := range tops {
		if d.Type()&fs.ModeSymlink == 0 {
			continue
		}
		t, err := os.Readlink(filepath.Join(root, d.Name()))
		if err != nil {
			return nil, err
		}
		target := path.Clean("/" + t)
		if fi, err := os.Stat(filepath.Join(root, target)); err != nil || !fi.IsDir() {
			continue
		}
		links["/"+d.Name()] = target
		out = append(out, entry{Name: "/" + d.Name(), Link: t})
	}
	for _, e := range in {
		if _, ok := links[e.Name]; ok {
			continue // the link itself, above
		}
		for l, t := range links {
			if strings.HasPrefix(e.Name, l+"/") {
				e.Name = t + strings.TrimPrefix(e.Name, l)
				break
			}
		}
		out = append(out, e)
	}
	return out, nil
}
