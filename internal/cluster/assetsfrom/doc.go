// Package assetsfrom says where kbook takes the programs a local cluster
// runs when its cache does not hold them yet (kbook's --assets-from): the
// local API server's kube-apiserver and etcd (package binaries) and the
// k0rdent controllers (package controllers) alike.
package assetsfrom
