package sitetools

import (
	"fmt"
	"os"

	"github.com/k0rdent/kbook/internal/findings"
)

// EnvMode names the environment variable a Mode left at Default reads.
const EnvMode = "KBOOK_SITE_TOOLS"

// Mode chooses where the site's tools that are not Go (Pagefind, mermaid,
// the icon sets) come from. It is a pflag.Value, so --site-tools parses
// straight into it; its zero value, Default, is the CLI's default:
// $KBOOK_SITE_TOOLS, else Auto (Resolve).
type Mode int

const (
	// Default is $KBOOK_SITE_TOOLS when it is set, else Auto.
	Default Mode = iota
	// Auto uses an installed copy (npm's, make site-tools'), else
	// kbook's own, fetched from the npm registry on first use.
	Auto
	// Download uses kbook's own copy only, fetched on first use, whatever
	// is installed.
	Download
	// Off uses an installed copy only: kbook fetches nothing, and what is
	// not installed is left out of the site, said once.
	Off
)

// ModeNames are the values --site-tools and $KBOOK_SITE_TOOLS take.
var ModeNames = []string{"auto", "download", "off"}

// String is the flag value: auto, download or off; "" for Default.
func (m Mode) String() string {
	switch {
	case m == Default:
		return ""
	case m > Default && int(m) <= len(ModeNames):
		return ModeNames[m-1]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a --site-tools (or $KBOOK_SITE_TOOLS) value; "" is
// Default.
func ParseMode(v string) (Mode, error) {
	if v == "" {
		return Default, nil
	}
	for i, n := range ModeNames {
		if v == n {
			return Mode(i + 1), nil
		}
	}
	return Default, fmt.Errorf("want %s", findings.OneOf(ModeNames))
}

// Set parses v into m (pflag.Value: the flag package names the flag and
// the value in the error, as for -o).
func (m *Mode) Set(v string) error {
	p, err := ParseMode(v)
	if err != nil {
		return err
	}
	*m = p
	return nil
}

// Type names the flag's value in --help (pflag.Value).
func (m *Mode) Type() string { return "string" }

// Choices are the values the shell completes --site-tools with.
func (m *Mode) Choices() []string { return ModeNames }

// Usage is --site-tools' help.
func (m *Mode) Usage() string {
	return "where Pagefind, mermaid and the icon sets come from: auto (an installed copy, else kbook's pinned copy fetched from the npm registry once), download (kbook's copy only) or off (installed only: nothing fetched) (default: $" + EnvMode + ", else auto)"
}

// Resolve is m, or for Default $KBOOK_SITE_TOOLS (unset: Auto). A bad
// value is an error naming the variable and the valid values.
func (m Mode) Resolve() (Mode, error) {
	if m != Default {
		return m, nil
	}
	v := os.Getenv(EnvMode)
	p, err := ParseMode(v)
	if err != nil {
		return Default, fmt.Errorf("%s=%s: %w", EnvMode, v, err)
	}
	if p == Default {
		return Auto, nil
	}
	return p, nil
}

// Fetches reports whether kbook may fetch its own copy in this mode.
func (m Mode) Fetches() bool { return m != Off }

// Installed reports whether an installed copy is looked for first.
func (m Mode) Installed() bool { return m != Download }
