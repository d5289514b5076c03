package runner

import (
	"os"
	"path/filepath"
)

// blockStore keeps the text of the block a page's bash runs next, where
// bash sources it from. Where it can (Linux), that is one memfd for the
// session, rewritten for each block, which bash opens through /proc:
// nothing is written to disk, and nothing is left to remove (nor to leak,
// whatever ends kbook). Elsewhere it is a file in a folder made in parent
// (the runbook's work directory) on the first block, removed by close.
type blockStore struct {
	parent string
	mem    *os.File // the memfd, nil where blocks are files
	memAt  string   // the path bash opens the memfd by
	memLen int      // the memfd's length
	dir    string
}

// newBlockStore makes a store, in memory where it can.
func newBlockStore() *blockStore {
	b := &blockStore{}
	if f, path, ok := blocksInMemory(); ok {
		b.mem, b.memAt = f, path
	}
	return b
}

// put stores the next block's text and returns the path bash sources it
// from (the same path for every block of the session in memory).
func (b *blockStore) put(text string) (path string, err error) {
	if b.mem != nil {
		// Written over the last block; cut only where it was
		// longer (a page's later blocks are padded with more lines).
		if _, err := b.mem.WriteAt([]byte(text), 0); err != nil {
			return "", err
		}
		if len(text) < b.memLen {
			if err := b.mem.Truncate(int64(len(text))); err != nil {
				return "", err
			}
		}
		b.memLen = len(text)
		return b.memAt, nil
	}
	if b.dir == "" {
		if b.dir, err = os.MkdirTemp(b.parent, "shell-"); err != nil {
			return "", err
		}
	}
	path = filepath.Join(b.dir, "block.sh")
	return path, os.WriteFile(path, []byte(text), 0o600)
}

// close frees the memfd, or removes the blocks' folder.
func (b *blockStore) close() {
	if b.mem != nil {
		b.mem.Close()
	}
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// blocksInMemory is openMemory; tests make it refuse, for the files.
var blocksInMemory = openMemory
