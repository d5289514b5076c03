package assetsfrom

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/findings"
)

// Source is where programs not cached yet come from. Its zero value is
// Auto, the CLI's default. It is a pflag.Value, so --assets-from parses
// straight into it.
type Source int

const (
	// Auto uses what the cache holds (built or downloaded), else
	// downloads (setup-envtest's archive; the controllers' released
	// images), else, when that fails (offline, say), builds from pinned Go
	// modules, saying so.
	Auto Source = iota
	// Download fetches the released artifacts, checked against their
	// published digests, and fails when it cannot.
	Download
	// Build builds from pinned Go modules (no network but the Go module
	// proxy; minutes, once).
	Build
)

// Names are the valid values of --assets-from, the default first.
var Names = []string{"auto", "download", "build"}

// String is the flag value: auto, download or build.
func (s Source) String() string {
	if int(s) >= 0 && int(s) < len(Names) {
		return Names[s]
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Parse reads a --assets-from value; "" is Auto.
func Parse(v string) (Source, error) {
	if v == "" {
		return Auto, nil
	}
	for i, n := range Names {
		if v == n {
			return Source(i), nil
		}
	}
	return Auto, fmt.Errorf("want %s", findings.OneOf(Names))
}

// Set parses v into s (pflag.Value: the flag package names the flag and
// the value in the error, as for -o).
func (s *Source) Set(v string) error {
	p, err := Parse(v)
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// Type names the flag's value in --help (pflag.Value): a string, as
// before it was typed, so the help reads as every other flag's.
func (s *Source) Type() string { return "string" }
