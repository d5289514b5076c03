package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

const awaitUsage = "usage: await [-n NS] [--timeout=30s] [--interval=500ms] --for=COND (TYPE/NAME... | TYPE NAME... | TYPE -l SELECTOR | TYPE --all)"

// awaitArgs are the parsed arguments of await.
type awaitArgs struct {
	namespace string // "" for the client's
	timeout   time.Duration
	interval  time.Duration
	cond      condition
	selector  string
	all       bool
	targets   []targetArg
}

// targetArg is a TYPE and NAME as given; NAME is empty with -l or --all.
type targetArg struct {
	resource, name string
}

// parseAwaitArgs parses await's arguments; neg selects the default timeout.
func parseAwaitArgs(args []string, neg bool) (awaitArgs, error) {
	a := awaitArgs{timeout: DefaultTimeout, interval: DefaultInterval}
	if neg {
		a.timeout = DefaultNegatedTimeout
	}
	var forText string
	var haveFor bool
	specs := []flagSpec{
		{names: []string{"-n", "--namespace"}, set: stringFlag(&a.namespace)},
		{names: []string{"--timeout"}, set: durationFlag(&a.timeout, nil)},
		{names: []string{"--interval"}, set: durationFlag(&a.interval, nil)},
		{names: []string{"--for"}, set: func(v string) error { forText, haveFor = v, true; return nil }},
		{names: []string{"-l", "--selector"}, set: stringFlag(&a.selector)},
		{names: []string{"--all"}, isBool: true, set: boolFlag(&a.all)},
	}
	pos, err := parseFlags(args, specs)
	if err != nil {
		return a, fmt.Errorf("%w\n%s", err, awaitUsage)
	}
	if a.interval <= 0 {
		return a, errors.New("--interval must be positive")
	}
	if !haveFor {
		return a, fmt.Errorf("missing --for: %s\n%s", forSyntax, awaitUsage)
	}
	if a.cond, err = parseCondition(forText); err != nil {
		return a, err
	}
	if a.selector != "" {
		if _, err := labels.Parse(a.selector); err != nil {
			return a, fmt.Errorf("-l %s: %w", a.selector, err)
		}
	}
	if a.targets, err = parseTargets(pos, a.selector != "", a.all); err != nil {
		return a, fmt.Errorf("%w\n%s", err, awaitUsage)
	}
	return a, nil
}

// parseTargets interprets the positional arguments as kubectl does:
// TYPE/NAME..., or TYPE NAME..., or TYPE alone with a selector or --all.
func parseTargets(pos []string, selector, all bool) ([]targetArg, error) {
	if selector && all {
		return nil, errors.New("-l and --all cannot be used together")
	}
	if len(pos) == 0 {
		return nil, errors.New("no objects given")
	}
	if strings.Contains(pos[0], "/") {
		if selector || all {
			return nil, fmt.Errorf("%s names an object: leave out -l and --all, or give only its type", pos[0])
		}
		var ts []targetArg
		for _, p := range pos {
			typ, name, ok := strings.Cut(p, "/")
			if !ok {
				return nil, fmt.Errorf("%s: use TYPE/NAME for every object when the first one is given as TYPE/NAME", p)
			}
			if typ == "" || name == "" || strings.Contains(name, "/") {
				return nil, fmt.Errorf("%s: expected TYPE/NAME", p)
			}
			ts = append(ts, targetArg{resource: typ, name: name})
		}
		return ts, nil
	}
	typ := pos[0]
	if strings.Contains(typ, ",") {
		return nil, fmt.Errorf("%s: give one resource type (or use TYPE/NAME for each object)", typ)
	}
	names := pos[1:]
	if selector || all {
		if len(names) > 0 {
			return nil, fmt.Errorf("names (%s) cannot be combined with -l or --all", strings.Join(names, " "))
		}
		return []targetArg{{resource: typ}}, nil
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no name given for %s: use %s/NAME, %s NAME..., -l SELECTOR or --all", typ, typ, typ)
	}
	var ts []targetArg
	for _, n := range names {
		if strings.Contains(n, "/") {
			return nil, fmt.Errorf("%s: after a separate TYPE give plain names", n)
		}
		ts = append(ts, targetArg{resource: typ, name: n})
	}
	return ts, nil
}

func runAwait(ts *testscript.TestScript, c *Client, neg bool, args []string) error {
	a, err := parseAwaitArgs(args, neg)
	if err != nil {
		return err
	}
	return c.await(c.ctx(), a, neg, ts.Stdout())
}

// target is a resolved await target.
type target struct {
	mapping  *meta.RESTMapping
	ns       string
	name     string // "" for a selection
	selector string // with name "": the label selector, "" for --all
}

func (t target) display() string {
	gk := t.mapping.GroupVersionKind.GroupKind()
	if t.name != "" {
		return displayName(gk, t.name)
	}
	s := strings.TrimSuffix(displayName(gk, ""), "/")
	if t.selector != "" {
		return s + " -l " + t.selector
	}
	return s + " --all"
}

// observation is what one check saw of one object (or of an empty
// selection).
type observation struct {
	name  string // kubectl-style object name, or the selection
	met   bool
	seen  string
	print bool // an object await reports as "condition met"
}

