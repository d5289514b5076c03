package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

const assertUsage = "usage: assert [-n NS] [--timeout=30s] [--interval=500ms] FILE..."

// maxMismatches is how many differing fields a failure lists per object.
const maxMismatches = 10

// assertArgs are the parsed arguments of assert and error.
type assertArgs struct {
	namespace string
	timeout   time.Duration
	interval  time.Duration
	files     []string
}

func parseAssertArgs(args []string) (assertArgs, error) {
	a := assertArgs{timeout: DefaultTimeout, interval: DefaultInterval}
	specs := []flagSpec{
		{names: []string{"-n", "--namespace"}, set: stringFlag(&a.namespace)},
		{names: []string{"--timeout"}, set: durationFlag(&a.timeout, nil)},
		{names: []string{"--interval"}, set: durationFlag(&a.interval, nil)},
	}
	pos, err := parseFlags(args, specs)
	if err != nil {
		return a, fmt.Errorf("%w\n%s", err, assertUsage)
	}
	if a.interval <= 0 {
		return a, errors.New("--interval must be positive")
	}
	if len(pos) == 0 {
		return a, fmt.Errorf("no file given\n%s", assertUsage)
	}
	a.files = pos
	return a, nil
}

// expectation is one expected object: a document of an assert file.
type expectation struct {
	source string // file name as given, with the document number if the file has several
	obj    *omap

	apiVersion, kind string
	namespace, name  string
	labels           map[string]string
}

