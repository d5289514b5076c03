// Package scaffold is `kbook template init`: skeletons (CAPD + kubeadm,
// k0smotron remote machines) and `--extend` wrappers.
//
// It writes new k0rdent ClusterTemplate charts: from a skeleton per provider
// set (kbook template init), or as a wrapper that layers an organisation's
// requirements on an existing template without copying it (kbook template
// init --extend).
package scaffold
