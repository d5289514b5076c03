package release

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"golang.org/x/mod/modfile"
)

const (
	moduleRoot = "../.."
	// testVersion is what the host release is stamped with.
	testVersion = "v0.0.0-releasetest"
	// maxBinary bounds the stripped binary: issue 38's target is 100 MB,
	// which kbook does not meet (117.6 MB on linux/amd64 on 2026-12-06,
	// content/reference/install.md); this catches it growing further.
	maxBinary = 125_000_000
	// testRunbook is the runbook the released binary runs: small, and
	// one that needs a cluster, so the local backend starts.
	testRunbook = "runbooks/custom-provider.md"
)

type testLogger struct{ t *testing.T }

func (l testLogger) Infof(format string, args ...any) { l.t.Logf(format, args...) }

// TestHostRelease builds the release of this platform as make release
// does, except -trimpath (which would compile every package anew: without
// it the build links what make build compiled), serves it as a release
// host does, installs it with the install script (checksum verified),
// and checks what it holds: the stamped version and commit, a stripped
// binary within the size target, an SBOM of what is linked, an image
// holding the same binary; that the same binary packs into the same
// files; and that the installed kbook runs a runbook on the local
// backend.
func TestHostRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and links kbook: skipped with -short")
	}
	ctx := context.Background()
	_, commit, date, err := Stamp(ctx, moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	out := filepath.Join(root, "download", testVersion)
	o := Options{Module: moduleRoot, Out: out, Version: testVersion, Commit: commit, Date: date,
		Platforms: []Platform{Host()}, Image: Host().OS == "linux", NoTrimpath: true, Log: testLogger{t}}
	start := time.Now()
	res, err := Build(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	size := res.BinarySizes[Host()]
	t.Logf("release of %s in %s: stripped binary %.1f MB", Host(), time.Since(start).Round(time.Second), float64(size)/1e6)
	if size > maxBinary {
		t.Errorf("the stripped binary is %.1f MB, over %d MB (issue 38's target: 100 MB)", float64(size)/1e6, maxBinary/1_000_000)
	}
	for _, f := range res.Files {
		t.Logf("%s: %.1f MB", f.Name, float64(f.Size)/1e6)
	}
	checkSums(t, out, res)

	host := newReleaseHost(t, root, testVersion)
	dir := t.TempDir()
	start = time.Now()
	msg, err := runInstall(t, "KBOOK_VERSION="+testVersion, "KBOOK_BASE_URL="+host.URL, "KBOOK_INSTALL_DIR="+dir)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, msg)
	}
	t.Logf("installed from the release host in process in %s", time.Since(start).Round(time.Millisecond))
	kbook := filepath.Join(dir, Binary)
	bin, err := hashFile(kbook)
	if err != nil {
		t.Fatal(err)
	}
	if bin.Size != size {
		t.Errorf("installed %d bytes, built %d", bin.Size, size)
	}

	for args, want := range map[string]string{
		"version":   "kbook " + testVersion + " (commit " + commit + ", " + Host().String() + " go",
		"--version": "kbook " + testVersion + "\n",
	} {
		said, err := exec.Command(kbook, args).Output() // on stdout
		if err != nil || !strings.HasPrefix(string(said), want) {
			t.Errorf("kbook %s: %q, %v; want %q", args, said, err, want)
		}
	}
	if runtime.GOOS == "linux" {
		checkStripped(t, kbook)
	}
	checkSBOM(t, filepath.Join(out, Host().SBOM()), kbook, bin.SHA256, commit)
	if o.Image {
		checkImage(t, filepath.Join(out, ImageFile), bin.SHA256, commit)
	}

	t.Run("same binary, same files", func(t *testing.T) {
		again := o
		again.Out = filepath.Join(t.TempDir(), "again")
		if _, err := Package(again, map[Platform]string{Host(): kbook}); err != nil {
			t.Fatal(err)
		}
		first, _ := os.ReadFile(filepath.Join(out, SumsFile))
		second, _ := os.ReadFile(filepath.Join(again.Out, SumsFile))
		if !bytes.Equal(first, second) {
			t.Errorf("packed twice, the files differ:\n%s\n%s", first, second)
		}
	})

	t.Run("runbook", func(t *testing.T) {
		if _, why := binaries.Available(); why != "" {
			t.Skip("the local backend's binaries are not here (" + why + "): the installed kbook would fetch them first")
		}
		rb, err := filepath.Abs(filepath.Join(moduleRoot, testRunbook))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(kbook, "run", "--no-cache", rb)
		cmd.Dir = t.TempDir()
		start := time.Now()
		said, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(said), "kbook: 1 passed, 0 failed, 0 skipped") || !strings.Contains(string(said), "local API server ready") {
			t.Fatalf("kbook run %s: %v\n%s", testRunbook, err, said)
		}
		t.Logf("the installed kbook ran %s on the local backend in %s", testRunbook, time.Since(start).Round(time.Millisecond))
	})
}

// checkSums: SHA256SUMS lists every other file of the release, each with
// its digest.
func checkSums(t *testing.T, out string, res *Result) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	sums, err := ParseSums(b)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{Host().Archive(), Host().SBOM(), SumsFile}
	if Host().OS == "linux" {
		want = append(want, ImageFile)
	}
	if len(entries) != len(want) || len(res.Files) != len(want) {
		t.Errorf("release files %v, result %v; want %v", entries, res.Files, want)
	}
	for _, e := range entries {
		if e.Name() == SumsFile {
			continue
		}
		f, err := hashFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if sums[e.Name()] != f.SHA256 {
			t.Errorf("%s: SHA256SUMS says %q, the file is %s", e.Name(), sums[e.Name()], f.SHA256)
		}
	}
}

