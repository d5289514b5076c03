package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// programIDs identifies programs by path and content for cache keys,
// hashing each file once per run (and again only if it changes).
type programIDs struct {
	mu   sync.Mutex
	self string
	seen map[string]fileID
}

type fileID struct {
	size  int64
	mtime time.Time
	sum   string
}

// identify resolves prog on path: "missing", "kbook" for this kbook binary
// (its digest is in the key already), else "<path> sha256:<digest>".
func (p *programIDs) identify(prog, path string) string {
	file, err := lookPath(prog, path)
	if err != nil {
		return "missing"
	}
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.self == "" {
		p.self, _ = os.Executable()
		if real, err := filepath.EvalSymlinks(p.self); err == nil {
			p.self = real
		}
	}
	if file == p.self {
		return "kbook"
	}
	fi, err := os.Stat(file)
	if err != nil {
		return "unreadable " + file
	}
	if id, ok := p.seen[file]; ok && id.size == fi.Size() && id.mtime.Equal(fi.ModTime()) {
		return file + " " + id.sum
	}
	sum, err := digest(file)
	if err != nil {
		return fmt.Sprintf("unreadable %s (%v)", file, err)
	}
	if p.seen == nil {
		p.seen = map[string]fileID{}
	}
	p.seen[file] = fileID{size: fi.Size(), mtime: fi.ModTime(), sum: sum}
	return file + " " + sum
}

func digest(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
