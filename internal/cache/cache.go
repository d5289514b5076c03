package cache

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/report"
)

// EnvDir names the environment variable that overrides the cache directory.
const EnvDir = "KBOOK_CACHE_DIR"

// DefaultDir is $KBOOK_CACHE_DIR, else kbook/ in the user cache directory
// ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultDir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "kbook")
	}
	return filepath.Join(os.TempDir(), "kbook-cache")
}

// Cache is a directory of stored runbook results.
type Cache struct {
	dir string
	mu  sync.Mutex
}

// Open returns the cache in dir, creating it if needed.
func Open(dir string) (*Cache, error) {
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir is the cache directory.
func (c *Cache) Dir() string { return c.dir }

// Key identifies one runbook run: everything that can change its result.
type Key struct {
	// Kbook identifies the kbook binary (see BinaryID).
	Kbook string
	// Backend identifies the cluster ("none" without one): the backend and
	// what decides its behaviour (see cluster.Identity).
	Backend string
	// Path is the runbook path as reported.
	Path string
	// Source is the runbook's content.
	Source []byte
	// Inputs maps each input file name (front matter inputs and crds) to
	// its content.
	Inputs map[string][]byte
	// Env holds, as KEY=VALUE in the order they apply, the variables of
	// the scripts' environment that do not come from kbook itself: --env,
	// and what testscript passes through from the host (PATH, GOCOVERDIR,
	// GORACE).
	Env []string
	// Programs maps each program the runbook may run (see
	// runbook.Programs) to what it resolved to on the scripts' PATH: its
	// path and content digest, or "missing".
	Programs map[string]string
	// Timeout is the runbook's time limit.
	Timeout time.Duration
	// Shell is true when the page runs its shell blocks: kbook.yaml's
	// run.pages can opt a page in without changing its source.
	Shell bool
	// ShellPlan is what decides a page's shell blocks beyond its source:
	// an overlay's skips, stand-ins, variables and output modes, and
	// whether the run is --offline or root where a block downloads or
	// runs sudo. "" when nothing does.
	ShellPlan string
}

// keyVersion changes whenever what Sum digests changes.
const keyVersion = "kbook-cache-2"

// Sum returns the hex sha256 of the key.
func (k Key) Sum() string {
	h := sha256.New()
	field := func(name string, b []byte) {
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	field("version", []byte(keyVersion))
	field("kbook", []byte(k.Kbook))
	field("backend", []byte(k.Backend))
	field("path", []byte(k.Path))
	field("source", k.Source)
	for _, n := range sortedKeys(k.Inputs) {
		field("input "+n, k.Inputs[n])
	}
	for _, kv := range k.Env {
		field("env", []byte(kv))
	}
	for _, n := range sortedKeys(k.Programs) {
		field("program "+n, []byte(k.Programs[n]))
	}
	field("timeout", []byte(k.Timeout.String()))
	if k.Shell {
		// Only then, so that the keys of every other runbook stay as
		// they were.
		field("shell", []byte("run"))
	}
	if k.ShellPlan != "" {
		field("shell plan", []byte(k.ShellPlan))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sortedKeys[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (c *Cache) file(sum string) string {
	return filepath.Join(c.dir, "runs", sum[:2], sum+".json")
}

// Get returns the stored result for a key sum.
func (c *Cache) Get(sum string) (*report.Runbook, bool) {
	rb, ok, _ := c.Lookup(sum)
	return rb, ok
}

// Lookup returns the stored result for a key sum. A truncated or corrupt
// entry (a kbook killed mid-write on a file system without atomic
// renames, a disk error, a hand edit) is a miss, with an error naming the
// file for a warning; the next Put rewrites it.
func (c *Cache) Lookup(sum string) (*report.Runbook, bool, error) {
	file := c.file(sum)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache: %w: ignored, the runbook runs again", err)
	}
	var rb report.Runbook
	if err := json.Unmarshal(data, &rb); err != nil {
		return nil, false, fmt.Errorf("cache: %s is corrupt (%v): ignored, the runbook runs again and its entry is rewritten", file, err)
	}
	if rb.Path == "" || rb.Status == "" {
		return nil, false, fmt.Errorf("cache: %s is not a runbook result (no path or status): ignored, the runbook runs again and its entry is rewritten", file)
	}
	return &rb, true, nil
}

// Put stores a result under a key sum and records its duration.
func (c *Cache) Put(sum string, rb *report.Runbook) error {
	data, err := json.Marshal(rb)
	if err != nil {
		return fmt.Errorf("cache: encode %s: %w", rb.Path, err)
	}
	if err := writeAtomic(c.file(sum), data); err != nil {
		return err
	}
	return c.RecordDuration(rb.Path, rb.Duration)
}

// RecordDuration remembers how long a runbook took, for sharding.
func (c *Cache) RecordDuration(path string, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	all := c.durations()
	all[path] = d
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("cache: encode durations: %w", err)
	}
	return writeAtomic(filepath.Join(c.dir, "durations.json"), data)
}

// Durations returns the last recorded duration of every runbook path.
func (c *Cache) Durations() map[string]time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.durations()
}

func (c *Cache) durations() map[string]time.Duration {
	out := map[string]time.Duration{}
	data, err := os.ReadFile(filepath.Join(c.dir, "durations.json"))
	if err == nil {
		_ = json.Unmarshal(data, &out) // unreadable timings only unbalance shards
	}
	return out
}

func writeAtomic(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := atomicfile.Write(file, data); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// BinaryID identifies the running kbook binary, so any rebuild invalidates
// cached results: by the build ID the go command stamps into it, whose last
// part is the hash of the linked binary's content, else (a build ID set by
// hand, or none) by the sha256 of the executable. The build ID is read
// from a few bytes of the file: hashing all of kbook's 160 MB cost about
// half a CPU second on each kbook run.
func BinaryID() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find kbook executable: %w", err)
	}
	if id := goBuildID(exe); id != "" {
		return "go-build-id:" + id, nil
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("hash kbook executable: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash kbook executable: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// goBuildID is the go command's build ID of an ELF executable, from its
// .note.go.buildid note, or "" where there is none or it is not the go
// command's own four parts (actions and contents of the main package and
// of the link): -ldflags=-buildid=X would give every build the same ID.
func goBuildID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return ""
	}
	data, err := sec.Data()
	if err != nil || len(data) < 16 {
		return ""
	}
	// An ELF note: name size, description size, type, then the name
	// ("Go\x00\x00") and the description (the ID), each padded to 4 bytes.
	bo := f.ByteOrder
	nameSize, descSize, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
	const goBuildIDNote = 4
	if nameSize != 4 || typ != goBuildIDNote || string(data[12:16]) != "Go\x00\x00" || uint64(len(data)) < 16+uint64(descSize) {
		return ""
	}
	id := string(data[16 : 16+descSize])
	parts := strings.Split(id, "/")
	if len(parts) != 4 || slices.Contains(parts, "") {
		return ""
	}
	return id
}
