package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	infrav1 "github.com/k0rdent/kbook/examples/providers/inventory/api/v1alpha1"
	"github.com/k0rdent/kbook/examples/providers/inventory/inventory"
)

// Labels, annotations and names the controllers use.
const (
	ClusterNameLabel     = "cluster.x-k8s.io/cluster-name" // set by Cluster API on InfraMachines
	PausedAnnotation     = "cluster.x-k8s.io/paused"
	StandaloneAnnotation = "infrastructure.inventory.example/standalone"
	MachineFinalizer     = "inventorymachine.infrastructure.inventory.example"
	ReadyCondition       = "Ready"
	tokenKey             = "token"
)

// machineGVK is Cluster API's Machine, read as unstructured so the
// provider does not depend on the cluster-api module.
var machineGVK = schema.GroupVersionKind{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Machine"}

// ClientFunc builds an inventory client from an identity's URL and token.
type ClientFunc func(url, token string) *inventory.Client

// inventoryClient resolves the identity an InventoryCluster names.
func inventoryClient(ctx context.Context, c client.Client, newClient ClientFunc, ic *infrav1.InventoryCluster) (*inventory.Client, error) {
	var id infrav1.InventoryIdentity
	if err := c.Get(ctx, types.NamespacedName{Namespace: ic.Namespace, Name: ic.Spec.IdentityRef.Name}, &id); err != nil {
		return nil, fmt.Errorf("identity %s: %w", ic.Spec.IdentityRef.Name, err)
	}
	var s corev1.Secret
	if err := c.Get(ctx, types.NamespacedName{Namespace: id.Namespace, Name: id.Spec.SecretRef.Name}, &s); err != nil {
		return nil, fmt.Errorf("identity %s: secret %s: %w", id.Name, id.Spec.SecretRef.Name, err)
	}
	// Secrets made from files often end in a newline.
	token := strings.TrimSpace(string(s.Data[tokenKey]))
	if token == "" {
		return nil, fmt.Errorf("identity %s: secret %s has no %q key", id.Name, s.Name, tokenKey)
	}
	return newClient(id.Spec.URL, token), nil
}

func setReady(conds *[]metav1.Condition, gen int64, ok bool, reason, msg string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(conds, metav1.Condition{Type: ReadyCondition, Status: status, Reason: reason, Message: msg, ObservedGeneration: gen})
}

// ClusterReconciler reconciles InventoryClusters.
type ClusterReconciler struct {
	client.Client
	NewClient ClientFunc
}

// +kubebuilder:rbac:groups=infrastructure.inventory.example,resources=inventoryclusters;inventoryclusters/status,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.inventory.example,resources=inventoryidentities,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// Reconcile provisions an InventoryCluster.
func (r *ClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	var ic infrav1.InventoryCluster
	if err := r.Get(ctx, req.NamespacedName, &ic); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ic.DeletionTimestamp.IsZero() || ic.Annotations[PausedAnnotation] != "" {
		return ctrl.Result{}, nil
	}
	base := ic.DeepCopy()
	inv, err := inventoryClient(ctx, r.Client, r.NewClient, &ic)
	var zones []string
	if err == nil {
		zones, err = inv.Zones(ctx)
	}
	if err != nil {
		log.Info("inventory not reachable", "reason", err.Error())
		setReady(&ic.Status.Conditions, ic.Generation, false, "InventoryUnreachable", err.Error())
		return ctrl.Result{RequeueAfter: 15 * time.Second}, r.Status().Patch(ctx, &ic, client.MergeFrom(base))
	}
	ic.Status.FailureDomains = nil
	for _, z := range zones {
		cp := true
		ic.Status.FailureDomains = append(ic.Status.FailureDomains, infrav1.FailureDomain{Name: z, ControlPlane: &cp})
	}
	provisioned := true
	ic.Status.Initialization.Provisioned = &provisioned
	setReady(&ic.Status.Conditions, ic.Generation, true, "InventoryReachable", fmt.Sprintf("%d zones", len(zones)))
	if err := r.Status().Patch(ctx, &ic, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, err
	}
	log.Info("inventory cluster provisioned", "zones", len(zones))
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler.
func (r *ClusterReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&infrav1.InventoryCluster{}).Complete(r)
}

// MachineReconciler reconciles InventoryMachines.
type MachineReconciler struct {
	client.Client
	NewClient ClientFunc
}

// +kubebuilder:rbac:groups=infrastructure.inventory.example,resources=inventorymachines;inventorymachines/status;inventorymachines/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;clusters,verbs=get;list;watch

// Reconcile claims or returns the machine of an InventoryMachine.
func (r *MachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	var im infrav1.InventoryMachine
	if err := r.Get(ctx, req.NamespacedName, &im); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if im.Annotations[PausedAnnotation] != "" {
		return ctrl.Result{}, nil
	}
	owner := im.Namespace + "/" + im.Name
	base := im.DeepCopy()
	wait := func(reason, msg string) (ctrl.Result, error) {
		setReady(&im.Status.Conditions, im.Generation, false, reason, msg)
		return ctrl.Result{RequeueAfter: 10 * time.Second}, r.Status().Patch(ctx, &im, client.MergeFrom(base))
	}
	clusterName := im.Labels[ClusterNameLabel]
	var ic infrav1.InventoryCluster
	if clusterName != "" {
		if err := r.Get(ctx, types.NamespacedName{Namespace: im.Namespace, Name: clusterName}, &ic); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		} else if err != nil {
			ic = infrav1.InventoryCluster{}
		}
	}

	if !im.DeletionTimestamp.IsZero() {
		if im.Status.MachineID != "" && ic.Name != "" {
			inv, err := inventoryClient(ctx, r.Client, r.NewClient, &ic)
			if err != nil {
				return ctrl.Result{}, err
			}
			if err := inv.Release(ctx, owner); err != nil {
				return ctrl.Result{}, err
			}
			log.Info("machine returned to the inventory", "machine", im.Status.MachineID)
		}
		controllerutil.RemoveFinalizer(&im, MachineFinalizer)
		return ctrl.Result{}, r.Patch(ctx, &im, client.MergeFrom(base))
	}

	switch {
	case clusterName == "":
		return wait("WaitingForCluster", "no "+ClusterNameLabel+" label yet")
	case ic.Name == "":
		return wait("WaitingForCluster", "InventoryCluster "+clusterName+" not found")
	case ic.Status.Initialization.Provisioned == nil || !*ic.Status.Initialization.Provisioned:
		return wait("WaitingForCluster", "InventoryCluster "+clusterName+" is not provisioned")
	}
	zone := im.Spec.Zone
	if im.Annotations[StandaloneAnnotation] != "true" {
		m, err := r.owningMachine(ctx, &im)
		if err != nil {
			return ctrl.Result{}, err
		}
		if m == nil {
			return wait("WaitingForMachine", "no Cluster API Machine owns it yet")
		}
		if name, _, _ := unstructured.NestedString(m.Object, "spec", "bootstrap", "dataSecretName"); name == "" {
			return wait("WaitingForBootstrapData", "Machine "+m.GetName()+" has no bootstrap data yet")
		}
		if fd, _, _ := unstructured.NestedString(m.Object, "spec", "failureDomain"); fd != "" && zone == "" {
			zone = fd
		}
	}
	if controllerutil.AddFinalizer(&im, MachineFinalizer) {
		if err := r.Patch(ctx, &im, client.MergeFrom(base)); err != nil {
			return ctrl.Result{}, err
		}
		base = im.DeepCopy()
	}
	if im.Spec.ProviderID != "" && im.Status.Initialization.Provisioned != nil && *im.Status.Initialization.Provisioned {
		return ctrl.Result{}, nil
	}
	inv, err := inventoryClient(ctx, r.Client, r.NewClient, &ic)
	if err != nil {
		return wait("IdentityUnavailable", err.Error())
	}
	m, err := inv.Claim(ctx, inventory.Claim{Owner: owner, Zone: zone, MinCPU: im.Spec.MinCPU})
	if errors.Is(err, inventory.ErrNoMachine) {
		setReady(&im.Status.Conditions, im.Generation, false, "NoMachineAvailable", err.Error())
		return ctrl.Result{RequeueAfter: 30 * time.Second}, r.Status().Patch(ctx, &im, client.MergeFrom(base))
	}
	if err != nil {
		return wait("InventoryUnreachable", err.Error())
	}
	if im.Spec.ProviderID == "" {
		im.Spec.ProviderID = "inventory://" + m.ID
		if err := r.Patch(ctx, &im, client.MergeFrom(base)); err != nil {
			return ctrl.Result{}, err
		}
		base = im.DeepCopy()
	}
	provisioned := true
	im.Status.MachineID = m.ID
	im.Status.Addresses = []infrav1.MachineAddress{{Type: "InternalIP", Address: m.Address}}
	im.Status.Initialization.Provisioned = &provisioned
	setReady(&im.Status.Conditions, im.Generation, true, "MachineClaimed", fmt.Sprintf("machine %s in %s", m.ID, m.Zone))
	if err := r.Status().Patch(ctx, &im, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, err
	}
	log.Info("machine claimed from the inventory", "machine", m.ID, "zone", m.Zone)
	return ctrl.Result{}, nil
}

// owningMachine returns the Cluster API Machine that owns the
// InventoryMachine, or nil.
func (r *MachineReconciler) owningMachine(ctx context.Context, im *infrav1.InventoryMachine) (*unstructured.Unstructured, error) {
	for _, ref := range im.OwnerReferences {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || gv.Group != machineGVK.Group || ref.Kind != machineGVK.Kind {
			continue
		}
		m := &unstructured.Unstructured{}
		m.SetGroupVersionKind(gv.WithKind(ref.Kind))
		if err := r.Get(ctx, types.NamespacedName{Namespace: im.Namespace, Name: ref.Name}, m); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, nil
			}
			return nil, err
		}
		return m, nil
	}
	return nil, nil
}

// SetupWithManager registers the reconciler.
func (r *MachineReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&infrav1.InventoryMachine{}).Complete(r)
}
