package kcminstall

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The subcharts of kcm-regional that Install builds from their modules
// (the rest come from Helm repositories this machine cannot reach).
const (
	chartCertManager = "cert-manager"
	chartOperator    = "cluster-api-operator"
	chartSveltosCRDs = "sveltos-crds"
)

// CertManagerChart packages cert-manager's chart from its module's trees
// (moduleDir holds deploy/charts/cert-manager and deploy/crds) as its
// release does (make/manifests.mk): Chart.template.yaml with version and
// appVersion set to version, and the CRDs concatenated into
// templates/crds.yaml under installCRDs.
func CertManagerChart(moduleDir, version string) (*chart.Chart, error) {
	src := filepath.Join(moduleDir, "deploy", "charts", "cert-manager")
	files, err := readTree(src, func(rel string) bool {
		return rel == "values.yaml" || strings.HasPrefix(rel, "templates/")
	})
	if err != nil {
		return nil, fmt.Errorf("cert-manager chart: %w", err)
	}
	tmpl, err := os.ReadFile(filepath.Join(src, "Chart.template.yaml"))
	if err != nil {
		return nil, fmt.Errorf("cert-manager chart: %w", err)
	}
	meta, err := setValues(tmpl, map[string]string{"version": version, "appVersion": version})
	if err != nil {
		return nil, fmt.Errorf("cert-manager chart: Chart.template.yaml: %w", err)
	}
	files = append(files, &loader.BufferedFile{Name: "Chart.yaml", Data: meta})
	crdDir := filepath.Join(moduleDir, "deploy", "crds")
	crds, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil || len(crds) == 0 {
		return nil, fmt.Errorf("cert-manager chart: no CRDs in %s", crdDir)
	}
	sort.Strings(crds)
	var b strings.Builder
	b.WriteString("{{- if .Values.installCRDs }}\n")
	for i, f := range crds {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("cert-manager chart: %w", err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	b.WriteString("{{- end }}\n")
	files = append(files, &loader.BufferedFile{Name: "templates/crds.yaml", Data: []byte(b.String())})
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("cert-manager chart: %w", err)
	}
	return ch, nil
}

// OperatorChart packages the Cluster API operator's chart from its
// module's trees (moduleDir holds hack/charts/cluster-api-operator and
// config) as its Makefile's release-chart does: the chart folder, its image
// set to the released one (chart-manifest-modification: repository, tag
// version, pull policy IfNotPresent), and templates/operator-components.yaml
// from kustomize build config/chart; chart version and appVersion are
// version without its v, as its HELM_CHART_TAG.
func OperatorChart(moduleDir, version string) (*chart.Chart, error) {
	src := filepath.Join(moduleDir, "hack", "charts", "cluster-api-operator")
	files, err := readTree(src, func(rel string) bool { return rel != "Chart.yaml" })
	if err != nil {
		return nil, fmt.Errorf("cluster-api-operator chart: %w", err)
	}
	v := strings.TrimPrefix(version, "v")
	for _, f := range files {
		if f.Name != "values.yaml" {
			continue
		}
		if f.Data, err = setValues(f.Data, map[string]string{
			"image.manager.repository": OperatorImageRepository,
			"image.manager.tag":        version,
			"image.manager.pullPolicy": "IfNotPresent",
		}); err != nil {
			return nil, fmt.Errorf("cluster-api-operator chart: values.yaml: %w", err)
		}
	}
	meta, err := os.ReadFile(filepath.Join(src, "Chart.yaml"))
	if err != nil {
		return nil, fmt.Errorf("cluster-api-operator chart: %w", err)
	}
	if meta, err = setValues(meta, map[string]string{"version": v, "appVersion": v}); err != nil {
		return nil, fmt.Errorf("cluster-api-operator chart: Chart.yaml: %w", err)
	}
	files = append(files, &loader.BufferedFile{Name: "Chart.yaml", Data: meta})
	components, err := kustomizeBuild(filepath.Join(moduleDir, "config", "chart"))
	if err != nil {
		return nil, fmt.Errorf("cluster-api-operator chart: %w", err)
	}
	files = append(files, &loader.BufferedFile{Name: "templates/operator-components.yaml", Data: components})
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("cluster-api-operator chart: %w", err)
	}
	return ch, nil
}

// SveltosCRDsChart packages Sveltos's CRDs - the sveltos-crds dependency
// of kcm's projectsveltos chart - from the modules kcm pins
// (github.com/projectsveltos/addon-controller and libsveltos, each dir
// holding config/crd/bases), at the chart version kcm's chart names.
// Sveltos's controllers (its projectsveltos chart) are not built here.
func SveltosCRDsChart(version string, dirs ...string) (*chart.Chart, error) {
	v := strings.TrimPrefix(version, "v")
	files := []*loader.BufferedFile{{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: " + chartSveltosCRDs +
		"\ndescription: Sveltos's CRDs, from the Go modules kcm pins\ntype: application\nversion: " + v + "\nappVersion: v" + v + "\n")}}
	for _, dir := range dirs {
		crds, err := readTree(filepath.Join(dir, "config", "crd", "bases"), func(rel string) bool {
			return !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".yaml")
		})
		if err != nil {
			return nil, fmt.Errorf("%s chart: %w", chartSveltosCRDs, err)
		}
		if len(crds) == 0 {
			return nil, fmt.Errorf("%s chart: no CRDs in %s", chartSveltosCRDs, dir)
		}
		for _, f := range crds {
			f.Name = "crds/" + f.Name // not templates: their descriptions hold Sveltos's own {{ }}
		}
		files = append(files, crds...)
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("%s chart: %w", chartSveltosCRDs, err)
	}
	return ch, nil
}

// OperatorImageRepository is where the Cluster API operator's release
// publishes its image (its Makefile's PROD_REGISTRY and IMAGE_NAME).
const OperatorImageRepository = "registry.k8s.io/capi-operator/cluster-api-operator"

// readTree reads the regular files below dir whose slash-separated
// relative names keep accepts.
func readTree(dir string, keep func(rel string) bool) ([]*loader.BufferedFile, error) {
	var out []*loader.BufferedFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !keep(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, &loader.BufferedFile{Name: rel, Data: data})
		return nil
	})
	return out, err
}

// kustomizeBuild is `kustomize build dir`, as YAML.
func kustomizeBuild(dir string) ([]byte, error) {
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	res, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return res.AsYaml()
}
