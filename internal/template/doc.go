// Package template is `kbook template validate` and `render`: the rules
// (chart, k0rdent compatibility, values, rendering, schemas, security,
// policies).
//
// It validates k0rdent ClusterTemplate charts before they are installed:
// offline and fast, with a rule ID, a severity and a file:line (or values
// path, or object and field path) for every finding.
//
// kcm, k0rdent's management controller, only finds problems in a template
// after it is installed (status.valid / status.validationError of the
// ClusterTemplate), and only finds a ClusterDeployment's config to be wrong
// after the ClusterDeployment was accepted. ValidateChart checks the chart (Helm
// SDK), its k0rdent annotations, its values and values.schema.json, renders
// it as kcm would for a ClusterDeployment, and checks the rendered objects
// (references, CRD schemas, security, organisation policies). Findings
// and reports are in the shared vocabulary of package findings; Registry
// describes every rule, and the rule catalogue of the documentation is
// generated from it.
//
// # What kcm does, and where it says so
//
// The rules rely on this behaviour of kcm (github.com/k0rdent/kcm, API
// k0rdent.mirantis.com/v1beta1), read in its source:
//
//   - internal/controller/template_controller.go (ReconcileTemplate): the
//     chart is downloaded and loaded with Helm, chart.Validate() is called,
//     providers, contracts and the Kubernetes version are read from
//     Chart.yaml (fillStatusFromChart), the default values become
//     status.config and values.schema.json is stored in a ConfigMap
//     (ensureSchemaConfigmap); any error is status.validationError with
//     status.valid false.
//   - api/v1beta1/templates_common.go (getProvidersList, getCAPIContracts)
//     and api/v1beta1/clustertemplate_types.go (FillStatusWithProviders):
//     cluster.x-k8s.io/provider is split on commas and trimmed;
//     cluster.x-k8s.io/<provider> contract annotations are read for names
//     starting infrastructure-, control-plane- or bootstrap- and must hold
//     a single contract version in a ClusterTemplate (lists joined with _
//     are for ProviderTemplates); k0rdent.mirantis.com/k8s-version must
//     parse with semver.NewVersion; spec.providers, spec.providerContracts
//     and spec.k8sVersion win over the annotations. (The k0rdent/kcm
//     tests api/v1beta1/templates_common_test.go and
//     clustertemplate_types_test.go pin this; the type files themselves
//     were read from a fork with the same code.)
//   - internal/webhook/clusterdeployment_webhook.go and
//     internal/util/validation (ClusterTemplateProviders,
//     validateCompatibilityAttrs, ClusterDeployCredential,
//     ClusterTemplateK8sCompatibility): a ClusterDeployment is rejected when
//     its template lists no (infrastructure) provider, when a provider is
//     not available, when a pinned contract is not offered, or when the
//     Credential's identity kind is not supported by an infrastructure
//     provider; contracts of providers the Management does not report are
//     skipped, and so is the Kubernetes check when the template has no
//     version. spec.config is never checked against the schema there; a
//     ClusterDeployment without spec.config gets the template's defaults.
//   - internal/controller/clusterdeployment_controller.go: the Helm release
//     (a Flux HelmRelease) is named after the ClusterDeployment in its
//     namespace; fillHelmValues injects clusterIdentity (always),
//     global (when kcm runs with a global registry or k0s URL) and
//     clusterLabels (when the config has none); validateConfig dry-runs a
//     client-only Helm install with spec.config (internal/helm), the first
//     place Helm applies values.schema.json, after the ClusterDeployment was
//     accepted; the CAPI Cluster is looked up under the ClusterDeployment's
//     name (getPartialCapiCluster).
package template
