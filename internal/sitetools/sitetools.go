package sitetools

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/targz"
)

// DefaultRegistry is npm's public registry.
const DefaultRegistry = "https://registry.npmjs.org/"

// The environment variables npm reads its registry from (npm reads
// npm_config_* in any case; the lower-case one wins, as in npm).
const (
	EnvRegistry      = "npm_config_registry"
	EnvRegistryUpper = "NPM_CONFIG_REGISTRY"
)

// Registry is $npm_config_registry, else $NPM_CONFIG_REGISTRY, else
// DefaultRegistry, ending in "/".
func Registry() string {
	r := os.Getenv(EnvRegistry)
	if r == "" {
		r = os.Getenv(EnvRegistryUpper)
	}
	if r == "" {
		r = DefaultRegistry
	}
	if !strings.HasSuffix(r, "/") {
		r += "/"
	}
	return r
}

// Package is one npm package at a pinned version.
type Package struct {
	Name, Version string
	// Integrity is the pinned SRI of the tarball (sha512-<base64>), as
	// npm's package-lock.json and the registry's dist.integrity write it.
	Integrity string
	// Keep, when set, are the only files (slash paths below the package's
	// root) extracted, a path ending in "/" every file below that folder;
	// nil: every file.
	Keep []string
	// Otherwise says how to get the package without kbook fetching it.
	Otherwise string
}

func (p Package) String() string { return p.Name + "@" + p.Version }

// Error is a fetch that failed: nothing was cached.
type Error struct {
	Package  Package
	Registry string
	Err      error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("could not fetch %s from the npm registry %s: %v; nothing cached", e.Package, e.Registry, e.Err)
	if e.Package.Otherwise != "" {
		msg += "; " + e.Package.Otherwise
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// IntegrityError is metadata or a tarball whose sha512 is not the one
// kbook pins.
type IntegrityError struct {
	What, Got, Want string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("%s is %s, but kbook pins %s: refused", e.What, e.Got, e.Want)
}

// Client fetches pinned packages into the store.
type Client struct {
	// Registry is the registry's URL; empty: Registry().
	Registry string
	// Dir is the store; empty: sitetools/ in kbook's cache.
	Dir string
	// HTTP is the client; nil: one whose connections time out after 30 s
	// without a response (an offline machine fails at once).
	HTTP *http.Client
	// Log receives progress; nil: none.
	Log log.Logger
}

// DefaultDir is the store in kbook's cache.
func DefaultDir() string { return filepath.Join(cache.DefaultDir(), "sitetools") }

func (c *Client) registry() string {
	if c.Registry != "" {
		if strings.HasSuffix(c.Registry, "/") {
			return c.Registry
		}
		return c.Registry + "/"
	}
	return Registry()
}

func (c *Client) dir() string {
	if c.Dir != "" {
		return c.Dir
	}
	return DefaultDir()
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: tr}
}

// StampName is written into an entry after all its files are in place: an
// entry without it is never used.
const StampName = ".kbook-complete"

// Path is the entry of p in the store, whether or not it is there.
func (c *Client) Path(p Package) string {
	return filepath.Join(c.dir(), filepath.FromSlash(p.Name)+"@"+p.Version)
}

// Cached returns the entry of p when it is complete.
func (c *Client) Cached(p Package) (string, bool) {
	dir := c.Path(p)
	return dir, complete(dir)
}

func complete(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, StampName))
	return err == nil && fi.Mode().IsRegular()
}

// Limits on what is read: the metadata of a package with hundreds of
// versions (mermaid's abbreviated document is a few MB), a tarball
// (mermaid's is ~30 MB) and everything extracted from it.
const (
	maxMetadata = 64 << 20
	maxTarball  = 512 << 20
	maxUnpacked = 2 << 30
)

// Fetch returns the entry of p, fetching it first unless it is complete:
// metadata from the registry, then the tarball, both checked against
// p.Integrity. On any error (an *Error) nothing is left in the store but
// the lock file.
func (c *Client) Fetch(ctx context.Context, p Package) (string, error) {
	dir, err := c.fetch(ctx, p)
	if err != nil {
		return "", &Error{Package: p, Registry: c.registry(), Err: err}
	}
	return dir, nil
}