// checkStripped: no symbol table, no DWARF.
func checkStripped(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range []string{".symtab", ".debug_info", ".zdebug_info"} {
		if f.Section(s) != nil {
			t.Errorf("the released binary has %s: not stripped", s)
		}
	}
}

// checkSBOM: the SBOM is CycloneDX 1.6 naming kbook at the stamped
// version with the binary's digest and commit, and every module linked
// into the binary at the version go.mod requires (where it requires it),
// and the standard library.
func checkSBOM(t *testing.T, file, bin, binSHA256, commit string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, _ := io.ReadAll(f)
	if !bytes.Contains(raw, []byte(`"specVersion": "1.6"`)) {
		t.Errorf("SBOM not CycloneDX 1.6: %.200s", raw)
	}
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(raw), cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		t.Fatal(err)
	}
	m := bom.Metadata.Component
	if m == nil || m.Name != "kbook" || m.Version != testVersion || m.Hashes == nil || (*m.Hashes)[0].Value != binSHA256 {
		t.Fatalf("SBOM's kbook: %+v", m)
	}
	props := map[string]string{}
	for _, p := range *m.Properties {
		props[p.Name] = p.Value
	}
	if props["kbook:go:build:GOOS"] != Host().OS || props["kbook:go:build:CGO_ENABLED"] != "0" || !strings.Contains(props["kbook:go:build:-ldflags"], commit) {
		t.Errorf("SBOM's build settings: %v", props)
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]string{}
	for _, r := range mf.Require {
		required[r.Mod.Path] = r.Mod.Version
	}
	listed := map[string]string{}
	for _, c := range *bom.Components {
		listed[c.Name] = c.Version
	}
	if listed["stdlib"] != strings.TrimPrefix(runtime.Version(), "go") {
		t.Errorf("SBOM's stdlib %q, built with %s", listed["stdlib"], runtime.Version())
	}
	checked := 0
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		if listed[d.Path] != d.Version {
			t.Errorf("SBOM lists %s at %q, the binary links %s", d.Path, listed[d.Path], d.Version)
		}
		if v, ok := required[d.Path]; ok {
			checked++
			if v != d.Version {
				t.Errorf("SBOM: %s %s, go.mod requires %s", d.Path, d.Version, v)
			}
		}
	}
	if len(bi.Deps) < 100 || checked < 50 || listed["github.com/spf13/cobra"] == "" {
		t.Errorf("SBOM lists %d modules (%d checked against go.mod): too few for kbook", len(bi.Deps), checked)
	}
}

// checkImage: the OCI archive's index names the version and holds one
// image for this platform whose entrypoint is the same kbook as the
// archive's, run as a user, with a CA bundle that parses.
func checkImage(t *testing.T, file, binSHA256, commit string) {
	t.Helper()
	dir := t.TempDir()
	untar(t, file, dir)
	root, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	rm, err := root.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(rm.Manifests) != 1 || rm.Manifests[0].Annotations[refNameAnnotation] != ImageTag(testVersion) {
		t.Fatalf("layout index: %+v", rm.Manifests)
	}
	idx, err := root.ImageIndex(rm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Platform == nil || im.Manifests[0].Platform.OS != Host().OS || im.Manifests[0].Platform.Architecture != Host().Arch {
		t.Fatalf("image index: %+v", im.Manifests)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if len(c.Entrypoint) != 1 || c.Entrypoint[0] != ImageBinary || c.User != ImageUser ||
		c.Labels["org.opencontainers.image.version"] != testVersion || c.Labels["org.opencontainers.image.revision"] != commit {
		t.Errorf("image config: %+v", c)
	}
	files := map[string][]byte{}
	rc := mutate.Extract(img)
	defer rc.Close()
	eachTarEntry(t, rc, func(h *tar.Header, r io.Reader) error {
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(r)
			files["/"+h.Name] = b
			return err
		}
		return nil
	})
	if got := sha256Hex(files[ImageBinary]); got != binSHA256 {
		t.Errorf("the image's %s is %s, the archive's kbook %s", ImageBinary, got, binSHA256)
	}
	n := 0
	for rest := files["/"+imageCA]; ; n++ {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			t.Fatalf("%s: %v", imageCA, err)
		}
	}
	if n < 100 {
		t.Errorf("%s holds %d certificates", imageCA, n)
	}
	if !strings.Contains(string(files["/etc/passwd"]), "kbook:x:65532:65532:") {
		t.Errorf("/etc/passwd: %q", files["/etc/passwd"])
	}
}

// untar writes the tar file's directories and regular files under dir.
func untar(t *testing.T, file, dir string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	eachTarEntry(t, f, func(h *tar.Header, r io.Reader) error {
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			return os.MkdirAll(p, 0o755)
		}
		w, err := os.Create(p)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, r); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	})
}

// eachTarEntry calls fn with each entry of the tar stream r and its
// content, failing t on the first error.
func eachTarEntry(t *testing.T, r io.Reader, fn func(*tar.Header, io.Reader) error) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err == nil {
			err = fn(h, tr)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
