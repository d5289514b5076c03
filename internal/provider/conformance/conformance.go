package conformance

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/crdapply"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/plural"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/k0rdent/kbook/internal/provider"
)

// Status of a check.
type Status string

// Statuses.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one verified property.
type Check struct {
	// Name is the check: "AcmeMachine: status.initialization.provisioned read back".
	Name    string `json:"name"`
	Kind    string `json:"kind,omitempty"`
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
}

// Result is the outcome of RunSet.
type Result struct {
	Checks []Check `json:"checks"`
	// Notes say how the run was done (aggregation computed by kbook...).
	Notes []string `json:"notes,omitempty"`
}

// Failed counts the failed checks.
func (r *Result) Failed() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == Fail {
			n++
		}
	}
	return n
}

// RunOptions configure RunSet.
type RunOptions struct {
	// Config is an admin client configuration of the cluster.
	Config *rest.Config
	// Controller means the provider's controller runs against the
	// cluster: kbook does not write InfraMachine fields itself but waits
	// (up to Timeout) for the controller to set providerID and readiness
	// on the InfraMachine it creates from Sample (or from the schema).
	Controller bool
	// Samples are objects to create instead of minimal ones, by kind
	// (the spec an InfraMachine needs for the controller to act on it).
	Samples map[string]*unstructured.Unstructured
	// Timeout bounds the wait for the controller (default 2m).
	Timeout time.Duration
	// Namespace to create the objects in; empty: a new kbook-conformance-*
	// namespace, deleted at the end.
	Namespace string
	// Keep leaves the namespace, objects and roles kbook created. CRDs
	// always stay installed: they are cluster-wide, and other users of the
	// cluster may rely on them once they exist.
	Keep   bool
	Logger log.Logger
}

// RunSet checks the provider in the set against the cluster.
func RunSet(ctx context.Context, set *provider.Set, o RunOptions) (*Result, error) {
	if o.Logger == nil {
		o.Logger = log.NoopLogger{}
	}
	o.Timeout = cmp.Or(o.Timeout, 2*time.Minute)
	resources, err := set.ContractResources()
	if err != nil {
		return nil, err
	}
	if len(resources) == 0 {
		return nil, errors.New("the inputs define no contract resource (InfraCluster, InfraMachine, ...): nothing to check")
	}
	r := &runner{o: o, set: set, res: &Result{}}
	if err := r.connect(); err != nil {
		return nil, err
	}
	defer r.cleanup()
	if err := r.installCRDs(ctx); err != nil {
		return nil, err
	}
	if err := r.namespace(ctx); err != nil {
		return nil, err
	}
	for _, cr := range resources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.checkResource(ctx, cr)
	}
	if err := r.checkRBAC(ctx, resources); err != nil {
		return nil, err
	}
	return r.res, nil
}

type runner struct {
	o   RunOptions
	set *provider.Set
	res *Result

	kube *kubernetes.Clientset
	ext  *apiextensions.Clientset
	dyn  dynamic.Interface

	ns   string
	undo []func(context.Context) // in reverse order at cleanup
	// roles are the provider's aggregated ClusterRoles as checkRBAC
	// created them (under this run's names).
	roles   []rbacv1.ClusterRole
	created map[string]bool // CRDs kbook created
}

func (r *runner) add(c Check) {
	r.res.Checks = append(r.res.Checks, c)

}

func (r *runner) connect() error {
	cfg := rest.CopyConfig(r.o.Config)
	cfg.QPS, cfg.Burst = 50, 100
	// Unknown fields are what the checks report; client-go would log them.
	cfg.WarningHandler = rest.NoWarnings{}
	r.o.Config = cfg
	var err error
	if r.kube, err = kubernetes.NewForConfig(r.o.Config); err != nil {
		return err
	}
	if r.ext, err = apiextensions.NewForConfig(r.o.Config); err != nil {
		return err
	}
	r.dyn, err = dynamic.NewForConfig(r.o.Config)
	return err
}

