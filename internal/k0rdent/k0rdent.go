package k0rdent

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// k0rdent's API (api/v1beta1/groupversion_info.go) and the namespace kcm
// runs in and keeps shared templates in (the kcm chart's release
// namespace; kcm's --namespace defaults to it).
const (
	Group           = "k0rdent.mirantis.com"
	Version         = "v1beta1"
	APIVersion      = Group + "/" + Version
	SystemNamespace = "kcm-system"
	// ManagementName is the one Management object's name
	// (api/v1beta1, ManagementName).
	ManagementName = "kcm"
	// TemplatesRepoName is the HelmRepository kcm's own templates come
	// from (api/v1beta1, DefaultRepoName).
	TemplatesRepoName = "kcm-templates"
)

// Kinds of k0rdent.mirantis.com/v1beta1 (api/v1beta1/*_types.go, the
// <Kind>Kind constants).
const (
	KindAccessManagement        = "AccessManagement"
	KindClusterAuditPolicy      = "ClusterAuditPolicy"
	KindClusterAuthentication   = "ClusterAuthentication"
	KindClusterDataSource       = "ClusterDataSource"
	KindClusterDeployment       = "ClusterDeployment"
	KindClusterIPAM             = "ClusterIPAM"
	KindClusterIPAMClaim        = "ClusterIPAMClaim"
	KindClusterTemplate         = "ClusterTemplate"
	KindClusterTemplateChain    = "ClusterTemplateChain"
	KindCredential              = "Credential"
	KindDataSource              = "DataSource"
	KindManagement              = "Management"
	KindManagementBackup        = "ManagementBackup"
	KindMultiClusterService     = "MultiClusterService"
	KindProviderInterface       = "ProviderInterface"
	KindProviderTemplate        = "ProviderTemplate"
	KindRegion                  = "Region"
	KindRelease                 = "Release"
	KindServiceSet              = "ServiceSet"
	KindServiceTemplate         = "ServiceTemplate"
	KindServiceTemplateChain    = "ServiceTemplateChain"
	KindStateManagementProvider = "StateManagementProvider"
)

// ClusterScopedKinds are the k0rdent kinds whose CRDs have scope Cluster
// (kcm's chart, templates/provider/kcm/templates/crds); the others are
// namespaced.
var ClusterScopedKinds = []string{
	KindAccessManagement, KindManagement, KindManagementBackup, KindMultiClusterService,
	KindProviderInterface, KindProviderTemplate, KindRegion, KindRelease, KindStateManagementProvider,
}

// GVK is the GroupVersionKind of a k0rdent kind.
func GVK(kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: Group, Version: Version, Kind: kind}
}

// GVR is the GroupVersionResource of a k0rdent resource (plural).
func GVR(plural string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: Group, Version: Version, Resource: plural}
}

// Resource is the CRD name of a k0rdent resource (plural): "clustertemplates"
// → clustertemplates.k0rdent.mirantis.com.
func Resource(plural string) string { return plural + "." + Group }

// Labels and annotations kcm reads or sets.
const (
	// ManagedLabel ("true") marks objects kcm manages, and the Flux
	// sources it may use for templates (api/v1beta1, KCMManagedLabelKey).
	ManagedLabel = Group + "/managed"
	// AggregateToManagerLabel ("true") aggregates a ClusterRole into
	// kcm's manager role (the kcm chart's controller roles).
	AggregateToManagerLabel = Group + "/aggregate-to-manager"
	// K8sVersionAnnotation is the exact Kubernetes version a
	// ClusterTemplate deploys, in Chart.yaml (api/v1beta1,
	// ChartAnnotationKubernetesVersion; spec.k8sVersion wins).
	K8sVersionAnnotation = Group + "/k8s-version"
	// K8sVersionConstraintAnnotation is the Kubernetes versions a
	// ServiceTemplate supports, in Chart.yaml (api/v1beta1,
	// ChartAnnotationKubernetesConstraint; spec.k8sConstraint wins).
	K8sVersionConstraintAnnotation = Group + "/k8s-version-constraint"
	// ComponentLabel names the kcm component an object belongs to
	// (api/v1beta1, GenericComponentNameLabel).
	ComponentLabel = Group + "/component"
)

