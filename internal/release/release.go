package release

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/log"
)

// Platform is one GOOS/GOARCH kbook is released for.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Archive is the name of p's archive, kbook-linux-amd64.tar.gz: no
// version in it, so that a release host's "latest" address
// (.../releases/latest/download/NAME) finds the newest release's.
func (p Platform) Archive() string { return "kbook-" + p.OS + "-" + p.Arch + ".tar.gz" }

// SBOM is the name of the CycloneDX SBOM of p's binary.
func (p Platform) SBOM() string { return "kbook-" + p.OS + "-" + p.Arch + ".cdx.json" }

// Platforms are the platforms make release builds.
var Platforms = []Platform{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// Host is the platform this process runs on.
func Host() Platform { return Platform{OS: runtime.GOOS, Arch: runtime.GOARCH} }

const (
	// SumsFile lists the SHA-256 of every other file of the release, in
	// sha256sum's format (sha256sum -c SHA256SUMS checks them).
	SumsFile = "SHA256SUMS"
	// ImageFile is the container image: an OCI image layout in a tar
	// (skopeo's and podman's oci-archive, docker load since Docker 25), its
	// index one manifest per linux platform.
	ImageFile = "kbook-image.oci.tar"
	// Binary is the name of kbook's executable in the archives.
	Binary = "kbook"

	mainPackage = "./cmd/kbook"
	versionVar  = "github.com/k0rdent/kbook/internal/version.Version"
	commitVar   = "github.com/k0rdent/kbook/internal/version.Commit"
)

// Options say what to build.
type Options struct {
	// Module is the repository's root, where go build runs (default ".").
	Module string
	// Out is the release folder. It is replaced: it must not exist, be
	// empty, or hold a previous release (a SHA256SUMS).
	Out string
	// Version and Commit are stamped into the binaries (kbook version).
	Version, Commit string
	// Date is every file's time in the archives and the image, and the
	// SBOM's timestamp: the commit's time, so that the same commit makes
	// the same files.
	Date time.Time
	// Platforms to build (default Platforms).
	Platforms []Platform
	// Image also assembles the container image from the linux platforms.
	Image bool
	// NoTrimpath leaves -trimpath out. Only for tests: -trimpath compiles
	// every package anew (make build does not use it), while without it
	// the build links what make build compiled; the binary then holds the
	// paths of this machine, so it is not reproducible elsewhere.
	NoTrimpath bool
	// Go is the go command (default "go"); it runs with CGO_ENABLED=0,
	// as kbook is released static, and with this process's environment
	// otherwise (GOFLAGS=-p=1 reaches it).
	Go string
	// Log says what is being built, a line a step.
	Log log.Logger
}

// File is one file of the release.
type File struct {
	Name   string // its name in Out
	Size   int64
	SHA256 string // hex
}

// Result is what Build wrote.
type Result struct {
	Out   string
	Files []File // sorted by name, SHA256SUMS last
	// BinarySizes is each platform's stripped binary, in bytes.
	BinarySizes map[Platform]int64
}

// Build builds the release into o.Out: the binaries (go build), then
// Package.
func Build(ctx context.Context, o Options) (*Result, error) {
	o, err := o.defaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(o.Out)), 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Dir(filepath.Clean(o.Out)), ".kbook-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	bins := map[Platform]string{}
	for _, p := range o.Platforms {
		bin := filepath.Join(work, p.OS+"-"+p.Arch, Binary)
		start := time.Now()
		if err := goBuild(ctx, o, p, bin); err != nil {
			return nil, err
		}
		o.Log.Infof("built %s in %s", p, time.Since(start).Round(time.Second))
		bins[p] = bin
	}
	return Package(o, bins)
}

// Package writes the release of built binaries (platform to file) into
// o.Out: an archive and an SBOM per platform, the image when o.Image,
// SHA256SUMS. The same binaries and o.Date make the same files.
func Package(o Options, bins map[Platform]string) (*Result, error) {
	o, err := o.defaults()
	if err != nil {
		return nil, err
	}
	if err := clearOut(o.Out); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Dir(filepath.Clean(o.Out)), ".kbook-package-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	res := &Result{Out: o.Out, BinarySizes: map[Platform]int64{}}
	linux := map[Platform]string{}
	for _, p := range sortedPlatforms(bins) {
		bin := bins[p]
		fi, err := os.Stat(bin)
		if err != nil {
			return nil, err
		}
		res.BinarySizes[p] = fi.Size()
		if err := writeArchive(filepath.Join(o.Out, p.Archive()), bin, o.Date); err != nil {
			return nil, fmt.Errorf("release: %s: %w", p.Archive(), err)
		}
		if err := writeSBOM(filepath.Join(o.Out, p.SBOM()), bin, p, o); err != nil {
			return nil, fmt.Errorf("release: %s: %w", p.SBOM(), err)
		}
		o.Log.Infof("packed %s: binary %.1f MB, %s, %s", p, float64(fi.Size())/1e6, p.Archive(), p.SBOM())
		if p.OS == "linux" {
			linux[p] = bin
		}
	}
	if o.Image {
		if len(linux) == 0 {
			return nil, errors.New("release: an image needs a linux platform")
		}
		start := time.Now()
		if err := writeImage(filepath.Join(o.Out, ImageFile), work, linux, o); err != nil {
			return nil, fmt.Errorf("release: %s: %w", ImageFile, err)
		}
		o.Log.Infof("assembled %s (%s) in %s", ImageFile, sortedPlatforms(linux), time.Since(start).Round(time.Second))
	}
	files, err := writeSums(o.Out)
	if err != nil {
		return nil, err
	}
	res.Files = files
	return res, nil
}

