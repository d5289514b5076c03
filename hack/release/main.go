// Command release builds kbook's release into a folder (make release,
// package release): an archive and a CycloneDX SBOM per platform, the
// container image as an OCI archive, SHA256SUMS; then it prints each
// file's size and digest and each platform's binary size. The version,
// commit and date come from the git checkout (release.Stamp) unless
// given.
//
//	go run ./hack/release [-out bin/release] [-version v0.3.0] [-platforms linux/amd64,...] [-image=false]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/k0rdent/kbook/internal/release"
)

func main() {
	out := flag.String("out", "bin/release", "the release folder (replaced)")
	ver := flag.String("version", "", "the version to stamp (default: the tag at HEAD, else devel+<commit>)")
	plats := flag.String("platforms", "", "comma-separated GOOS/GOARCH (default: "+platformList(release.Platforms)+")")
	image := flag.Bool("image", true, "also assemble the container image from the linux platforms")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out, *ver, *plats, *image); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, ver, plats string, image bool) error {
	version, commit, date, err := release.Stamp(ctx, ".")
	if err != nil {
		return err
	}
	if ver != "" {
		version = ver
	}
	o := release.Options{Out: out, Version: version, Commit: commit, Date: date, Image: image, Log: printer{}}
	for _, s := range strings.Split(plats, ",") {
		if s == "" {
			continue
		}
		goos, goarch, ok := strings.Cut(s, "/")
		if !ok {
			return fmt.Errorf("-platforms: %q is not GOOS/GOARCH", s)
		}
		o.Platforms = append(o.Platforms, release.Platform{OS: goos, Arch: goarch})
	}
	if len(o.Platforms) == 0 {
		o.Platforms = release.Platforms
	}
	fmt.Printf("kbook %s (commit %s, %s) into %s\n", version, commit, date.Format(time.RFC3339), out)
	res, err := release.Build(ctx, o)
	if err != nil {
		return err
	}
	for _, f := range res.Files {
		fmt.Printf("  %-28s %7.1f MB  %s\n", f.Name, float64(f.Size)/1e6, f.SHA256)
	}
	for _, p := range o.Platforms {
		if n, ok := res.BinarySizes[p]; ok {
			fmt.Printf("  stripped binary %-12s %7.1f MB\n", p, float64(n)/1e6)
		}
	}
	return nil
}

func platformList(ps []release.Platform) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return strings.Join(s, ",")
}

type printer struct{}

func (printer) Infof(format string, args ...any) { fmt.Printf(format+"\n", args...) }
