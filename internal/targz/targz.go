package targz

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// EachRegular calls fn for each regular file of the gzipped tar archive
// at file, in archive order, with a reader of its content; links,
// directories and other entries are skipped. fn's error ends the walk.
func EachRegular(file string, fn func(hdr *tar.Header, content io.Reader) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("not gzip: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("tar: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		if err := fn(hdr, io.LimitReader(tr, hdr.Size)); err != nil {
			return err
		}
	}
}

// WriteFile writes content to target with permission perm, created or
// truncated; an error names the archive entry.
func WriteFile(hdr *tar.Header, content io.Reader, target string, perm os.FileMode) error {
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, content)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", hdr.Name, err)
	}
	return nil
}
