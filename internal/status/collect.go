package status

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/k0rdent/kbook/internal/k0rdent"
)

// The kinds the tree reads, by API group.
const (
	groupK0rdent = k0rdent.Group
	groupHelm    = k0rdent.FluxHelmGroup
	groupCAPI    = k0rdent.CAPIGroup

	kindClusterDeployment = k0rdent.KindClusterDeployment
	kindClusterTemplate   = k0rdent.KindClusterTemplate
	kindCredential        = k0rdent.KindCredential
	kindHelmRelease       = k0rdent.KindHelmRelease
	kindCluster           = k0rdent.KindCluster
	kindMachineDeployment = k0rdent.KindMachineDeployment
	kindMachinePool       = k0rdent.KindMachinePool
	kindMachine           = k0rdent.KindMachine

	labelClusterName      = k0rdent.ClusterNameLabel
	labelDeploymentName   = k0rdent.DeploymentNameLabel
	labelControlPlaneName = k0rdent.ControlPlaneNameLabel
	labelControlPlane     = k0rdent.ControlPlaneLabel
	labelPoolName         = k0rdent.PoolNameLabel

	// UpgradeFromAnnotation is set by kbook upgrade apply to the template
	// a deployment is upgraded from.
	UpgradeFromAnnotation = k0rdent.UpgradeFromAnnotation
)

// ErrNotFound is returned when the ClusterDeployment does not exist.
var ErrNotFound = errors.New("not found")

// Collect reads the ClusterDeployment namespace/name and what it depends
// on. A kind the server does not serve (CAPI not installed) leaves its
// branch out; the tree says so.
func Collect(ctx context.Context, c *Client, namespace, name string) (*Tree, error) {
	cd, err := c.Get(ctx, groupK0rdent, kindClusterDeployment, namespace, name)
	if err != nil {
		return nil, fmt.Errorf("ClusterDeployment %s/%s: %w", namespace, name, err)
	}
	if cd == nil {
		return nil, fmt.Errorf("ClusterDeployment %s/%s: %w", namespace, name, ErrNotFound)
	}
	col := &collector{c: c, ctx: ctx, ns: namespace}
	root := col.node(cd, "")
	t := &Tree{Root: root, Time: time.Now(), Causes: []string{}}

	tplName, _, _ := unstructured.NestedString(cd.Object, "spec", "template")
	tpl := col.child(root, groupK0rdent, kindClusterTemplate, tplName, "")
	if credName, _, _ := unstructured.NestedString(cd.Object, "spec", "credential"); credName != "" {
		col.child(root, groupK0rdent, kindCredential, credName, "")
	}
	hr := col.child(root, groupHelm, kindHelmRelease, name, "")
	cluster := col.child(root, groupCAPI, kindCluster, name, "")
	if cluster != nil && !cluster.Missing {
		col.clusterBranch(cluster)
	}
	col.explain(root)
	t.Causes, t.Progress = causes(root, t.Time)
	t.Upgrade = col.upgrade(cd, tpl, hr, cluster)
	t.Ready = readyTree(root) && (t.Upgrade == nil || t.Upgrade.Done)
	return t, nil
}

type collector struct {
	c   *Client
	ctx context.Context
	ns  string
	// objs keeps the objects read, by node, for the upgrade progress.
	objs map[*Node]*unstructured.Unstructured
	// notServed lists kinds the server does not serve.
	notServed []string
}

func (col *collector) keep(n *Node, u *unstructured.Unstructured) {
	if col.objs == nil {
		col.objs = map[*Node]*unstructured.Unstructured{}
	}
	col.objs[n] = u
}

