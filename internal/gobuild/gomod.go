package gobuild

import (
	"fmt"
	"sort"

	"golang.org/x/mod/modfile"
)

// Requires reads a go.mod: the version it requires of each module, or, for a
// module replaced by another module version, the replacement's version.
// A module replaced by a local directory is left out.
func Requires(name string, data []byte) (map[string]string, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	req := map[string]string{}
	for _, r := range f.Require {
		req[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range f.Replace {
		if v, ok := req[r.Old.Path]; !ok || (r.Old.Version != "" && r.Old.Version != v) {
			continue // not required, or a replace of another version
		}
		if r.New.Version == "" {
			delete(req, r.Old.Path)
			continue
		}
		req[r.Old.Path] = r.New.Version
	}
	return req, nil
}

// VersionDiff lists the modules both a and b require at different
// versions, as "module: a's version, b's version", sorted, and how many
// modules they share. Two builds in one GOCACHE compile a shared package
// once only if its module and every module below it are at one version.
func VersionDiff(a, b map[string]string) (diff []string, shared int) {
	for m, va := range a {
		vb, ok := b[m]
		if !ok {
			continue
		}
		shared++
		if va != vb {
			diff = append(diff, fmt.Sprintf("%s: %s, %s", m, va, vb))
		}
	}
	sort.Strings(diff)
	return diff, shared
}
