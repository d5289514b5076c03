package cluster

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane"
	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// snapshotFormat names what a snapshot holds and how it is checked: a
// change makes every older snapshot a miss.
const snapshotFormat = "kbook etcd data snapshot v1"

// manifestName is the file a snapshot directory is trusted by: written
// last, inside a temporary directory renamed into place whole.
const manifestName = "kbook-snapshot.json"

// snapshotManifest describes a saved etcd data directory.
type snapshotManifest struct {
	Format string `json:"format"`
	Key    string `json:"key"`
	// Inputs say, for people, what the key digests.
	Inputs []string `json:"inputs"`
	// CRDs are the CustomResourceDefinitions the server served,
	// established, when the data was saved.
	CRDs  []string       `json:"crds"`
	Files []snapshotFile `json:"files"`
	// Wiring is the file of the snapshotted plane's wiring
	// (plane.Wiring: its webhook ports and CA, with the CA's key), beside
	// the etcd data, not in it.
	Wiring *snapshotFile `json:"wiring,omitempty"`
	Saved  time.Time     `json:"saved"`
}

type snapshotFile struct {
	Path   string      `json:"path"`
	Size   int64       `json:"size"`
	Mode   fs.FileMode `json:"mode"`
	SHA256 string      `json:"sha256"`
}

// snapshot is the etcd data of a local API server that serves one exact
// set of CRDs, kept in kbook's cache (<cache>/snapshots/<key>): a server
// that starts from it skips installing them. The key digests everything
// that decides that data: the binaries' versions, every CRD file's
// content and the k0rdent release's CRDs (API only), or, for a plane
// with controllers, what plane.SnapshotInputs lists: that snapshot holds
// the plane bootstrapped until its Management was ready, which
// plane.Start rewires to this run's ports, CA and repository
// (plane.Options.Restored).
type snapshot struct {
	root   string // the snapshots directory
	key    string
	inputs []string
}

// snapshotFor returns the snapshot the options would start from, or nil
// when they install nothing or snapshots are off. planeCRDs are the
// release's CRDs of an API-only plane, planeInputs the inputs of a plane
// with controllers (nil: that plane is not snapshotted).
func snapshotFor(o Options, assetsDir string, planeCRDs []releasecrds.CRD, planeInputs []plane.SnapshotInput) (*snapshot, error) {
	full := o.K0rdent != "" && !o.K0rdentAPIOnly
	if o.NoSnapshot || (full && len(planeInputs) == 0) || (!full && len(o.CRDs) == 0 && len(planeCRDs) == 0) {
		return nil, nil
	}
	h := sha256.New()
	s := &snapshot{root: o.SnapshotDir}
	if s.root == "" {
		s.root = filepath.Join(cache.DefaultDir(), "snapshots")
	}
	add := func(what string, data []byte) {
		sum := sha256.Sum256(data)
		line := what + " " + hex.EncodeToString(sum[:])
		s.inputs = append(s.inputs, line)
		fmt.Fprintln(h, line)
	}
	add(snapshotFormat, nil)
	add("servers "+serversIn(cmp.Or(assetsDir, os.Getenv(binaries.EnvAssets))), nil)
	files, err := CRDFiles(o.CRDs)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("CRDs: %w", err)
		}
		add("crds "+filepath.ToSlash(f), data)
	}
	for _, c := range planeCRDs {
		data, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("k0rdent CRD %s: %w", c.Object.Name, err)
		}
		add("k0rdent "+o.K0rdent+" "+c.Source, data)
	}
	for _, in := range planeInputs {
		add("k0rdent "+o.K0rdent+" plane "+in.What, in.Data)
	}
	s.key = hex.EncodeToString(h.Sum(nil))[:32]
	return s, nil
}

func (s *snapshot) dir() string { return filepath.Join(s.root, s.key) }

// manifest reads the snapshot's manifest: (nil, nil) when there is no
// snapshot, an error when there is one that cannot be trusted.
func (s *snapshot) manifest() (*snapshotManifest, error) {
	data, err := os.ReadFile(filepath.Join(s.dir(), manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(s.dir()); serr == nil {
			return nil, fmt.Errorf("%s has no %s", s.dir(), manifestName)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m snapshotManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(s.dir(), manifestName), err)
	}
	if m.Format != snapshotFormat || m.Key != s.key || len(m.Files) == 0 {
		return nil, fmt.Errorf("%s: not a snapshot of this key and format", filepath.Join(s.dir(), manifestName))
	}
	return &m, nil
}

// restore copies the snapshot's files into an empty etcd data directory,
// checking each against the manifest's digest.
func (s *snapshot) restore(m *snapshotManifest, dataDir string) error {
	for _, f := range m.Files {
		if !filepath.IsLocal(f.Path) {
			return fmt.Errorf("snapshot %s: file %q is outside it", s.dir(), f.Path)
		}
		sum, size, err := copyFile(filepath.Join(s.dir(), f.Path), filepath.Join(dataDir, f.Path), f.Mode)
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", s.dir(), err)
		}
		if size != f.Size || sum != f.SHA256 {
			return fmt.Errorf("snapshot %s: %s differs from its manifest (%d bytes, sha256 %s; want %d, %s)", s.dir(), f.Path, size, sum, f.Size, f.SHA256)
		}
	}
	return nil
}