func (o Options) defaults() (Options, error) {
	if o.Version == "" {
		return o, errors.New("release: no version to stamp")
	}
	if o.Out == "" {
		return o, errors.New("release: no output folder")
	}
	if o.Module == "" {
		o.Module = "."
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if len(o.Platforms) == 0 {
		o.Platforms = Platforms
	}
	o.Date = o.Date.UTC()
	o.Log = log.Or(o.Log)
	return o, nil
}

// Flags are the go build flags of a release binary: stripped (-s -w, no
// symbol table or DWARF), version and commit stamped, and -trimpath
// unless noTrimpath.
func Flags(version, commit string, noTrimpath bool) []string {
	var f []string
	if !noTrimpath {
		f = append(f, "-trimpath")
	}
	return append(f, "-ldflags", fmt.Sprintf("-s -w -X %s=%s -X %s=%s", versionVar, version, commitVar, commit))
}

func goBuild(ctx context.Context, o Options, p Platform, bin string) error {
	args := append([]string{"build"}, Flags(o.Version, o.Commit, o.NoTrimpath)...)
	args = append(args, "-o", bin, mainPackage)
	cmd := exec.CommandContext(ctx, o.Go, args...)
	cmd.Dir = o.Module
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("release: GOOS=%s GOARCH=%s %s %s: %w\n%s", p.OS, p.Arch, o.Go, strings.Join(args, " "), err, out.Bytes())
	}
	return nil
}

// clearOut empties out when it is empty or a previous release, and makes
// it.
func clearOut(out string) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(out, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(out, SumsFile)); err != nil {
			return fmt.Errorf("release: %s is neither empty nor a previous release (no %s): not replaced", out, SumsFile)
		}
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// writeSums writes SHA256SUMS over every file in out and returns them
// all, SHA256SUMS last.
func writeSums(out string) ([]File, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	var files []File
	var sums strings.Builder
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == SumsFile {
			continue
		}
		f, err := hashFile(filepath.Join(out, e.Name()))
		if err != nil {
			return nil, err
		}
		f.Name = e.Name()
		files = append(files, f)
		fmt.Fprintf(&sums, "%s  %s\n", f.SHA256, f.Name)
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	p := filepath.Join(out, SumsFile)
	if err := os.WriteFile(p, []byte(sums.String()), 0o644); err != nil {
		return nil, err
	}
	f, err := hashFile(p)
	if err != nil {
		return nil, err
	}
	f.Name = SumsFile
	return append(files, f), nil
}

func hashFile(p string) (File, error) {
	f, err := os.Open(p)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return File{}, err
	}
	return File{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ParseSums reads a SHA256SUMS file: file name to hex digest.
func ParseSums(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || name == "" {
			return nil, fmt.Errorf("%s line %d: want \"<sha256>  <file>\", got %q", SumsFile, i+1, line)
		}
		out[name] = sum
	}
	return out, nil
}

// Stamp is what a release is stamped with, from the git checkout at dir:
// the commit, its time, and the version - the tag at HEAD (git describe
// --tags --exact-match), else "devel+<12 hex of the commit>", as kbook
// version names a development build; "-dirty" when tracked files differ
// from HEAD. SOURCE_DATE_EPOCH, when set, overrides the time.
func Stamp(ctx context.Context, dir string) (version, commit string, date time.Time, err error) {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(ee.Stderr))
		}
		return strings.TrimSpace(string(out)), err
	}
	if commit, err = git("rev-parse", "HEAD"); err != nil {
		return "", "", time.Time{}, err
	}
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		if epoch, err = git("log", "-1", "--format=%ct", "HEAD"); err != nil {
			return "", "", time.Time{}, err
		}
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return "", "", time.Time{}, fmt.Errorf("commit time %q: %w", epoch, err)
	}
	date = time.Unix(secs, 0).UTC()
	dirty := false
	if _, err := git("diff", "--quiet", "HEAD", "--"); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			return "", "", time.Time{}, err
		}
		dirty = true
	}
	version, err = git("describe", "--tags", "--exact-match", "HEAD")
	if err != nil || dirty {
		version = "devel+" + commit[:12]
		if dirty {
			version += "-dirty"
		}
	}
	return version, commit, date, nil
}
