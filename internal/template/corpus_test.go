package template

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/schema"
)

// The templates kcm v1.11.4 ships (../shared/kcm, unmodified) are the test
// corpus of template validate: no false errors on them, and every
// remaining warning pinned here, with why it is right (see
// content/templates/kcm-templates.md for the table).
const (
	sharedDir = "../../../shared"
	corpusDir = sharedDir + "/kcm/v1.11.4/templates"
)

// corpusMode is one way the corpus is validated.
type corpusMode struct {
	name string
	crds []string // --crds, relative to sharedDir
}

var corpusModes = []corpusMode{
	{"no CRDs", nil},
	// What template validate does with no flag: the CRDs of the k0rdent
	// release kbook pins, from its Go modules (skipped when they are not
	// in the cache).
	{releaseMode, nil},
	{"shared CRDs", []string{"crds/k0rdent", "crds/capi", "crds/k0smotron"}},
	// The released providers' labelled CRDs: RENDER007 reads who serves a
	// kind from them, SCHEMA002 checks the provider objects, and SCHEMA004
	// names the values they need that the defaults leave empty.
	{"provider CRDs", []string{"crds/k0rdent", "crds/capi", "crds/k0smotron", "providers"}},
}

// Warnings every cluster template has: no k0rdent.mirantis.com/k8s-version
// (kcm records no Kubernetes version and skips ServiceTemplate
// compatibility checks), except adopted-cluster, whose version is the
// adopted cluster's (the reason, as kcm's maintainers would act on it, is
// in K0RDENT008's description). And two templates read values they do not
// define (VALUES011): openstack-hosted-cp's K0smotronControlPlane has
// replicas: {{ .Values.controlPlaneNumber }}, a key neither its
// values.yaml nor its schema has (it renders null); vsphere-standalone-cp
// reads .Values.ipPool.config under ipamEnabled, and defines no ipPool
// (the render fails once ipamEnabled is set). Every contract pin of the
// 18 is the API version of its provider's objects (K0RDENT007: none).
func corpusWarnings(chart string) []string {
	var w []string
	if chart != "adopted-cluster" {
		w = append(w, ruleK8sVersionMissing)
	}
	switch chart {
	case "openstack-hosted-cp":
		w = append(w, ruleValueUndefined)
	case "vsphere-standalone-cp":
		w = append(w, ruleValueUndefined, ruleValueUndefined) // control plane and worker templates
	}
	slices.Sort(w)
	return w
}

// corpusErrors are the true errors, by mode: the defaults render objects
// the real CRDs reject, and kcm accepts a ClusterDeployment without
// spec.config (its webhook copies the defaults in) that then fails at
// install. remote-cluster's default machine has a provisionJob whose
// jobSpecTemplate.spec lacks the template k0smotron's RemoteMachine
// requires (v2.0.4 and v2.1.0): the default gives an incomplete Job spec,
// not an empty value for the user to fill in, so it stays an error in
// every mode with the k0smotron CRDs.
var corpusErrors = map[string]map[string][]string{
	"shared CRDs":   {"remote-cluster": {remoteClusterError}},
	"provider CRDs": {"remote-cluster": {remoteClusterError}},
}

const remoteClusterError = "SCHEMA002 error templates/machines.yaml:101 spec.provisionJob.jobSpecTemplate.spec.template"

// corpusInputs are the values the providers' released CRDs need that the
// defaults leave empty (SCHEMA004, infos): CAPA's instanceType (at least
// 2 characters), CAPO's flavor, cloud name and filters (minLength,
// minProperties), CAPV's server, thumbprint, datacenter... Each is traced
// from the rejected field back to its values path.
var corpusInputs = map[string]map[string][]string{
	"provider CRDs": {
		"aws-hosted-cp":           {"instanceType"},
		"aws-standalone-cp":       {"controlPlane.instanceType", "worker.instanceType"},
		"openstack-hosted-cp":     {"flavor", "identityRef.cloudName", "network.filter", "ports[0].network.filter", "router.filter", "subnets[0].filter"},
		"openstack-standalone-cp": {"controlPlane.flavor", "identityRef.cloudName", "worker.flavor"},
		"vsphere-hosted-cp": {"controlPlaneEndpointIP", "network", "vmTemplate", "vsphere.datacenter", "vsphere.datastore",
			"vsphere.folder", "vsphere.resourcePool", "vsphere.server", "vsphere.thumbprint"},
		"vsphere-standalone-cp": {"controlPlane.network", "controlPlane.vmTemplate", "controlPlaneEndpointIP", "vsphere.datacenter",
			"vsphere.datastore", "vsphere.folder", "vsphere.resourcePool", "vsphere.server", "vsphere.thumbprint", "worker.network", "worker.vmTemplate"},
	},
}

