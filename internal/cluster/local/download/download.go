package download

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/gobuild"
	"sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/targz"
)

// DefaultIndexURL is setup-envtest's index of released envtest archives.
const DefaultIndexURL = "https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml"

// EnvIndexURL names the environment variable that replaces DefaultIndexURL
// (a mirror, or a test's server).
const EnvIndexURL = "KBOOK_ENVTEST_INDEX"

// IndexURL is $KBOOK_ENVTEST_INDEX, else DefaultIndexURL.
func IndexURL() string {
	if u := os.Getenv(EnvIndexURL); u != "" {
		return u
	}
	return DefaultIndexURL
}

// Index is setup-envtest's index: Kubernetes versions to their archives.
type Index struct {
	Releases map[string]Release `json:"releases"`
}

// Release maps an archive's file name to the archive.
type Release map[string]Archive

// Archive is one envtest archive: its sha512 (hex) and where it is.
type Archive struct {
	Hash     string `json:"hash"`
	SelfLink string `json:"selfLink"`
}

// Item is one archive of the index, chosen for a version and platform.
type Item struct {
	// Version is the Kubernetes version, major.minor.patch (no "v").
	Version string
	OS      string
	Arch    string
	// Name is the archive's file name, envtest-v<Version>-<OS>-<Arch>.tar.gz.
	Name    string
	Archive Archive
}

// DirName is the item's directory in the store, as setup-envtest names it.
func (it Item) DirName() string { return it.Version + "-" + it.OS + "-" + it.Arch }

// archiveRE is setup-envtest's ArchiveRE, restricted to releases (no
// pre-release label): envtest-v1.34.1-linux-amd64.tar.gz.
var archiveRE = regexp.MustCompile(`^envtest-v(\d+)\.(\d+)\.(\d+)-(\w+)-(\w+)\.tar\.gz$`)

// semver is major, minor, patch.
type semver [3]int

func parseVersion(v string) (semver, bool) {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) != 3 {
		return semver{}, false
	}
	var s semver
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return semver{}, false
		}
		s[i] = n
	}
	return s, true
}

func (s semver) String() string { return fmt.Sprintf("%d.%d.%d", s[0], s[1], s[2]) }

// Pick returns the archive of Kubernetes version want (v1.34.12 or
// 1.34.12) for goos/goarch; when the index has no such archive, the newest
// patch release of the same minor version (the API a runbook sees is the
// minor's). exact says whether want itself was found.
func (ix *Index) Pick(want, goos, goarch string) (it Item, exact bool, err error) {
	w, ok := parseVersion(want)
	if !ok {
		return Item{}, false, fmt.Errorf("envtest index: %q is not a Kubernetes version major.minor.patch", want)
	}
	var (
		best     Item
		bestV    semver
		found    bool
		platform []string // the minor's platforms, for the error
	)
	for _, rel := range ix.Releases {
		for name, a := range rel {
			m := archiveRE.FindStringSubmatch(name)
			if m == nil {
				continue
			}
			var v semver
			for i := range 3 {
				v[i], _ = strconv.Atoi(m[i+1])
			}
			if v[0] != w[0] || v[1] != w[1] {
				continue
			}
			if m[4] != goos || m[5] != goarch {
				platform = append(platform, m[4]+"/"+m[5])
				continue
			}
			cand := Item{Version: v.String(), OS: goos, Arch: goarch, Name: name, Archive: a}
			if v == w {
				return cand, true, validate(cand)
			}
			if !found || v[2] > bestV[2] {
				best, bestV, found = cand, v, true
			}
		}
	}
	if !found {
		hint := "it lists no " + fmt.Sprintf("%d.%d", w[0], w[1]) + " release"
		if len(platform) > 0 {
			sort.Strings(platform)
			hint = "its " + fmt.Sprintf("%d.%d", w[0], w[1]) + " archives are for " + strings.Join(dedupe(platform), ", ")
		}
		return Item{}, false, fmt.Errorf("envtest index has no archive of Kubernetes %d.%d for %s/%s (%s)", w[0], w[1], goos, goarch, hint)
	}
	return best, false, validate(best)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// validate checks what the index says of an archive before anything is
// fetched.
func validate(it Item) error {
	if len(it.Archive.Hash) != sha512.Size*2 {
		return fmt.Errorf("envtest index: %s: hash %q is not a hex sha512", it.Name, it.Archive.Hash)
	}
	if _, err := hex.DecodeString(it.Archive.Hash); err != nil {
		return fmt.Errorf("envtest index: %s: hash is not a hex sha512: %w", it.Name, err)
	}
	u, err := url.Parse(it.Archive.SelfLink)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("envtest index: %s: selfLink %q is not an http(s) URL", it.Name, it.Archive.SelfLink)
	}
	return nil
}