// child reads an object and hangs it under parent; a missing object is a
// node marked Missing; nil when the kind is not served.
func (col *collector) child(parent *Node, group, kind, name, role string) *Node {
	if name == "" {
		return nil
	}
	u, err := col.c.Get(col.ctx, group, kind, col.ns, name)
	if errors.Is(err, ErrNotServed) {
		col.notServed = append(col.notServed, kind+"."+group)
		n := &Node{Kind: kind, Name: name, Group: group, Role: role, Ready: "Unknown", Missing: true, Message: "the API server does not serve " + kind + "." + group + " (its CRD is not installed)"}
		parent.Children = append(parent.Children, n)
		return n
	}
	if err != nil {
		n := &Node{Kind: kind, Name: name, Group: group, Role: role, Ready: "Unknown", Message: "cannot read it: " + err.Error()}
		parent.Children = append(parent.Children, n)
		return n
	}
	if u == nil {
		n := &Node{Kind: kind, Name: name, Group: group, Role: role, Ready: "False", Missing: true, Reason: "NotFound", Message: fmt.Sprintf("%s %s does not exist in namespace %s", kind, name, col.ns)}
		parent.Children = append(parent.Children, n)
		return n
	}
	n := col.node(u, role)
	parent.Children = append(parent.Children, n)
	return n
}

func (col *collector) node(u *unstructured.Unstructured, role string) *Node {
	n := &Node{Kind: u.GetKind(), Name: u.GetName(), Namespace: u.GetNamespace(), Group: u.GroupVersionKind().Group, Role: role}
	ct := u.GetCreationTimestamp().Time
	if !ct.IsZero() {
		n.Created = &ct
	}
	n.Conditions = conditions(u)
	n.Ready, n.Reason, n.Message, n.Since = readiness(u, n.Conditions)
	switch {
	case n.Kind == kindHelmRelease:
		if h := history(u); h.version != "" {
			n.Version = h.chart + " " + h.version
		}
	case n.Kind == kindClusterTemplate:
		n.Version = templateChartVersion(u)
	case n.Kind == kindMachine:
		n.Version, _, _ = unstructured.NestedString(u.Object, "spec", "version")
		n.Phase, _, _ = unstructured.NestedString(u.Object, "status", "phase")
		if n.Ready != "True" && movingPhases[n.Phase] {
			// CAPI's generic NotReady says less than the phase.
			n.Reason = n.Phase
		}
	}
	if dt := u.GetDeletionTimestamp(); dt != nil {
		n.Deleting = &dt.Time
	}
	col.keep(n, u)
	return n
}