const releaseMode = "release CRDs"

var corpusValidators sync.Map // mode name → *schema.Validator

func corpusValidator(t *testing.T, m corpusMode) *schema.Validator {
	t.Helper()
	if m.name == releaseMode {
		needRelease(t)
		if v, ok := corpusValidators.Load(m.name); ok {
			return v.(*schema.Validator)
		}
		v, err := releaseSchemas(context.Background(), "", "", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		corpusValidators.Store(m.name, v)
		return v
	}
	if len(m.crds) == 0 {
		return nil
	}
	if v, ok := corpusValidators.Load(m.name); ok {
		return v.(*schema.Validator)
	}
	var paths []string
	for _, c := range m.crds {
		paths = append(paths, filepath.Join(sharedDir, c))
	}
	v, err := schema.FromFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	corpusValidators.Store(m.name, v)
	return v
}

func corpusCharts(t *testing.T, kind string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(corpusDir, kind, "*", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Dir(d))
	}
	return out
}

// TestKcmCorpus validates every chart kcm v1.11.4 ships, in each mode: the
// 18 ClusterTemplates have no errors but the true ones above and exactly
// the warnings above; the ProviderTemplate charts are recognised
// (CHART007) and have no errors or warnings.
func TestKcmCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the kcm corpus takes a minute: not in -short")
	}
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("the kcm v1.11.4 templates are not at %s (shared/ sits beside the repository on development machines and in CI): %v", corpusDir, err)
	}
	clusters, providers := corpusCharts(t, "cluster"), corpusCharts(t, "provider")
	if len(clusters) != 18 || len(providers) == 0 {
		t.Fatalf("%d cluster templates and %d provider charts in %s, want 18 and some", len(clusters), len(providers), corpusDir)
	}
	for _, m := range corpusModes {
		t.Run(m.name, func(t *testing.T) {
			for _, c := range m.crds {
				if _, err := os.Stat(filepath.Join(sharedDir, c)); err != nil {
					t.Skipf("%s: %v", c, err)
				}
			}
			v := corpusValidator(t, m)
			for _, dir := range clusters {
				name := filepath.Base(dir)
				t.Run("cluster/"+name, func(t *testing.T) {
					t.Parallel()
					res := validateCorpusChart(t, dir, v)
					errs, warns := bySeverity(res, findings.Error), bySeverity(res, findings.Warning)
					if got, want := describeAll(errs), corpusErrors[m.name][name]; !slices.Equal(got, want) {
						t.Errorf("errors %q, want %q:\n%s", got, want, messages(errs))
					}
					var inputs []string
					for _, f := range res.Findings {
						if f.Rule == ruleSchemaInputs {
							inputs = append(inputs, f.Path)
							if f.Severity != findings.Info || f.File != "values.yaml" || f.Line < 2 {
								t.Errorf("SCHEMA004 %s: want an info at its line of values.yaml, got %s", f.Path, describe(f))
							}
						}
					}
					slices.Sort(inputs)
					if want := corpusInputs[m.name][name]; !slices.Equal(inputs, want) {
						t.Errorf("SCHEMA004 values %q, want %q:\n%s", inputs, want, messages(res.Findings))
					}
					if got, want := ruleIDs(warns), corpusWarnings(name); !slices.Equal(got, want) {
						t.Errorf("warnings %q, want %q:\n%s", got, want, messages(warns))
					}
					if code := Registry.ExitCode(res); (code == findings.ExitOK) != (len(errs) == 0) {
						t.Errorf("exit code %d with %d errors", code, len(errs))
					}
				})
			}
			for _, dir := range providers {
				t.Run("provider/"+filepath.Base(dir), func(t *testing.T) {
					t.Parallel()
					res := validateCorpusChart(t, dir, v)
					if got := describeAll(res.Findings); !slices.Equal(got, []string{"CHART007 info Chart.yaml:1"}) {
						t.Errorf("want only the ProviderTemplate info, got %q:\n%s", got, messages(res.Findings))
					}
				})
			}
		})
	}
}

func validateCorpusChart(t *testing.T, dir string, v *schema.Validator) *findings.Report {
	t.Helper()
	res, err := ValidateChart(dir, ChartOptions{Schemas: v})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func bySeverity(r *findings.Report, s findings.Severity) []findings.Finding {
	return slices.DeleteFunc(slices.Clone(r.Findings), func(f findings.Finding) bool { return f.Severity != s })
}

// ruleIDs lists the findings' rule IDs, sorted (a rule twice, twice).
func ruleIDs(fs []findings.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	slices.Sort(out)
	return out
}