func (r *runner) cleanup() {
	if r.o.Keep {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := len(r.undo) - 1; i >= 0; i-- {
		r.undo[i](ctx)
	}
}

// installCRDs creates (or updates) every CRD of the set and waits until
// they are established.
func (r *runner) installCRDs(ctx context.Context) error {
	r.created = map[string]bool{}
	cli := r.ext.ApiextensionsV1().CustomResourceDefinitions()
	for _, o := range r.set.CRDs() {
		crd, err := o.CRD()
		if err != nil {
			return err
		}
		created, err := crdapply.Apply(ctx, cli, crd)
		if err != nil {
			return fmt.Errorf("%s:%d: the API server rejects CRD %s: %w", o.File, o.Root.Line, crd.Name, err)
		}
		if created {
			r.created[crd.Name] = true
		}
	}
	wait, cancel := context.WithTimeoutCause(ctx, time.Minute, errors.New("a minute passed"))
	defer cancel()
	for _, o := range r.set.CRDs() {
		if err := crdapply.AwaitEstablished(wait, cli, o.Name, 100*time.Millisecond); err != nil {
			return err
		}
	}
	r.o.Logger.Infof("installed %s (%d new; CRDs stay installed)", plural.Count(len(r.set.CRDs()), "CRD"), len(r.created))
	return nil
}

func (r *runner) namespace(ctx context.Context) error {
	if r.o.Namespace != "" {
		r.ns = r.o.Namespace
		return nil
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	r.ns = "kbook-conformance-" + hex.EncodeToString(b)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns, Labels: map[string]string{"app.kubernetes.io/managed-by": "kbook"}}}
	if _, err := r.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", r.ns, err)
	}
	name := r.ns
	r.undo = append(r.undo, func(ctx context.Context) {
		_ = r.kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	})
	return nil
}

