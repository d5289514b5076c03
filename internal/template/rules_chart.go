package template

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
)

// strictSemver is Semantic Versioning 2.0.0 (semver.org's regular
// expression), without a leading "v".
var strictSemver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// checkChart runs CHART002 to CHART005 on Chart.yaml.
func (c *checker) checkChart() {
	md := c.src.chart.Metadata
	cy := c.src.node("Chart.yaml")
	at := func(key string) int {
		l, _ := lineOf(cy, vpath{key})
		return l
	}
	fired := map[string]bool{}
	report := func(rule, key, msg string) {
		fired[rule] = true
		c.add(findings.Finding{Rule: rule, File: "Chart.yaml", Line: at(key), Message: msg})
	}

	if _, declared := mapValue(cy, "apiVersion"); !declared {
		report(ruleChartAPIVersion, "apiVersion", "Chart.yaml has no apiVersion: Helm loads it as a Helm 2 (v1) chart; declare apiVersion: v2")
	} else if md.APIVersion != chart.APIVersionV2 {
		report(ruleChartAPIVersion, "apiVersion", fmt.Sprintf("apiVersion is %q: kcm templates are Helm 3 charts, declare apiVersion: v2", md.APIVersion))
	}
	if md.Type != "" && md.Type != "application" {
		report(ruleChartType, "type", fmt.Sprintf("type is %q: a ClusterTemplate must be an application chart (Helm does not install library charts)", md.Type))
	}
	if md.Version != "" && !strictSemver.MatchString(md.Version) {
		report(ruleChartVersion, "version", fmt.Sprintf("version %q is not an exact SemVer version (MAJOR.MINOR.PATCH, such as 1.0.0)", md.Version))
	}

	err := c.src.validateErr
	if err == nil {
		err = c.src.chart.Validate()
	}
	if err != nil {
		msg := err.Error()
		key := "name"
		switch {
		case strings.Contains(msg, "metadata.apiVersion"):
			key = "apiVersion"
		case strings.Contains(msg, "metadata.version"):
			key = "version"
		case strings.Contains(msg, "metadata.type"):
			key = "type"
		case strings.Contains(msg, "dependenc"):
			key = "dependencies"
		case strings.Contains(msg, "maintainers"):
			key = "maintainers"
		}
		repeated := (key == "apiVersion" && fired[ruleChartAPIVersion]) ||
			(key == "version" && fired[ruleChartVersion]) ||
			(key == "type" && fired[ruleChartType])
		if !repeated {
			report(ruleChartValidate, key, "Helm's chart validation fails (kcm marks the ClusterTemplate invalid): "+msg)
		}
	}
	c.chartBroken = len(fired) > 0
}

// startLint runs Helm's linter (CHART006) on the chart directory (a .tgz
// is expanded to a temporary directory first, as `helm lint` does) in the
// background: it reads the chart on its own and is the costliest check.
// The returned function waits for it and reports its messages.
func (c *checker) startLint() (finish func()) {
	done := make(chan struct{})
	var linter support.Linter
	var failed *findings.Finding
	var lintDir string
	vals := injectValues(nil, c.src.chart.Values, c.opts.Namespace)
	path, archive, name, ns := c.src.path, c.src.archive, c.src.name(), c.opts.Namespace
	go func() {
		defer close(done)
		dir := path
		if archive {
			tmp, err := os.MkdirTemp("", "kbook-lint-")
			if err != nil {
				failed = &findings.Finding{Rule: ruleChartLint, Severity: findings.Warning, Message: "helm lint was not run: " + err.Error()}
				return
			}
			defer os.RemoveAll(tmp)
			if err := chartutil.ExpandFile(tmp, path); err != nil {
				failed = &findings.Finding{Rule: ruleChartLint, Severity: findings.Warning, Message: "helm lint was not run: the archive does not expand: " + err.Error()}
				return
			}
			dir = filepath.Join(tmp, name)
		}
		// Schema validation of the values is VALUES003's.
		lintDir = dir
		linter = lint.AllWithKubeVersionAndSchemaValidation(dir, vals, ns, nil, true)
	}()
	return func() {
		<-done
		if failed != nil {
			c.add(*failed)
			return
		}
		c.lintMessages(linter.Messages, lintDir)
	}
}