func (c *Client) fetch(ctx context.Context, p Package) (string, error) {
	want, err := sha512Of(p.Integrity)
	if err != nil {
		return "", fmt.Errorf("kbook's pinned integrity: %w", err)
	}
	dir := c.Path(p)
	if complete(dir) {
		return dir, nil
	}
	if err := c.allowed(); err != nil {
		return "", err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	logger := log.Or(c.Log)
	lk, err := gobuild.Lock(ctx, dir+".lock", "fetching "+p.String()+" into "+dir, func(msg string) { logger.Infof("%s", msg) })
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", dir, err)
	}
	defer lk.Unlock()
	logger = lk.Logger(logger)
	if complete(dir) { // fetched while we waited
		return dir, nil
	}
	// Under the lock, a temporary directory of this entry is what a killed
	// fetch left.
	tmpPrefix := ".tmp-" + filepath.Base(dir) + "-"
	old, _ := filepath.Glob(filepath.Join(parent, tmpPrefix+"*"))
	for _, o := range old {
		_ = os.RemoveAll(o)
	}
	work, err := os.MkdirTemp(parent, tmpPrefix)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)

	start := time.Now()
	tarball, err := c.metadata(ctx, p, want)
	if err != nil {
		return "", err
	}
	logger.Infof("fetching %s from %s…", p, tarball)
	file := filepath.Join(work, "package.tgz")
	size, err := c.download(ctx, tarball, file, want)
	if err != nil {
		return "", err
	}
	out := filepath.Join(work, "out")
	if err := extract(file, out, p.Keep); err != nil {
		return "", fmt.Errorf("tarball %s: %w", tarball, err)
	}
	stamp := fmt.Sprintf("package %s\ntarball %s\nintegrity %s\nfetched %s\n", p, tarball, p.Integrity, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(out, StampName), []byte(stamp), 0o644); err != nil {
		return "", err
	}
	// Whatever is at dir has no stamp (checked above, under the lock).
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("remove incomplete %s: %w", dir, err)
	}
	if err := os.Rename(out, dir); err != nil {
		return "", err
	}
	logger.Infof("fetched %s (%d kB, sha512 verified) into %s in %s", p, (size+1023)>>10, dir, time.Since(start).Round(100*time.Millisecond))
	return dir, nil
}

// allowed refuses, in a test binary, any registry but one on the loopback
// interface: tests never reach the real registry.
func (c *Client) allowed() error {
	if !testing.Testing() {
		return nil
	}
	u, err := url.Parse(c.registry())
	if err == nil {
		if ip := net.ParseIP(u.Hostname()); (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
			return nil
		}
	}
	return errors.New("a test binary fetches only from a registry on the loopback interface (an httptest server), not " + c.registry())
}

// metadataURL is the registry's document of a package: a scoped name's
// slash escaped, as npm escapes it (@pagefind%2flinux-x64).
func (c *Client) metadataURL(name string) string {
	if scope, rest, ok := strings.Cut(name, "/"); ok && strings.HasPrefix(scope, "@") {
		return c.registry() + scope + "%2f" + url.PathEscape(rest)
	}
	return c.registry() + url.PathEscape(name)
}

