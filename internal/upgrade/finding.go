package upgrade

import (
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
)

// Rule categories.
const (
	categoryKCM      = "What kcm checks"
	categoryVersions = "Kubernetes versions"
	categoryValues   = "Values"
	categoryObjects  = "Rendered objects"
	categoryProvider = "Providers"
)

const (
	ruleNotAvailable     = "UPG001"
	ruleTemplateInvalid  = "UPG002"
	ruleProviders        = "UPG003"
	ruleServiceKCM       = "UPG004"
	ruleK8sDowngrade     = "UPG010"
	ruleK8sSkip          = "UPG011"
	ruleSkew             = "UPG012"
	rulePinned           = "UPG013"
	ruleServiceK8s       = "UPG014"
	ruleVersionUnknown   = "UPG015"
	rulePinAllowed       = "UPG016"
	ruleVersionMismatch  = "UPG017"
	ruleServiceMissing   = "UPG018"
	ruleConfigRejected   = "UPG020"
	ruleConfigIgnored    = "UPG021"
	ruleNewRequired      = "UPG022"
	ruleConfigAlreadyBad = "UPG023"
	ruleDeletes          = "UPG030"
	ruleChartRenamed     = "UPG031"
	ruleImmutable        = "UPG032"
	ruleWorkersBehind    = "UPG033"
	ruleRenderNew        = "UPG034"
	ruleRenderOld        = "UPG035"
	ruleProviderChange   = "UPG040"
)

