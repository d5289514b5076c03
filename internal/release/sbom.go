package release

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// SBOMSpec is the CycloneDX version of the SBOMs: 1.6, which more
// scanners read than cyclonedx-go's default 1.7.
const SBOMSpec = cdx.SpecVersion1_6

const cdxModule = "github.com/CycloneDX/cyclonedx-go"

// writeSBOM writes the CycloneDX SBOM of bin, built for p, from the build
// information the Go linker put into it: what the binary holds, not what
// go.mod lists.
func writeSBOM(file, bin string, p Platform, o Options) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return err
	}
	sum, err := hashFile(bin)
	if err != nil {
		return err
	}
	bom := SBOM(bi, p, o.Version, sum.SHA256, o.Date)
	return create(file, func(w io.Writer) error {
		return cdx.NewBOMEncoder(w, cdx.BOMFileFormatJSON).SetPretty(true).EncodeVersion(bom, SBOMSpec)
	})
}

// SBOM is the CycloneDX BOM of a kbook binary: kbook itself (version,
// platform, the binary's SHA-256, its build settings) as the metadata's
// component, and every module linked into it, and the Go standard
// library, as components kbook depends on. The serial number comes from
// the binary's digest and the timestamp is date, so the same binary gives
// the same SBOM.
func SBOM(bi *buildinfo.BuildInfo, p Platform, version, binSHA256 string, date time.Time) *cdx.BOM {
	mainRef := purl(bi.Main.Path, version) + "?type=module&goos=" + p.OS + "&goarch=" + p.Arch
	var props []cdx.Property
	for _, s := range bi.Settings {
		props = append(props, cdx.Property{Name: "kbook:go:build:" + s.Key, Value: s.Value})
	}
	main := cdx.Component{
		BOMRef: mainRef, Type: cdx.ComponentTypeApplication,
		Name: "kbook", Version: version, PackageURL: mainRef,
		Description: "kbook, the k0rdent extension kit, for " + p.String(),
		Hashes:      &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: binSHA256}},
		Properties:  &props,
	}
	goVersion := strings.TrimPrefix(bi.GoVersion, "go")
	stdlib := purl("stdlib", goVersion)
	comps := []cdx.Component{{BOMRef: stdlib, Type: cdx.ComponentTypeLibrary, Name: "stdlib", Version: goVersion, PackageURL: stdlib, Scope: cdx.ScopeRequired,
		Description: "the Go standard library and runtime, " + bi.GoVersion}}
	deps := []string{stdlib}
	for _, d := range bi.Deps {
		c := module(d)
		if d.Replace != nil {
			// What is linked is the replacement; the module it stands in
			// for is its pedigree.
			orig := module(&debug.Module{Path: d.Path, Version: d.Version})
			c = module(d.Replace)
			c.Pedigree = &cdx.Pedigree{Ancestors: &[]cdx.Component{orig}}
		}
		comps = append(comps, c)
		deps = append(deps, c.BOMRef)
	}
	bom := cdx.NewBOM()
	bom.SerialNumber = serial(binSHA256)
	bom.Metadata = &cdx.Metadata{
		Timestamp:  date.UTC().Format(time.RFC3339),
		Lifecycles: &[]cdx.Lifecycle{{Phase: cdx.LifecyclePhaseBuild}},
		Tools:      &cdx.ToolsChoice{Components: &[]cdx.Component{tool()}},
		Component:  &main,
	}
	bom.Components = &comps
	bom.Dependencies = &[]cdx.Dependency{{Ref: mainRef, Dependencies: &deps}}
	return bom
}

// module is a Go module as a CycloneDX library component.
func module(m *debug.Module) cdx.Component {
	ref := purl(m.Path, m.Version)
	c := cdx.Component{BOMRef: ref, Type: cdx.ComponentTypeLibrary, Name: m.Path, Version: m.Version, PackageURL: ref, Scope: cdx.ScopeRequired}
	if m.Sum != "" {
		// go.sum's h1: hash (of the module's files), which is not a
		// plain digest of anything CycloneDX names: a property.
		c.Properties = &[]cdx.Property{{Name: "kbook:go:sum", Value: m.Sum}}
	}
	return c
}

// purl is a Go package URL: pkg:golang/<module path>@<version>, the
// version's "+" escaped as the purl spec asks.
func purl(path, version string) string {
	return "pkg:golang/" + path + "@" + strings.ReplaceAll(version, "+", "%2B")
}

// serial is an RFC 4122 URN derived from the binary's digest (version 8,
// "custom"): the same binary, the same serial number.
func serial(binSHA256 string) string {
	h := sha256.Sum256([]byte("kbook sbom " + binSHA256))
	u := h[:16]
	u[6] = u[6]&0x0f | 0x80
	u[8] = u[8]&0x3f | 0x80
	x := hex.EncodeToString(u)
	return fmt.Sprintf("urn:uuid:%s-%s-%s-%s-%s", x[0:8], x[8:12], x[12:16], x[16:20], x[20:32])
}

// tool is the component that wrote the SBOM: cyclonedx-go, at the
// version linked into this program.
func tool() cdx.Component {
	c := cdx.Component{Type: cdx.ComponentTypeLibrary, Group: "github.com/CycloneDX", Name: "cyclonedx-go"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == cdxModule {
				c.Version, c.PackageURL = d.Version, purl(d.Path, d.Version)
			}
		}
	}
	return c
}