// Client fetches the index and archives.
type Client struct {
	// IndexURL is the index; empty: IndexURL().
	IndexURL string
	// HTTP is the client; nil: one whose connections time out after 30 s
	// without a byte (an offline machine fails at once: no DNS, or refused).
	HTTP *http.Client
	// Log receives progress; nil: none.
	Log log.Logger
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: tr}
}

func (c *Client) log() log.Logger { return log.Or(c.Log) }

func (c *Client) indexURL() string {
	if c.IndexURL != "" {
		return c.IndexURL
	}
	return IndexURL()
}

// maxIndex bounds the index read into memory (the real one is ~30 kB).
const maxIndex = 16 << 20

// Index fetches and parses the index.
func (c *Client) Index(ctx context.Context) (*Index, error) {
	u := c.indexURL()
	body, err := c.get(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("envtest index: %w", err)
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxIndex+1))
	if err != nil {
		return nil, fmt.Errorf("envtest index %s: read: %w", u, err)
	}
	if len(data) > maxIndex {
		return nil, fmt.Errorf("envtest index %s: larger than %d bytes", u, maxIndex)
	}
	var ix Index
	if err := yaml.UnmarshalStrict(data, &ix); err != nil {
		return nil, fmt.Errorf("envtest index %s: %w", u, err)
	}
	if len(ix.Releases) == 0 {
		return nil, fmt.Errorf("envtest index %s: no releases", u)
	}
	return &ix, nil
}

// get opens u, failing on any status but 200.
func (c *Client) get(ctx context.Context, u string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, err // *url.Error names the method and URL
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return resp.Body, nil
}

// Store is setup-envtest's on-disk layout: Root/k8s/<version>-<os>-<arch>/.
type Store struct {
	Root string
}

// StampName is written into an entry after all its files are in place: an
// entry without it is never used.
const StampName = ".kbook-complete"

// Path is the entry directory of a version and platform (version without
// "v"), whether or not it is there.
func (s Store) Path(version, goos, goarch string) string {
	return filepath.Join(s.Root, "k8s", strings.TrimPrefix(version, "v")+"-"+goos+"-"+goarch)
}

// Complete reports whether dir is a stamped entry holding the named
// executables.
func Complete(dir string, names ...string) bool {
	fi, err := os.Stat(filepath.Join(dir, StampName))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, n := range names {
		if gobuild.CheckBinary(filepath.Join(dir, n)) != "" {
			return false
		}
	}
	return true
}

// Newest returns the newest complete entry of Kubernetes major.minor
// (taken from version) for goos/goarch holding names, or "".
func (s Store) Newest(version, goos, goarch string, names ...string) string {
	w, ok := parseVersion(version)
	if !ok {
		return ""
	}
	entries, err := os.ReadDir(filepath.Join(s.Root, "k8s"))
	if err != nil {
		return ""
	}
	best, bestPatch := "", -1
	suffix := "-" + goos + "-" + goarch
	for _, e := range entries {
		v, ok := strings.CutSuffix(e.Name(), suffix)
		if !ok || !e.IsDir() {
			continue
		}
		sv, ok := parseVersion(v)
		if !ok || sv[0] != w[0] || sv[1] != w[1] || sv[2] <= bestPatch {
			continue
		}
		if d := filepath.Join(s.Root, "k8s", e.Name()); Complete(d, names...) {
			best, bestPatch = d, sv[2]
		}
	}
	return best
}

// Required are the files every envtest archive must hold.
var Required = []string{"kube-apiserver", "etcd"}

// maxArchive bounds what is read of an archive, and of each file in it
// (a release archive is ~120 MB compressed, ~250 MB extracted).
const maxArchive = 2 << 30

