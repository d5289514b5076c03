package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// TestScripts runs testdata/script/*.txtar against the envtest API server,
// each in a namespace of its own named after the script and numbered
// (script-await-crd-1 for await_crd.txtar), exported as $NS.
func TestScripts(t *testing.T) {
	cfg := needCRDs(t)
	testscript.Run(t, testscript.Params{
		Dir:   filepath.Join("testdata", "script"),
		Cmds:  scriptCmds(),
		Setup: clusterSetup(cfg),
	})
}

// TestNoCluster runs testdata/unit/*.txtar without a client.
func TestNoCluster(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:  filepath.Join("testdata", "unit"),
		Cmds: scriptCmds(),
	})
}

// helperKey holds a script's *helper in Env.Values.
type helperKey struct{}

// helper is the test commands' own state: a client of their own (so that
// kapply does not refresh the discovery of the client under test) and the
// background operations started with --after.
type helper struct {
	c    *Client
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

func clusterSetup(cfg *rest.Config) func(*testscript.Env) error {
	return func(env *testscript.Env) error {
		ns := newNamespaceName(strings.ReplaceAll(strings.ToLower(filepath.Base(env.WorkDir)), "_", "-"))
		ctx, cancel := context.WithCancel(context.Background())
		env.Defer(cancel)
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return err
		}
		nsObj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
		}}
		if _, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).
			Create(ctx, nsObj, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
		c, err := NewClient(ctx, cfg, ns)
		if err != nil {
			return err
		}
		hc, err := NewClient(ctx, cfg, ns)
		if err != nil {
			return err
		}
		h := &helper{c: hc}
		env.Defer(func() { h.wg.Wait() })
		env.Values[ClientKey{}] = c
		env.Values[helperKey{}] = h
		env.Setenv("NS", ns)
		return nil
	}
}

// scriptCmds are Commands plus the test-only commands:
//
//	kapply FILE...                       server-side apply ($VARS expanded)
//	kdelete [--after=D] TYPE/NAME        delete, now or in the background
//	kstatus [--after=D] TYPE/NAME JSON   merge-patch the status subresource
//	kwait                                wait for background operations
//	fails [!] CMD ARGS...                run a kube command that must fail; its error goes to stdout
//	diagnose [TYPE/NAME...]              print Diagnose for these refs
//	touched                              print the client's touched objects
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := Commands()
	cmds["kapply"] = cmdKapply
	cmds["kdelete"] = cmdKdelete
	cmds["kstatus"] = cmdKstatus
	cmds["kwait"] = cmdKwait
	cmds["fails"] = cmdFails
	cmds["diagnose"] = cmdDiagnose
	cmds["touched"] = cmdTouched
	return cmds
}

func helperOf(ts *testscript.TestScript) *helper {
	h, _ := ts.Value(helperKey{}).(*helper)
	if h == nil {
		ts.Fatalf("no cluster in this test")
	}
	return h
}

func cmdFails(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("fails takes no !; use fails ! CMD")
	}
	n := false
	if len(args) > 0 && args[0] == "!" {
		n, args = true, args[1:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: fails [!] CMD ARGS...")
	}
	err := runCommand(ts, args[0], n, args[1:])
	if err == nil {
		ts.Fatalf("%s succeeded; expected it to fail", args[0])
	}
	fmt.Fprintln(ts.Stdout(), err)
}

func cmdKapply(ts *testscript.TestScript, neg bool, args []string) {
	h := helperOf(ts)
	if neg || len(args) == 0 {
		ts.Fatalf("usage: kapply FILE...")
	}
	for _, f := range args {
		data := os.Expand(ts.ReadFile(f), ts.Getenv)
		for i, doc := range strings.Split(data, "\n---\n") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var obj unstructured.Unstructured
			if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
				ts.Fatalf("%s document %d: %v", f, i+1, err)
			}
			ts.Check(h.apply(&obj))
		}
	}
}

// apply server-side applies obj, retrying the mapping for a few seconds:
// a CRD's kind can take a moment to show in discovery after the CRD is
// established.
func (h *helper) apply(obj *unstructured.Unstructured) error {
	var m *meta.RESTMapping
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		m, err = h.c.mappingForKind(obj.GetAPIVersion(), obj.GetKind())
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	ns := obj.GetNamespace()
	if ns == "" {
		ns = h.c.Namespace
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	force := true
	_, err = h.c.resourceClient(m, ns).Patch(h.c.ctx(), obj.GetName(), types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: "kbook-test", Force: &force})
	if err != nil {
		return fmt.Errorf("apply %s/%s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// parseAfter takes an optional leading --after=D.
func parseAfter(ts *testscript.TestScript, args []string) (time.Duration, []string) {
	if len(args) > 0 && strings.HasPrefix(args[0], "--after=") {
		d, err := time.ParseDuration(strings.TrimPrefix(args[0], "--after="))
		ts.Check(err)
		return d, args[1:]
	}
	return 0, args
}

// later runs f now, or in the background after d.
func (h *helper) later(ts *testscript.TestScript, d time.Duration, f func() error) {
	if d == 0 {
		ts.Check(f())
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		time.Sleep(d)
		if err := f(); err != nil {
			h.mu.Lock()
			h.errs = append(h.errs, err)
			h.mu.Unlock()
		}
	}()
}

func (h *helper) object(ts *testscript.TestScript, arg string) (*meta.RESTMapping, string) {
	typ, name, ok := strings.Cut(arg, "/")
	if !ok {
		ts.Fatalf("want TYPE/NAME, got %s", arg)
	}
	m, err := h.c.mappingFor(typ)
	ts.Check(err)
	return m, name
}

func cmdKdelete(ts *testscript.TestScript, neg bool, args []string) {
	h := helperOf(ts)
	d, args := parseAfter(ts, args)
	if neg || len(args) != 1 {
		ts.Fatalf("usage: kdelete [--after=D] TYPE/NAME")
	}
	m, name := h.object(ts, args[0])
	h.later(ts, d, func() error {
		return h.c.resourceClient(m, h.c.Namespace).Delete(h.c.ctx(), name, metav1.DeleteOptions{})
	})
}

func cmdKstatus(ts *testscript.TestScript, neg bool, args []string) {
	h := helperOf(ts)
	d, args := parseAfter(ts, args)
	if neg || len(args) != 2 {
		ts.Fatalf("usage: kstatus [--after=D] TYPE/NAME JSON")
	}
	m, name := h.object(ts, args[0])
	patch := []byte(args[1])
	h.later(ts, d, func() error {
		_, err := h.c.resourceClient(m, h.c.Namespace).Patch(h.c.ctx(), name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		return err
	})
}

func cmdKwait(ts *testscript.TestScript, neg bool, args []string) {
	h := helperOf(ts)
	h.wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := errors.Join(h.errs...); err != nil {
		ts.Fatalf("background operation: %v", err)
	}
}

func cmdDiagnose(ts *testscript.TestScript, neg bool, args []string) {
	h := helperOf(ts)
	c := ts.Value(ClientKey{}).(*Client)
	var refs []ObjectRef
	for _, a := range args {
		m, name := h.object(ts, a)
		refs = append(refs, refFor(m, c.Namespace, name))
	}
	fmt.Fprint(ts.Stdout(), Diagnose(context.Background(), c, refs))
}

func cmdTouched(ts *testscript.TestScript, neg bool, args []string) {
	c := ts.Value(ClientKey{}).(*Client)
	for _, r := range c.Touched() {
		fmt.Fprintf(ts.Stdout(), "%s %s %s %s\n", r.APIVersion, r.Kind, r.Namespace, r.Name)
	}
}
