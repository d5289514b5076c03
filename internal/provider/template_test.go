package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

func TestCheckTemplate(t *testing.T) {
	for _, inputs := range [][]string{{"testdata/valid/chart"}, {"testdata/valid/components.yaml"}} {
		s, err := Load(inputs, RenderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, err := s.Offers()
		if err != nil {
			t.Fatal(err)
		}
		ok, err := o.CheckTemplate("testdata/template/pins-offered")
		if err != nil || len(ok) != 0 {
			t.Errorf("%v: pins-offered: %v %+v", inputs, err, ok)
		}
		bad, _ := o.CheckTemplate("testdata/template/pins-other")
		if len(bad) != 1 || bad[0].Rule != RuleTemplateContract || bad[0].Line != 6 || bad[0].File != "Chart.yaml" ||
			!strings.Contains(bad[0].Message, "pins version v1beta2, but the provider exposes v1alpha1") {
			t.Errorf("%v: pins-other: %+v", inputs, bad)
		}
	}
	s, _ := Load([]string{"testdata/valid/bootstrap-controlplane.yaml"}, RenderOptions{})
	if _, err := s.Offers(); err == nil || !findings.IsInput(err) {
		t.Errorf("CRDs without a provider label: %v", err)
	}
}

// TestCheckKCMTemplates: kcm v1.11.4's ClusterTemplates pin versions its
// ProviderTemplates expose.
func TestCheckKCMTemplates(t *testing.T) {
	charts, _ := filepath.Glob(filepath.Join(shared(t, "kcm", "v1.11.4", "templates", "provider"), "cluster-api-provider-*"))
	s, err := Load(charts, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Offers()
	if err != nil {
		t.Fatal(err)
	}
	templates, _ := os.ReadDir(shared(t, "kcm", "v1.11.4", "templates", "cluster"))
	for _, d := range templates {
		fs, err := o.CheckTemplate(filepath.Join(shared(t, "kcm", "v1.11.4", "templates", "cluster"), d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Severity == findings.Error {
				t.Errorf("%s: %s", d.Name(), f.Message)
			}
		}
	}
}
