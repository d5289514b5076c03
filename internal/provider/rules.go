package provider

import "github.com/k0rdent/kbook/internal/findings"

// Rule categories, in catalogue order.
const (
	CategoryContract   = "Contract resources"
	CategoryInfra      = "Infrastructure provider"
	CategoryBootstrap  = "Bootstrap and control plane providers"
	CategoryClusterctl = "clusterctl"
	CategoryKCM        = "k0rdent registration"
	CategorySecurity   = "Security"
)

// Registry is the rule registry of provider validate; the docs' provider
// rule catalogue is generated from it.
var Registry = findings.NewRegistry(
	[]string{CategoryContract, CategoryInfra, CategoryBootstrap, CategoryClusterctl, CategoryKCM, CategorySecurity},
	rules...)

func severityOf(id string) findings.Severity { return Registry.Severity(id) }

// Rule IDs.
const (
	RuleContractLabel        = "CONTRACT001"
	RuleContractLabelFormat  = "CONTRACT002"
	RuleContractVersion      = "CONTRACT003"
	RuleContractOtherVersion = "CONTRACT004"
	RuleScope                = "CONTRACT005"
	RuleCRDName              = "CONTRACT006"
	RuleListKind             = "CONTRACT007"
	RuleStatusSubresource    = "CONTRACT008"
	RuleAggregateToManager   = "CONTRACT009"
	RuleV1Beta1Contract      = "CONTRACT010"
	RuleConditions           = "CONTRACT011"
	RuleTemplateSpec         = "CONTRACT012"
	RuleTemplatedKind        = "CONTRACT013"

	RuleControlPlaneEndpoint        = "INFRA001"
	RuleControlPlaneEndpointMissing = "INFRA002"
	RuleInfraClusterProvisioned     = "INFRA003"
	RuleFailureDomains              = "INFRA004"
	RuleInfraClusterTemplate        = "INFRA005"
	RuleProviderID                  = "INFRA006"
	RuleInfraMachineProvisioned     = "INFRA007"
	RuleAddresses                   = "INFRA008"
	RuleInfraMachineTemplate        = "INFRA009"
	RuleMachinePoolProviderIDs      = "INFRA010"
	RuleMachinePoolReady            = "INFRA011"
	RuleMachinePoolReplicas         = "INFRA012"
	RuleInfraMachinePoolTemplate    = "INFRA013"

	RuleDataSecretName          = "BOOTSTRAP001"
	RuleDataSecretCreated       = "BOOTSTRAP002"
	RuleBootstrapConfigTemplate = "BOOTSTRAP003"
	RuleControlPlaneInitialized = "CONTROLPLANE001"
	RuleControlPlaneScale       = "CONTROLPLANE002"
	RuleControlPlaneVersion     = "CONTROLPLANE003"
	RuleControlPlaneTemplate    = "CONTROLPLANE004"

	RuleMetadata         = "CLUSTERCTL001"
	RuleMetadataContract = "CLUSTERCTL002"
	RuleTargetNamespace  = "CLUSTERCTL003"
	RuleVariables        = "CLUSTERCTL004"
	RuleManagerContainer = "CLUSTERCTL005"

	RuleChartRender       = "KCM001"
	RuleChartProviders    = "KCM002"
	RuleChartContracts    = "KCM003"
	RuleChartCoreContract = "KCM004"
	RuleProviderInterface = "KCM005"
	RuleKCMRole           = "KCM006"
	RuleOperatorProvider  = "KCM007"
	RuleResourceTemplate  = "KCM008"
	RuleTemplateContract  = "KCM009"
	RuleFetchURL          = "KCM010"

	RuleRBACWildcard      = "SEC101"
	RuleRBACEscalation    = "SEC102"
	RuleClusterSecrets    = "SEC103"
	RulePodSecurity       = "SEC104"
	RuleRegistry          = "SEC105"
	RuleInlineCredentials = "SEC106"
)

