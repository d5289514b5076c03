package chain

import (
	"github.com/k0rdent/kbook/internal/findings"
)

// Rule categories.
const (
	categoryKCM   = "What kcm checks"
	categoryPaths = "Upgrade paths"
)

const (
	ruleTargetNotSupported = "CHAIN001"
	ruleMixedVersions      = "CHAIN002"
	ruleTemplateNotFound   = "CHAIN003"
	ruleDuplicate          = "CHAIN004"
	ruleCycle              = "CHAIN010"
	ruleDowngrade          = "CHAIN011"
	ruleK8sSkip            = "CHAIN012"
	ruleUnreachable        = "CHAIN013"
	ruleVersionMismatch    = "CHAIN014"
	ruleChartChange        = "CHAIN015"
)

// Registry holds the rules of kbook chain validate.
var Registry = findings.NewRegistry([]string{categoryKCM, categoryPaths},
	findings.Rule{ID: ruleTargetNotSupported, Category: categoryKCM, Severity: findings.Error, Title: "Upgrade target not among the supported templates",
		Description: "Every `availableUpgrades[].name` must also be in `spec.supportedTemplates`. kcm checks this (`api/v1beta1/templatechain_common.go`, `TemplateChainSpec.IsValid`): its webhook denies the chain, and a chain created without the webhook gets `status.valid: false`."},
	findings.Rule{ID: ruleMixedVersions, Category: categoryKCM, Severity: findings.Error, Title: "Versions set on some upgrades only",
		Description: "The `availableUpgrades` of one template must set `version` on all entries or on none (`TemplateChainSpec.IsValid`); kcm denies the chain otherwise."},
	findings.Rule{ID: ruleTemplateNotFound, Category: categoryKCM, Severity: findings.Error, Title: "Supported template does not exist",
		Description: "kcm's webhook (`internal/webhook/templatechain_webhook.go`, `validateChainsTemplates`) denies a chain, not labelled managed or in the system namespace, whose `spec.supportedTemplates[].name` is not a template of its namespace. kbook checks it against the templates and charts given with the chain."},
	findings.Rule{ID: ruleDuplicate, Category: categoryKCM, Severity: findings.Error, Title: "Template listed twice",
		Description: "`spec.supportedTemplates` is a list keyed by name (`+listType=map`): the API server rejects a chain that lists a template twice."},
	findings.Rule{ID: ruleCycle, Category: categoryPaths, Severity: findings.Error, Title: "Upgrade cycle",
		Description: "An upgrade path that leads back to a template it started from lets a cluster move back to an older template. kcm finds no cycles: it skips visited templates when it computes upgrade paths."},
	findings.Rule{ID: ruleDowngrade, Category: categoryPaths, Severity: findings.Error, Title: "Downgrade",
		Description: "An upgrade to an older chart version of the same chart, or to an older Kubernetes version. Kubernetes does not support downgrades; kcm does not compare versions."},
	findings.Rule{ID: ruleK8sSkip, Category: categoryPaths, Severity: findings.Error, Title: "Kubernetes minor version skipped",
		Description: "An upgrade whose Kubernetes version is more than one minor version ahead: the API server must be upgraded one minor version at a time (Kubernetes version skew policy). kcm does not compare versions."},
	findings.Rule{ID: ruleUnreachable, Category: categoryPaths, Severity: findings.Warning, Title: "Template no other template upgrades to",
		Description: "A supported template that is isolated, or newer than another template of the same chart while nothing upgrades to it: clusters on older templates can never reach it."},
	findings.Rule{ID: ruleVersionMismatch, Category: categoryPaths, Severity: findings.Warning, Title: "Upgrade version does not match the template",
		Description: "An `availableUpgrades[].version` that differs from the chart version of the template it names."},
	findings.Rule{ID: ruleChartChange, Category: categoryPaths, Severity: findings.Warning, Title: "Upgrade changes the chart",
		Description: "An upgrade to a template of another chart: Flux uninstalls the Helm release and installs the new chart, deleting and recreating the cluster's objects. kcm only warns (condition `HelmChartNameChanged`)."},
)

// Errors counts the findings of severity error.
func (r *Result) Errors() int { e, _, _ := findings.Count(r.Findings); return e }

// Warnings counts the findings of severity warning.
func (r *Result) Warnings() int { _, w, _ := findings.Count(r.Findings); return w }
