package sitetools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// The versions kbook pins: the ones the Makefile's site-tools target
// installs with npm (pagefind@1.6.0, mermaid@12.3.0), with the integrity
// the npm registry gives for each tarball (dist.integrity, as npm's
// package-lock.json records it).
const (
	PagefindVersion = "1.6.0"
	MermaidVersion  = "12.3.0"
)

// pagefindIntegrity is the SRI of Pagefind's platform package for each
// platform kbook is released for (GOOS/GOARCH), named as Pagefind's npm
// packages name them (@pagefind/linux-x64).
var pagefindIntegrity = map[string]struct{ npm, integrity string }{
	"linux/amd64":  {"linux-x64", "sha512-IbMSx/+Vr/Xk0TTBlLkjgK+rvnbOXGmmb2/MKxQu99AR5DsqQoV3NKEA9PQz2tAhuCZjeD5xJBp4w5N5DHIC7Q=="},
	"linux/arm64":  {"linux-arm64", "sha512-SLB2I+XqCZma8NvIGIH8nyKblgKIxw5PmqsVtofWOKxNHhEtOEsddbqU+hsrNcT3EV0faM6UmKDHVIxcPYq29w=="},
	"darwin/amd64": {"darwin-x64", "sha512-rd3ZbtuxyYqjASKZAPuIV7eeQQHJ7VYpoNKKG8CvglaD3g30eT5Nb7XGNLYwVReBsCccpkURwrGwWjSwr8nyQQ=="},
	"darwin/arm64": {"darwin-arm64", "sha512-611gl64aqN12UcMyKPtZ8+vRWBKlJFSh2JgO8uScxa1Eyjo1dXz9r4wZuRno0yCUE/KN0FauEoKZ3KEwUYHCCg=="},
}

// otherwisePagefind says how to get Pagefind without kbook fetching it.
const otherwisePagefind = "to get it otherwise: `make site-tools` in kbook's repository, or `npm install -g pagefind@" + PagefindVersion + "` (or KBOOK_PAGEFIND=<pagefind binary>), or a mirror of the npm registry in npm_config_registry; without it the site has no search"

// PagefindPackage is Pagefind's platform package for goos/goarch (the npm
// package holding its binary); false when kbook pins none for it.
func PagefindPackage(goos, goarch string) (Package, bool) {
	pin, ok := pagefindIntegrity[goos+"/"+goarch]
	if !ok {
		return Package{}, false
	}
	return Package{
		Name:      "@pagefind/" + pin.npm,
		Version:   PagefindVersion,
		Integrity: pin.integrity,
		Otherwise: otherwisePagefind,
	}, true
}

// Mermaid is the mermaid package; only its browser bundle is kept.
var Mermaid = Package{
	Name:      "mermaid",
	Version:   MermaidVersion,
	Integrity: "sha512-4113TdXeLAsMruJ79OpFL5O8+LTFXhQqZ260rF3tgUmiNAtRm4Uume04I+65PRN6yZ69J4f8rVYWW8zRk65UYw==",
	Keep:      []string{"package.json", MermaidJS},
	Otherwise: "to get it otherwise: `make site-tools` in kbook's repository (npm install mermaid@" + MermaidVersion + " into ~/.cache/kbook/npm), or a mirror of the npm registry in npm_config_registry; without it diagrams show as their source",
}

// IconPackages are the icon sets of Material's emoji extension
// (:material-check:, :fontawesome-brands-github:, :octicons-mark-github-16:,
// :simple-kubernetes:), at the versions `make site-tools` installs; only
// their SVG folders are kept.
var IconPackages = []Package{
	iconPackage("@mdi/svg", "7.4.47", "svg/", "sha512-WQ2gDll12T9WD34fdRFgQVgO8bag3gavrAgJ0frN4phlwdJARpE6gO1YvLEMJR0KKgoc+/Ea/A0Pp11I00xBvw=="),
	iconPackage("@fortawesome/fontawesome-free", "7.3.1", "svgs/", "sha512-wmglKKPDIkgV3aWlZzWECCPoGIkYCulzBwxG9+w7rc5BGapZ6cPMpoPOT8k36J0Ni7PPX6c/rsoMWfS4d1MUMg=="),
	iconPackage("@primer/octicons", "19.42.0", "build/svg/", "sha512-MEcHxVxNHu1I2Ndk5Mcwp7tfBiDk/EpytDJgKOfE2ldqIczWucVrZNeNU4wtEN5mnNudZ0YL5G0spax3bSMT4w=="),
	iconPackage("simple-icons", "16.37.0", "icons/", "sha512-8mCJIhpMYOL9g13GW59EiL3sVXJnTEKGCTZFaekl9UQ3Qo0SwVjnLaJ82QiaH8BKBdouEDzrHMXIWh8cBIy48A=="),
}