// checkResource creates an object of the kind and checks the contract
// fields round-trip through the API server.
func (r *runner) checkResource(ctx context.Context, cr provider.ContractResource) {
	gvr := schema.GroupVersionResource{Group: cr.Group, Version: cr.Version, Resource: cr.Plural}
	cli := r.dyn.Resource(gvr).Namespace(r.ns)
	name := "conformance-" + strings.ToLower(cr.Kind)
	if len(name) > 63 {
		name = name[:63]
	}
	obj := r.o.Samples[cr.Kind]
	if obj != nil {
		obj = obj.DeepCopy()
	} else {
		var err error
		if obj, err = minimalObject(cr); err != nil {
			r.add(Check{Name: cr.Kind + ": create a minimal object", Kind: cr.Kind, Status: Skip, Message: err.Error()})
			return
		}
	}
	obj.SetAPIVersion(gvr.GroupVersion().String())
	obj.SetKind(cr.Kind)
	obj.SetName(name)
	obj.SetNamespace(r.ns)
	_, err := cli.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		r.add(Check{Name: cr.Kind + ": create", Kind: cr.Kind, Status: Skip, Message: fmt.Sprintf("the API server rejects the object kbook built from the schema (give a sample with --sample): %v", err)})
		return
	}
	r.add(Check{Name: fmt.Sprintf("%s (%s, %s contract): create %s/%s", cr.Kind, cr.Role, cr.Contract, cr.Group, cr.Version), Kind: cr.Kind, Status: Pass})
	fields := provider.ContractFields(cr.Role, cr.Contract)
	if len(fields) == 0 {
		return
	}
	if r.o.Controller && (cr.Role == provider.RoleInfraMachine || cr.Role == provider.RoleInfraCluster) {
		r.waitController(ctx, cli, cr, name, fields)
		return
	}
	version := crdVersion(cr.CRD, cr.Version)
	var spec, status []provider.Field
	for _, f := range fields {
		if !f.Required && !hasField(version, f.Path) {
			continue
		}
		if f.Status {
			status = append(status, f)
		} else {
			spec = append(spec, f)
		}
	}

	// Write with the latest version, again on a conflict (another client,
	// such as a running controller, may update the object meanwhile).
	write := func(fields []provider.Field, update func(*unstructured.Unstructured) error) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := cli.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, f := range fields {
				_ = unstructured.SetNestedField(cur.Object, f.Sample, f.Path...)
			}
			return update(cur)
		})
	}
	if len(spec) > 0 {
		err := write(spec, func(u *unstructured.Unstructured) error {
			_, err := cli.Update(ctx, u, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			r.add(Check{Name: cr.Kind + ": write " + names(spec), Kind: cr.Kind, Status: Fail, Message: err.Error()})
			return
		}
	}
	if len(status) > 0 {
		err := write(status, func(u *unstructured.Unstructured) error {
			_, err := cli.UpdateStatus(ctx, u, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			msg := err.Error()
			if apierrors.IsNotFound(err) {
				msg = "the kind has no status subresource: " + msg
			}
			r.add(Check{Name: cr.Kind + ": write " + names(status) + " through the status subresource", Kind: cr.Kind, Status: Fail, Message: msg})
			return
		}
	}
	got, err := cli.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		r.add(Check{Name: cr.Kind + ": read back", Kind: cr.Kind, Status: Fail, Message: err.Error()})
		return
	}
	for _, f := range append(spec, status...) {
		r.compare(cr, got, f)
	}
}

// compare checks that a field reads back at CAPI's path with the value
// written: the API server prunes fields the schema does not define.
func (r *runner) compare(cr provider.ContractResource, got *unstructured.Unstructured, f provider.Field) {
	path := strings.Join(f.Path, ".")
	check := Check{Name: fmt.Sprintf("%s: %s reads back at %s", cr.Kind, f.Name, path), Kind: cr.Kind, Status: Pass}
	v, ok, err := unstructured.NestedFieldNoCopy(got.Object, f.Path...)
	switch {
	case err != nil:
		check.Status, check.Message = Fail, err.Error()
	case !ok:
		check.Status, check.Message = Fail, fmt.Sprintf("the API server dropped %s (the %s schema does not define it): Cluster API never sees it", path, cr.Version)
	case !equalJSON(v, f.Sample):
		check.Status, check.Message = Fail, fmt.Sprintf("wrote %v, read %v", f.Sample, v)
	}
	r.add(check)
}

// waitController waits for the provider's controller to set the contract
// fields the controller owns.
func (r *runner) waitController(ctx context.Context, cli dynamic.ResourceInterface, cr provider.ContractResource, name string, fields []provider.Field) {
	var want []provider.Field
	for _, f := range fields {
		if f.Required {
			want = append(want, f)
		}
	}
	r.o.Logger.Infof("waiting up to %s for the controller to set %s on %s %s", r.o.Timeout, names(want), cr.Kind, name)
	var last *unstructured.Unstructured
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, r.o.Timeout, true, func(ctx context.Context) (bool, error) {
		got, err := cli.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = got
		for _, f := range want {
			v, ok, _ := unstructured.NestedFieldNoCopy(got.Object, f.Path...)
			if !ok || v == false || v == "" {
				return false, nil
			}
		}
		return true, nil
	})
	for _, f := range want {
		path := strings.Join(f.Path, ".")
		c := Check{Name: fmt.Sprintf("%s: the controller sets %s at %s", cr.Kind, f.Name, path), Kind: cr.Kind, Status: Pass}
		var v any
		ok := false
		if last != nil {
			v, ok, _ = unstructured.NestedFieldNoCopy(last.Object, f.Path...)
		}
		if err != nil && (!ok || v == false || v == "") {
			c.Status, c.Message = Fail, fmt.Sprintf("not set after %s", r.o.Timeout)
		} else {
			c.Message = fmt.Sprint(v)
		}
		r.add(c)
	}
}

func names(fs []provider.Field) string {
	var n []string
	for _, f := range fs {
		n = append(n, strings.Join(f.Path, "."))
	}
	return strings.Join(n, ", ")
}

func equalJSON(a, b any) bool {
	return reflect.DeepEqual(normalize(a), normalize(b))
}

// normalize makes numbers comparable across JSON decoding.
func normalize(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
		return v
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

func crdVersion(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// hasField reports whether the version's schema defines the path.
func hasField(v *apiextensionsv1.CustomResourceDefinitionVersion, path []string) bool {
	if v == nil || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return false
	}
	s := v.Schema.OpenAPIV3Schema
	for _, p := range path {
		next, ok := s.Properties[p]
		if !ok {
			return false
		}
		s = &next
	}
	return true
}

// checkRBAC installs the provider's aggregated ClusterRoles and checks,
// with SubjectAccessReviews, what Cluster API's and kcm's managers may do.
func (r *runner) checkRBAC(ctx context.Context, resources []provider.ContractResource) error {
	var capiNeeds, kcmNeeds []need
	capiGroups := []string{k0rdent.AddonsGroup, k0rdent.BootstrapGroup, k0rdent.ControlPlaneGroup, k0rdent.InfrastructureGroup}
	for _, cr := range resources {
		if !slices.Contains(capiGroups, cr.Group) {
			capiNeeds = append(capiNeeds, need{cr.Kind, cr.Group, cr.Plural, []string{"get", "list", "watch", "create", "update", "patch", "delete"}})
		}
		if cr.Role == provider.RoleInfraCluster {
			kcmNeeds = append(kcmNeeds, need{cr.Kind, cr.Group, cr.Plural, []string{"get", "list", "watch", "patch"}})
		}
	}
	var roles []rbacv1.ClusterRole
	for _, o := range r.set.Objects {
		if o.Kind != "ClusterRole" || o.Group() != "rbac.authorization.k8s.io" {
			continue
		}
		var cr rbacv1.ClusterRole
		if err := o.Decode(&cr); err != nil {
			return err
		}
		if cr.Labels[k0rdent.CAPIAggregateToManagerLabel] == "true" || cr.Labels[k0rdent.AggregateToManagerLabel] == "true" {
			roles = append(roles, cr)
		}
	}
	// The provider's roles are created under names of this run, so runs
	// on one cluster (and an installed provider's own roles) do not
	// collide: aggregation goes by label, not by name.
	r.roles = nil
	for _, cr := range roles {
		cr := cr
		cr.ResourceVersion = ""
		cr.Name = cr.Name + "-" + r.ns
		cli := r.kube.RbacV1().ClusterRoles()
		if _, err := cli.Create(ctx, &cr, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create ClusterRole %s: %w", cr.Name, err)
		}
		name := cr.Name
		r.undo = append(r.undo, func(ctx context.Context) { _ = cli.Delete(ctx, name, metav1.DeleteOptions{}) })
		r.roles = append(r.roles, cr)
	}
	for _, m := range []struct {
		who, label string
		needs      []need
	}{
		{"Cluster API's manager", k0rdent.CAPIAggregateToManagerLabel, capiNeeds},
		{"kcm's manager", k0rdent.AggregateToManagerLabel, kcmNeeds},
	} {
		if len(m.needs) == 0 {
			continue
		}
		user, err := r.aggregatedUser(ctx, m.label)
		if err != nil {
			return err
		}
		for _, n := range m.needs {
			var denied []string
			for _, verb := range n.verbs {
				sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: r.ns, Verb: verb, Group: n.group, Resource: n.plural}}}
				allowed, err := r.allowed(ctx, sar)
				if err != nil {
					return err
				}
				if !allowed {
					denied = append(denied, verb)
				}
			}
			c := Check{Name: fmt.Sprintf("%s may %s %s.%s (ClusterRoles labelled %s)", m.who, strings.Join(n.verbs, ", "), n.plural, n.group, m.label), Kind: n.kind, Status: Pass}
			if len(denied) > 0 {
				c.Status, c.Message = Fail, "denied: "+strings.Join(denied, ", ")
			}
			r.add(c)
		}
	}
	return nil
}