// save copies a stopped etcd's data directory into the cache under the
// key: into a temporary directory first, the manifest last, then renamed
// into place, so that a kbook killed while saving leaves nothing a later
// run trusts (only a temporary directory, removed by the next save).
func (s *snapshot) save(dataDir string, crds []string, w *plane.Wiring) error {
	if err := os.MkdirAll(s.root, 0o700); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	s.removeStale()
	tmp, err := os.MkdirTemp(s.root, ".tmp-"+s.key+"-")
	if err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename
	m := snapshotManifest{Format: snapshotFormat, Key: s.key, Inputs: s.inputs, CRDs: crds, Saved: time.Now().UTC()}
	err = filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dataDir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum, size, err := copyFile(p, filepath.Join(tmp, rel), info.Mode().Perm())
		if err != nil {
			return err
		}
		m.Files = append(m.Files, snapshotFile{Path: filepath.ToSlash(rel), Size: size, Mode: info.Mode().Perm(), SHA256: sum})
		return nil
	})
	if err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	if w != nil {
		data, err := json.Marshal(w)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, wiringName), data, 0o600); err != nil {
			return fmt.Errorf("save snapshot: %w", err)
		}
		sum := sha256.Sum256(data)
		m.Wiring = &snapshotFile{Path: wiringName, Size: int64(len(data)), Mode: 0o600, SHA256: hex.EncodeToString(sum[:])}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestName), data, 0o600); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := os.Rename(tmp, s.dir()); err != nil {
		if _, serr := os.Stat(filepath.Join(s.dir(), manifestName)); serr == nil {
			return nil // another kbook saved the same snapshot first
		}
		return fmt.Errorf("save snapshot: %w", err)
	}
	return nil
}

// wiringName is the file of a plane snapshot's wiring (mode 0600: it
// holds the CA's key).
const wiringName = "wiring.json"

// wiring reads the wiring of the snapshotted plane: nil when the
// manifest names none, an error when the file is not what it names.
func (s *snapshot) wiring(m *snapshotManifest) (*plane.Wiring, error) {
	if m.Wiring == nil {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(s.dir(), wiringName))
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", s.dir(), err)
	}
	if sum := sha256.Sum256(data); int64(len(data)) != m.Wiring.Size || hex.EncodeToString(sum[:]) != m.Wiring.SHA256 {
		return nil, fmt.Errorf("snapshot %s: %s differs from its manifest", s.dir(), wiringName)
	}
	var w plane.Wiring
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("snapshot %s: %s: %w", s.dir(), wiringName, err)
	}
	return &w, nil
}

// remove deletes a snapshot that could not be used.
func (s *snapshot) remove() error { return os.RemoveAll(s.dir()) }

// removeStale deletes temporary directories of saves that did not finish
// (kbook killed meanwhile) an hour or more ago.
func (s *snapshot) removeStale() {
	entries, _ := os.ReadDir(s.root)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
			_ = os.RemoveAll(filepath.Join(s.root, e.Name()))
		}
	}
}

// copyFile copies src to dst (a new file), leaving runs of zeros as holes
// (etcd preallocates its write-ahead log), and returns the content's
// sha256 and size.
func copyFile(src, dst string, mode fs.FileMode) (string, int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", 0, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode|0o600)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	zero := make([]byte, 1<<20)
	var size int64
	for {
		n, rerr := io.ReadFull(in, buf)
		if n > 0 {
			h.Write(buf[:n])
			if bytes.Equal(buf[:n], zero[:n]) {
				_, err = out.Seek(int64(n), io.SeekCurrent)
			} else {
				_, err = out.Write(buf[:n])
			}
			if err != nil {
				out.Close()
				return "", 0, err
			}
			size += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			out.Close()
			return "", 0, rerr
		}
	}
	if err := out.Truncate(size); err != nil {
		out.Close()
		return "", 0, err
	}
	if err := out.Close(); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// servedCRDs lists the server's CRDs; with want, it fails unless each of
// them is there and established, then waits until discovery serves them
// (as after installing them).
func servedCRDs(ctx context.Context, cfg *rest.Config, want []string) ([]string, error) {
	cs, err := apiext.NewForConfig(FastConfig(cfg))
	if err != nil {
		return nil, err
	}
	list, err := cs.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list CRDs: %w", err)
	}
	have := map[string]*apiextv1.CustomResourceDefinition{}
	var names []string
	for i := range list.Items {
		c := &list.Items[i]
		for _, cond := range c.Status.Conditions {
			if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
				have[c.Name] = c
				names = append(names, c.Name)
			}
		}
	}
	sort.Strings(names)
	if want == nil {
		return names, nil
	}
	var crds []*apiextv1.CustomResourceDefinition
	for _, n := range want {
		c, ok := have[n]
		if !ok {
			return nil, fmt.Errorf("CRD %s is not served or not established", n)
		}
		crds = append(crds, c)
	}
	if err := envtest.WaitForCRDs(cfg, crds, envtest.CRDInstallOptions{MaxTime: time.Minute}); err != nil {
		return nil, fmt.Errorf("CRDs not served: %w", err)
	}
	return names, nil
}
