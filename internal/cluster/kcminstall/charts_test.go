package kcminstall

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// kcmTemplatesDir is the kcm module's templates folder as kbook's cache
// holds it (skips when kbook has not fetched the release's sources).
func kcmTemplatesDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(releasePaths(t).ModuleDir("kcm"), "templates")
}

func TestReleaseChartsStampAndRoundTrip(t *testing.T) {
	charts, err := ReleaseCharts(kcmTemplatesDir(t), "v1.11.4")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Chart{}
	for _, c := range charts {
		byName[c.Name] = c
	}
	for _, want := range []string{"kcm", "kcm-regional", "kcm-templates", "cluster-api", "cluster-api-provider-docker", "docker-hosted-cp", "aws-standalone-cp"} {
		if _, ok := byName[want]; !ok {
			t.Fatalf("no chart %s among %d", want, len(charts))
		}
	}
	for _, n := range []string{"kcm", "kcm-regional", "kcm-templates"} {
		if v := byName[n].Version; v != "1.11.4" {
			t.Errorf("%s version %s, want 1.11.4", n, v)
		}
	}
	reg, err := StartRegistry("")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if err := Push(reg.Host, charts); err != nil {
		t.Fatal(err)
	}
	kcm, err := Pull(reg.Host, "kcm", "1.11.4")
	if err != nil {
		t.Fatal(err)
	}
	if tag := kcm.Values["image"].(map[string]any)["tag"]; tag != "1.11.4" {
		t.Errorf("kcm image.tag %v, want 1.11.4", tag)
	}
	var regional bool
	for _, d := range kcm.Dependencies() {
		if d.Name() == "kcm-regional" && d.Metadata.Version == "1.11.4" {
			regional = true
		}
	}
	if !regional {
		t.Errorf("kcm carries no kcm-regional 1.11.4 subchart")
	}
	tpl, err := Pull(reg.Host, "kcm-templates", "1.11.4")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range tpl.Files {
		files[f.Name] = string(f.Data)
	}
	var rel struct {
		Metadata struct{ Name string }
		Spec     struct {
			Version string
			KCM     struct{ Template string } `json:"kcm"`
		}
	}
	if err := yaml.Unmarshal([]byte(files["files/release.yaml"]), &rel); err != nil {
		t.Fatal(err)
	}
	if rel.Metadata.Name != "kcm-1-11-4" || rel.Spec.Version != "1.11.4" || rel.Spec.KCM.Template != "kcm-1-11-4" {
		t.Errorf("release.yaml not stamped: %+v", rel)
	}
	if !strings.Contains(files["files/templates/kcm.yaml"], "name: kcm-1-11-4") || !strings.Contains(files["files/templates/kcm.yaml"], "version: 1.11.4") {
		t.Errorf("kcm ProviderTemplate not stamped:\n%s", files["files/templates/kcm.yaml"])
	}
	if _, err := Pull(reg.Host, "kcm", "9.9.9"); err == nil {
		t.Errorf("pulled a version never pushed")
	}
}