// Cluster API groups (sigs.k8s.io/cluster-api and the providers' APIs).
const (
	CAPIGroup           = "cluster.x-k8s.io"
	InfrastructureGroup = "infrastructure." + CAPIGroup
	ControlPlaneGroup   = "controlplane." + CAPIGroup
	BootstrapGroup      = "bootstrap." + CAPIGroup
	AddonsGroup         = "addons." + CAPIGroup
	IPAMGroup           = "ipam." + CAPIGroup
	RuntimeGroup        = "runtime." + CAPIGroup
	// OperatorGroup is the cluster-api-operator's, whose provider objects
	// a ProviderTemplate chart renders.
	OperatorGroup = "operator." + CAPIGroup
	// ClusterctlGroup is clusterctl's; ClusterctlAPIVersion the apiVersion
	// clusterctl (v1.11 and later) requires of a provider's metadata.yaml.
	ClusterctlGroup      = "clusterctl." + CAPIGroup
	ClusterctlAPIVersion = ClusterctlGroup + "/v1alpha3"
)

// CAPI kinds kbook names.
const (
	KindCluster           = "Cluster"
	KindMachineDeployment = "MachineDeployment"
	KindMachinePool       = "MachinePool"
	KindMachine           = "Machine"
)

// Cluster API labels and annotations.
const (
	// ProviderLabel is clusterctl's provider label (api/core/v1beta2,
	// ProviderNameLabel), and in a template's Chart.yaml the annotation
	// kcm reads the required providers from: a comma-separated list
	// (api/v1beta1/templates_common.go, getProvidersList).
	ProviderLabel = CAPIGroup + "/provider"
	// ContractPrefix starts the contract annotations and labels:
	// cluster.x-k8s.io/<contract>: <versions joined by _> on provider
	// CRDs and ProviderTemplates, cluster.x-k8s.io/<provider>: <contract>
	// in a ClusterTemplate's Chart.yaml (templates_common.go,
	// getCAPIContracts, chartAnnoCAPIPrefix).
	ContractPrefix = CAPIGroup + "/"
	// CAPIAggregateToManagerLabel ("true") aggregates a ClusterRole into
	// the CAPI manager's role.
	CAPIAggregateToManagerLabel = CAPIGroup + "/aggregate-to-manager"
	// The labels CAPI puts on the objects of a cluster (api/core/v1beta2:
	// ClusterNameLabel, MachineDeploymentNameLabel,
	// MachineControlPlaneNameLabel, MachineControlPlaneLabel; exp:
	// MachinePoolNameLabel).
	ClusterNameLabel      = CAPIGroup + "/cluster-name"
	DeploymentNameLabel   = CAPIGroup + "/deployment-name"
	ControlPlaneNameLabel = CAPIGroup + "/control-plane-name"
	ControlPlaneLabel     = CAPIGroup + "/control-plane"
	PoolNameLabel         = CAPIGroup + "/pool-name"
	// SkipPreflightChecksAnnotation lists the MachineSet preflight checks
	// CAPI skips (api/core/v1beta2, MachineSetSkipPreflightChecksAnnotation).
	SkipPreflightChecksAnnotation = "machineset." + CAPIGroup + "/skip-preflight-checks"
)

// ContractLabel is the CAPI contract label or annotation for an API or
// contract version: cluster.x-k8s.io/v1beta2.
func ContractLabel(version string) string { return ContractPrefix + version }

// Provider names: a type prefix and a name, as clusterctl and kcm's
// Management status spell them.
const (
	CoreProvider                 = "cluster-api"
	InfrastructureProviderPrefix = "infrastructure-" // api/v1beta1, InfrastructureProviderPrefix
	ControlPlaneProviderPrefix   = "control-plane-"
	BootstrapProviderPrefix      = "bootstrap-"
	IPAMProviderPrefix           = "ipam-"
	// InternalProvider is kcm's built-in infrastructure provider: kcm
	// installs no CAPI provider for it (internal/controller/components,
	// reconciler.go) and skips the Credential check for it
	// (internal/util/validation/cd.go). Adopted clusters use it.
	InternalProvider = InfrastructureProviderPrefix + "internal"
)

