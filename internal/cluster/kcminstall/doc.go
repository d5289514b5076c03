// Package kcminstall installs k0rdent into a kind cluster as its
// QuickStart does (`helm install kcm oci://…/charts/kcm`), with nothing
// from the internet, the way an air-gapped install reaches its own
// registry, and waits for its Management to be Ready.
//
// The release's charts, packaged from its kcm Go module as kcm's own `make
// kcm-chart-release` packages them (kcm-regional carrying cert-manager's
// and the Cluster API operator's charts, packaged from their own modules),
// and the Cluster API providers' components, built from Cluster API's
// kustomize bases as its release builds them, are served by an OCI registry
// this process runs (go-containerregistry's): on 127.0.0.1 for Helm, and on
// the cluster network's gateway over TLS for Flux and the operator, kcm
// given the registry as its global registry and its CA as its registry
// certificate secret. The controllers' images hold the binaries built from
// the same pinned modules (controllers.WithInCluster) and are loaded into
// the nodes under the names the charts give them; Flux, whose chart kcm
// takes from a repository this machine cannot reach, is installed from its
// controllers' own kustomize bases.
//
// What the release needs that cannot be built here is left out and said
// (LeftOut), and the providers without images are taken out of the
// Management (Providers). Cluster API's kubeadm bootstrap and control-plane
// providers, which k0rdent does not ship but kbook's docker and in-memory
// templates need, are added as an organisation adds its own provider
// (KubeadmChart); kcm's projectsveltos chart carries Sveltos's CRDs without
// its controllers, so that kcm starts its ClusterDeployment controller.
package kcminstall
