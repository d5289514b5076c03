// Package upgrade is `kbook upgrade check` and `apply`: both charts rendered
// under one config, kcm's webhook answer, values against the new schema,
// predicted rollouts, pins.
//
// It predicts what changing a ClusterDeployment's template does, before
// anything changes, and applies the change when it is safe and the
// maintenance window is open.
//
// In k0rdent an upgrade is a new spec.template on a ClusterDeployment.
// What kcm checks then, read in kcm v1.11.4's source:
//
//   - internal/webhook/clusterdeployment_webhook.go (ValidateUpdate): the
//     new template must be in the deployment's status.availableUpgrades
//     ("Cluster can't be upgraded from A to B. This upgrade sequence is not
//     allowed", unless kcm runs with --validate-cluster-upgrade-path=false),
//     be valid (status.valid), expose its providers and contracts
//     (internal/util/validation/cluster_template.go,
//     ClusterTemplateProviders) and satisfy the Kubernetes constraints of
//     the ServiceTemplates the deployment uses
//     (ClusterTemplateK8sCompatibility: the template's declared version
//     only; nothing is checked when it declares none). A dry-run deployment
//     is warned when the chart name changes (Flux uninstalls and
//     reinstalls the release).
//   - internal/controller/clusterdeployment_controller.go
//     (setAvailableUpgrades): status.availableUpgrades lists the direct
//     upgrades of the current template from every ClusterTemplateChain of
//     the namespace, valid or not.
//   - spec.config is never checked against the new chart's schema before
//     the Helm upgrade; nothing compares Kubernetes versions, renders the
//     objects, or schedules the change.
//
// Predict goes further: the effective Kubernetes version of both sides
// (package kubeversion) and the skew policy, pinned versions, the config
// against the target's values schema (rejected, silently ignored and newly
// required values, changed defaults), the objects both charts render with
// the same config (release name and namespace as kcm uses) and what that
// does to the cluster (deleted objects, immutable machine templates,
// workers left behind, predicted rollouts), provider contracts, and
// ServiceTemplate constraints against the effective version.
package upgrade