const contractIntro = "Contract resources are the kinds core Cluster API references: InfraCluster, InfraMachine, InfraMachinePool, BootstrapConfig, ControlPlane and their templates. kbook recognises them by the names the contract gives them (`FooCluster`, `FooMachine` with a `FooMachineTemplate` or a `spec.providerID`, `FooMachinePool`, `FooControlPlane`, `FooConfig` in a `bootstrap.` group, `...Template`) in the CAPI groups, groups named like them (`infrastructure.acme.io`) or CRDs with a contract label. Identities, IP pools, VMs, remediations and other kinds core CAPI never references are not checked."

var rules = []findings.Rule{
	{ID: RuleContractLabel, Category: CategoryContract, Severity: findings.Error, Title: "Contract resources carry the contract label",
		Description: contractIntro + "\n\nCluster API reads a provider's contract version from the CRD label `cluster.x-k8s.io/<contract>: <versions joined by _>` alone (cluster-api `internal/contract/version.go`, `GetLatestContractAndAPIVersionFromContract`): it tries `cluster.x-k8s.io/v1beta2`, then `cluster.x-k8s.io/v1beta1` (the contracts Cluster API v1.13/v1.14 read), skips empty values, and refuses a kind without either (\"cannot find any versions matching contract versions\"). The label also decides the field paths of every other rule: kbook checks a CRD without it against the v1beta2 contract.\n\nCRDs in `config/crd/bases` have no label: kustomize adds it at release (`labels:` in `config/crd/kustomization.yaml`). The finding says so; validate what you release."},
	{ID: RuleContractLabelFormat, Category: CategoryContract, Severity: findings.Error, Title: "The contract label lists API versions joined by _",
		Description: "The label value is the CRD's versions implementing the contract, joined by `_` (`v1beta1_v1beta2`). Cluster API splits it on `_` and sorts the parts as Kubernetes versions; anything else is not a version it can use."},
	{ID: RuleContractVersion, Category: CategoryContract, Severity: findings.Error, Title: "The version Cluster API uses is defined and served",
		Description: "Of the versions the label lists, Cluster API uses the highest in Kubernetes order (`v1` > `v1beta2` > `v1beta1` > `v1alpha1`) to read and write the provider's objects. That version must be in `spec.versions` and served, or every reference Cluster API builds fails."},
	{ID: RuleContractOtherVersion, Category: CategoryContract, Severity: findings.Warning, Title: "Other versions in contract labels exist in the CRD",
		Description: "Versions a contract label lists besides the one Cluster API uses should exist in the CRD (the book: \"each value MUST point to an available version\"); Cluster API maps an object's apiVersion back to its contract through them (`GetContractVersionForVersion`). Stale entries are harmless for reading but misleading."},
	{ID: RuleScope, Category: CategoryContract, Severity: findings.Error, Title: "Contract resources are namespaced",
		Description: "\"All resources MUST be namespace-scoped\" (contract pages, *All resources: scope*): Cluster API looks referenced objects up in the Cluster's namespace."},
	{ID: RuleCRDName, Category: CategoryContract, Severity: findings.Error, Title: "The CRD is named as Cluster API computes it",
		Description: "Cluster API never lists CRDs: it gets the CRD named `util/contract.CalculateCRDName(group, kind)` (the kind lower-cased and pluralised with `gobuffalo/flect`, a dot, the group) to read its contract label. kbook computes the name with the same library; a CRD with another plural is invisible to Cluster API."},
	{ID: RuleListKind, Category: CategoryContract, Severity: findings.Error, Title: "The list kind is `<Kind>List`",
		Description: "The contract requires the list resource of each kind to be named `<Kind>List`."},
	{ID: RuleStatusSubresource, Category: CategoryContract, Severity: findings.Error, Title: "Contract resources have the status subresource",
		Description: "Providers write the contract's status fields (readiness, addresses, failure domains, data secret names) through the status subresource, and Cluster API reads them from `status`; the contract pages declare `+kubebuilder:subresource:status` on every non-template kind. Checked on the version Cluster API uses."},
	{ID: RuleAggregateToManager, Category: CategoryContract, Severity: findings.Error, Title: "Kinds outside the CAPI groups are granted to Cluster API",
		Description: "Cluster API's manager role covers `addons`, `bootstrap`, `controlplane` and `infrastructure.cluster.x-k8s.io`. A provider whose contract kinds live in another group (CAPV supervisor's `vmware.infrastructure.cluster.x-k8s.io`, `infrastructure.acme.io`) \"MUST grant full read/write RBAC permissions\" to Cluster API through a ClusterRole labelled `cluster.x-k8s.io/aggregate-to-manager: \"true\"` (contract pages, *All resources: API group*): get, list, watch, create, update, patch and delete. When the inputs hold no ClusterRole at all (CRDs only) this is a warning: give the full components to check it."},
	{ID: RuleV1Beta1Contract, Category: CategoryContract, Severity: findings.Warning, Title: "The provider does not rely on the deprecated v1beta1 contract",
		Description: "Cluster API v1.11+ implements contract v1beta2 and keeps v1beta1 compatibility \"temporarily\" (removal tentatively April 2027). Reported once per file, listing the kinds read with v1beta1."},
	{ID: RuleConditions, Category: CategoryContract, Severity: findings.Warning, Title: "Contract resources report conditions",
		Description: "Providers SHOULD implement `status.conditions`: Cluster API mirrors their `Ready` condition into the owner (Cluster `InfrastructureReady`, Machine `InfrastructureReady`/`BootstrapConfigReady`), the only place users see why provisioning waits."},
	{ID: RuleTemplateSpec, Category: CategoryContract, Severity: findings.Error, Title: "Templates hold spec.template.spec",
		Description: "Cluster API (ClusterClass, MachineDeployments, MachineSets, control planes) creates objects from a template's `spec.template.spec` and copies `spec.template.metadata` (`internal/contract/*_template.go`)."},
	{ID: RuleTemplatedKind, Category: CategoryContract, Severity: findings.Error, Title: "A template's kind exists without Template",
		Description: "Cluster API creates an object from a template by dropping `Template` from the template's kind in the same API group (`controllers/external.GenerateTemplate`: `strings.TrimSuffix(kind, \"Template\")`): MachineSets clone a `ProxmoxMachineTemplate` into a `ProxmoxMachine`, ClusterClass topologies an InfraClusterTemplate into its InfraCluster, a ControlPlaneTemplate into its ControlPlane, a BootstrapConfigTemplate into its BootstrapConfig, an InfraMachinePoolTemplate into its InfraMachinePool. A template whose kind is not among the inputs clones into a kind the API server does not serve, and every MachineSet or topology using it fails. Contract kinds come in these pairs; the reverse (a kind without its template) is INFRA005, INFRA009, INFRA013, BOOTSTRAP003 and CONTROLPLANE004."},

	{ID: RuleControlPlaneEndpoint, Category: CategoryInfra, Severity: findings.Error, Title: "spec.controlPlaneEndpoint has the shape {host string, port int32}",
		Description: "Cluster API reads an InfraCluster's (and a ControlPlane's) `spec.controlPlaneEndpoint` into `clusterv1.APIEndpoint` (`internal/contract/infrastructure_cluster.go`, `ControlPlaneEndpoint`); another shape fails the Cluster's reconciliation."},
	{ID: RuleControlPlaneEndpointMissing, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraCluster has spec.controlPlaneEndpoint",
		Description: "For Cluster API the field is needed only when the infrastructure provider supplies the endpoint (warning with `--target capi`). For k0rdent it is required (error): k0smotron's hosted control planes, which k0rdent's hosted templates use, patch the endpoint they create into the InfraCluster's `spec.controlPlaneEndpoint`."},
	{ID: RuleInfraClusterProvisioned, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraCluster reports provisioning where its contract says",
		Description: "Cluster API waits for `status.initialization.provisioned` (v1beta2 label) or `status.ready` (v1beta1 label) before it copies the endpoint and failure domains to the Cluster (`InfrastructureCluster().Provisioned(contract)`). The label, not the API version's name, picks the path: a v1beta2-labelled CRD with only `status.ready` never becomes provisioned."},
	{ID: RuleFailureDomains, Category: CategoryInfra, Severity: findings.Error, Title: "status.failureDomains is a map (v1beta1) or a list (v1beta2)",
		Description: "Cluster API reads `status.failureDomains` as a map of name to `{controlPlane, attributes}` under the v1beta1 contract and as a list of `{name, controlPlane, attributes}` under v1beta2 (`FailureDomains(contract)`); the field is optional."},
	{ID: RuleInfraClusterTemplate, Category: CategoryInfra, Severity: findings.Warning, Title: "The InfraCluster has an InfraClusterTemplate",
		Description: "Mandatory for ClusterClass support only."},
	{ID: RuleProviderID, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraMachine has spec.providerID",
		Description: "Cluster API copies `spec.providerID` to the Machine and matches it with the Node's `spec.providerID` to link Machines and Nodes (`InfrastructureMachine().ProviderID()`); mandatory."},
	{ID: RuleInfraMachineProvisioned, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraMachine reports provisioning where its contract says",
		Description: "`status.initialization.provisioned` (v1beta2 label) or `status.ready` (v1beta1 label), as `InfrastructureMachine().Provisioned(contract)` reads it."},
	{ID: RuleAddresses, Category: CategoryInfra, Severity: findings.Error, Title: "status.addresses is a list of {type, address}",
		Description: "Optional; when present Cluster API copies it into the Machine as `[]clusterv1.MachineAddress`."},
	{ID: RuleInfraMachineTemplate, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraMachine has an InfraMachineTemplate",
		Description: "Mandatory: MachineDeployments, MachineSets and control planes clone InfraMachines from an InfraMachineTemplate named `<Kind>Template` in the same group. (InfraMachines of MachinePool machines, `FooMachinePoolMachine`, need none.)"},
	{ID: RuleMachinePoolProviderIDs, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraMachinePool has spec.providerIDList",
		Description: "The MachinePool controller copies `spec.providerIDList` to the MachinePool to find its Nodes; mandatory."},
	{ID: RuleMachinePoolReady, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraMachinePool has status.ready",
		Description: "The book asks v1beta2 InfraMachinePools for `status.initialization.provisioned`, but Cluster API v1.13 and v1.14 read MachinePool readiness from `status.ready` for every contract (`controllers/external.IsReady` in the MachinePool reconciler): without it the MachinePool never becomes provisioned. Set both."},
	{ID: RuleMachinePoolReplicas, Category: CategoryInfra, Severity: findings.Error, Title: "The InfraMachinePool has status.replicas",
		Description: "Mandatory: copied to the MachinePool's `status.replicas`."},
	{ID: RuleInfraMachinePoolTemplate, Category: CategoryInfra, Severity: findings.Warning, Title: "The InfraMachinePool has an InfraMachinePoolTemplate",
		Description: "Mandatory for ClusterClass support only."},

	{ID: RuleDataSecretName, Category: CategoryBootstrap, Severity: findings.Error, Title: "The BootstrapConfig has status.dataSecretName",
		Description: "The Machine controller reads the bootstrap data Secret's name from `status.dataSecretName` (`Bootstrap().DataSecretName()`)."},
	{ID: RuleDataSecretCreated, Category: CategoryBootstrap, Severity: findings.Error, Title: "The BootstrapConfig reports its data where its contract says",
		Description: "`status.initialization.dataSecretCreated` (v1beta2) or `status.ready` (v1beta1) (`Bootstrap().DataSecretCreated(contract)`)."},
	{ID: RuleBootstrapConfigTemplate, Category: CategoryBootstrap, Severity: findings.Error, Title: "The BootstrapConfig has a BootstrapConfigTemplate",
		Description: "Mandatory: MachineDeployments and MachineSets clone BootstrapConfigs from it."},
	{ID: RuleControlPlaneInitialized, Category: CategoryBootstrap, Severity: findings.Error, Title: "The ControlPlane reports initialization where its contract says",
		Description: "`status.initialization.controlPlaneInitialized` (v1beta2) or `status.initialized` (v1beta1) (`ControlPlane().Initialized(contract)`)."},
	{ID: RuleControlPlaneScale, Category: CategoryBootstrap, Severity: findings.Error, Title: "A ControlPlane with replicas has the scale subresource",
		Description: "A control plane with `spec.replicas` MUST support the scale subresource with `specReplicasPath: .spec.replicas`, `statusReplicasPath: .status.replicas`, `labelSelectorPath: .status.selector`, and have `status.selector`."},
	{ID: RuleControlPlaneVersion, Category: CategoryBootstrap, Severity: findings.Warning, Title: "The ControlPlane reports its Kubernetes version",
		Description: "`spec.version` is mandatory for ClusterClass support, and a control plane with it reports the running version in `status.versions` (preferred from Cluster API v1.14) or `status.version`."},
	{ID: RuleControlPlaneTemplate, Category: CategoryBootstrap, Severity: findings.Warning, Title: "The ControlPlane has a ControlPlaneTemplate",
		Description: "Mandatory for ClusterClass support only."},

	{ID: RuleMetadata, Category: CategoryClusterctl, Severity: findings.Error, Title: "metadata.yaml is valid for clusterctl",
		Description: "clusterctl v1.11+ validates metadata.yaml strictly: `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3`, `kind: Metadata`, at least one `releaseSeries` entry, each with integer `major`, `minor` and a `contract`."},
	{ID: RuleMetadataContract, Category: CategoryClusterctl, Severity: findings.Error, Title: "metadata.yaml's newest release series matches the CRD labels",
		Description: "\"The contract version for a specific release series must match the contract version that is declared in the CRD\": clusterctl picks releases by metadata.yaml, Cluster API reads the labels."},
	{ID: RuleTargetNamespace, Category: CategoryClusterctl, Severity: findings.Error, Title: "The components have one Namespace holding every namespaced object",
		Description: "clusterctl aborts components with more than one Namespace, requires `--target-namespace` without one (warning), and moves every namespaced object into the target namespace. Checked on components files with a Deployment; CRD-only files are not components."},
	{ID: RuleVariables, Category: CategoryClusterctl, Severity: findings.Error, Title: "Variables use the syntax clusterctl supports",
		Description: "clusterctl substitutes `${VAR}`, `${VAR:=default}`, `${VAR=default}`, `${VAR:-default}` (drone/envsubst), with optional spaces around the name; `${VAR$FOO}` and unclosed `${` are not supported. The variables are listed in the result, those without a default first: the inputs users must provide."},
	{ID: RuleManagerContainer, Category: CategoryClusterctl, Severity: findings.Error, Title: "The controller container is named manager",
		Description: "\"The container that executes the controller binary MUST be called `manager`\": clusterctl and the cluster-api-operator k0rdent uses find it by that name."},

	{ID: RuleChartRender, Category: CategoryKCM, Severity: findings.Error, Title: "The ProviderTemplate chart renders as kcm renders it",
		Description: "kcm installs each `Management.spec.providers` entry as a Flux HelmRelease in its system namespace (`kcm-system`), named after the entry, with the entry's config as values and a `global` map when kcm runs with a registry or proxy (`internal/controller/components`). kbook renders the chart the same way; a chart that does not render never installs."},
	{ID: RuleChartProviders, Category: CategoryKCM, Severity: findings.Error, Title: "Chart.yaml names the providers it brings",
		Description: "kcm fills a ProviderTemplate's `status.providers` from the `cluster.x-k8s.io/provider` annotation, a comma-separated list split and trimmed (`api/v1beta1/templates_common.go`, `getProvidersList`), and compares the names literally with ClusterTemplates' provider lists."},
	{ID: RuleChartContracts, Category: CategoryKCM, Severity: findings.Error, Title: "Chart.yaml contract annotations agree with the CRD labels",
		Description: "kcm reads `cluster.x-k8s.io/<contract>: <versions joined by _>` annotations into `status.capiContracts` (`getCAPIContracts`; an empty value is the core cluster-api template's) and admits ClusterTemplates pinning a provider version only when it is listed there (`internal/util/validation/mgmt.go`). The annotations must list exactly what the CRDs' contract labels list, or kcm admits clusters Cluster API cannot serve (or rejects ones it can)."},
	{ID: RuleChartCoreContract, Category: CategoryKCM, Severity: findings.Error, Title: "Annotated contracts are exposed by core Cluster API",
		Description: "Every contract key must be one the core `cluster-api` ProviderTemplate exposes (kcm v1.11.4: v1beta1 and v1beta2), or kcm reports \"core CAPI contract versions does not support ...\"."},
	{ID: RuleProviderInterface, Category: CategoryKCM, Severity: findings.Error, Title: "A ProviderInterface registers the infrastructure provider",
		Description: "kcm lists infrastructure providers and the identity kinds Credentials may reference from `ProviderInterface` objects labelled `cluster.x-k8s.io/provider: infrastructure-<name>` (`internal/util/validation/cd.go`, `spec.clusterIdentities`). The label must match the chart's provider, and each identity kind (and reference) must be a core Secret/ConfigMap or a CRD of the provider at a version it defines."},
	{ID: RuleKCMRole, Category: CategoryKCM, Severity: findings.Error, Title: "kcm's manager is granted what it needs on the provider's kinds",
		Description: "kcm aggregates ClusterRoles labelled `k0rdent.mirantis.com/aggregate-to-manager: \"true\"`. It gets and patches a ClusterDeployment's InfraCluster to remove its blocking finalizer on deletion (`clusterdeployment_controller.go`) and reads identity objects to validate and copy Credentials to regions (`internal/controller/credential`): get, list, watch, patch on every InfraCluster kind, get, list, watch on every non-core identity kind."},
	{ID: RuleOperatorProvider, Category: CategoryKCM, Severity: findings.Error, Title: "The chart renders the cluster-api-operator object, with a fetchConfig when clusterctl does not know the provider",
		Description: "k0rdent installs providers through the cluster-api-operator: a ProviderTemplate chart renders an `operator.cluster.x-k8s.io/v1alpha2` `InfrastructureProvider` (`BootstrapProvider`, `ControlPlaneProvider`...) named after the provider. The operator fetches the components of providers clusterctl knows by name; any other needs `spec.fetchConfig` (`url`, `oci` or `selector`)."},
	{ID: RuleFetchURL, Category: CategoryKCM, Severity: findings.Error, Title: "fetchConfig.url is a repository URL clusterctl can read",
		Description: "The cluster-api-operator hands `spec.fetchConfig.url` to clusterctl's repository client as the provider's URL (cluster-api-operator `internal/controller/phase_initialize.go`), which reads only three forms (cluster-api `cmd/clusterctl/client/repository/client.go`, `repositoryFactory`): a GitHub release, `https://github.com/{owner}/{repo}/releases/{latest|version-tag}/{components.yaml}` (`releases/download/{tag}/...` also works: the version comes from `spec.version`); a GitLab generic package, `https://gitlab.{domain}/api/v4/projects/{project}/packages/generic/{package}/{version}/{components.yaml}`; or a path on the operator's filesystem, `file:///{basepath}/{provider}/{version}/{components.yaml}`. Any other host (\"Only GitHub and GitLab are supported for https\"), `http://` or a GitHub URL without `releases` fails when the operator installs the provider; serve other locations as an OCI artifact (`fetchConfig.oci`) or ConfigMaps (`fetchConfig.selector`)."},
	{ID: RuleResourceTemplate, Category: CategoryKCM, Severity: findings.Error, Title: "Credential resource templates are Sveltos templates",
		Description: "With `propagateCredentials`, kcm has Sveltos deploy the ConfigMap named `<identity name>-resource-template`, in the identity's namespace, to the workload cluster (`serviceset_controller.go`, `projectPolicyRefs`); it must be annotated `projectsveltos.io/template: \"true\"` to be rendered with the identity and its Secret."},

	{ID: RuleTemplateContract, Category: CategoryKCM, Severity: findings.Error, Title: "ClusterTemplates pin a provider version the provider exposes",
		Description: "Reported by `kbook template validate --provider PATH`. A ClusterTemplate pins a provider with the Chart.yaml annotation `cluster.x-k8s.io/<provider>: <version>`; kcm's ClusterDeployment webhook rejects the deployment unless the version is among those the provider's ProviderTemplate exposes in `status.capiContracts` (`internal/util/validation/cluster_template.go`: \"provider ... does not support ...\"). The exposed versions come from the ProviderTemplate chart's contract annotations when PATH has one, else from the CRDs' contract labels. A template that does not use the given provider gets a warning: nothing was checked."},
	{ID: RuleRBACWildcard, Category: CategorySecurity, Severity: findings.Error, Title: "No RBAC wildcards outside the provider's own groups",
		Description: "The provider's controller runs next to kcm and other providers on the management cluster. `*` in apiGroups, resources or verbs of a rule touching other groups grants whatever the cluster serves, now and in the future; wildcards are accepted only on the provider's own API groups."},
	{ID: RuleRBACEscalation, Category: CategorySecurity, Severity: findings.Error, Title: "No escalate, bind or impersonate",
		Description: "These verbs let a controller grant itself, or act as, any identity of the management cluster."},
	{ID: RuleClusterSecrets, Category: CategorySecurity, Severity: findings.Warning, Title: "Cluster-wide Secret access is flagged",
		Description: "A ClusterRole reading Secrets in every namespace can read every credential of the management cluster. Many providers need it (identities in any namespace); the warning makes the grant visible in review."},
	{ID: RulePodSecurity, Category: CategorySecurity, Severity: findings.Error, Title: "Controllers are not privileged",
		Description: "No privileged containers, privilege escalation, added SYS_ADMIN/NET_ADMIN/ALL capabilities, host namespaces (hostNetwork, hostPID, hostIPC) or hostPath volumes in the pod specs of the provider's components: those of its Deployments and any other object embedding one (found by their keys at any depth, as template validate's SEC005 finds them; CRD schemas are not instances and are skipped)."},
	{ID: RuleRegistry, Category: CategorySecurity, Severity: findings.Error, Title: "Images come from allowed registries",
		Description: "With `--registry`, every image must be from one of the given registries or repository prefixes (images without a registry are docker.io). Images are the string values of keys named `image`, `imageRepository` or ending in `Image`, at any depth, as template validate's SEC006 finds them; clusterctl variables are replaced by their defaults, and an image only known at install time (`${IMAGE}` without a default) is not checked."},
	{ID: RuleInlineCredentials, Category: CategorySecurity, Severity: findings.Error, Title: "Credentials are referenced, never inlined",
		Description: "Secrets shipped with literal data and environment variables named like credentials with literal values put the same secret in every installation and in every log and report; reference Secrets (`valueFrom.secretKeyRef`, an identity's `secretRef`) instead. clusterctl variables (`${VAR}`) are accepted."},
}
