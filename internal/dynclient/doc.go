// Package dynclient is kbook's one dynamic client of a cluster: client-go's
// dynamic client with a RESTMapper that discovers the kinds the server
// serves once and again after Reset (a CRD created since), for the
// packages that reach objects by kind (kbook run's kube commands, kbook
// status and upgrade, the kind backend's k0rdent install).
package dynclient
