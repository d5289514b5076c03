package template

import "github.com/k0rdent/kbook/internal/findings"

// Rule categories, in catalogue order.
const (
	CategoryChart     = "Chart"
	CategoryK0rdent   = "k0rdent compatibility"
	CategoryValues    = "Values"
	CategoryRendering = "Rendering"
	CategorySchemas   = "Schemas"
	CategorySecurity  = "Security"
	CategoryPolicy    = "Organisation policies"
)

// Registry is the rule registry of template validate; the docs' rule
// catalogue is generated from it.
var Registry = findings.NewRegistry(
	[]string{CategoryChart, CategoryK0rdent, CategoryValues, CategoryRendering, CategorySchemas, CategorySecurity, CategoryPolicy},
	rules...)

// severityOf is the default severity of a registered rule.
func severityOf(id string) findings.Severity { return Registry.Severity(id) }

// Rule IDs.
const (
	ruleChartLoad       = "CHART001"
	ruleChartValidate   = "CHART002"
	ruleChartAPIVersion = "CHART003"
	ruleChartType       = "CHART004"
	ruleChartVersion    = "CHART005"
	ruleChartLint       = "CHART006"
	ruleProviderChart   = "CHART007"

	ruleProviderMissing     = "K0RDENT001"
	ruleProviderMalformed   = "K0RDENT002"
	ruleOneInfrastructure   = "K0RDENT003"
	ruleContractInvalid     = "K0RDENT004"
	ruleContractUnlisted    = "K0RDENT005"
	ruleContractMissing     = "K0RDENT006"
	ruleContractVersion     = "K0RDENT007"
	ruleK8sVersionMissing   = "K0RDENT008"
	ruleK8sVersionInvalid   = "K0RDENT009"
	ruleK8sVersionMismatch  = "K0RDENT010"
	ruleSchemaMissing       = "VALUES001"
	ruleSchemaInvalid       = "VALUES002"
	ruleDefaultsInvalid     = "VALUES003"
	ruleCIValuesInvalid     = "VALUES004"
	ruleInjectedRejected    = "VALUES005"
	ruleConfigInvalid       = "VALUES006"
	ruleConfigNotInSchema   = "VALUES007"
	ruleConfigUnread        = "VALUES008"
	ruleConfigOverwritten   = "VALUES009"
	ruleInjectedReach       = "VALUES010"
	ruleValueUndefined      = "VALUES011"
	ruleRender              = "RENDER001"
	ruleRenderParse         = "RENDER002"
	ruleRenderNamespace     = "RENDER003"
	ruleOneCluster          = "RENDER004"
	ruleRefResolve          = "RENDER005"
	ruleRefFormat           = "RENDER006"
	ruleProviderGroup       = "RENDER007"
	ruleReleaseName         = "RENDER008"
	ruleClusterName         = "RENDER009"
	ruleDeprecatedAPI       = "RENDER010"
	ruleRequiredValues      = "RENDER011"
	ruleDuration            = "RENDER012"
	ruleNoCRDs              = "SCHEMA001"
	ruleSchemaViolation     = "SCHEMA002"
	ruleUnknownKind         = "SCHEMA003"
	ruleSchemaInputs        = "SCHEMA004"
	ruleClusterScoped       = "SEC001"
	ruleRBAC                = "SEC002"
	ruleAdmission           = "SEC003"
	ruleWorkload            = "SEC004"
	rulePodSecurity         = "SEC005"
	ruleRegistry            = "SEC006"
	ruleSecretDefault       = "SEC007"
	ruleLookup              = "SEC008"
	rulePolicy              = "POLICY"
	categoryPolicyRuleTitle = "Organisation policy rules"
)

