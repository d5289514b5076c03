package scaffold

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
	"github.com/k0rdent/kbook/internal/findings"
)

// The --kind-image values that are not an image reference, as package
// cluster names them (KindImageAuto, KindImageBuild): not imported from
// there, since package cluster imports the k0rdent plane, whose tests
// scaffold charts.
const (
	kindImageAuto  = "auto"
	kindImageBuild = "build"
)

// useKindImage resolves template init's --kind-image (r.KindImage) into
// the images the chart's values name (r's MachineImage and load
// balancer): build is kbook's node image and load balancer image (built,
// or from r.CacheDir), whose Kubernetes version the chart then runs; a
// reference is the node image alone.
func useKindImage(ctx context.Context, r *Options) error {
	kindImage := r.KindImage
	switch kindImage {
	case "":
		return nil
	case kindImageAuto:
		return &findings.InputError{Err: fmt.Errorf("--kind-image auto: not for a template; leave it out for kindest/node from the registry, or say build or an image reference")}
	}
	if r.Provider != "docker" || r.Extend != "" {
		return &findings.InputError{Err: fmt.Errorf("--kind-image goes with a new chart for --provider docker")}
	}
	if kindImage != kindImageBuild {
		if _, err := name.ParseReference(kindImage); err != nil {
			return &findings.InputError{Err: fmt.Errorf("--kind-image %q: want build or an image reference: %v", kindImage, err)}
		}
		r.MachineImage = kindImage
		return nil
	}
	o := nodeimage.Options{CacheDir: r.CacheDir, Logger: r.Logger}
	node, err := nodeimage.Build(ctx, o)
	if err != nil {
		return err
	}
	lb, err := nodeimage.BuildLoadBalancer(ctx, o)
	if err != nil {
		return err
	}
	r.MachineImage, r.ImageK8sVersion = node.Ref, node.Kubernetes
	r.LoadBalancerRepository, r.LoadBalancerTag = lb.Repository, lb.Tag
	return nil
}
