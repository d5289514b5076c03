// Package v1alpha1 is the API of the inventory infrastructure provider:
// clusters and machines whose machines come from a machine-inventory HTTP
// API (the stand-in for an organisation's proprietary system). It
// implements the Cluster API v1beta2 contract: the CRDs carry the label
// cluster.x-k8s.io/v1beta2: v1alpha1.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.inventory.example
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API's group and version.
	GroupVersion = schema.GroupVersion{Group: "infrastructure.inventory.example", Version: "v1alpha1"}
	// SchemeBuilder registers the types.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
