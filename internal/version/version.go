package version

import (
	"runtime"
	"runtime/debug"
)

// Version is set with -ldflags "-X github.com/k0rdent/kbook/internal/version.Version=v1.2.3"
// for releases; otherwise it comes from the module version or VCS revision.
var Version = ""

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
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := "devel"
	if rev != "" {
		v += "+" + rev[:min(12, len(rev))]
	}
	if dirty {
		v += "-dirty"
	}
	return v
}

// Platform is GOOS/GOARCH and the Go version kbook was built with.
func Platform() string {
	return runtime.GOOS + "/" + runtime.GOARCH + " " + runtime.Version()
}
