package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set with -ldflags "-X github.com/k0rdent/kbook/internal/version.Version=v1.2.3"
// for releases (make release); otherwise it comes from the module version
// or VCS revision.
var Version = ""

// Commit is set with -ldflags "-X github.com/k0rdent/kbook/internal/version.Commit=<git commit>"
// for releases (make release); otherwise it is the VCS revision the Go
// toolchain stamped into the build info, if any.
var Commit = ""

// String returns the kbook version, such as "v0.1.0" or "devel+3f2a1c9e-dirty".
func String() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := vcs(bi)
	v := "devel"
	if rev != "" {
		v += "+" + rev[:min(12, len(rev))]
	}
	if dirty {
		v += "-dirty"
	}
	return v
}

// Revision returns the commit kbook was built from: Commit, else the
// build info's VCS revision, else "" (a go install of a module version
// carries none).
func Revision() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, _ := vcs(bi)
		return rev
	}
	return ""
}

// vcs returns the build info's VCS revision and whether the tree was
// modified.
func vcs(bi *debug.BuildInfo) (rev string, dirty bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, dirty
}

// Platform is GOOS/GOARCH and the Go version kbook was built with.
func Platform() string {
	return runtime.GOOS + "/" + runtime.GOARCH + " " + runtime.Version()
}

// Line is what kbook version prints: "kbook v0.3.0 (commit 3f2a1c9e…,
// linux/amd64 go1.26.8)", the commit where known (a release stamps it, a
// build in a git checkout has it from the build info).
func Line() string {
	if rev := Revision(); rev != "" {
		return fmt.Sprintf("kbook %s (commit %s, %s)", String(), rev, Platform())
	}
	return fmt.Sprintf("kbook %s (%s)", String(), Platform())
}