// clusterBranch adds the infrastructure, control plane, machine sets and
// machines of a CAPI Cluster.
func (col *collector) clusterBranch(cluster *Node) {
	u := col.objs[cluster]
	infra, _, _ := unstructured.NestedMap(u.Object, "spec", "infrastructureRef")
	cp, _, _ := unstructured.NestedMap(u.Object, "spec", "controlPlaneRef")
	if g, k, name, ok := ref(infra); ok {
		col.child(cluster, g, k, name, "ClusterInfrastructure")
	}
	machines, _ := col.c.List(col.ctx, groupCAPI, kindMachine, col.ns, labelClusterName+"="+cluster.Name)
	slices.SortFunc(machines, func(a, b unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	used := map[string]bool{}
	take := func(match func(m *unstructured.Unstructured) bool) []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for i := range machines {
			m := &machines[i]
			if !used[m.GetName()] && match(m) {
				used[m.GetName()] = true
				out = append(out, m)
			}
		}
		return out
	}
	if g, k, name, ok := ref(cp); ok {
		if n := col.child(cluster, g, k, name, "ControlPlane"); n != nil && !n.Missing {
			col.replicas(n, col.objs[n], "spec", "version")
			col.machines(n, take(func(m *unstructured.Unstructured) bool {
				l := m.GetLabels()
				_, isCP := l[labelControlPlane]
				return l[labelControlPlaneName] == name || isCP
			}))
		}
	}
	var workers []*Node
	for _, kind := range []string{kindMachineDeployment, kindMachinePool} {
		list, err := col.c.List(col.ctx, groupCAPI, kind, col.ns, labelClusterName+"="+cluster.Name)
		if err != nil {
			continue
		}
		slices.SortFunc(list, func(a, b unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
		for i := range list {
			md := &list[i]
			n := col.node(md, "")
			col.replicas(n, md, "spec", "template", "spec", "version")
			label := labelDeploymentName
			if kind == kindMachinePool {
				label = labelPoolName
			}
			col.machines(n, take(func(m *unstructured.Unstructured) bool { return m.GetLabels()[label] == md.GetName() }))
			workers = append(workers, n)
		}
	}
	if len(workers) > 0 {
		cluster.Children = append(cluster.Children, &Node{Kind: "Workers", Ready: groupReady(workers), Children: workers})
	}
	if rest := take(func(*unstructured.Unstructured) bool { return true }); len(rest) > 0 {
		other := &Node{Kind: "Other machines"}
		col.machines(other, rest)
		other.Ready = groupReady(other.Children)
		cluster.Children = append(cluster.Children, other)
	}
}

// replicas summarises a control plane's or machine set's replicas and
// version.
func (col *collector) replicas(n *Node, u *unstructured.Unstructured, versionPath ...string) {
	spec, hasSpec, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas")
	ready, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "readyReplicas")
	upToDate := firstField(u, []string{"status", "upToDateReplicas"}, []string{"status", "updatedReplicas"})
	if hasSpec {
		s := fmt.Sprintf("%v/%v ready", orZero(ready), spec)
		if upToDate != nil && fmt.Sprint(upToDate) != fmt.Sprint(spec) {
			s += fmt.Sprintf(", %v up to date", upToDate)
		}
		if have, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "replicas"); ok && fmt.Sprint(have) != fmt.Sprint(spec) {
			// A rollout's surge, or machines on their way out.
			s += fmt.Sprintf(", %v machines", have)
		}
		n.Replicas = s
	}
	want, _, _ := unstructured.NestedString(u.Object, versionPath...)
	have, _, _ := unstructured.NestedString(u.Object, "status", "version")
	switch {
	case want != "" && have != "" && have != want:
		n.Version = have + " → " + want
	case want != "":
		n.Version = want
	default:
		n.Version = have
	}
}

func orZero(v any) any {
	if v == nil {
		return 0
	}
	return v
}

func firstField(u *unstructured.Unstructured, paths ...[]string) any {
	for _, p := range paths {
		if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, p...); ok {
			return v
		}
	}
	return nil
}

// machines adds machines under n: ready ones grouped when identical,
// others one by one.
func (col *collector) machines(n *Node, ms []*unstructured.Unstructured) {
	type key struct {
		ready, reason, message, version string
		deleting                        bool
	}
	groups := map[key]*Node{}
	var order []key
	for _, m := range ms {
		mn := col.node(m, "")
		if mn.Ready != "True" {
			n.Children = append(n.Children, mn)
			continue
		}
		k := key{mn.Ready, mn.Reason, mn.Message, mn.Version, mn.Deleting != nil}
		if g, ok := groups[k]; ok {
			g.Count++
			g.Children = nil
			continue
		}
		mn.Count = 1
		groups[k] = mn
		order = append(order, k)
	}
	for _, k := range order {
		g := groups[k]
		if g.Count > 1 {
			g.Name = ""
		}
		n.Children = append(n.Children, g)
	}
}

// ref reads an object reference: apiGroup (v1beta2) or apiVersion
// (v1beta1), kind and name.
func ref(m map[string]any) (group, kind, name string, ok bool) {
	kind, _ = m["kind"].(string)
	name, _ = m["name"].(string)
	group, _ = m["apiGroup"].(string)
	if av, _ := m["apiVersion"].(string); group == "" && av != "" {
		group = schema.FromAPIVersionAndKind(av, kind).Group
	}
	return group, kind, name, kind != "" && name != ""
}

// conditions reads status.conditions.
func conditions(u *unstructured.Unstructured) []Condition {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []Condition
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		c := Condition{}
		c.Type, _ = m["type"].(string)
		c.Status, _ = m["status"].(string)
		c.Reason, _ = m["reason"].(string)
		c.Message, _ = m["message"].(string)
		c.Severity, _ = m["severity"].(string)
		if s, ok := m["lastTransitionTime"].(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				c.Since = &t
			}
		}
		out = append(out, c)
	}
	return out
}

