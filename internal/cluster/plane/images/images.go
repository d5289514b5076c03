package images

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// EnvMirror names the environment variable holding a registry host that
// replaces every image reference's registry (a mirror, or a test's
// registry), e.g. 127.0.0.1:5000.
const EnvMirror = "KBOOK_REGISTRY_MIRROR"

// Record is what Pull took.
type Record struct {
	// Ref is the reference pulled (after any mirror).
	Ref string `json:"ref"`
	// Digest is the digest the registry gave for Ref; the manifest pulled
	// matched it.
	Digest string `json:"digest"`
	// ImageDigest is the platform image's manifest digest (Digest itself
	// for a single-platform image).
	ImageDigest string `json:"imageDigest"`
	// Path is the file taken from the image: its entrypoint.
	Path string `json:"path"`
	// SHA256 is the written binary's.
	SHA256 string `json:"sha256"`
}

// Options tune Pull.
type Options struct {
	// Mirror replaces the registry of the reference (see EnvMirror);
	// empty: $KBOOK_REGISTRY_MIRROR, else none.
	Mirror string
	// Insecure allows plain HTTP to the registry (a mirror on localhost).
	Insecure bool
	// Remote are extra go-containerregistry options (transport, auth).
	Remote []remote.Option
}

// Resolve applies the mirror to ref and parses it.
func Resolve(ref string, o Options) (name.Reference, error) {
	mirror := o.Mirror
	if mirror == "" {
		mirror = os.Getenv(EnvMirror)
	}
	var nopts []name.Option
	if o.Insecure {
		nopts = append(nopts, name.Insecure)
	}
	r, err := name.ParseReference(ref, nopts...)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", ref, err)
	}
	if mirror == "" {
		return r, nil
	}
	repo := r.Context().RepositoryStr()
	var s string
	switch t := r.(type) {
	case name.Digest:
		s = mirror + "/" + repo + "@" + t.DigestStr()
	case name.Tag:
		s = mirror + "/" + repo + ":" + t.TagStr()
	}
	m, err := name.ParseReference(s, nopts...)
	if err != nil {
		return nil, fmt.Errorf("image %s through mirror %s: %w", ref, mirror, err)
	}
	return m, nil
}

// Pull writes the entrypoint binary of ref's image for this platform to
// target (executable), and returns what it took. On any error target is
// untouched and nothing is left beside it.
func Pull(ctx context.Context, ref, target string, o Options) (Record, error) {
	r, err := Resolve(ref, o)
	if err != nil {
		return Record{}, err
	}
	ropts := append([]remote.Option{remote.WithContext(ctx),
		remote.WithPlatform(v1.Platform{OS: runtime.GOOS, Architecture: runtime.GOARCH})}, o.Remote...)
	// The digest the registry gives for the reference (its
	// Docker-Content-Digest), then the manifest by that digest, which
	// go-containerregistry checks against it.
	head, err := remote.Head(r, ropts...)
	if err != nil {
		return Record{}, fmt.Errorf("image %s: %w", r, err)
	}
	pinned := r.Context().Digest(head.Digest.String())
	desc, err := remote.Get(pinned, ropts...)
	if err != nil {
		return Record{}, fmt.Errorf("image %s: %w", r, err)
	}
	img, err := desc.Image() // this platform's, from an index
	if err != nil {
		return Record{}, fmt.Errorf("image %s: %w", pinned, err)
	}
	imgDigest, err := img.Digest()
	if err != nil {
		return Record{}, fmt.Errorf("image %s: %w", pinned, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return Record{}, fmt.Errorf("image %s: config: %w", pinned, err)
	}
	if cfg.OS != "" && (cfg.OS != runtime.GOOS || cfg.Architecture != runtime.GOARCH) {
		return Record{}, fmt.Errorf("image %s is for %s/%s, not %s/%s", pinned, cfg.OS, cfg.Architecture, runtime.GOOS, runtime.GOARCH)
	}
	ep := cfg.Config.Entrypoint
	if len(ep) == 0 {
		ep = cfg.Config.Cmd
	}
	if len(ep) == 0 || !path.IsAbs(ep[0]) {
		return Record{}, fmt.Errorf("image %s: its entrypoint %q names no absolute path to take", pinned, ep)
	}
	file := path.Clean(ep[0])
	sum, err := extract(img, file, target)
	if err != nil {
		return Record{}, fmt.Errorf("image %s: %s: %w", pinned, file, err)
	}
	return Record{Ref: r.String(), Digest: head.Digest.String(), ImageDigest: imgDigest.String(), Path: file, SHA256: sum}, nil
}

// extract writes file of img's flattened filesystem to target and returns
// its sha256.
func extract(img v1.Image, file, target string) (string, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	want := strings.TrimPrefix(file, "/")
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("not in the image")
		}
		if err != nil {
			return "", err // a layer that does not match its digest ends here
		}
		if strings.TrimPrefix(path.Clean("/"+hdr.Name), "/") != want {
			continue
		}
		if hdr.Typeflag != tar.TypeReg {
			return "", fmt.Errorf("not a regular file in the image (tar type %q)", hdr.Typeflag)
		}
		tmp := target + ".pull"
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(io.MultiWriter(f, h), tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			// Read to the end: the last layer's digest is checked at its EOF.
			_, err = io.Copy(io.Discard, rc)
		}
		if err == nil {
			err = os.Rename(tmp, target)
		}
		if err != nil {
			_ = os.Remove(tmp)
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
}
