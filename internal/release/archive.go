package release

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"time"
)

// writeArchive writes file as a tar.gz holding bin as "kbook" (mode 0755,
// owned by 0:0, at date): the same binary and date make the same bytes.
func writeArchive(file, bin string, date time.Time) error {
	return create(file, func(w io.Writer) error {
		zw := gzip.NewWriter(w) // no name, no time in the gzip header
		if err := tarFiles(zw, date, tarFile{Name: Binary, Src: bin, Mode: 0o755}); err != nil {
			return err
		}
		return zw.Close()
	})
}

// tarFile is one entry of a tar stream: a directory (Dir), a regular file
// copied from Src, or one holding Data.
type tarFile struct {
	Name     string
	Dir      bool
	Src      string
	Data     []byte
	Mode     int64
	UID, GID int
}

// tarFiles writes files, in the order given, as a tar stream at date.
func tarFiles(w io.Writer, date time.Time, files ...tarFile) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		h := &tar.Header{Name: f.Name, Mode: f.Mode, Uid: f.UID, Gid: f.GID, ModTime: date, Format: tar.FormatPAX}
		if f.Dir {
			h.Typeflag = tar.TypeDir
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			continue
		}
		h.Typeflag = tar.TypeReg
		var r io.Reader
		if f.Src != "" {
			in, err := os.Open(f.Src)
			if err != nil {
				return err
			}
			defer in.Close()
			fi, err := in.Stat()
			if err != nil {
				return err
			}
			h.Size, r = fi.Size(), in
		} else {
			h.Size = int64(len(f.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if r == nil {
			if _, err := tw.Write(f.Data); err != nil {
				return err
			}
		} else if _, err := io.Copy(tw, r); err != nil {
			return err
		}
	}
	return tw.Close()
}

// create writes file with write, buffered; a failed write leaves no file.
func create(file string, write func(io.Writer) error) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(file)
	}
	return err
}