// readiness is what Ready means for each kind: a Ready or Available
// condition, else status.ready (Credentials, v1beta1 providers), else
// status.initialization.provisioned (v1beta2 providers), else status.valid
// (templates).
func readiness(u *unstructured.Unstructured, conds []Condition) (ready, reason, message string, since *time.Time) {
	for _, t := range []string{"Ready", "Available"} {
		for _, c := range conds {
			if c.Type == t {
				return c.Status, c.Reason, c.Message, c.Since
			}
		}
	}
	if u.GetKind() == kindClusterTemplate {
		valid, _, _ := unstructured.NestedBool(u.Object, "status", "valid")
		msg, _, _ := unstructured.NestedString(u.Object, "status", "validationError")
		if valid {
			return "True", "Valid", "", nil
		}
		if _, has, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "valid"); !has {
			return "Unknown", "NotValidated", "kcm has not validated the template yet", nil
		}
		return "False", "Invalid", msg, nil
	}
	for _, p := range [][]string{{"status", "ready"}, {"status", "initialization", "provisioned"}} {
		if b, ok, _ := unstructured.NestedBool(u.Object, p...); ok {
			if b {
				return "True", "", "", nil
			}
			return "False", "", "", nil
		}
	}
	return "Unknown", "", "", nil
}

func groupReady(ns []*Node) string {
	st := "True"
	for _, n := range ns {
		switch n.Ready {
		case "False":
			return "False"
		case "Unknown", "":
			st = "Unknown"
		}
	}
	return st
}

func readyTree(n *Node) bool {
	if n.Ready == "False" || n.Missing {
		return false
	}
	if n.Ready == "Unknown" && n.Kind != "Workers" && n.Kind != "Other machines" && n.Count == 0 {
		return false
	}
	for _, c := range n.Children {
		if !readyTree(c) {
			return false
		}
	}
	return true
}

// explain adds the events of failing objects.
func (col *collector) explain(n *Node) {
	if n.Ready == "False" && !n.Missing && n.Name != "" && n.Count <= 1 {
		evs, err := col.c.Events(col.ctx, col.ns, n.Kind, n.Name)
		if err == nil {
			n.Events = latestEvents(evs, 3)
		}
	}
	for _, c := range n.Children {
		col.explain(c)
	}
}

func latestEvents(evs []unstructured.Unstructured, max int) []Event {
	var out []Event
	for _, e := range evs {
		ev := Event{}
		ev.Type, _, _ = unstructured.NestedString(e.Object, "type")
		ev.Reason, _, _ = unstructured.NestedString(e.Object, "reason")
		ev.Message, _, _ = unstructured.NestedString(e.Object, "message")
		ev.Count, _, _ = unstructured.NestedInt64(e.Object, "count")
		for _, f := range []string{"lastTimestamp", "eventTime", "firstTimestamp"} {
			if s, _, _ := unstructured.NestedString(e.Object, f); s != "" {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					ev.Last = &t
					break
				}
			}
		}
		if ev.Last == nil {
			t := e.GetCreationTimestamp().Time
			ev.Last = &t
		}
		out = append(out, ev)
	}
	slices.SortStableFunc(out, func(a, b Event) int {
		// Warnings first, then the most recent.
		return cmp.Or(cmpBool(b.Type == "Warning", a.Type == "Warning"), b.Last.Compare(*a.Last))
	})
	if len(out) > max {
		out = out[:max]
	}
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// hist is the HelmRelease's latest release.
type hist struct{ chart, version, status string }

func history(u *unstructured.Unstructured) hist {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "history")
	if len(list) == 0 {
		return hist{}
	}
	m, _ := list[0].(map[string]any)
	var h hist
	h.chart, _ = m["chartName"].(string)
	h.version, _ = m["chartVersion"].(string)
	h.status, _ = m["status"].(string)
	return h
}

func templateChartVersion(u *unstructured.Unstructured) string {
	v, _, _ := unstructured.NestedString(u.Object, "spec", "helm", "chartSpec", "version")
	if v == "" {
		v, _, _ = unstructured.NestedString(u.Object, "status", "chartVersion")
	}
	return v
}
