package kubecmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Defaults of the commands' flags.
const (
	// DefaultTimeout bounds await, assert and error.
	DefaultTimeout = 30 * time.Second
	// DefaultNegatedTimeout bounds "! await": how long the condition must
	// stay unmet for it to pass. Short, because a negated await always
	// takes this long when it passes.
	DefaultNegatedTimeout = 5 * time.Second
	// DefaultInterval is the polling interval.
	DefaultInterval = 500 * time.Millisecond
)

// runFunc is a command body: it returns the error to report, without the
// command's name.
type runFunc func(ts *testscript.TestScript, c *Client, neg bool, args []string) error

var commands = map[string]runFunc{
	"await":  runAwait,
	"assert": runAssert,
	"error": func(ts *testscript.TestScript, c *Client, neg bool, args []string) error {
		return runAssert(ts, c, !neg, args)
	},
}

// Commands returns the testscript commands, keyed by name, to merge into
// testscript.Params.Cmds. Each finds its *Client with
// ts.Value(ClientKey{}) and fails when there is none.
//
// await waits for a condition, like kubectl wait:
//
//	await [-n NS] [--timeout=30s] [--interval=500ms] --for=COND TARGET...
//
//	COND   condition=NAME        status.conditions[type=NAME].status is True
//	       condition=NAME=VALUE  ... is VALUE (both compared case-insensitively;
//	                             not met while the condition's observedGeneration
//	                             is behind metadata.generation)
//	       jsonpath='{PATH}'=VALUE  the JSONPath has VALUE (compared as text)
//	       jsonpath='{PATH}'     the JSONPath exists
//	       delete                the object is gone
//	       create                the object exists
//	TARGET TYPE/NAME...          e.g. clustertemplate/foo crd/x ns/y
//	       TYPE NAME...          e.g. clustertemplates.k0rdent.mirantis.com foo bar
//	       TYPE -l SELECTOR      all objects matching the label selector
//	       TYPE --all            all objects of TYPE in the namespace
//
// TYPE is a resource (plural, singular or short name) or kind, optionally
// qualified with its group. -n defaults to the runbook's namespace (ignored
// for cluster-scoped types). On success await prints one line per object,
// "clustertemplate.k0rdent.mirantis.com/foo condition met"; at the timeout
// it fails with what it last saw of each unmet object. With -l or --all it
// waits until at least one object matches the selector (delete: until none
// does), where kubectl would fail at once. --timeout=0 checks once.
//
// "! await" passes when the condition is still unmet at the timeout
// (default 5s for it) and fails as soon as it is met.
//
// assert waits until objects match the expected ones in FILE (YAML,
// several documents allowed), as chainsaw and KUTTL assert:
//
//	assert [-n NS] [--timeout=30s] [--interval=500ms] FILE...
//
// Each document needs apiVersion and kind; with metadata.name it is compared
// with that object, without it with every object matching its
// metadata.labels (at least one must match). The namespace is the
// document's, else -n, else the runbook's. An object matches when every
// field the document gives has the same value in the object: maps are
// compared key by key (extra keys in the object are fine), lists must have
// the same length and match element by element, numbers compare by value,
// null matches a missing field. At the timeout assert fails listing the
// first differing fields of each object.
//
// "! assert FILE" and "error FILE" pass as soon as the objects do not all
// match (a missing object does not match), and fail if they still match at
// the timeout.
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	m := make(map[string]func(ts *testscript.TestScript, neg bool, args []string), len(commands))
	for name := range commands {
		m[name] = func(ts *testscript.TestScript, neg bool, args []string) {
			if err := runCommand(ts, name, neg, args); err != nil {
				ts.Fatalf("%v", err)
			}
		}
	}
	return m
}

// runCommand runs the named command and returns its error prefixed with its
// name, as Fatalf would show it.
func runCommand(ts *testscript.TestScript, name string, neg bool, args []string) error {
	run, ok := commands[name]
	if !ok {
		return fmt.Errorf("kube: no command %q", name)
	}
	c, _ := ts.Value(ClientKey{}).(*Client)
	if c == nil {
		return fmt.Errorf("%s: no cluster in this run (declare requires: [cluster] in the front matter)", name)
	}
	if err := c.ready(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// Replace the stdout of an earlier command even when printing nothing,
	// so that a following "stdout" checks this command's output.
	ts.Stdout()
	err := run(ts, c, neg, args)
	for _, w := range c.warnings.take() {
		ts.Logf("[%s] warning from the API server: %s", name, w)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// flagSpec declares one flag of a command.
type flagSpec struct {
	names  []string // e.g. "-n", "--namespace"
	isBool bool
	set    func(value string) error
}

// parseFlags separates flags from positional arguments. Flags may appear
// anywhere, as -n NS, -n=NS, --timeout 5s or --timeout=5s; boolean flags
// take no separate value (--all, --all=false); "--" ends the flags.
func parseFlags(args []string, specs []flagSpec) ([]string, error) {
	byName := map[string]*flagSpec{}
	for i := range specs {
		for _, n := range specs[i].names {
			byName[n] = &specs[i]
		}
	}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		spec := byName[name]
		if spec == nil {
			return nil, fmt.Errorf("unknown flag %s", name)
		}
		if spec.isBool {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag %s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := spec.set(value); err != nil {
			return nil, fmt.Errorf("%s=%s: %w", name, value, err)
		}
	}
	return pos, nil
}

// durationFlag returns a setter parsing a non-negative duration into d.
func durationFlag(d *time.Duration, set *bool) func(string) error {
	return func(v string) error {
		x, err := time.ParseDuration(v)
		if err != nil {
			return errors.New("not a duration (use e.g. 30s, 2m, 500ms)")
		}
		if x < 0 {
			return errors.New("must not be negative")
		}
		*d = x
		if set != nil {
			*set = true
		}
		return nil
	}
}

func stringFlag(s *string) func(string) error {
	return func(v string) error {
		if v == "" {
			return errors.New("empty value")
		}
		*s = v
		return nil
	}
}

func boolFlag(b *bool) func(string) error {
	return func(v string) error {
		x, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("not a boolean")
		}
		*b = x
		return nil
	}
}