// Fetch downloads the item's archive into the store, checks its sha512
// against the index, extracts it and returns the entry directory. An entry
// already complete is returned as is. On any error nothing is left in the
// store but the lock file.
func (c *Client) Fetch(ctx context.Context, s Store, it Item) (string, error) {
	if err := validate(it); err != nil {
		return "", err
	}
	dir := filepath.Join(s.Root, "k8s", it.DirName())
	if Complete(dir, Required...) {
		return dir, nil
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("envtest store: %w", err)
	}
	log := c.log()
	lk, err := gobuild.Lock(ctx, dir+".lock", "downloading "+it.Name+" into "+dir, func(msg string) { log.Infof("%s", msg) })
	if err != nil {
		return "", fmt.Errorf("envtest store: lock %s: %w", dir, err)
	}
	defer lk.Unlock()
	log = lk.Logger(log)
	if Complete(dir, Required...) { // fetched while we waited
		return dir, nil
	}
	// Under the lock, a temporary directory of this entry is what a killed
	// fetch left.
	tmpPrefix := ".tmp-" + it.DirName() + "-"
	if old, _ := filepath.Glob(filepath.Join(parent, tmpPrefix+"*")); len(old) > 0 {
		for _, o := range old {
			_ = os.RemoveAll(o)
		}
	}
	work, err := os.MkdirTemp(parent, tmpPrefix)
	if err != nil {
		return "", fmt.Errorf("envtest store: %w", err)
	}
	defer os.RemoveAll(work)

	start := time.Now()
	log.Infof("downloading %s from %s…", it.Name, it.Archive.SelfLink)
	archive := filepath.Join(work, it.Name)
	size, err := c.download(ctx, it, archive)
	if err != nil {
		return "", err
	}
	out := filepath.Join(work, "out")
	if err := extract(archive, out); err != nil {
		return "", fmt.Errorf("envtest archive %s: %w", it.Name, err)
	}
	for _, n := range Required {
		if p := gobuild.CheckBinary(filepath.Join(out, n)); p != "" {
			return "", fmt.Errorf("envtest archive %s: %s %s", it.Name, n, p)
		}
	}
	stamp := fmt.Sprintf("archive %s\nurl %s\nsha512 %s\nkubernetes v%s\nfetched %s\n",
		it.Name, it.Archive.SelfLink, it.Archive.Hash, it.Version, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(out, StampName), []byte(stamp), 0o644); err != nil {
		return "", fmt.Errorf("envtest store: write stamp: %w", err)
	}
	// Whatever is at dir has no stamp (checked above, under the lock).
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("envtest store: remove incomplete %s: %w", dir, err)
	}
	if err := os.Rename(out, dir); err != nil {
		return "", fmt.Errorf("envtest store: install %s: %w", dir, err)
	}
	log.Infof("downloaded %s (%d MB, sha512 verified) into %s in %s", it.Name, size>>20, dir, time.Since(start).Round(100*time.Millisecond))
	return dir, nil
}

// ChecksumError is a downloaded archive whose sha512 is not the index's.
type ChecksumError struct {
	Name, URL, Got, Want string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("envtest archive %s from %s: sha512 %s, but the index says %s: refused, nothing cached", e.Name, e.URL, e.Got, e.Want)
}

// download writes the archive to file, checking its sha512, and returns its
// size.
func (c *Client) download(ctx context.Context, it Item, file string) (int64, error) {
	body, err := c.get(ctx, it.Archive.SelfLink)
	if err != nil {
		return 0, fmt.Errorf("envtest archive %s: %w", it.Name, err)
	}
	defer body.Close()
	f, err := os.Create(file)
	if err != nil {
		return 0, fmt.Errorf("envtest store: %w", err)
	}
	h := sha512.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(body, maxArchive+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("envtest archive %s: download cut after %d bytes: %w", it.Name, n, err)
	}
	if n > maxArchive {
		return 0, fmt.Errorf("envtest archive %s: larger than %d bytes", it.Name, int64(maxArchive))
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, it.Archive.Hash) {
		return 0, &ChecksumError{Name: it.Name, URL: it.Archive.SelfLink, Got: got, Want: strings.ToLower(it.Archive.Hash)}
	}
	return n, nil
}

// extract writes the archive's regular files into dir by base name, as
// setup-envtest does, executable (at most 0755).
func extract(archive, dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return targz.EachRegular(archive, func(hdr *tar.Header, content io.Reader) error {
		name := filepath.Base(filepath.FromSlash(hdr.Name))
		if name == "." || name == ".." || name == string(filepath.Separator) || name == StampName {
			return nil
		}
		if hdr.Size > maxArchive {
			return fmt.Errorf("%s: %d bytes", hdr.Name, hdr.Size)
		}
		return targz.WriteFile(hdr, content, filepath.Join(dir, name), os.FileMode(hdr.Mode).Perm()&0o755|0o500)
	})
}

// WriteArchive writes files (base name -> content) to w as controller-tools
// packs an envtest archive: a gzipped tar with each file under
// controller-tools/envtest/, executable, in name order. With an index
// naming its sha512 it is what a mirror serves (and what the tests serve).
func WriteArchive(w io.Writer, files map[string][]byte) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: "controller-tools/envtest/" + n, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(files[n]))}); err != nil {
			return err
		}
		if _, err := tw.Write(files[n]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}
