package plane

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
)

// TestSnapshotInputs reads the real module trees with stand-in binaries:
// the inputs are the same for the same plane and differ when a controller
// binary, a CRD or a webhook manifest changes; CRDs already wired to a
// run's webhooks are refused (their port and CA would be in the key).
func TestSnapshotInputs(t *testing.T) {
	r, p := release(t, false)
	// A copy of the module trees and small stand-ins for the binaries:
	// changing them must not touch the cache.
	p.Dir = t.TempDir()
	p.Bin = filepath.Join(p.Dir, "bin")
	mods := filepath.Join(p.Dir, "modules")
	if err := os.CopyFS(mods, os.DirFS(p.Modules)); err != nil {
		t.Fatal(err)
	}
	p.Modules = mods
	if err := os.MkdirAll(p.Bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Controllers {
		if err := os.WriteFile(p.Binary(c.Name), []byte("binary of "+c.Name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inputs := func() string {
		t.Helper()
		crds, err := releasecrds.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		in, err := SnapshotInputs(p, r, crds)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, i := range in {
			b.WriteString(i.What + "\x00" + string(i.Data) + "\x00")
		}
		return b.String()
	}
	base := inputs()
	if again := inputs(); again != base {
		t.Error("the same plane gave other inputs")
	}
	crds, err := releasecrds.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var webhookFile string
	for _, src := range webhookSources {
		if src.File != "" {
			webhookFile = filepath.Join(p.ModuleDir(src.Module), filepath.FromSlash(src.File))
			break
		}
	}
	changes := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"a controller binary", func(t *testing.T) {
			if err := os.WriteFile(p.Binary(r.Controllers[0].Name), []byte("another build"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a CRD", func(t *testing.T) {
			f := filepath.Join(p.Modules, filepath.FromSlash(crds[0].Source))
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// (A comment would not do: the CRD as loaded is the input.)
			changed := strings.Replace(string(data), "type: string", "type: integer", 1)
			if changed == string(data) {
				t.Fatalf("%s has no string field", f)
			}
			if err := os.WriteFile(f, []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a webhook manifest", func(t *testing.T) {
			data, err := os.ReadFile(webhookFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(webhookFile, append(data, []byte("\n# changed\n")...), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	seen := []string{base}
	for _, c := range changes {
		c.change(t)
		got := inputs()
		if slices.Contains(seen, got) {
			t.Errorf("%s changed, the inputs did not", c.name)
		}
		seen = append(seen, got)
	}

	ports := map[string]int{}
	for _, c := range r.Controllers {
		ports[c.Name] = 1
	}
	if err := WireConversion(crds, ports, []byte("ca")); err != nil {
		t.Fatal(err)
	}
	if _, err := SnapshotInputs(p, r, crds); err == nil || !strings.Contains(err.Error(), "wired") {
		t.Errorf("wired CRDs: %v, want a refusal", err)
	}
}