var rules = []findings.Rule{
	// Chart -----------------------------------------------------------------
	{
		ID: ruleChartLoad, Category: CategoryChart, Severity: findings.Error, Input: true,
		Title: "The chart loads with the Helm SDK",
		Description: `The chart directory or .tgz archive is loaded with Helm's own loader (the one kcm uses
after the source controller downloads the chart). A missing ` + "`Chart.yaml`" + `, YAML that does not
parse in ` + "`Chart.yaml`" + ` or ` + "`values.yaml`" + `, or a broken archive stop here: the finding names the
file (and the line when the YAML parser gives one) and no other rule runs.

kcm's template controller (internal/controller/template_controller.go, ReconcileTemplate)
fails the same way: the ClusterTemplate gets ` + "`status.valid: false`" + ` with the loader's error in
` + "`status.validationError`" + `, and no ClusterDeployment can use it.

Nothing else can be checked, so this is bad input: ` + "`kbook template validate`" + ` exits 2 (as
` + "`template render`" + ` and ` + "`template manifest`" + ` do for the same chart), and the rule cannot be
disabled.`,
	},
	{
		ID: ruleChartValidate, Category: CategoryChart, Severity: findings.Error,
		Title: "Chart metadata passes Helm's validation",
		Description: `kcm calls Helm's ` + "`chart.Validate()`" + ` on every downloaded template chart
(internal/controller/template_controller.go, ReconcileTemplate: "Validating Helm chart") and
marks the ClusterTemplate invalid when it fails. It checks the chart name, version,
apiVersion, type, maintainers and dependency names. Helm reports only the first problem; fix
it and validate again. Problems that CHART003 to CHART005 report more precisely are not
repeated here.`,
	},
	{
		ID: ruleChartAPIVersion, Category: CategoryChart, Severity: findings.Error,
		Title: "Chart.yaml declares apiVersion v2",
		Description: `Helm 3 charts declare ` + "`apiVersion: v2`" + ` in Chart.yaml. A chart without apiVersion is
loaded as a Helm 2 (` + "`v1`" + `) chart, whose dependencies live in requirements.yaml and whose
type cannot be declared; kcm templates are Helm 3 charts.`,
	},
	{
		ID: ruleChartType, Category: CategoryChart, Severity: findings.Error,
		Title: "The chart is an application chart",
		Description: `A ClusterTemplate chart is installed as a Helm release for every ClusterDeployment, so it
must be an application chart (` + "`type: application`" + `, or no type, which Helm reads as
application). A ` + "`library`" + ` chart renders nothing and Helm refuses to install it.`,
	},
	{
		ID: ruleChartVersion, Category: CategoryChart, Severity: findings.Error,
		Title: "The chart version is an exact SemVer version",
		Description: `The chart version must be a complete Semantic Versioning 2 version:
` + "`MAJOR.MINOR.PATCH`" + `, optionally with a pre-release and build suffix (` + "`1.2.3`" + `, ` + "`0.3.0-rc.1`" + `).
Helm itself also accepts loose forms such as ` + "`1.2`" + ` or ` + "`v1`" + `, but k0rdent names templates after
the chart version (` + "`aws-standalone-cp-1-0-3`" + `) and orders upgrades by it
(ClusterTemplateChain, ` + "`status.availableUpgrades`" + `), so an incomplete version makes upgrade
paths ambiguous.`,
	},
	{
		ID: ruleChartLint, Category: CategoryChart, Severity: findings.Error,
		Title: "Helm lint finds no problem",
		Description: `Runs Helm's own linter (` + "`helm.sh/helm/v3/pkg/lint`" + `, as ` + "`helm lint`" + ` does) with the values kcm
injects, and reports each message with Helm's severity (` + "`[ERROR]`" + ` as error, ` + "`[WARNING]`" + ` as
warning; ` + "`[INFO]`" + ` messages such as "icon is recommended" are dropped) and the file Helm names;
the line is given when Helm's message carries one. Messages that other rules already report
better are not repeated: schema validation of values (VALUES003), template rendering
errors (RENDER001) and, when a CHART00x rule fired, Chart.yaml problems.`,
	},

	{
		ID: ruleProviderChart, Category: CategoryChart, Severity: findings.Info,
		Title: "The chart is a ClusterTemplate chart",
		Description: "kcm installs two kinds of template charts: ClusterTemplates (a cluster, rendered once per\n" +
			"ClusterDeployment) and ProviderTemplates (a CAPI provider or a component, installed into the\n" +
			"management cluster). kcm tells them apart by the kind of the object that points at the chart;\n" +
			"`kbook template validate` recognises a ProviderTemplate chart by any of:\n\n" +
			"- contract annotations keyed by CAPI contract version, `cluster.x-k8s.io/v1beta1: v1beta1_v1beta2`,\n" +
			"  the ProviderTemplate form (api/v1beta1/templates_common.go, getCAPIContracts), and none keyed\n" +
			"  by provider name (the ClusterTemplate form);\n" +
			"- a template that renders cluster-api-operator provider objects (`operator.cluster.x-k8s.io`:\n" +
			"  `InfrastructureProvider`, `IPAMProvider`...), as kcm's provider charts do\n" +
			"  (templates/provider/*/templates/provider.yaml of kcm v1.11.4);\n" +
			"- no `cluster.x-k8s.io/provider` annotation and no templates of its own, only dependencies, as\n" +
			"  kcm's `projectsveltos` chart.\n\n" +
			"Such a chart gets this info and the Chart rules (CHART001 to CHART006); the ClusterTemplate\n" +
			"rules (k0rdent compatibility, values, rendering, schemas, security) do not apply to it, and\n" +
			"would report a provider's CRDs, RBAC and controllers as defects. Provider charts are checked by\n" +
			"`kbook provider validate`.",
	},

	// k0rdent compatibility --------------------------------------------------
	{
		ID: ruleProviderMissing, Category: CategoryK0rdent, Severity: findings.Warning,
		Title: "Chart.yaml declares the CAPI providers the template needs",
		Description: "kcm reads the providers a ClusterTemplate needs from the Chart.yaml annotation\n" +
			"`cluster.x-k8s.io/provider`, a comma-separated list such as\n" +
			"`infrastructure-aws, control-plane-k0sproject-k0smotron, bootstrap-k0sproject-k0smotron`\n" +
			"(api/v1beta1/templates_common.go, getProvidersList), into the template's `status.providers`.\n" +
			"The ClusterDeployment admission webhook (internal/webhook/clusterdeployment_webhook.go) then\n" +
			"rejects a ClusterDeployment until the Management (or Region) reports all of them as available\n" +
			"(internal/util/validation, ClusterTemplateProviders), and rejects it outright when the template\n" +
			"has no providers at all: `no providers have been found in the ClusterTemplate`\n" +
			"(internal/util/validation, ClusterDeployCredential).\n\n" +
			"The ClusterTemplate's `spec.providers` field wins over the annotation, so a template can work\n" +
			"without it; but then every ClusterTemplate object that points at the chart has to repeat the\n" +
			"list. This rule warns when the annotation is missing or empty; the rules that depend on the\n" +
			"providers (K0RDENT003, K0RDENT005, K0RDENT006, RENDER007) are then skipped.",
	},
	{
		ID: ruleProviderMalformed, Category: CategoryK0rdent, Severity: findings.Error,
		Title: "The provider annotation is a well-formed list",
		Description: "Each entry of `cluster.x-k8s.io/provider` must be a CAPI provider name as clusterctl and\n" +
			"kcm's Management status spell it: `cluster-api`, or a type prefix (`infrastructure-`,\n" +
			"`control-plane-`, `bootstrap-`, `ipam-`, `runtime-extension-`, `addon-`) followed by a lower-case\n" +
			"name (`infrastructure-aws`, `control-plane-k0sproject-k0smotron`). kcm splits the value on commas\n" +
			"and trims spaces (api/v1beta1/templates_common.go, getProvidersList) and then compares the\n" +
			"names literally with the available providers (internal/util/validation,\n" +
			"validateCompatibilityAttrs): a misspelt or differently spelt name (`aws`, `Infrastructure-AWS`,\n" +
			"`infrastructure_aws`) is never available, so every ClusterDeployment of the template is\n" +
			"rejected. Empty entries and duplicates are reported too.",
	},
	{
		ID: ruleOneInfrastructure, Category: CategoryK0rdent, Severity: findings.Error,
		Title: "Exactly one infrastructure provider is declared",
		Description: "A cluster is provisioned on one infrastructure: the template must list exactly one\n" +
			"`infrastructure-*` provider. When a ClusterDeployment is created, kcm checks its Credential\n" +
			"against every infrastructure provider of the template (internal/util/validation,\n" +
			"ClusterDeployCredential): with none it rejects the ClusterDeployment (`no infrastructure\n" +
			"providers have been found in the ClusterTemplate`); with two, the Credential's identity kind must\n" +
			"be supported by both providers (`provider ... does not support ClusterIdentity Kind ...`), and the\n" +
			"Management must run both, although the cluster uses one.",
	},
	{
		ID: ruleContractInvalid, Category: CategoryK0rdent, Severity: findings.Error,
		Title: "Provider contract annotations hold one CAPI contract version",
		Description: "A ClusterTemplate may pin the CAPI contract version each provider must support with an\n" +
			"annotation `cluster.x-k8s.io/<provider>: <contract>` for keys starting `infrastructure-`,\n" +
			"`control-plane-` or `bootstrap-`, for example `cluster.x-k8s.io/infrastructure-aws: v1beta2`.\n\n" +
			"For ClusterTemplates kcm accepts only a single version (`v1beta2`, `v1beta1`, `v1alpha4`...):\n" +
			"api/v1beta1/templates_common.go, getCAPIContracts, checks the value with\n" +
			"`isCAPIContractSingleVersion`. The `_`-joined lists (`v1beta1_v1beta2`) are the ProviderTemplate\n" +
			"form (what a provider offers); in a ClusterTemplate they, and any other value that is not a\n" +
			"contract version, make kcm mark the template invalid with `incorrect provider contract version`.\n" +
			"The ClusterTemplate's `spec.providerContracts` field, when set, replaces all the annotations.",
	},
	{
		ID: ruleContractUnlisted, Category: CategoryK0rdent, Severity: findings.Warning,
		Title: "Contract annotations name listed providers",
		Description: "A contract annotation for a provider that `cluster.x-k8s.io/provider` does not list is\n" +
			"almost always a typo or a leftover. When a ClusterDeployment is created, kcm checks the\n" +
			"contract of every provider named in the contract annotations that the Management (or Region)\n" +
			"runs, and silently skips the others (internal/util/validation, validateCompatibilityAttrs:\n" +
			"`both the provider and cluster templates contract versions must be set for the validation`), so\n" +
			"the contract of the provider actually used is then not checked at all.",
	},
	{
		ID: ruleContractMissing, Category: CategoryK0rdent, Severity: findings.Warning,
		Title: "Every listed provider has a contract annotation",
		Description: "Without `cluster.x-k8s.io/<provider>: <contract>` kcm cannot check that the provider running\n" +
			"in the management cluster speaks the CAPI contract the template's objects are written for:\n" +
			"it skips the provider (internal/util/validation, validateCompatibilityAttrs),\n" +
			"and a mismatch shows up only when CAPI controllers fail to reconcile the rendered objects.\n" +
			"Only `infrastructure-`, `control-plane-` and `bootstrap-` providers are expected to have one, as\n" +
			"those are the only keys kcm reads for ClusterTemplates; and not kcm's built-in\n" +
			"`infrastructure-internal`, which speaks no CAPI contract (the Management lists it with no\n" +
			"contract: internal/controller/components, reconciler.go).",
	},
	{
		ID: ruleContractVersion, Category: CategoryK0rdent, Severity: findings.Warning,
		Title: "Contract annotations pin the API version the template's objects use",
		Description: "The value of `cluster.x-k8s.io/<provider>` in a ClusterTemplate is not Cluster API's own\n" +
			"contract but the provider's API version the template needs. kcm compares it with the API\n" +
			"versions the installed provider's ProviderTemplate lists, per CAPI contract\n" +
			"(`cluster.x-k8s.io/v1beta1: v1beta1_v1beta2`, split on `_`; internal/util/validation,\n" +
			"cluster_template.go, validateCompatibilityAttrs). CAPZ, CAPG and CAPO serve only\n" +
			"`v1beta1` objects in the releases kcm 1.11 installs, so `cluster.x-k8s.io/infrastructure-azure:\n" +
			"v1beta1` is right; CAPA's objects are `v1beta2`, and so on.\n\n" +
			"This rule reads the rendered objects: when exactly one listed provider of a kind\n" +
			"(`infrastructure-`, `control-plane-`, `bootstrap-`) owns the objects of its group\n" +
			"(`infrastructure.cluster.x-k8s.io`, `controlplane.cluster.x-k8s.io`,\n" +
			"`bootstrap.cluster.x-k8s.io`) and none of them has the pinned version, kcm checks for a version\n" +
			"the template does not use: a provider that dropped the objects' version passes the check and\n" +
			"the cluster fails later. The finding is at the annotation's line and names the version to pin.\n" +
			"(This rule used to warn on every `v1beta1` pin as a deprecated CAPI contract: that read the\n" +
			"value wrongly, and fired on the 8 kcm v1.11.4 templates whose providers serve only v1beta1.)",
	},
	{
		ID: ruleK8sVersionMissing, Category: CategoryK0rdent, Severity: findings.Warning,
		Title: "Chart.yaml declares the Kubernetes version",
		Description: "kcm reads the exact Kubernetes version a ClusterTemplate deploys from the Chart.yaml\n" +
			"annotation `k0rdent.mirantis.com/k8s-version` (api/v1beta1/clustertemplate_types.go,\n" +
			"FillStatusWithProviders), unless the ClusterTemplate's `spec.k8sVersion` sets it (the spec\n" +
			"wins). The version goes to the template's and the ClusterDeployment's\n" +
			"`status.k8sVersion` and is checked against the Kubernetes constraints of the ServiceTemplates\n" +
			"a ClusterDeployment deploys (internal/util/validation, ClusterTemplateK8sCompatibility). Without\n" +
			"it kcm records no version and that check is skipped. Not asked of a template that adopts an\n" +
			"existing cluster (its only infrastructure provider is `infrastructure-internal`): the adopted\n" +
			"cluster runs whatever version it runs, which no template can state.\n\n" +
			"**Why it fires on 17 of the 18 templates kcm v1.11.4 ships.** None of them has the annotation,\n" +
			"and the ClusterTemplates kcm creates for them (`templates/provider/kcm-templates/files/templates/`)\n" +
			"set no `spec.k8sVersion`. So for every cluster of kcm's own templates `status.k8sVersion` is empty\n" +
			"and `ClusterTemplateK8sCompatibility` returns before reading any ServiceTemplate's\n" +
			"`k0rdent.mirantis.com/k8s-version-constraint` (internal/util/validation/cluster_template.go,\n" +
			"`if len(cd.Spec.ServiceSpec.Services) == 0 || clusterTemplate.Status.KubernetesVersion == \"\"`):\n" +
			"a service that declares it needs Kubernetes 1.33 is deployed onto a 1.31 cluster unchecked.\n" +
			"The fix is one line per chart, the default version the chart already holds in its values (for\n" +
			"aws-standalone-cp `k0s.version`, `v1.36.3+k0s.2`), kept in step by K0RDENT010. A\n" +
			"ClusterDeployment whose config overrides the version still gets the template's in its status:\n" +
			"that is kcm's model (one exact version per template), not something a chart can fix. Disable\n" +
			"the rule (`--disable K0RDENT008`) for a template that deliberately leaves the version to its\n" +
			"users.",
	},
	{
		ID: ruleK8sVersionInvalid, Category: CategoryK0rdent, Severity: findings.Error,
		Title: "The Kubernetes version is an exact SemVer version",
		Description: "`k0rdent.mirantis.com/k8s-version` must be an exact version such as `v1.34.1` or\n" +
			"`v1.34.1+k0s.0`. kcm parses it with `semver.NewVersion` and marks the template invalid when it\n" +
			"does not parse (api/v1beta1/clustertemplate_types.go, FillStatusWithProviders). Loose forms\n" +
			"that parser accepts, such as `1.34` or `v1`, are reported too: they are not the exact version\n" +
			"the annotation promises and compare wrongly against ServiceTemplate constraints.",
	},
	{
		ID: ruleK8sVersionMismatch, Category: CategoryK0rdent, Severity: findings.Error,
		Title: "The Kubernetes version agrees with the default values",
		Description: "The version the chart announces must be the one it deploys. This rule looks for the\n" +
			"version in the default values under these keys, in this order, and compares the first one\n" +
			"found (ignoring a leading `v`; a `+k0s.N` build suffix must match when both have one):\n\n" +
			"| values key | typical template |\n|---|---|\n" +
			"| `k0s.version` | k0s / k0smotron templates (`v1.34.1+k0s.0`) |\n" +
			"| `kubernetes.version` | generic |\n" +
			"| `k8sVersion` | generic |\n" +
			"| `kubernetesVersion` | generic |\n" +
			"| `controlPlane.version` | kubeadm control planes |\n" +
			"| `controlPlane.kubernetesVersion` | kubeadm control planes |\n" +
			"| `version` | flat charts |\n\n" +
			"When none of them is set the rule does not apply. A mismatch means kcm advertises (and checks\n" +
			"ServiceTemplate compatibility against) one version while clusters run another.",
	},

	// Values -----------------------------------------------------------------
	{
		ID: ruleSchemaMissing, Category: CategoryValues, Severity: findings.Warning,
		Title: "The chart has a values.schema.json",
		Description: "kcm stores a chart's `values.schema.json` in a ConfigMap named in the template's\n" +
			"`status.schemaConfigMapName` (internal/controller/template_controller.go,\n" +
			"ensureSchemaConfigmap) for UIs and tools that build a ClusterDeployment's `spec.config`. The\n" +
			"admission webhook does not check `spec.config` against it\n" +
			"(internal/webhook/clusterdeployment_webhook.go): only Helm does, when kcm's controller\n" +
			"dry-runs the install after the ClusterDeployment was accepted (internal/helm,\n" +
			"EnsureReleaseWithValues: a client-only `helm install --dry-run`). Without a schema nothing\n" +
			"checks a config at all, and a misspelt key silently has no effect. The other VALUES rules\n" +
			"that need a schema are skipped.",
	},
	{
		ID: ruleSchemaInvalid, Category: CategoryValues, Severity: findings.Error,
		Title: "values.schema.json is a valid JSON Schema",
		Description: "The schema must be valid JSON and a valid JSON Schema (the draft named by `$schema`,\n" +
			"2020-12 when there is none). It is compiled with `santhosh-tekuri/jsonschema/v6`, the library\n" +
			"Helm 3.19 uses, so a schema that fails here also makes every `helm install` of the chart\n" +
			"fail. References to remote schemas (`http://`, `https://`) are not fetched: kbook works\n" +
			"offline, and so should a template installed into an air-gapped management cluster.",
	},
	{
		ID: ruleDefaultsInvalid, Category: CategoryValues, Severity: findings.Error,
		Title: "The default values satisfy the schema",
		Description: "`values.yaml`, together with the values kcm injects (VALUES005), is validated against\n" +
			"`values.schema.json` as Helm validates it on install. A default that violates the schema\n" +
			"makes every ClusterDeployment that does not override it fail; kcm's admission webhook\n" +
			"also copies the defaults into a ClusterDeployment that has no `spec.config`\n" +
			"(internal/webhook/clusterdeployment_webhook.go, Default). Each violation points at the line\n" +
			"of the value in values.yaml and names its values path, for example\n" +
			"`values.yaml:12 controlPlane.replicas: got string, want integer`. As in Helm, each dependency's\n" +
			"own values.schema.json also applies to the values under its name or alias (`base.*`).",
	},
	{
		ID: ruleCIValuesInvalid, Category: CategoryValues, Severity: findings.Error,
		Title: "Every ci/*.yaml values file satisfies the schema",
		Description: "Files under `ci/` are the chart's example configurations (the convention of Helm's\n" +
			"chart-testing tool). Each is merged over the defaults, with kcm's injected values, and\n" +
			"validated like a ClusterDeployment's `spec.config`; violations point at the line in the ci\n" +
			"file (or in values.yaml for a default the file does not override, if the defaults alone are\n" +
			"valid). Each ci file is also rendered by the RENDER, SCHEMA, SEC and POLICY rules.",
	},
	{
		ID: ruleInjectedRejected, Category: CategoryValues, Severity: findings.Error,
		Title: "The schema accepts the values kcm injects",
		Description: "When kcm installs a ClusterDeployment it adds values of its own to `spec.config`\n" +
			"(internal/controller/clusterdeployment_controller.go, fillHelmValues):\n\n" +
			"- `clusterIdentity`: `{apiVersion, kind, name, namespace}` of the Credential's identity, always;\n" +
			"- `global`: `{registry, k0sURL, registryCertSecret, k0sURLCertSecret}` when kcm runs with a\n" +
			"  global registry or k0s URL (and `global.registry` from `spec.registryOverride`);\n" +
			"- `clusterLabels`: the ClusterDeployment's labels, when the config has none.\n\n" +
			"(`imagePullSecrets`, `auth` and `dataSource` are added only for ClusterDeployments that use\n" +
			"those features.) Helm validates the merged values against `values.schema.json`, so a schema\n" +
			"that rejects these keys (`additionalProperties: false` at the root without them, or a type\n" +
			"that does not fit) makes every install fail. Declare them, for example\n" +
			"`\"clusterIdentity\": {\"type\": \"object\"}`.",
	},
	{
		ID: ruleConfigInvalid, Category: CategoryValues, Severity: findings.Error,
		Title: "The given config satisfies the schema",
		Description: "`--config` names a file holding a ClusterDeployment (its `spec.config` is used) or a plain\n" +
			"values map. It is merged over the defaults with kcm's injected values and validated against\n" +
			"`values.schema.json`. kcm itself would find this only after the ClusterDeployment was\n" +
			"accepted, when its controller dry-runs the Helm install\n" +
			"(internal/controller/clusterdeployment_controller.go, validateConfig) and sets the\n" +
			"`HelmChartReady` condition to false. Each violation points at the line in the config file.",
	},
	{
		ID: ruleConfigNotInSchema, Category: CategoryValues, Severity: findings.Warning,
		Title: "The config sets only keys the schema declares",
		Description: "Where the schema describes an object by its `properties` but does not forbid others (no\n" +
			"`additionalProperties: false`), a key it does not declare passes validation and is most\n" +
			"often a typo (`workerNumber` for `workersNumber`) that silently has no effect. Objects the\n" +
			"schema leaves free-form (no `properties`, or `additionalProperties` / `patternProperties`\n" +
			"with a schema, such as `clusterLabels`) are not checked.",
	},
	{
		ID: ruleConfigUnread, Category: CategoryValues, Severity: findings.Warning,
		Title: "Every key the config sets is read by a template",
		Description: "A value no template reads has no effect. kbook finds the values the templates read with\n" +
			"a textual heuristic over every file under `templates/` (helpers included):\n\n" +
			"- `.Values.a.b`, `$.Values.a.b` and `$var.Values.a.b` read `a.b`;\n" +
			"- `index .Values \"a\" \"b\"` (and `index .Values.a \"b\"`) reads `a.b`; `get` and `hasKey` likewise;\n" +
			"- a path used as a whole (`toYaml .Values.a`, `with .Values.a`, `range .Values.a`,\n" +
			"  `index .Values.a $key`) reads everything below `a`;\n" +
			"- `.Values` used as a whole (`toYaml .Values`, `tpl ... .Values`) reads everything: the rule\n" +
			"  then reports nothing.\n\n" +
			"The heuristic errs towards \"read\": it may miss an unused key, never report a used one as\n" +
			"unused, except through template functions that take the whole context (`include \"x\" .`\n" +
			"passes `.Values` on, which is why helpers are scanned too). The keys kcm injects are not\n" +
			"reported.",
	},
	{
		ID: ruleConfigOverwritten, Category: CategoryValues, Severity: findings.Warning,
		Title: "The config does not set values kcm replaces",
		Description: "kcm replaces `clusterIdentity` with the identity of the ClusterDeployment's Credential on\n" +
			"every install, whatever `spec.config` says, and replaces the whole `global` map when it runs\n" +
			"with a global registry or k0s URL (internal/controller/clusterdeployment_controller.go,\n" +
			"fillHelmValues). Setting them in the config has no effect (or an effect that depends on how\n" +
			"kcm was installed): set the Credential, or `spec.registryOverride`, instead.",
	},

	{
		ID: ruleInjectedReach, Category: CategoryValues, Severity: findings.Warning,
		Title: "The values kcm injects reach the dependencies that read them",
		Description: "kcm injects `clusterIdentity` and `clusterLabels` at the top level of the values\n" +
			"(internal/controller/clusterdeployment_controller.go, fillHelmValues), and Helm passes a\n" +
			"dependency only the values under its name or alias, plus `global`. A wrapper chart whose\n" +
			"base template is a dependency (`kbook template init --extend` makes one, with `alias: base`)\n" +
			"therefore does not hand kcm's values to the templates that read them: the base chart sees\n" +
			"its own defaults (or nothing), and the cluster gets the wrong identity or no labels. This\n" +
			"rule warns for each dependency whose templates read one of these keys when neither the\n" +
			"parent's defaults nor `--config` set `<alias>.<key>` (for example `base.clusterIdentity`),\n" +
			"pointing at the dependency in Chart.yaml.",
	},
	{
		ID: ruleValueUndefined, Category: CategoryValues, Severity: findings.Warning,
		Title: "Templates read only values the chart defines",
		Description: "A template that reads a value neither `values.yaml` nor `values.schema.json` defines\n" +
			"(`.Values.worker.replica` for `worker.replicas`) renders it as empty: Helm prints `null` or\n" +
			"nothing, and the value a ClusterDeployment sets under the right name has no effect. The\n" +
			"template's expressions are parsed as Helm's engine parses them (`.Values.a.b`, `$.Values.a.b`,\n" +
			"variables, `.b` inside `with .Values.a`), and each path is followed through the default values\n" +
			"and the schema (`properties`, local `$ref`, `allOf`/`anyOf`/`oneOf`). The finding is at the\n" +
			"template's line and suggests the defined key of the nearest spelling.\n\n" +
			"Not reported: the values kcm injects (`clusterIdentity`, `global`, `clusterLabels`), values\n" +
			"under a dependency's name, keys below a value left free (an empty map or null default, a\n" +
			"schema with `additionalProperties` or `patternProperties`, or none), and optional values a\n" +
			"template tests rather than uses (`if`, `with`, `default`, `hasKey`, `required`) unless a\n" +
			"defined key of a close spelling suggests a typo. Dependencies' own templates are their\n" +
			"charts' business.",
	},

	// Rendering --------------------------------------------------------------
	{
		ID: ruleRender, Category: CategoryRendering, Severity: findings.Error,
		Title: "The chart renders",
		Description: "The chart is rendered as kcm would install it for a ClusterDeployment: the release is\n" +
			"named like the ClusterDeployment (`render-test` unless set) in its namespace (`kcm-system`\n" +
			"unless set): kcm's HelmRelease and its Helm release are named after the ClusterDeployment, in\n" +
			"its namespace (internal/controller/clusterdeployment_controller.go, internal/helm/release.go).\n" +
			"It renders with the default values, plus the values kcm injects\n" +
			"(`clusterIdentity` placeholder, `global`, `clusterLabels`, see VALUES005). It is rendered once\n" +
			"with the defaults alone, once per ci/*.yaml and once with `--config`; each is rendered again\n" +
			"under another release name and namespace (RENDER003, RENDER008) and without `global`, which\n" +
			"kcm injects only when it runs with a global registry or k0s URL: a template that reads\n" +
			"`.Values.global.registry` with no `global` default fails there. A template error\n" +
			"(`required`, `fail`, a nil pointer, a parse error) points at the template file and line\n" +
			"Helm reports. Dependencies are processed as `helm install` does (conditions, tags, aliases,\n" +
			"import-values), and one missing from `charts/` is reported at its entry in Chart.yaml\n" +
			"(`helm dependency update` fetches it). `lookup` returns nothing offline (see SEC008). A\n" +
			"`required` value the defaults leave empty is RENDER011 (an info), not this error. When no value\n" +
			"set renders at all, nothing else could be checked: RENDER001 is then reported even with\n" +
			"`--disable RENDER001`.",
	},
	{
		ID: ruleRenderParse, Category: CategoryRendering, Severity: findings.Error,
		Title: "Every rendered document is a Kubernetes object",
		Description: "Each YAML document a template renders must parse and have `apiVersion`, `kind` and\n" +
			"`metadata.name`: Helm refuses to install a release with a document that does not. The\n" +
			"finding names the template file that rendered it (a line in the rendered output is given\n" +
			"in the message; render the chart with `kbook template render` to see it).",
	},
	{
		ID: ruleRenderNamespace, Category: CategoryRendering, Severity: findings.Error,
		Title: "Objects stay in the ClusterDeployment's namespace",
		Description: "kcm installs the chart into the ClusterDeployment's namespace. Objects should leave\n" +
			"`metadata.namespace` out or set it to `{{ .Release.Namespace }}`: a fixed namespace\n" +
			"(`kcm-system`, `default`) makes ClusterDeployments in other namespaces create their\n" +
			"objects elsewhere, where the Cluster's references do not find them, and lets two\n" +
			"ClusterDeployments overwrite each other. kbook renders with two namespaces to catch a\n" +
			"hard-coded one that happens to equal the namespace used for rendering.",
	},
	{
		ID: ruleOneCluster, Category: CategoryRendering, Severity: findings.Error,
		Title: "Exactly one cluster object is rendered",
		Description: "A ClusterTemplate deploys one cluster: it must render exactly one `Cluster` of the API\n" +
			"group `cluster.x-k8s.io`. kcm follows that Cluster to report the ClusterDeployment's\n" +
			"conditions (internal/controller/clusterdeployment_controller.go, aggregateCapiConditions) and\n" +
			"to own the Secrets it creates for it.\n\n" +
			"A template that adopts an existing cluster instead declares kcm's built-in provider\n" +
			"`infrastructure-internal` as its only infrastructure provider and renders one `SveltosCluster`\n" +
			"(`lib.projectsveltos.io`) and no CAPI Cluster, as kcm's own `adopted-cluster` template does:\n" +
			"kcm runs that provider itself (internal/controller/components, reconciler.go: the Management\n" +
			"always lists `infrastructure-internal`), requires a Secret identity for it\n" +
			"(internal/util/validation/cd.go), and finds the cluster of a ClusterDeployment as a CAPI Cluster,\n" +
			"else as a SveltosCluster of the same name (internal/controller/adapters/sveltos,\n" +
			"serviceset_controller.go, getClusterReference). A CAPI Cluster in such a template, or a\n" +
			"SveltosCluster in a template of a CAPI infrastructure provider, is reported.",
	},
	{
		ID: ruleRefResolve, Category: CategoryRendering, Severity: findings.Error,
		Title: "Object references resolve to rendered objects",
		Description: "The Cluster's `spec.infrastructureRef` and `spec.controlPlaneRef` (a Cluster without\n" +
			"`spec.topology` must have an infrastructureRef), and every `infrastructureRef`, `configRef`,\n" +
			"`controlPlaneRef` and `*TemplateRef` / `templateRef` found anywhere in the rendered objects\n" +
			"(MachineDeployments, MachineSets, MachinePools, control planes...), must name an object the\n" +
			"chart renders, by kind, name and API group (v1beta2 `apiGroup` or v1beta1 `apiVersion`), in\n" +
			"the release namespace. A dangling reference leaves the Cluster waiting for an object that\n" +
			"never appears.",
	},
	{
		ID: ruleRefFormat, Category: CategoryRendering, Severity: findings.Error,
		Title: "References use the format of their CAPI API version",
		Description: "In the v1beta2 API of CAPI's own kinds — `Cluster`, `MachineDeployment`, `MachineSet`,\n" +
			"`Machine`, `MachinePool` (`cluster.x-k8s.io`) and `KubeadmControlPlane`\n" +
			"(`controlplane.cluster.x-k8s.io`) — `infrastructureRef`, `controlPlaneRef` and `configRef` are\n" +
			"`{apiGroup, kind, name}`; in their v1beta1 API they are `{apiVersion, kind, name}`. Moving a\n" +
			"template to v1beta2 without changing its references is a common mistake: the API server\n" +
			"rejects (or, without strict validation, drops) `apiVersion` and the required `apiGroup` is\n" +
			"missing. Providers choose their own reference types (k0smotron's v1beta2 `K0sControlPlane`\n" +
			"keeps `{apiVersion, kind, name}`), so other kinds are not checked here; and when CRDs are\n" +
			"given (`--crds`), the CRD schema decides for every kind it knows (SCHEMA002). Either shape\n" +
			"still has to resolve (RENDER005).",
	},
	{
		ID: ruleProviderGroup, Category: CategoryRendering, Severity: findings.Error,
		Title: "Rendered kinds belong to the declared providers",
		Description: "Every rendered object must be served by a provider the template declares in\n" +
			"`cluster.x-k8s.io/provider`, because kcm checks only those before it accepts a\n" +
			"ClusterDeployment (internal/util/validation, ClusterTemplateProviders) and the install fails\n" +
			"later when another is missing. Which provider serves a kind is read from real data, never\n" +
			"guessed from the API group: one provider serves several groups (CAPA's `infrastructure-aws`\n" +
			"serves `AWSManagedControlPlane` in `controlplane.cluster.x-k8s.io` and `NodeadmConfigTemplate`\n" +
			"in `bootstrap.cluster.x-k8s.io`). The data is the `cluster.x-k8s.io/provider` label clusterctl's\n" +
			"release process puts on every provider CRD, read from the CRDs given with `--crds` (a\n" +
			"provider's released components YAML) or served by the cluster of `--kubeconfig`. clusterctl\n" +
			"labels what it installs with the provider's full name (`infrastructure-aws`); a released file\n" +
			"may leave the type out (k0smotron: `k0sproject-k0smotron`), and a provider's own CRD bases may\n" +
			"use the short name clusterctl prefixes with the organisation for providers it does not know\n" +
			"(k0smotron's bases: `infrastructure-k0smotron` for `infrastructure-k0sproject-k0smotron`). So a\n" +
			"declared provider serves the kind when the label's type, if it has one, is the provider's, and\n" +
			"the names are equal or one ends with `-` and the other.\n\n" +
			"Always allowed: CAPI core (`cluster.x-k8s.io`, `addons.cluster.x-k8s.io`), k0rdent's own\n" +
			"components (`k0rdent.mirantis.com`, Sveltos' `*.projectsveltos.io`) and core/v1 Secrets and\n" +
			"ConfigMaps. A kind of a `*.cluster.x-k8s.io` group whose CRD carries no label, or is not\n" +
			"given, is not judged (SCHEMA001 and SCHEMA003 say it was not checked). A kind of any other\n" +
			"group is reported: no CAPI provider serves it. Kinds reported by a SEC rule (and\n" +
			"cluster-scoped kinds) are not repeated here. Skipped when the annotation is missing\n" +
			"(K0RDENT001).",
	},
	{
		ID: ruleReleaseName, Category: CategoryRendering, Severity: findings.Error,
		Title: "Object names derive from the release name",
		Description: "Several ClusterDeployments can use one template in one namespace; kcm names each Helm\n" +
			"release after its ClusterDeployment. kbook renders the chart twice with two release names:\n" +
			"an object whose name does not change (a fixed name, or one built only from values) would be\n" +
			"rendered by both releases, and the second install fails (or, worse, takes the object over).\n" +
			"Build names from `{{ .Release.Name }}`.",
	},
	{
		ID: ruleClusterName, Category: CategoryRendering, Severity: findings.Warning,
		Title: "The cluster is named after the ClusterDeployment",
		Description: "kcm looks the CAPI Cluster up under the ClusterDeployment's own name and namespace\n" +
			"(internal/controller/clusterdeployment_controller.go, getPartialCapiCluster) to make it the\n" +
			"owner of the Secrets it creates for the cluster (authentication config, kine data source),\n" +
			"and finds the cluster to deploy services to, a CAPI Cluster or an adopted cluster's\n" +
			"SveltosCluster, by that name too (internal/controller/adapters/sveltos, getClusterReference).\n" +
			"Name it `{{ .Release.Name }}`.",
	},
	{
		ID: ruleDeprecatedAPI, Category: CategoryRendering, Severity: findings.Warning,
		Title: "CAPI core objects use the current API version",
		Description: "CAPI's core API `cluster.x-k8s.io/v1beta2` is current; `v1beta1` is deprecated and will be\n" +
			"removed. Objects rendered as `cluster.x-k8s.io/v1beta1` still work through conversion while\n" +
			"the management cluster serves it. (Provider API groups are versioned by each provider and are\n" +
			"not checked here; K0RDENT007 checks that contract pins match them.)",
	},

	{
		ID: ruleRequiredValues, Category: CategoryRendering, Severity: findings.Info,
		Title: "Values the chart requires are named",
		Description: "A template may require input its defaults cannot give — a cloud project, a VM size, the\n" +
			"management cluster's name — with Helm's `required`. That is legitimate: kcm dry-runs the chart\n" +
			"with the ClusterDeployment's `spec.config` before it installs it\n" +
			"(internal/controller/clusterdeployment_controller.go, validateConfig; internal/helm/actor.go)\n" +
			"and rejects a config without the value (`HelmChartReady` false), so the ClusterDeployment\n" +
			"must set it. kbook finds the `required` calls in the templates (Helm's template parser; `.Values`\n" +
			"paths, also inside `with`) and, when rendering with the defaults stops at one:\n\n" +
			"- with `--config` or `ci/*.yaml` files, says so once, and the rendering rules run with those\n" +
			"  value sets (a value set that lacks a required value is a RENDER001 error);\n" +
			"- without them, names every required value and renders the defaults again with a placeholder\n" +
			"  for each (the schema's first `examples` entry, `enum` value or `default`, else a value of its\n" +
			"  type, `kbook-placeholder` for strings), so that the RENDER, SCHEMA, SEC and POLICY rules still\n" +
			"  run; their findings say `(with placeholders)`.\n\n" +
			"This is an info, not a problem of the chart; give real example values as `ci/*.yaml` (or check\n" +
			"with `--config`) to have the rendering checked with them.",
	},

	{
		ID: ruleDuration, Category: CategoryRendering, Severity: findings.Error,
		Title: "Durations kcm writes back are in canonical form",
		Description: "kcm's ClusterTemplate, ServiceTemplate and ProviderTemplate have an immutable spec\n" +
			"(`x-kubernetes-validations: self == oldSelf`, \"Spec is immutable\"), and kcm updates them\n" +
			"from its Go types: ProviderTemplates to set their Release owners\n" +
			"(internal/controller/template_controller.go, setReleaseOwnership), templates named by a\n" +
			"ClusterTemplateChain or ServiceTemplateChain to own them\n" +
			"(internal/controller/templatechain_controller.go, CreateOrUpdate). Go writes Flux's\n" +
			"`metav1.Duration` fields in canonical form, so `interval: 10m` goes back as `10m0s`: the spec\n" +
			"\"changes\", the API server rejects the update, and the template never gets its owner. A\n" +
			"rendered object of these kinds must write each of its duration fields as Go prints it\n" +
			"(`10m0s`, `1h0m0s`, `30s`): `spec.helm.chartSpec.interval`, and the `interval` and `timeout`\n" +
			"of a remote source's `git`, `bucket` or `oci` spec (under `spec.helm.chartSource`, and\n" +
			"`spec.kustomize` and `spec.resources` for ServiceTemplates; kcm v1.11.4's CRDs).\n" +
			"`kbook template manifest` writes canonical forms whatever `--interval` says.",
	},

	// Schemas ----------------------------------------------------------------
	{
		ID: ruleNoCRDs, Category: CategorySchemas, Severity: findings.Info,
		Title: "Rendered objects were checked against CRD schemas",
		Description: "The SCHEMA rules validate every rendered object against the OpenAPI schema and CEL rules\n" +
			"of its CustomResourceDefinition, as the API server would on create. With no flag the CRDs are\n" +
			"those of the k0rdent release kbook pins (`--k0rdent vX` names another): kcm's, Flux's,\n" +
			"Sveltos', and Cluster API's core, kubeadm and CAPD CRDs, read from the release's Go modules as\n" +
			"`kbook run --k0rdent` installs them (fetched into kbook's cache on first use, in seconds; no\n" +
			"controller is built). `--crds DIR|FILE` adds more (a provider's released components YAML) and\n" +
			"replaces the release's CRD of the same name; `--kubeconfig` reads them from a management\n" +
			"cluster instead. This rule says once what was not checked: a warning when the release's CRDs\n" +
			"could not be had (no `go` on PATH, no module proxy), naming why; an info with `--k0rdent none`\n" +
			"and no `--crds` (it is about what kbook was given, not about the chart).",
	},
	{
		ID: ruleSchemaViolation, Category: CategorySchemas, Severity: findings.Error,
		Title: "Rendered objects satisfy their CRD schema",
		Description: "Each rendered object is validated offline against its CRD: types, required fields,\n" +
			"enums, patterns, formats, bounds, unknown fields (as strict field validation reports them)\n" +
			"and `x-kubernetes-validations` CEL rules. Each error is a finding with the object and the\n" +
			"field path. An API version the CRD does not serve is reported here too. What fails here\n" +
			"fails when Flux's helm-controller applies the release for kcm.\n\n" +
			"A violation that only says a value the user must give is missing is SCHEMA004 (an info)\n" +
			"when the defaults leave it empty. In a `ci/*.yaml` or `--config` rendering it stays an error\n" +
			"here — that value set really leaves it empty — and the message names the values path to set.\n" +
			"A default that renders an incomplete object (a required key missing inside a map the\n" +
			"defaults give, as remote-cluster's `provisionJob.jobSpecTemplate.spec: {}` without the\n" +
			"Job's `template`) is the chart's defect, not missing input: it stays an error.",
	},
	{
		ID: ruleSchemaInputs, Category: CategorySchemas, Severity: findings.Info,
		Title: "Values the CRDs need from the user are named",
		Description: "Templates leave the values only a user can give empty in their defaults (`region: \"\"`,\n" +
			"`flavor: \"\"`, `filter: {}`), and providers' CRDs reject the empty fields rendered from them\n" +
			"(`minLength`, `minProperties`, required keys). kcm accepts a ClusterDeployment without\n" +
			"`spec.config` (its webhook copies the defaults in) and Helm's schema check passes an empty\n" +
			"string, so such a ClusterDeployment fails at install, when the API server rejects the\n" +
			"object; with a real config it works. kbook tells missing input from a broken chart by\n" +
			"tracing: a violation of the defaults' rendering is missing input when\n\n" +
			"1. the field it is about is empty in the rendered object (`\"\"`, `{}`, `[]` or absent), and\n" +
			"2. rendering again with a distinct marker in every empty value of the values (kcm's\n" +
			"   injected values aside; empty maps, and lists whose `items` type values.schema.json gives,\n" +
			"   included) puts the marker of values path P into that very field: the field is rendered\n" +
			"   from P.\n\n" +
			"Then this info names P (at its line in values.yaml) and the objects and fields the API\n" +
			"server rejects with the defaults alone, once per values path; it suggests `minLength`,\n" +
			"`minProperties` or `minItems` in values.schema.json, so that kcm's dry run rejects a\n" +
			"ClusterDeployment without the value before anything is installed. Anything else stays a\n" +
			"SCHEMA002 error, and so does the same violation in a `ci/*.yaml` or `--config` rendering.",
	},
	{
		ID: ruleUnknownKind, Category: CategorySchemas, Severity: findings.Info,
		Title: "Every rendered kind has a schema",
		Description: "An object whose group and kind no given CRD defines was not checked: kbook says so\n" +
			"rather than passing it silently. Add the provider's CRDs to `--crds`. Built-in kinds\n" +
			"(Secrets, ConfigMaps) have no CRD and are reported too. An info: it says what kbook could not\n" +
			"check, not that the object is wrong.",
	},

	// Security ---------------------------------------------------------------
	{
		ID: ruleClusterScoped, Category: CategorySecurity, Severity: findings.Error,
		Title: "No cluster-scoped objects",
		Description: "kcm installs ClusterTemplates into the management cluster (the regional cluster, for a\n" +
			"Credential bound to a Region) through a Flux HelmRelease (internal/helm/release.go), that is with\n" +
			"helm-controller's privileges. A cluster template must only create namespaced objects in the\n" +
			"ClusterDeployment's namespace: a cluster-scoped object (Namespace, StorageClass,\n" +
			"PriorityClass...) is shared by every ClusterDeployment, outlives none of them cleanly and\n" +
			"lets a namespace user's template change the whole management cluster. The scope comes from\n" +
			"the given CRDs when they know the kind, else from a built-in list of cluster-scoped\n" +
			"Kubernetes and k0rdent kinds. RBAC, webhook and CRD kinds are reported by SEC002 and SEC003\n" +
			"instead.",
	},
	{
		ID: ruleRBAC, Category: CategorySecurity, Severity: findings.Error,
		Title: "No RBAC objects",
		Description: "Roles, ClusterRoles, RoleBindings and ClusterRoleBindings rendered by a cluster template\n" +
			"would grant permissions in the management cluster, created with helm-controller's\n" +
			"privileges on behalf of whoever may create a ClusterDeployment. Ship RBAC with the\n" +
			"provider (ProviderTemplate), not with a ClusterTemplate.",
	},
	{
		ID: ruleAdmission, Category: CategorySecurity, Severity: findings.Error,
		Title: "No CRDs, admission webhooks or admission policies",
		Description: "CustomResourceDefinitions (rendered, or in the chart's `crds/` directory, which Helm\n" +
			"installs first), Validating/MutatingWebhookConfigurations and\n" +
			"ValidatingAdmissionPolicies change the API of the whole management cluster. They belong to\n" +
			"providers and to kcm itself, never to a template that is installed once per cluster.",
	},
	{
		ID: ruleWorkload, Category: CategorySecurity, Severity: findings.Error,
		Title: "No workloads in the management cluster",
		Description: "Pods, Deployments, DaemonSets, StatefulSets, ReplicaSets, Jobs and CronJobs rendered by a\n" +
			"cluster template would run in the management cluster, next to kcm and the CAPI\n" +
			"controllers, for every ClusterDeployment. A cluster template should only describe the\n" +
			"cluster (CAPI objects, Secrets, ConfigMaps); software for the new cluster belongs in\n" +
			"ServiceTemplates.",
	},
	{
		ID: rulePodSecurity, Category: CategorySecurity, Severity: findings.Error,
		Title: "No privileged containers, host namespaces or hostPath volumes",
		Description: "Wherever a pod spec is embedded in a rendered object, in any field and at any depth, it\n" +
			"must not run privileged containers (`securityContext.privileged: true` in `containers`,\n" +
			"`initContainers` or `ephemeralContainers`), allow privilege escalation\n" +
			"(`allowPrivilegeEscalation: true`), add the `SYS_ADMIN`, `NET_ADMIN` or `ALL` capabilities,\n" +
			"share the host's namespaces (`hostNetwork`, `hostPID`, `hostIPC`) or mount `hostPath`\n" +
			"volumes. kbook walks each object generically for the container lists, `volumes` and the\n" +
			"`host*` keys, so pod templates inside custom resources (machine templates, add-on objects)\n" +
			"are covered too. provider validate applies the same checks to a provider's controllers (SEC104).",
	},
	{
		ID: ruleRegistry, Category: CategorySecurity, Severity: findings.Error,
		Title: "Images come from allowed registries",
		Description: "Every image a rendered object references must come from an allowed registry. Image\n" +
			"references are found generically: string values of keys named `image`, `imageRepository` or\n" +
			"ending in `Image` (`customImage`), at any depth. The registry is the first part of the\n" +
			"reference when it looks like a host (has a `.` or `:`, or is `localhost`), else `docker.io`.\n\n" +
			"The allowed registries are `--registry` (Options.Registries); when none is given, the\n" +
			"`global.registry` value (kcm's global registry, as the chart's values set it), so a chart\n" +
			"that honours kcm's registry setting must not hard-code images from elsewhere; an entry may\n" +
			"be a registry host or a repository prefix (`registry.example.com/mirror`). Without either\n" +
			"the rule does not apply.",
	},
	{
		ID: ruleSecretDefault, Category: CategorySecurity, Severity: findings.Error,
		Title: "No default values for secrets",
		Description: "A value whose key looks like a secret — it contains `password`, `passwd`, `token`,\n" +
			"`secret`, `apiKey` or `privateKey`, case-insensitively — must not have a non-empty default in\n" +
			"values.yaml: the default ends up in the chart archive, in the ClusterTemplate's\n" +
			"`status.config` (readable by anyone who may read templates) and in every cluster that does\n" +
			"not override it. Keys that name or point at a secret rather than hold one — ending in `Name`,\n" +
			"`Names`, `Ref`, `Namespace`, `File`, `Path`, `Dir`, `URL`, `Endpoint`, `Field`, `Enabled`, `Type`,\n" +
			"`Kind`, `Mode`, `Length` or `TTL` (`passwordSecretName`, `tokenSecretRef`, `tokenURL`) — and values\n" +
			"that are not strings are not reported. The finding points at the line of the key in\n" +
			"values.yaml.",
	},
	{
		ID: ruleLookup, Category: CategorySecurity, Severity: findings.Error,
		Title: "lookup reads only the release namespace, and its result is checked",
		Description: "`lookup` reads objects from the cluster the release is installed into — for kcm, the\n" +
			"management cluster — with the privileges of the Helm release's service account: Flux's\n" +
			"helm-controller installs kcm's HelmRelease (internal/controller/clusterdeployment_controller.go,\n" +
			"internal/helm/release.go). kcm's own admission-time check renders the chart with a client-only\n" +
			"dry run (internal/helm/actor.go, EnsureReleaseWithValues: `install.ClientOnly = true`), where\n" +
			"`lookup` returns nothing, and so does kbook, which works offline. kbook parses every template\n" +
			"(Helm's own template parser, dependencies included) and grades each call by what it can read:\n\n" +
			"| the call | severity |\n|---|---|\n" +
			"| namespace `\"\"` (a cluster-scoped object, or every namespace), or a cluster-scoped kind | error |\n" +
			"| a literal namespace other than the release's (`\"kcm-system\"`) | error |\n" +
			"| a namespace computed from values or variables: a ClusterDeployment's config could point it anywhere | error |\n" +
			"| an API version or kind that is not a literal | error |\n" +
			"| `{{ .Release.Namespace }}`, but the result is used without being checked | warning |\n" +
			"| `{{ .Release.Namespace }}`, name `\"\"`: lists every object of the kind | warning |\n" +
			"| `{{ .Release.Namespace }}`, one named object, every use checked | not reported |\n\n" +
			"A result is checked when every use is inside an `if` or `with` whose condition tests it (or\n" +
			"in that condition, or in `default`, `empty`, `hasKey`, `and`, `or`...). That last form is how\n" +
			"kcm's own templates use it: they hash the Secret holding the encryption config when it\n" +
			"exists, and a value (`encryption.configSecret.hash`) replaces the lookup\n" +
			"(templates/cluster/*/templates/_helpers.tpl of kcm v1.11.4, `encryption-config.hash`): it reads\n" +
			"only what the ClusterDeployment's own namespace holds, and rendering does not break without\n" +
			"it. An unchecked result renders differently in kcm's dry run, in kbook and in the real\n" +
			"install. The finding points at the template file and line of each call.",
	},

	// Organisation policies -------------------------------------------------
	{
		ID: rulePolicy, Category: CategoryPolicy, Severity: findings.Error,
		Title: categoryPolicyRuleTitle,
		Description: "Organisations add their own rules in policy files (`--policy FILE`, kind\n" +
			"`TemplatePolicy`): CEL expressions checked against every rendered object they match and once\n" +
			"against the chart's metadata (`name`, `version`, `appVersion`, `description`, `type`,\n" +
			"`annotations`, `keywords`), with the values the chart was rendered with. A violation is\n" +
			"reported with the policy rule's own ID and severity (error unless the rule says warning),\n" +
			"pointing at the template that rendered the object, or at Chart.yaml for chart rules; the\n" +
			"message names the policy file and line of the rule. Disable a policy rule by its ID.",
	},
}
