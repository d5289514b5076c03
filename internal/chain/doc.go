// Package chain is `kbook chain validate`: ClusterTemplateChains and
// ServiceTemplateChains, kcm's checks in kcm's words, then cycles,
// downgrades and skipped Kubernetes versions.
//
// It validates k0rdent template chains: ClusterTemplateChains and
// ServiceTemplateChains, the objects kcm copies a ClusterDeployment's
// status.availableUpgrades from.
//
// kcm itself checks little (api/v1beta1/templatechain_common.go, IsValid):
// that every upgrade target is among spec.supportedTemplates, and that the
// upgrades of a template set a version on all entries or none. Its
// admission webhook (internal/webhook/templatechain_webhook.go) rejects a
// chain failing those checks, and one whose supported templates do not
// exist in its namespace (for chains not labelled managed, or in the
// system namespace); the API server rejects a template listed twice
// (listType=map). kcm then offers each template's direct upgrades
// (internal/controller/clusterdeployment_controller.go,
// setAvailableUpgrades), whether or not the chain is valid.
//
// Validate reports those findings with kcm's own words, and goes further:
// cycles, downgrades (chart or Kubernetes version), Kubernetes minor
// versions skipped in one hop, chart changes (Flux reinstalls the
// release), versions that do not match the template, and templates no
// other template upgrades to.
package chain