// allowed asks the API server's authorizer. RBAC changes reach the
// authorizer through its informers a moment after they are written, so a
// denial is asked again for up to 2 seconds.
func (r *runner) allowed(ctx context.Context, sar *authorizationv1.SubjectAccessReview) (bool, error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		got, err := r.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			return false, fmt.Errorf("SubjectAccessReview: %w", err)
		}
		if got.Status.Allowed || time.Now().After(deadline) {
			return got.Status.Allowed, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

type need struct {
	kind, group, plural string
	verbs               []string
}

// aggregatedUser creates a ClusterRole aggregating the label, bound to a
// user of its own, and returns the user. When no controller fills the
// aggregated role within 5 seconds, kbook computes its rules as the
// clusterrole-aggregation controller does.
func (r *runner) aggregatedUser(ctx context.Context, label string) (string, error) {
	short := strings.SplitN(label, ".", 2)[0]
	name := "kbook-conformance-" + short + "-" + r.ns
	user := "kbook:conformance:" + short + "-manager"
	cli := r.kube.RbacV1().ClusterRoles()
	agg := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{label: "true"}}}}}
	if _, err := cli.Create(ctx, agg, metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("create ClusterRole %s: %w", name, err)
	}
	r.undo = append(r.undo, func(ctx context.Context) { _ = cli.Delete(ctx, name, metav1.DeleteOptions{}) })
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}}}
	if _, err := r.kube.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("create ClusterRoleBinding %s: %w", name, err)
	}
	r.undo = append(r.undo, func(ctx context.Context) {
		_ = r.kube.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
	})
	filled := false
	_ = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := cli.Get(ctx, name, metav1.GetOptions{})
		filled = err == nil && len(got.Rules) > 0
		return filled, nil
	})
	if filled {
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("ClusterRoles labelled %s were aggregated by the cluster's controller-manager", label))
		return user, nil
	}
	list, err := cli.List(ctx, metav1.ListOptions{LabelSelector: label + "=true"})
	if err != nil {
		return "", err
	}
	// The provider's roles this run created count whatever the list says
	// (a make test run under load once listed none of them).
	items := list.Items
	for _, cr := range r.roles {
		if cr.Labels[label] == "true" && !slices.ContainsFunc(items, func(x rbacv1.ClusterRole) bool { return x.Name == cr.Name }) {
			items = append(items, cr)
		}
	}
	var rules []rbacv1.PolicyRule
	for _, cr := range items {
		for _, rule := range cr.Rules {
			if !slices.ContainsFunc(rules, func(x rbacv1.PolicyRule) bool { return reflect.DeepEqual(x, rule) }) {
				rules = append(rules, rule)
			}
		}
	}
	got, err := cli.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	got.Rules = rules
	if _, err := cli.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		return "", fmt.Errorf("update ClusterRole %s: %w", name, err)
	}
	r.res.Notes = append(r.res.Notes, fmt.Sprintf("no controller-manager aggregated ClusterRoles labelled %s within 5s (the local backend runs none): kbook computed the aggregation (the union of the rules of %s, as the clusterrole-aggregation controller does); the SubjectAccessReviews are the API server's own RBAC decisions", label, plural.Count(len(items), "labelled ClusterRole")))
	return user, nil
}