func iconPackage(name, version, svgs, integrity string) Package {
	return Package{Name: name, Version: version, Keep: []string{svgs}, Integrity: integrity,
		Otherwise: "to get it otherwise: `make site-tools` in kbook's repository (npm install " + name + "@" + version + " into ~/.cache/kbook/npm), or a mirror of the npm registry in npm_config_registry; without it icons show as their shortcode"}
}

// Icons returns the folder of each icon package (by npm name), fetching
// those not in the store; the first failure stops it.
func (c *Client) Icons(ctx context.Context) (map[string]string, error) {
	dirs := map[string]string{}
	for _, p := range IconPackages {
		dir, err := c.Fetch(ctx, p)
		if err != nil {
			return nil, err
		}
		dirs[p.Name] = dir
	}
	return dirs, nil
}

// CachedIcons returns the folders of the icon packages in the store
// (by npm name), fetching nothing; false unless all are there.
func (c *Client) CachedIcons() (map[string]string, bool) {
	dirs := map[string]string{}
	for _, p := range IconPackages {
		dir, ok := c.Cached(p)
		if !ok {
			return nil, false
		}
		dirs[p.Name] = dir
	}
	return dirs, true
}

// MermaidJS is mermaid's browser bundle in its package.
const MermaidJS = "dist/mermaid.min.js"

// Pagefind returns the Pagefind binary for this platform, fetching its
// package first unless it is in the store.
func (c *Client) Pagefind(ctx context.Context) (string, error) {
	p, ok := PagefindPackage(runtime.GOOS, runtime.GOARCH)
	if !ok {
		return "", &Error{Package: Package{Name: "pagefind", Version: PagefindVersion, Otherwise: otherwisePagefind}, Registry: c.registry(),
			Err: fmt.Errorf("kbook pins no Pagefind binary for %s/%s", runtime.GOOS, runtime.GOARCH)}
	}
	return c.pagefind(ctx, p)
}

// CachedPagefind returns the Pagefind binary of this platform when it is
// in the store already; it fetches nothing.
func (c *Client) CachedPagefind() (string, bool) {
	p, ok := PagefindPackage(runtime.GOOS, runtime.GOARCH)
	if !ok {
		return "", false
	}
	dir, ok := c.Cached(p)
	if !ok {
		return "", false
	}
	bin := pagefindBinary(dir)
	return bin, bin != ""
}

// pagefindBinary is the Pagefind binary in the entry dir, or "".
func pagefindBinary(dir string) string {
	// Pagefind's platform packages hold the extended binary (which also
	// indexes Chinese and Japanese), some also the plain one.
	for _, name := range []string{"pagefind_extended", "pagefind"} {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		bin := filepath.Join(dir, "bin", name)
		if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
			return bin
		}
	}
	return ""
}

// pagefind fetches p, a Pagefind platform package, and returns its binary.
func (c *Client) pagefind(ctx context.Context, p Package) (string, error) {
	dir, err := c.Fetch(ctx, p)
	if err != nil {
		return "", err
	}
	if bin := pagefindBinary(dir); bin != "" {
		return bin, nil
	}
	return "", &Error{Package: p, Registry: c.registry(), Err: fmt.Errorf("%s holds no bin/pagefind_extended or bin/pagefind", dir)}
}

// MermaidPath returns mermaid's browser bundle, fetching the package first
// unless it is in the store.
func (c *Client) MermaidPath(ctx context.Context) (string, error) {
	dir, err := c.Fetch(ctx, Mermaid)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(MermaidJS)), nil
}