// lintMessages maps Helm's lint messages to CHART006 findings.
func (c *checker) lintMessages(msgs []support.Message, dir string) {
	for _, m := range msgs {
		// The dependency rules name the chart directory: Chart.yaml's
		// dependencies.
		if abs, _ := filepath.Abs(dir); m.Path != "" && (m.Path == dir || m.Path == abs) {
			m.Path = "Chart.yaml"
		}
		var sev findings.Severity
		switch m.Severity {
		case support.ErrorSev:
			sev = findings.Error
		case support.WarningSev:
			sev = findings.Warning
		default:
			continue // INFO: "icon is recommended"
		}
		var jsErr chartutil.JSONSchemaValidationError
		switch {
		case errors.As(m.Err, &jsErr):
			continue // VALUES003 reports it, with lines
		case m.Path == "templates/" && sev == findings.Error:
			continue // a rendering error: RENDER001 reports it, with lines
		case (m.Path == "Chart.yaml" || strings.Contains(m.Err.Error(), "unable to load chart")) && c.chartBroken:
			continue // CHART00x already say what is wrong with Chart.yaml
		case m.Path == "values.yaml" && c.schemaBroken:
			continue // VALUES002 reports the schema's problems, with lines
		case strings.HasPrefix(m.Path, "templates/") && strings.Contains(m.Err.Error(), "unable to parse YAML"):
			continue // RENDER002 reports documents that do not parse
		case strings.Contains(m.Err.Error(), "chart directory is missing these dependencies"):
			continue // RENDER001 reports it, at the dependency
		}
		msg := m.Err.Error()
		f := findings.Finding{Rule: ruleChartLint, Severity: sev, File: strings.TrimSuffix(m.Path, "/"), Message: "helm lint: " + msg}
		if f.File == "templates" {
			f.File = "templates/"
		}
		if loc := renderLocRE.FindStringSubmatch(msg); loc != nil {
			f.File = strings.TrimPrefix(loc[1], c.src.name()+"/")
			f.Line = atoi(loc[2])
		} else if f.File == "Chart.yaml" || f.File == "values.yaml" {
			f.Line = findings.LineIn(msg)
		}
		c.add(f)
	}
}

// operatorRE finds cluster-api-operator provider objects in a template's
// text: how kcm's ProviderTemplates install a CAPI provider.
var operatorRE = regexp.MustCompile(`(?m)^apiVersion:\s*"?operator\.cluster\.x-k8s\.io/`)

// providerChart tells a ProviderTemplate chart from a ClusterTemplate chart
// and says why, or returns "". kcm tells them apart by the kind of the
// object that points at the chart; the chart shows it by:
//
//   - Chart.yaml contract annotations keyed by CAPI contract version
//     (cluster.x-k8s.io/v1beta1: v1beta1_v1beta2), the ProviderTemplate form
//     kcm reads (api/v1beta1/templates_common.go, getCAPIContracts), and none
//     keyed by provider name (the ClusterTemplate form);
//   - templates that render cluster-api-operator provider objects
//     (operator.cluster.x-k8s.io: InfrastructureProvider, IPAMProvider...);
//   - no cluster.x-k8s.io/provider annotation and no templates of its own:
//     a wrapper of component charts, as kcm's projectsveltos chart.
func providerChart(src *chartSource) string {
	md := src.chart.Metadata
	var versionKeys []string
	clusterForm := false
	for _, k := range sortedKeys(md.Annotations) {
		name, ok := strings.CutPrefix(k, k0rdent.ContractPrefix)
		switch {
		case !ok:
		case contractRE.MatchString(name):
			versionKeys = append(versionKeys, k)
		case hasContractPrefix(name):
			clusterForm = true
		}
	}
	if len(versionKeys) > 0 && !clusterForm {
		return "Chart.yaml pins the CAPI contracts it offers, keyed by contract version: " + strings.Join(versionKeys, ", ")
	}
	own := 0
	for _, t := range src.chart.Templates {
		if !strings.HasPrefix(t.Name, "templates/") {
			continue
		}
		own++
		if operatorRE.Match(t.Data) {
			return t.Name + " renders a cluster-api-operator provider object (operator.cluster.x-k8s.io)"
		}
	}
	if own == 0 && len(md.Dependencies) > 0 && md.Annotations[annProvider] == "" {
		return "it declares no " + annProvider + " and has no templates of its own, only dependencies"
	}
	return ""
}
