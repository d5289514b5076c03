package kcminstall

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/log"
)

// managementName is the Management kcm creates (kcmv1.ManagementName).
const managementName = "kcm"

var managementGVR = schema.GroupVersionResource{Group: "k0rdent.mirantis.com", Version: "v1beta1", Resource: "managements"}

// keepProviders waits for kcm to create its Management and takes every
// provider out of it but those named in keep (kubectl patch management
// kcm --type merge), keeping their templates, and adds the entries in add
// (providers the Release does not name, with their templates).
func (a *applier) keepProviders(ctx context.Context, keep []string, add ...map[string]any) error {
	var mgmt *unstructured.Unstructured
	err := poll(ctx, time.Second, func() (bool, error) {
		var err error
		mgmt, err = a.dyn.Resource(managementGVR).Get(ctx, managementName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return fmt.Errorf("waiting for kcm to create Management %s: %w", managementName, err)
	}
	providers, _, _ := unstructured.NestedSlice(mgmt.Object, "spec", "providers")
	var kept []any
	for _, p := range providers {
		if m, ok := p.(map[string]any); ok && slices.Contains(keep, fmt.Sprint(m["name"])) {
			kept = append(kept, p)
		}
	}
	if len(kept) != len(keep) {
		return fmt.Errorf("Management %s lists %d of the providers %s", managementName, len(kept), strings.Join(keep, ", "))
	}
	for _, e := range add {
		kept = append(kept, e)
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"providers": kept}})
	if err != nil {
		return err
	}
	_, err = a.dyn.Resource(managementGVR).Patch(ctx, managementName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return fmt.Errorf("keep providers %s in Management %s: %w", strings.Join(keep, ", "), managementName, err)
	}
	return nil
}

// managementReady waits for the Management's Ready condition, saying
// which components are not installed yet each time that changes.
func (a *applier) managementReady(ctx context.Context, l log.Logger) error {
	last := ""
	err := poll(ctx, 2*time.Second, func() (bool, error) {
		mgmt, err := a.dyn.Resource(managementGVR).Get(ctx, managementName, metav1.GetOptions{})
		if err != nil {
			// kcm serves the Management's webhooks and restarts while
			// its Management takes its release over: say it, wait on.
			if w := "reading it: " + err.Error(); w != last {
				l.Infof("Management %s: %s", managementName, w)
				last = w
			}
			return false, nil
		}
		ready, waiting := managementState(mgmt)
		if ready {
			return true, nil
		}
		if waiting != last {
			l.Infof("Management %s: %s", managementName, waiting)
			last = waiting
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for Management %s to be Ready (last: %s): %w", managementName, last, err)
	}
	return nil
}

// managementState reads a Management's Ready condition and, when not
// ready, what it waits for: the components not yet installed, with their
// errors, or the condition's message.
func managementState(mgmt *unstructured.Unstructured) (ready bool, waiting string) {
	ok, msg := conditionTrue(mgmt, "Ready")
	if ok && mgmt.GetGeneration() == observed(mgmt) {
		return true, ""
	}
	if ok {
		msg = "Ready=True for an older generation"
	}
	comps, _, _ := unstructured.NestedMap(mgmt.Object, "status", "components")
	var pending []string
	for name, c := range comps {
		m, _ := c.(map[string]any)
		if m["success"] == true {
			continue
		}
		if e, _ := m["error"].(string); e != "" {
			pending = append(pending, fmt.Sprintf("%s (%s)", name, e))
		} else {
			pending = append(pending, name)
		}
	}
	if len(pending) == 0 {
		return false, msg
	}
	sort.Strings(pending)
	return false, "waiting for " + strings.Join(pending, ", ")
}

// operatorGVRs are the Cluster API operator's provider kinds Install waits
// for (the Management counts a provider installed once its HelmRelease is:
// the operator installs it after).
var operatorGVRs = []schema.GroupVersionResource{
	{Group: "operator.cluster.x-k8s.io", Version: "v1alpha2", Resource: "coreproviders"},
	{Group: "operator.cluster.x-k8s.io", Version: "v1alpha2", Resource: "infrastructureproviders"},
	{Group: "operator.cluster.x-k8s.io", Version: "v1alpha2", Resource: "bootstrapproviders"},
	{Group: "operator.cluster.x-k8s.io", Version: "v1alpha2", Resource: "controlplaneproviders"},
}

// providersReady waits until each kind of operatorGVRs has a provider and
// all are Ready (their components applied and their Deployments
// Available), saying what they wait for each time that changes.
func (a *applier) providersReady(ctx context.Context, l log.Logger) error {
	last := ""
	err := poll(ctx, 2*time.Second, func() (bool, error) {
		var waiting []string
		for _, gvr := range operatorGVRs {
			list, err := a.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				// The operator's CRDs come with its chart: until
				// then, and while its webhook restarts, wait on.
				waiting = append(waiting, gvr.Resource+": "+err.Error())
				continue
			}
			if len(list.Items) == 0 {
				waiting = append(waiting, "no "+gvr.Resource+" yet")
			}
			for _, it := range list.Items {
				if ok, why := conditionTrue(&it, "Ready"); !ok {
					waiting = append(waiting, fmt.Sprintf("%s %s (%s)", it.GetKind(), it.GetName(), why))
				}
			}
		}
		if len(waiting) == 0 {
			return true, nil
		}
		if w := strings.Join(waiting, ", "); w != last {
			l.Infof("Cluster API operator: waiting for %s", w)
			last = w
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the Cluster API providers to be Ready (last: %s): %w", last, err)
	}
	return nil
}

// conditionTrue reports whether u's condition typ is True, and if not
// its reason and message.
func conditionTrue(u *unstructured.Unstructured, typ string) (bool, string) {
	m, ok := k0rdent.FindCondition(u, typ)
	switch {
	case !ok:
		return false, "no " + typ + " condition yet"
	case m["status"] == "True":
		return true, ""
	}
	return false, fmt.Sprintf("%s=%v %v: %v", typ, m["status"], m["reason"], m["message"])
}

func observed(u *unstructured.Unstructured) int64 {
	g, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	return g
}

// appVersion reads a chart folder's appVersion.
func appVersion(chartDir string) (string, error) {
	f := filepath.Join(chartDir, "Chart.yaml")
	data, err := os.ReadFile(f)
	if err != nil {
		return "", err
	}
	var meta struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		return "", fmt.Errorf("%s: %w", f, err)
	}
	if meta.AppVersion == "" {
		return "", fmt.Errorf("%s has no appVersion", f)
	}
	return meta.AppVersion, nil
}