// parseExpectations reads the documents of one file. name is the file as
// given, for messages.
func parseExpectations(data []byte, name string) ([]expectation, error) {
	docs, err := decodeDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no YAML documents", name)
	}
	var out []expectation
	for i, d := range docs {
		e := expectation{source: name, obj: d}
		if len(docs) > 1 {
			e.source = fmt.Sprintf("%s, document %d", name, i+1)
		}
		if err := e.readMeta(); err != nil {
			return nil, fmt.Errorf("%s: %w", e.source, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// readMeta extracts what finds the object: apiVersion, kind, namespace,
// name and labels.
func (e *expectation) readMeta() error {
	str := func(m *omap, key, path string, required bool) (string, error) {
		v, ok := m.get(key)
		if !ok || v == nil {
			if required {
				return "", fmt.Errorf("%s is missing", path)
			}
			return "", nil
		}
		s, ok := v.(string)
		if !ok || (required && s == "") {
			return "", fmt.Errorf("%s must be a non-empty string, not %s", path, describe(v))
		}
		return s, nil
	}
	var err error
	if e.apiVersion, err = str(e.obj, "apiVersion", "apiVersion", true); err != nil {
		return err
	}
	if e.kind, err = str(e.obj, "kind", "kind", true); err != nil {
		return err
	}
	mv, ok := e.obj.get("metadata")
	if !ok || mv == nil {
		return nil
	}
	md, ok := mv.(*omap)
	if !ok {
		return fmt.Errorf("metadata must be a map, not %s", describe(mv))
	}
	if e.name, err = str(md, "name", "metadata.name", false); err != nil {
		return err
	}
	if e.namespace, err = str(md, "namespace", "metadata.namespace", false); err != nil {
		return err
	}
	if lv, ok := md.get("labels"); ok && lv != nil {
		lm, ok := lv.(*omap)
		if !ok {
			return fmt.Errorf("metadata.labels must be a map, not %s", describe(lv))
		}
		e.labels = map[string]string{}
		for _, k := range lm.keys {
			s, ok := lm.vals[k].(string)
			if !ok {
				return fmt.Errorf("%s must be a string (quote it), not %s", joinKey("metadata.labels", k), describe(lm.vals[k]))
			}
			e.labels[k] = s
		}
	}
	return nil
}

// resolved is an expectation with its resource and namespace.
type resolved struct {
	expectation
	mapping *meta.RESTMapping
	ns      string
	display string
}

// outcome is the result of checking one expectation once.
type outcome struct {
	matched bool
	// problem explains a mismatch: not found, an error, or the differing
	// fields.
	problem string
}

// runAssert runs assert; error is assert with neg inverted.
func runAssert(ts *testscript.TestScript, c *Client, neg bool, args []string) error {
	a, err := parseAssertArgs(args)
	if err != nil {
		return err
	}
	var exps []expectation
	for _, f := range a.files {
		data, err := os.ReadFile(ts.MkAbs(f))
		if err != nil {
			return fmt.Errorf("read expected objects: %w", err)
		}
		e, err := parseExpectations(data, f)
		if err != nil {
			return err
		}
		exps = append(exps, e...)
	}
	return c.assert(c.ctx(), a, exps, neg)
}

// resolve finds the resource and namespace of each expectation.
func (c *Client) resolve(a assertArgs, exps []expectation) ([]resolved, error) {
	var out []resolved
	for _, e := range exps {
		m, err := c.mappingForKind(e.apiVersion, e.kind)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.source, err)
		}
		r := resolved{expectation: e, mapping: m}
		if namespaced(m) {
			r.ns = firstNonEmpty(e.namespace, a.namespace, c.Namespace)
		}
		gk := m.GroupVersionKind.GroupKind()
		if e.name != "" {
			r.display = displayName(gk, e.name)
			c.touch(refFor(m, r.ns, e.name))
		} else {
			r.display = strings.TrimSuffix(displayName(gk, ""), "/")
			if sel := labels.SelectorFromSet(e.labels).String(); sel != "" {
				r.display += " -l " + sel
			} else {
				r.display += " (any)"
			}
		}
		if r.ns != "" && r.ns != c.Namespace {
			r.display += " in namespace " + r.ns
		}
		out = append(out, r)
	}
	return out, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// check compares one expectation with the cluster.
func (c *Client) check(ctx context.Context, r resolved) outcome {
	if r.name != "" {
		obj, err := c.getObject(ctx, r.mapping, r.ns, r.name)
		if err != nil {
			return outcome{problem: "error: " + err.Error()}
		}
		if obj == nil {
			return outcome{problem: "not found"}
		}
		ms := diffObject(r.obj, obj.Object)
		if len(ms) == 0 {
			return outcome{matched: true}
		}
		return outcome{problem: formatMismatches(ms, "", maxMismatches)}
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	list, err := c.resourceClient(r.mapping, r.ns).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(r.labels).String(),
	})
	if err != nil {
		return outcome{problem: "error: " + err.Error()}
	}
	if len(list.Items) == 0 {
		return outcome{problem: "no objects found"}
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
	bestName, best := "", []mismatch(nil)
	for i := range items {
		c.touch(refFor(r.mapping, items[i].GetNamespace(), items[i].GetName()))
		ms := diffObject(r.obj, items[i].Object)
		if len(ms) == 0 {
			return outcome{matched: true}
		}
		if best == nil || len(ms) < len(best) {
			bestName, best = items[i].GetName(), ms
		}
	}
	head := displayName(r.mapping.GroupVersionKind.GroupKind(), bestName) + ":"
	if len(items) > 1 {
		head = fmt.Sprintf("none of %d objects matches; the closest, %s", len(items), head)
	}
	return outcome{problem: head + "\n" + formatMismatches(best, "    ", maxMismatches)}
}

// assert polls until every expectation matches (negated: until one does
// not), the timeout passes or ctx is done.
func (c *Client) assert(ctx context.Context, a assertArgs, exps []expectation, neg bool) error {
	rs, err := c.resolve(a, exps)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(a.timeout)
	w := c.waiter("assert", a.timeout)
	if neg {
		w = c.waiter("error", a.timeout)
	}
	for {
		outs := make([]outcome, len(rs))
		allMatch := true
		for i, r := range rs {
			outs[i] = c.check(ctx, r)
			allMatch = allMatch && outs[i].matched
		}
		if err := context.Cause(ctx); err != nil {
			return fmt.Errorf("stopped: %w", err)
		}
		if allMatch != neg {
			return nil
		}
		if !time.Now().Before(deadline) {
			if neg {
				return stillMatches(a, rs)
			}
			return assertFailure(a, rs, outs)
		}
		for i, o := range outs {
			if o.matched == neg {
				seen := "still matches"
				if !neg {
					seen, _, _ = strings.Cut(strings.TrimSpace(o.problem), "\n")
				}
				w.tell("for "+rs[i].display, seen)
				break
			}
		}
		if err := sleep(ctx, min(a.interval, time.Until(deadline))); err != nil {
			return fmt.Errorf("stopped: %w", err)
		}
	}
}

func stillMatches(a assertArgs, rs []resolved) error {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.display
	}
	verb := "still matches"
	if len(rs) > 1 {
		verb = "still match"
	}
	after := " after " + a.timeout.String()
	if a.timeout == 0 {
		after = ""
	}
	return fmt.Errorf("%s %s%s", strings.Join(names, ", "), verb, after)
}

// assertFailure lists the expectations that do not match and why.
func assertFailure(a assertArgs, rs []resolved, outs []outcome) error {
	var b strings.Builder
	bad := 0
	for _, o := range outs {
		if !o.matched {
			bad++
		}
	}
	if a.timeout > 0 {
		fmt.Fprintf(&b, "timed out after %s: ", a.timeout)
	}
	if len(rs) == 1 {
		b.WriteString("the object does not match")
	} else {
		fmt.Fprintf(&b, "%d of %d objects do not match", bad, len(rs))
	}
	for i, r := range rs {
		if outs[i].matched {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%s):", r.display, r.source)
		for _, line := range strings.Split(outs[i].problem, "\n") {
			b.WriteString("\n    " + line)
		}
	}
	return errors.New(b.String())
}
