package runner

import (
	"fmt"
	"os"
	"path/filepath"
)

// blockStore keeps the text of a page's blocks where the page's bash
// sources them from. Where it can (Linux), a block lives in memory, in a
// memfd bash opens through /proc: nothing is written to disk, and nothing
// is left to remove (nor to leak, whatever ends kbook). Elsewhere it is a
// file in a folder made in parent, the runbook's work directory, on the
// first block.
type blockStore struct {
	parent, dir string
}

// put stores block seq's text and returns the path bash sources it from,
// and what frees it once the block has run.
func (b *blockStore) put(seq int, text string) (path string, release func(), err error) {
	if path, release, ok := blocksInMemory(text); ok {
		return path, release, nil
	}
	if b.dir == "" {
		if b.dir, err = os.MkdirTemp(b.parent, "shell-"); err != nil {
			return "", nil, err
		}
	}
	path = filepath.Join(b.dir, fmt.Sprintf("block-%d.sh", seq))
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", nil, err
	}
	return path, func() {}, nil
}

// blocksInMemory is putMemory; tests make it refuse, for the files.
var blocksInMemory = putMemory
