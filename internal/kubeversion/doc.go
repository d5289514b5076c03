// Package kubeversion knows Kubernetes versions of templates and clusters
// and the version skew policy (upgrade check, chain validate, status).
//
// A cluster's version is what kcm declares for its ClusterTemplate
// (spec.k8sVersion, else the chart annotation
// k0rdent.mirantis.com/k8s-version: api/v1beta1/clustertemplate_types.go,
// FillStatusWithProviders) and, when the template declares none, what the
// chart really installs: the k0s version of k0s-based templates
// (k0s.version, without the +k0s.N build suffix), kubernetes.version of
// managed ones (EKS, AKS), or version (GKE). A ClusterDeployment's
// spec.config overrides the chart's defaults.
//
// The skew rules follow https://kubernetes.io/releases/version-skew-policy/:
// the control plane upgrades one minor version at a time and never goes
// back; a kubelet is never newer than the API server and at most three
// minor versions older (two before Kubernetes 1.28).
package kubeversion
