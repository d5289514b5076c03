package release

import (
	"compress/gzip"
	"encoding/pem"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

const (
	// ImageBinary is where the image holds kbook, its entrypoint.
	ImageBinary = "/usr/local/bin/kbook"
	// ImageUser is the image's user (uid:gid), not root: kbook needs no
	// privilege, and its cache is the user's home.
	ImageUser = "65532:65532"
	imageHome = "/home/kbook"
	imageCA   = "etc/ssl/certs/ca-certificates.crt"
	// refNameAnnotation names the image in the layout's index.json, the
	// tag skopeo and podman read from an OCI archive.
	refNameAnnotation = "org.opencontainers.image.ref.name"
	sourceURL         = "https://github.com/k0rdent/kbook"
)

// ImageTag is the tag of version's image in the OCI archive: the version,
// "+" (not allowed in a registry tag) as "-".
func ImageTag(version string) string { return strings.ReplaceAll(version, "+", "-") }

// writeImage writes the container image of the linux binaries (platform
// to binary) as an OCI archive. Each platform's image is two layers: a
// base (the user, a home, /tmp, CA certificates from the pinned
// golang.org/x/crypto/x509roots module, so that kbook's downloads verify
// TLS with no distribution underneath), the same for every platform and
// version, then kbook. It holds nothing else, no shell: runbooks whose
// steps exec other programs need an image with those (content/reference/
// install.md says how to add kbook to one).
func writeImage(file, work string, bins map[Platform]string, o Options) error {
	base, err := layerFile(filepath.Join(work, "layer-base.tar.gz"), o, baseFiles()...)
	if err != nil {
		return err
	}
	var adds []mutate.IndexAddendum
	for _, p := range sortedPlatforms(bins) {
		kb, err := layerFile(filepath.Join(work, "layer-kbook-"+p.Arch+".tar.gz"), o,
			tarFile{Name: "usr/", Dir: true, Mode: 0o755}, tarFile{Name: "usr/local/", Dir: true, Mode: 0o755},
			tarFile{Name: "usr/local/bin/", Dir: true, Mode: 0o755}, tarFile{Name: strings.TrimPrefix(ImageBinary, "/"), Src: bins[p], Mode: 0o755})
		if err != nil {
			return err
		}
		img, err := platformImage(p, base, kb, o)
		if err != nil {
			return err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch}}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	dir := filepath.Join(work, "oci")
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameAnnotation: ImageTag(o.Version)})); err != nil {
		return err
	}
	return create(file, func(w io.Writer) error { return tarDir(w, dir, o) })
}

// baseFiles are the base layer's files.
func baseFiles() []tarFile {
	var pemBundle []byte
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			// A root trusted only for certificates issued before a date
			// (a distrusted CA): a PEM bundle cannot say so, leave it out.
			continue
		}
		pemBundle = append(pemBundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate})...)
	}
	return []tarFile{
		{Name: "etc/", Dir: true, Mode: 0o755},
		{Name: "etc/group", Data: []byte("root:x:0:\nkbook:x:65532:\n"), Mode: 0o644},
		{Name: "etc/passwd", Data: []byte("root:x:0:0:root:/root:/sbin/nologin\nkbook:x:65532:65532:kbook:" + imageHome + ":/sbin/nologin\n"), Mode: 0o644},
		{Name: "etc/ssl/", Dir: true, Mode: 0o755},
		{Name: "etc/ssl/certs/", Dir: true, Mode: 0o755},
		{Name: imageCA, Data: pemBundle, Mode: 0o644},
		{Name: "home/", Dir: true, Mode: 0o755},
		{Name: strings.TrimPrefix(imageHome, "/") + "/", Dir: true, Mode: 0o755, UID: 65532, GID: 65532},
		{Name: "tmp/", Dir: true, Mode: 0o1777},
		{Name: "work/", Dir: true, Mode: 0o755, UID: 65532, GID: 65532},
	}
}

// layerFile writes files as a gzipped tar layer at file and returns it as
// an OCI layer (compressed once: go-containerregistry reads the digest
// from the compressed file and the diff ID by decompressing it).
func layerFile(file string, o Options, files ...tarFile) (v1.Layer, error) {
	err := create(file, func(w io.Writer) error {
		zw := gzip.NewWriter(w)
		if err := tarFiles(zw, o.Date, files...); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return nil, err
	}
	return tarball.LayerFromFile(file, tarball.WithMediaType(types.OCILayer))
}

// platformImage is p's image: the two layers, kbook as entrypoint, the
// OCI labels.
func platformImage(p Platform, base, kb v1.Layer, o Options) (v1.Image, error) {
	created := v1.Time{Time: o.Date}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: created, CreatedBy: "kbook release: base (user, /tmp, CA certificates)"}},
		mutate.Addendum{Layer: kb, History: v1.History{Created: created, CreatedBy: "kbook release: " + ImageBinary}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = p.OS, p.Arch, created
	cf.Config.Entrypoint = []string{ImageBinary}
	cf.Config.User = ImageUser
	cf.Config.WorkingDir = "/work"
	cf.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + imageHome, "SSL_CERT_FILE=/" + imageCA}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "kbook",
		"org.opencontainers.image.description": "kbook, the k0rdent extension kit: executable runbooks and authoring tools",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Commit,
		"org.opencontainers.image.created":     o.Date.Format("2006-01-02T15:04:05Z"),
		"org.opencontainers.image.source":      sourceURL,
	}
	return mutate.ConfigFile(img, cf)
}

// tarDir writes the OCI layout in dir as a tar: sorted, at the release's
// date, so that the same images make the same archive.
func tarDir(w io.Writer, dir string, o Options) error {
	var files []tarFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			files = append(files, tarFile{Name: rel + "/", Dir: true, Mode: 0o755})
		} else {
			files = append(files, tarFile{Name: rel, Src: p, Mode: 0o644})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tarFiles(w, o.Date, files...)
}

func sortedPlatforms(m map[Platform]string) []Platform {
	var out []Platform
	for p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Platform) int { return strings.Compare(a.String(), b.String()) })
	return out
}