// resolveTargets maps each target's type through discovery.
func (c *Client) resolveTargets(a awaitArgs) ([]target, error) {
	ns := a.namespace
	if ns == "" {
		ns = c.Namespace
	}
	mappings := map[string]*meta.RESTMapping{}
	var out []target
	for _, ta := range a.targets {
		m := mappings[ta.resource]
		if m == nil {
			var err error
			if m, err = c.mappingFor(ta.resource); err != nil {
				return nil, err
			}
			mappings[ta.resource] = m
		}
		t := target{mapping: m, ns: ns, name: ta.name, selector: a.selector}
		if !namespaced(m) {
			t.ns = ""
		}
		if t.name != "" {
			c.touch(refFor(m, t.ns, t.name))
		}
		out = append(out, t)
	}
	return out, nil
}

// callTimeout bounds one API call of a poll.
const callTimeout = 10 * time.Second

// observe checks the condition on one target.
func (c *Client) observe(ctx context.Context, t target, cond condition) (obs []observation, met bool) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if t.name != "" {
		obj, err := c.getObject(ctx, t.mapping, t.ns, t.name)
		if err != nil {
			return []observation{{name: t.display(), seen: "error: " + err.Error()}}, false
		}
		ok, seen := cond.check(obj)
		return []observation{{name: t.display(), met: ok, seen: seen, print: true}}, ok
	}
	list, err := c.resourceClient(t.mapping, t.ns).List(ctx, metav1.ListOptions{LabelSelector: t.selector})
	if err != nil {
		return []observation{{name: t.display(), seen: "error: " + err.Error()}}, false
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool {
		if items[i].GetNamespace() != items[j].GetNamespace() {
			return items[i].GetNamespace() < items[j].GetNamespace()
		}
		return items[i].GetName() < items[j].GetName()
	})
	if len(items) == 0 {
		if cond.kind == condDelete {
			return nil, true
		}
		return []observation{{name: t.display(), seen: "no matching objects"}}, false
	}
	met = true
	gk := t.mapping.GroupVersionKind.GroupKind()
	for i := range items {
		obj := &items[i]
		c.touch(refFor(t.mapping, obj.GetNamespace(), obj.GetName()))
		ok, seen := cond.check(obj)
		obs = append(obs, observation{name: displayName(gk, obj.GetName()), met: ok, seen: seen, print: true})
		met = met && ok
	}
	return obs, met
}

// awaitObserved, when set (by tests), is called after each round of
// observations: the event a test cancels on, rather than a delay.
var awaitObserved func()

// await polls until the condition holds for every target, the timeout
// passes or ctx is done. Negated, it succeeds when the timeout passes
// without the condition holding.
func (c *Client) await(ctx context.Context, a awaitArgs, neg bool, out io.Writer) error {
	targets, err := c.resolveTargets(a)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(a.timeout)
	w := c.waiter("await", a.timeout)
	for {
		var all []observation
		allMet := true
		for _, t := range targets {
			obs, met := c.observe(ctx, t, a.cond)
			all = append(all, obs...)
			allMet = allMet && met
		}
		if awaitObserved != nil {
			awaitObserved()
		}
		if err := context.Cause(ctx); err != nil {
			return fmt.Errorf("stopped waiting for %s: %w%s", a.cond.text, err, lastSeen(all))
		}
		if allMet {
			if neg {
				return fmt.Errorf("expected %s not to be met within %s, but it is%s", a.cond.text, a.timeout, lastSeen(all))
			}
			for _, o := range all {
				if o.print {
					fmt.Fprintf(out, "%s condition met\n", o.name)
				}
			}
			return nil
		}
		if !time.Now().Before(deadline) {
			if neg {
				return nil
			}
			return awaitFailure(a, all)
		}
		if !neg {
			for _, o := range all {
				if !o.met {
					w.tell("for "+a.cond.text+": "+o.name, o.seen)
					break
				}
			}
		}
		if err := sleep(ctx, min(a.interval, time.Until(deadline))); err != nil {
			return fmt.Errorf("stopped waiting for %s: %w%s", a.cond.text, err, lastSeen(all))
		}
	}
}

// awaitFailure describes the unmet observations at the timeout.
func awaitFailure(a awaitArgs, all []observation) error {
	var unmet []observation
	for _, o := range all {
		if !o.met {
			unmet = append(unmet, o)
		}
	}
	head := "timed out after " + a.timeout.String() + " waiting for " + a.cond.text
	if a.timeout == 0 {
		head = a.cond.text + " not met"
	}
	if len(unmet) == 1 && len(all) == 1 {
		return fmt.Errorf("%s on %s: %s", head, unmet[0].name, unmet[0].seen)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %d of %d objects:", head, len(unmet), len(all))
	for _, o := range unmet {
		fmt.Fprintf(&b, "\n    %s: %s", o.name, o.seen)
	}
	return errors.New(b.String())
}

// lastSeen formats observations for a message: ": a (seen)" for one,
// a list for several.
func lastSeen(all []observation) string {
	switch len(all) {
	case 0:
		return ""
	case 1:
		return ": " + all[0].name + " (" + all[0].seen + ")"
	}
	var b strings.Builder
	b.WriteString(":")
	for _, o := range all {
		fmt.Fprintf(&b, "\n    %s: %s", o.name, o.seen)
	}
	return b.String()
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// getObject fetches one object; a missing one is (nil, nil).
func (c *Client) getObject(ctx context.Context, m *meta.RESTMapping, ns, name string) (*unstructured.Unstructured, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	obj, err := c.resourceClient(m, ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}