// Sveltos, a core k0rdent component (lib.projectsveltos.io).
const (
	SveltosGroup       = "lib.projectsveltos.io"
	KindSveltosCluster = "SveltosCluster"
	// SveltosProvider is the name kcm's Management and Release give
	// Sveltos, and the namespace it runs in.
	SveltosProvider = "projectsveltos"
)

// DockerProvider is the kcm name of CAPD's ProviderTemplate, the
// infrastructure provider the local plane runs.
const DockerProvider = "cluster-api-provider-docker"

// Flux, which kcm drives to fetch and install charts.
const (
	FluxSourceGroup      = "source.toolkit.fluxcd.io"
	FluxSourceVersion    = "v1"
	FluxSourceAPIVersion = FluxSourceGroup + "/" + FluxSourceVersion
	FluxHelmGroup        = "helm.toolkit.fluxcd.io"
	FluxHelmVersion      = "v2"
	KindHelmRepository   = "HelmRepository"
	KindHelmChart        = "HelmChart"
	KindHelmRelease      = "HelmRelease"
	// FluxReconcileRequestAnnotation asks a Flux controller to reconcile
	// now (fluxcd/pkg/apis/meta, ReconcileRequestAnnotation).
	FluxReconcileRequestAnnotation = "reconcile.fluxcd.io/requestedAt"
)

// The Flux resources kbook reads and writes.
var (
	HelmRepositoryGVR = schema.GroupVersionResource{Group: FluxSourceGroup, Version: FluxSourceVersion, Resource: "helmrepositories"}
	HelmChartGVR      = schema.GroupVersionResource{Group: FluxSourceGroup, Version: FluxSourceVersion, Resource: "helmcharts"}
	HelmReleaseGVR    = schema.GroupVersionResource{Group: FluxHelmGroup, Version: FluxHelmVersion, Resource: "helmreleases"}
)

// ImmutableDurations lists, per k0rdent kind, the duration fields of its
// spec (Flux's metav1.Duration: HelmChartSpec.Interval, and the Interval
// and Timeout of the Git, Bucket and OCI repository specs of a remote
// source) in kinds whose spec is immutable (x-kubernetes-validations
// "self == oldSelf": "Spec is immutable"). kcm updates these objects from
// its Go types, which write a duration in Go's canonical form (10m as
// 10m0s): ProviderTemplates in internal/controller/template_controller.go
// (setReleaseOwnership, Update), Cluster- and ServiceTemplates named by a
// template chain in internal/controller/templatechain_controller.go
// (CreateOrUpdate). A short form stored at create time makes every such
// update "change" the spec, and the API server rejects it.
var ImmutableDurations = map[string][]string{
	KindClusterTemplate:  templateDurations("helm"),
	KindProviderTemplate: templateDurations("helm"),
	KindServiceTemplate:  templateDurations("helm", "kustomize", "resources"),
}

func templateDurations(sources ...string) []string {
	var out []string
	for _, src := range sources {
		base := "spec." + src + ".remoteSourceSpec."
		if src == "helm" {
			out = append(out, "spec.helm.chartSpec.interval")
			base = "spec.helm.chartSource.remoteSourceSpec."
		}
		for _, repo := range []string{"git", "bucket", "oci"} {
			out = append(out, base+repo+".interval", base+repo+".timeout")
		}
	}
	return out
}

// CanonicalDuration returns a duration as Go's time.Duration prints it,
// which is how kcm and Flux write metav1.Duration fields back: "10m" →
// "10m0s", "1h" → "1h0m0s", "90s" → "1m30s". The error is for a value that
// is not a duration.
func CanonicalDuration(s string) (string, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return "", fmt.Errorf("%q is not a duration such as 10m0s: %w", s, err)
	}
	return d.String(), nil
}

// TemplateName is kcm's name of a template of a chart version (a
// ClusterTemplate, ServiceTemplate or ProviderTemplate): the chart name
// and the version with dots as dashes, as kcm names its own:
// aws-standalone-cp 1.0.20 → aws-standalone-cp-1-0-20.
func TemplateName(chart, version string) string {
	v := strings.NewReplacer(".", "-", "+", "-", "_", "-").Replace(version)
	return strings.ToLower(chart + "-" + v)
}