// Registry holds the rules of kbook upgrade check.
var Registry = findings.NewRegistry([]string{categoryKCM, categoryVersions, categoryValues, categoryObjects, categoryProvider},
	findings.Rule{ID: ruleNotAvailable, Category: categoryKCM, Severity: findings.Error, Title: "Target not in status.availableUpgrades",
		Description: "kcm's webhook forbids a new `spec.template` that is not in the ClusterDeployment's `status.availableUpgrades` (\"Cluster can't be upgraded from A to B. This upgrade sequence is not allowed\"). kcm fills the list from the ClusterTemplateChains of the namespace. Checked live only."},
	findings.Rule{ID: ruleTemplateInvalid, Category: categoryKCM, Severity: findings.Error, Title: "Target template not valid",
		Description: "kcm's webhook rejects a template whose `status.valid` is false, with its `status.validationError`. Checked live only."},
	findings.Rule{ID: ruleProviders, Category: categoryKCM, Severity: findings.Error, Title: "Providers or contracts not exposed",
		Description: "kcm's webhook rejects a template whose providers are not available in the Management (or the Credential's Region), or whose pinned contract a provider does not offer (`ClusterTemplateProviders`). Checked live, or offline with a Management in `--config`."},
	findings.Rule{ID: ruleServiceKCM, Category: categoryKCM, Severity: findings.Error, Title: "Service constraint (kcm's check)",
		Description: "kcm's webhook rejects a template whose declared Kubernetes version does not satisfy the constraint of a ServiceTemplate the deployment uses (`ClusterTemplateK8sCompatibility`)."},
	findings.Rule{ID: ruleK8sDowngrade, Category: categoryVersions, Severity: findings.Error, Title: "Kubernetes downgrade",
		Description: "The target runs an older Kubernetes version (or another major version). Kubernetes does not support downgrades."},
	findings.Rule{ID: ruleK8sSkip, Category: categoryVersions, Severity: findings.Error, Title: "Kubernetes minor version skipped",
		Description: "The target runs Kubernetes more than one minor version ahead: the API server must not skip a minor version (version skew policy)."},
	findings.Rule{ID: ruleSkew, Category: categoryVersions, Severity: findings.Error, Title: "Kubelet version skew",
		Description: "Workers would run a kubelet newer than the API server, or more than three minor versions older (two before 1.28), in the new rendering or while the control plane is ahead of them."},
	findings.Rule{ID: rulePinned, Category: categoryVersions, Severity: findings.Error, Title: "Pinned Kubernetes version",
		Description: "The ClusterDeployment carries `" + k0rdent.PinAnnotation + "` and the upgrade changes its Kubernetes version outside the pin. `--allow-k8s-change` lets it."},
	findings.Rule{ID: ruleServiceK8s, Category: categoryVersions, Severity: findings.Error, Title: "Service constraint excludes the new version",
		Description: "A ServiceTemplate's `k8sConstraint` excludes the Kubernetes version the cluster runs after the upgrade. kcm checks only a declared template version; kbook checks the effective one."},
	findings.Rule{ID: ruleVersionUnknown, Category: categoryVersions, Severity: findings.Warning, Title: "Kubernetes version not known",
		Description: "kbook found no Kubernetes version for a side (no `spec.k8sVersion`, annotation, version value or control plane version), so the skew policy and constraints are not checked."},
	findings.Rule{ID: rulePinAllowed, Category: categoryVersions, Severity: findings.Info, Title: "Pinned version change allowed",
		Description: "The upgrade leaves the pinned Kubernetes version and `--allow-k8s-change` allows it: a note of the decision, not a problem."},
	findings.Rule{ID: ruleVersionMismatch, Category: categoryVersions, Severity: findings.Warning, Title: "Declared version differs from the installed one",
		Description: "The template declares a Kubernetes version (which kcm checks) but its values install another."},
	findings.Rule{ID: ruleServiceMissing, Category: categoryVersions, Severity: findings.Warning, Title: "ServiceTemplate not given",
		Description: "The deployment uses a service whose ServiceTemplate is not in `--config`, so its Kubernetes constraint is not checked."},
	findings.Rule{ID: ruleConfigRejected, Category: categoryValues, Severity: findings.Error, Title: "Config rejected by the target schema",
		Description: "The deployment's `spec.config` fails the target chart's `values.schema.json`. kcm's webhook never looks at the config, so it accepts the new template; kcm's controller then renders the chart with the config (`validateConfig`, a client-only Helm dry-run install) and stops before the Helm upgrade: `HelmChartReady=False` (\"failed to validate template with provided configuration\"), the ClusterDeployment not Ready, the cluster on the old chart until the config is fixed - and the chain may offer no way back."},
	findings.Rule{ID: ruleConfigIgnored, Category: categoryValues, Severity: findings.Error, Title: "Setting silently ignored",
		Description: "A value the config sets, used by the current chart, that the target chart neither declares nor reads: the upgrade drops the setting without an error. Confirmed by rendering the target with and without it."},
	findings.Rule{ID: ruleNewRequired, Category: categoryValues, Severity: findings.Error, Title: "New required value without default",
		Description: "The target schema requires a value that has no default and the config does not set: kcm accepts the new template and then stops before the Helm upgrade (`HelmChartReady=False`), as for UPG020."},
	findings.Rule{ID: ruleConfigAlreadyBad, Category: categoryValues, Severity: findings.Warning, Title: "Config already rejected",
		Description: "The config fails the current chart's schema too: not caused by the upgrade."},
	findings.Rule{ID: ruleDeletes, Category: categoryObjects, Severity: findings.Error, Title: "Upgrade deletes the cluster or its machines",
		Description: "The target no longer renders the Cluster, its infrastructure cluster, its control plane, a MachineDeployment or a MachinePool: the Helm upgrade deletes them."},
	findings.Rule{ID: ruleChartRenamed, Category: categoryObjects, Severity: findings.Error, Title: "Chart name changes",
		Description: "The target is another chart: Flux uninstalls the release and installs the new one, deleting and recreating every object. kcm only warns, on dry-run deployments."},
	findings.Rule{ID: ruleImmutable, Category: categoryObjects, Severity: findings.Error, Title: "Immutable machine template changed in place",
		Description: "An infrastructure machine template (a provider `*MachineTemplate`) changes its spec under the same name: providers reject that update, so the Helm upgrade fails."},
	findings.Rule{ID: ruleWorkersBehind, Category: categoryObjects, Severity: findings.Error, Title: "Workers left behind the control plane",
		Description: "The control plane version changes but a MachineDeployment sets no `spec.template.spec.version`: CAPI does not roll its machines, which keep the old version (kcm #1389)."},
	findings.Rule{ID: ruleRenderNew, Category: categoryObjects, Severity: findings.Error, Title: "Target does not render",
		Description: "The target chart does not render with the deployment's config (a `required` or `fail`, a template error): kcm accepts the new template and then stops before the Helm upgrade (`HelmChartReady=False`), as for UPG020."},
	findings.Rule{ID: ruleRenderOld, Category: categoryObjects, Severity: findings.Warning, Title: "Current chart does not render",
		Description: "The current chart does not render with the config (or neither does), so the objects are not compared: the config is likely incomplete; give the deployment's real config with `--config`."},
	findings.Rule{ID: ruleProviderChange, Category: categoryProvider, Severity: findings.Warning, Title: "Provider or contract changes",
		Description: "The target chart needs another provider or contract than the current one (`" + k0rdent.ContractPrefix + "*` annotations)."},
)
