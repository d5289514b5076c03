package sitetools

import "testing"

// TestParseMode: every name reads back as itself, "" and the zero value are
// Default, an unknown value names the valid ones and leaves the value as
// it was.
func TestParseMode(t *testing.T) {
	var zero Mode
	if zero != Default || zero.String() != "" {
		t.Errorf("the zero Mode is %q, want Default", zero)
	}
	for _, n := range ModeNames {
		var m Mode
		if err := m.Set(n); err != nil || m.String() != n {
			t.Errorf("Set(%q) = %v, %v", n, m, err)
		}
	}
	if m, err := ParseMode(""); err != nil || m != Default {
		t.Errorf(`ParseMode("") = %v, %v; want Default`, m, err)
	}
	m := Off
	if err := m.Set("npm"); err == nil || err.Error() != "want auto, download or off" || m != Off {
		t.Errorf(`Set("npm") = %v, left %v; want an error naming the values, the value unchanged`, err, m)
	}
	for _, c := range []struct {
		m                  Mode
		fetches, installed bool
	}{{Auto, true, true}, {Download, true, false}, {Off, false, true}} {
		if c.m.Fetches() != c.fetches || c.m.Installed() != c.installed {
			t.Errorf("%v: Fetches %v Installed %v, want %v %v", c.m, c.m.Fetches(), c.m.Installed(), c.fetches, c.installed)
		}
	}
}

// TestResolve: a mode given wins over $KBOOK_SITE_TOOLS; Default takes
// the variable, else auto; a bad value names the variable.
func TestResolve(t *testing.T) {
	t.Setenv(EnvMode, "off")
	if m, err := Download.Resolve(); err != nil || m != Download {
		t.Errorf("given download: %v, %v; want download", m, err)
	}
	if m, err := Default.Resolve(); err != nil || m != Off {
		t.Errorf("Default with %s=off: %v, %v; want off", EnvMode, m, err)
	}
	t.Setenv(EnvMode, "")
	if m, err := Default.Resolve(); err != nil || m != Auto {
		t.Errorf("Default, unset: %v, %v; want auto", m, err)
	}
	t.Setenv(EnvMode, "npm")
	if _, err := Default.Resolve(); err == nil || err.Error() != "KBOOK_SITE_TOOLS=npm: want auto, download or off" {
		t.Errorf("bad value: %v", err)
	}
}
