// Package manifest is `kbook provider manifest`: the ProviderTemplate that
// makes kcm pull a provider chart and the Management.spec.providers entry
// that enables it, checked against k0rdent's CRDs when they are given.
//
// Manifest is the command (the objects' YAML, from files); ForPath and
// ForChart build the Objects of a chart on disk or in memory (the kind
// backend's kcminstall installs kubeadm's ProviderTemplate with ForChart).
// A ClusterTemplate's manifest is package template/manifest's.
package manifest