// metadata reads the version's dist from the registry and checks its
// integrity against want; it returns the tarball's URL.
func (c *Client) metadata(ctx context.Context, p Package, want []byte) (string, error) {
	u := c.metadataURL(p.Name)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	// npm's own Accept: the abbreviated document, else the full one.
	req.Header.Set("Accept", "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*")
	body, err := c.do(req)
	if err != nil {
		return "", err
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxMetadata+1))
	if err != nil {
		return "", fmt.Errorf("GET %s: read: %w", u, err)
	}
	if len(data) > maxMetadata {
		return "", fmt.Errorf("GET %s: larger than %d bytes", u, maxMetadata)
	}
	var doc struct {
		Versions map[string]struct {
			Dist struct {
				Tarball   string `json:"tarball"`
				Integrity string `json:"integrity"`
			} `json:"dist"`
		} `json:"versions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("GET %s: not npm package metadata: %w", u, err)
	}
	v, ok := doc.Versions[p.Version]
	if !ok {
		return "", fmt.Errorf("GET %s: the registry has no version %s", u, p.Version)
	}
	got, err := sha512Of(v.Dist.Integrity)
	if err != nil {
		return "", fmt.Errorf("GET %s: version %s: dist.integrity: %w", u, p.Version, err)
	}
	if !bytes.Equal(got, want) {
		return "", &IntegrityError{What: "the registry's dist.integrity of " + p.String(), Got: sri(got), Want: sri(want)}
	}
	t, err := url.Parse(v.Dist.Tarball)
	if err != nil || (t.Scheme != "https" && t.Scheme != "http") || t.Host == "" {
		return "", fmt.Errorf("GET %s: version %s: dist.tarball %q is not an http(s) URL", u, p.Version, v.Dist.Tarball)
	}
	return v.Dist.Tarball, nil
}

// do sends req, failing on any status but 200.
func (c *Client) do(req *http.Request) (io.ReadCloser, error) {
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, err // *url.Error names the method and URL
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", req.URL, resp.Status)
	}
	return resp.Body, nil
}

// download writes the tarball to file, checking its sha512 against want,
// and returns its size.
func (c *Client) download(ctx context.Context, u, file string, want []byte) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	body, err := c.do(req)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	f, err := os.Create(file)
	if err != nil {
		return 0, err
	}
	h := sha512.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(body, maxTarball+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("GET %s: cut after %d bytes: %w", u, n, err)
	}
	if n > maxTarball {
		return 0, fmt.Errorf("GET %s: larger than %d bytes", u, maxTarball)
	}
	if got := h.Sum(nil); !bytes.Equal(got, want) {
		return 0, &IntegrityError{What: fmt.Sprintf("the tarball from %s (%d bytes)", u, n), Got: sri(got), Want: sri(want)}
	}
	return n, nil
}

// sha512Of returns the sha512 digest of an SRI string (one or more
// space-separated algo-base64 hashes, as npm writes them).
func sha512Of(integrity string) ([]byte, error) {
	if strings.TrimSpace(integrity) == "" {
		return nil, errors.New("no integrity")
	}
	for _, h := range strings.Fields(integrity) {
		b64, ok := strings.CutPrefix(h, "sha512-")
		if !ok {
			continue
		}
		if i := strings.IndexByte(b64, '?'); i >= 0 { // SRI options
			b64 = b64[:i]
		}
		d, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(d) != sha512.Size {
			return nil, fmt.Errorf("%q is not a base64 sha512", h)
		}
		return d, nil
	}
	return nil, fmt.Errorf("%q has no sha512", integrity)
}

func sri(d []byte) string { return "sha512-" + base64.StdEncoding.EncodeToString(d) }

// extract writes the tarball's regular files into dir, their first path
// element (npm's package/) removed, as npm does; with keep, only those
// files. Links and other special entries are skipped; a path leaving dir
// is refused.
func extract(file, dir string, keep []string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, k := range keep {
		want[k] = true
	}
	var total int64
	err := targz.EachRegular(file, func(hdr *tar.Header, content io.Reader) error {
		name := strings.TrimPrefix(hdr.Name, "./")
		_, rel, ok := strings.Cut(name, "/")
		if !ok {
			return nil
		}
		rel = path.Clean(rel)
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
			return fmt.Errorf("%s: a path outside the package", hdr.Name)
		}
		if rel == StampName || (keep != nil && !want[rel] && !keptBelow(keep, rel)) {
			return nil
		}
		if total += hdr.Size; hdr.Size < 0 || total > maxUnpacked {
			return fmt.Errorf("more than %d bytes unpacked", int64(maxUnpacked))
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		delete(want, rel)
		for _, k := range keep {
			if strings.HasSuffix(k, "/") && strings.HasPrefix(rel, k) {
				delete(want, k)
			}
		}
		return targz.WriteFile(hdr, content, target, os.FileMode(hdr.Mode).Perm()&0o755|0o644)
	})
	if err != nil {
		return err
	}
	if keep != nil && len(want) > 0 {
		missing := make([]string, 0, len(want))
		for _, k := range keep {
			if want[k] {
				missing = append(missing, k)
			}
		}
		return fmt.Errorf("the package has no %s", strings.Join(missing, ", "))
	}
	return nil
}

// keptBelow reports whether rel is below a folder of keep ("svg/").
func keptBelow(keep []string, rel string) bool {
	for _, k := range keep {
		if strings.HasSuffix(k, "/") && strings.HasPrefix(rel, k) {
			return true
		}
	}
	return false
}
