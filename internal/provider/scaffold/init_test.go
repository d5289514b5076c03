package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/provider"
)

// TestInitValidates: the scaffold passes provider validate as written,
// alone and with CRDs of the group it names.
func TestInitValidates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chart")
	got, files, err := Init(Options{Name: "acme", Dir: dir, Group: "infrastructure.acme.example"})
	if err != nil {
		t.Fatal(err)
	}
	if got != dir || len(files) != 7 {
		t.Errorf("Init = %s %v", got, files)
	}
	s, err := provider.Load([]string{dir}, provider.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := provider.Validate(s, provider.Options{})
	for _, f := range r.Findings {
		t.Errorf("%s:%d: %s: %s [%s]", f.File, f.Line, f.Severity, f.Message, f.Rule)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "templates", "rbac.yaml"))
	if !strings.Contains(string(data), "apiGroups: [infrastructure.acme.example]") || !strings.Contains(string(data), "acmeclusters, acmeclustertemplates") {
		t.Errorf("rbac.yaml:\n%s", data)
	}
	// Atomic: an existing directory is refused and left alone.
	if _, _, err := Init(Options{Name: "acme", Dir: dir}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second Init: %v", err)
	}
}

func TestInitBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{
		{Name: "Acme"}, {Name: "acme", Group: "nogroup"}, {Name: "acme", APIVersion: "1.0"},
		{Name: "acme", Version: "0.1"}, {Name: "acme", Kind: "acme"}, {Name: "acme", ComponentsURL: "ftp://x"},
		{Name: "acme", Module: "github.com/acme/x"}, {Name: "acme", Image: "registry.acme.io/x"},
		{Name: "acme", Controller: true, Module: "bad mod"}, {Name: "acme", Controller: true, Image: "Registry/x:tag"},
		{Name: "acme", Controller: true, Version: "v0.1"},
		{Name: "acme", ComponentsURL: "https://releases.acme.example/v0.1.0/infrastructure-components.yaml"},
	} {
		o.Dir = filepath.Join(dir, "x")
		if _, _, err := Init(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
		if _, err := os.Stat(o.Dir); err == nil {
			t.Errorf("%+v left %s behind", o, o.Dir)
		}
	}
}
