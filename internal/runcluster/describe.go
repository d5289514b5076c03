package runcluster

import (
	"context"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster"
	"k8s.io/client-go/discovery"
)

// describedGroups are the API groups whose served versions a result
// records: k0rdent's and Cluster API's (and its providers').
var describedGroups = []string{"k0rdent.mirantis.com", "cluster.x-k8s.io"}

// Describe implements runner.Describer: the Kubernetes server version and
// the k0rdent and Cluster API group/versions the cluster serves. It reports
// nothing for a cluster that was not started.
func (t *Target) Describe(ctx context.Context) (server string, apis []string) {
	if t.cluster == nil {
		return "", nil
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cluster.FastConfig(t.cluster.RESTConfig()))
	if err != nil {
		return "", nil
	}
	if v, err := dc.ServerVersion(); err == nil {
		server = v.GitVersion
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		return server, nil
	}
	for _, g := range groups.Groups {
		if !described(g.Name) {
			continue
		}
		for _, v := range g.Versions {
			apis = append(apis, v.GroupVersion)
		}
	}
	sort.Strings(apis)
	return server, apis
}

func described(group string) bool {
	for _, d := range describedGroups {
		if group == d || strings.HasSuffix(group, "."+d) {
			return true
		}
	}
	return false
}
