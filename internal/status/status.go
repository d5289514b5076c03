package status

import (
	"time"
)

// Node is one object of the tree, or a group of identical machines.
type Node struct {
	// Kind and Name identify the object; Role says what it is for the
	// cluster (ClusterInfrastructure, ControlPlane) when the kind does not.
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Group     string `json:"group,omitempty"`
	Role      string `json:"role,omitempty"`
	// Count is how many identical machines a group node stands for.
	Count int `json:"count,omitempty"`
	// Ready is True, False or Unknown; Missing reports an object that
	// should exist and does not.
	Ready   string `json:"ready"`
	Missing bool   `json:"missing,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Since is when Ready last changed; Created when the object was.
	Since   *time.Time `json:"since,omitempty"`
	Created *time.Time `json:"created,omitempty"`
	// Phase is a Machine's status.phase (Provisioning, Running,
	// Deleting...); Deleting is set once the object is being deleted.
	Phase    string     `json:"phase,omitempty"`
	Deleting *time.Time `json:"deleting,omitempty"`
	// Version is the Kubernetes (or chart) version it is at, and Replicas
	// a summary such as "2/3 ready, 1 up to date".
	Version  string `json:"version,omitempty"`
	Replicas string `json:"replicas,omitempty"`
	// Conditions and Events explain a failing object.
	Conditions []Condition `json:"conditions,omitempty"`
	Events     []Event     `json:"events,omitempty"`
	Children   []*Node     `json:"children,omitempty"`
}

// Condition is one status condition (metav1.Condition or CAPI v1beta1).
type Condition struct {
	Type     string     `json:"type"`
	Status   string     `json:"status"`
	Reason   string     `json:"reason,omitempty"`
	Message  string     `json:"message,omitempty"`
	Severity string     `json:"severity,omitempty"`
	Since    *time.Time `json:"since,omitempty"`
}

// Event is one Kubernetes event of an object.
type Event struct {
	Type    string     `json:"type"`
	Reason  string     `json:"reason"`
	Message string     `json:"message"`
	Count   int64      `json:"count,omitempty"`
	Last    *time.Time `json:"last,omitempty"`
}

// Tree is the status of one ClusterDeployment.
type Tree struct {
	Root *Node `json:"root"`
	// Causes are the likely causes of what fails, most fundamental first.
	Causes []string `json:"causes"`
	// Progress lists what is on its way rather than failing: machines
	// being provisioned or deleted (by a rollout, a scale), for as long as
	// that takes no longer than Stuck.
	Progress []string `json:"progress,omitempty"`
	// Upgrade is set while the deployment moves to another template.
	Upgrade *Upgrade `json:"upgrade,omitempty"`
	// Ready reports whether the deployment and everything below is ready
	// and up to date (what kbook upgrade apply --wait waits for).
	Ready bool `json:"ready"`
	// Time is when the tree was collected.
	Time time.Time `json:"time"`
}

// Upgrade is the progress of a change of template.
type Upgrade struct {
	From string `json:"from,omitempty"`
	To   string `json:"to"`
	// ChartFrom and ChartTo are the chart versions: the one the
	// HelmRelease last deployed and the target template's.
	ChartFrom string `json:"chartFrom,omitempty"`
	ChartTo   string `json:"chartTo,omitempty"`
	// Steps say how far each part got, in order.
	Steps []Step `json:"steps"`
	Done  bool   `json:"done"`
	// Failed says why the upgrade cannot go on without a change to the
	// ClusterDeployment (kcm rejected its config for the new template).
	Failed string `json:"failed,omitempty"`
}

// Step is one part of an upgrade.
type Step struct {
	What string `json:"what"`
	Done bool   `json:"done"`
	Note string `json:"note,omitempty"`
}
