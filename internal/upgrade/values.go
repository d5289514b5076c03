package upgrade

import (
	"cmp"
	"fmt"
	"github.com/k0rdent/kbook/internal/findings"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/k0rdent/kbook/internal/helmvalues"
	"github.com/k0rdent/kbook/internal/template"
)

// DefaultChange is a default value that changes while the config does not
// set it: the cluster gets the new default.
type DefaultChange struct {
	Path string `json:"path"`
	From any    `json:"from"`
	To   any    `json:"to"`
}

// injected are the top-level values kcm sets itself on every install
// (clusterIdentity, global) or when the config has none (clusterLabels):
// their schema errors and removals are not the config's.
var injected = []string{"clusterIdentity", "global", "clusterLabels"}

// vpath is a values path.
type vpath []string

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// String writes the path as users write values paths: a.b["c.d"].
func (p vpath) String() string {
	var sb strings.Builder
	for i, k := range p {
		switch {
		case plainKey.MatchString(k):
			if i > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(k)
		case isIndex(k):
			sb.WriteString("[" + k + "]")
		default:
			fmt.Fprintf(&sb, "[%q]", k)
		}
	}
	return sb.String()
}

func isIndex(k string) bool { _, err := strconv.Atoi(k); return err == nil }

func (p vpath) child(k string) vpath { return append(p[:len(p):len(p)], k) }

func (p vpath) hasPrefix(q vpath) bool { return len(q) <= len(p) && slices.Equal(p[:len(q)], q) }

// leaves lists the leaf paths of a values tree: maps are walked, anything
// else (lists included) is a leaf; an empty map is a leaf too.
func leaves(m map[string]any) []vpath {
	var out []vpath
	var walk func(v any, p vpath)
	walk = func(v any, p vpath) {
		mm, ok := v.(map[string]any)
		if !ok || len(mm) == 0 {
			out = append(out, p)
			return
		}
		for _, k := range sortedKeys(mm) {
			walk(mm[k], p.child(k))
		}
	}
	for _, k := range sortedKeys(m) {
		walk(m[k], vpath{k})
	}
	return out
}

func lookupPath(m map[string]any, p vpath) (any, bool) {
	var cur any = m
	for _, k := range p {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// inDefaults reports whether the chart's defaults have p, or leave room
// for it (an empty or null map on the way).
func inDefaults(defaults map[string]any, p vpath) bool {
	var cur any = defaults
	for _, k := range p {
		if cur == nil {
			return true
		}
		mm, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		next, ok := mm[k]
		if !ok {
			return len(mm) == 0
		}
		cur = next
	}
	return true
}

// valuesSchema is a chart's compiled values.schema.json.
type valuesSchema struct {
	s   *jsonschema.Schema
	err error // does not compile
}

// schemaOf compiles the chart's schema as Helm does (jsonschema v6), but
// offline: an external $ref is a compile error.
func schemaOf(ch *chart.Chart) valuesSchema {
	if len(ch.Schema) == 0 {
		return valuesSchema{}
	}
	s, err := helmvalues.CompileSchema(ch.Schema)
	return valuesSchema{s: s, err: err}
}

// schemaErr is one violation of a values schema.
type schemaErr struct {
	path     vpath
	msg      string
	required bool
}

// validate returns the schema's violations by the values, one per path,
// a missing required key at its own path.
func (vs valuesSchema) validate(vals map[string]any) []schemaErr {
	if vs.s == nil {
		return nil
	}
	var out []schemaErr
	for _, e := range helmvalues.Validate(vs.s, vals, helmvalues.SplitRequired()) {
		p := make(vpath, len(e.Path))
		for i, s := range e.Path {
			p[i] = fmt.Sprint(s)
		}
		out = append(out, schemaErr{path: p, msg: e.Message, required: e.Required})
	}
	return out
}

// declares reports whether the schema lets p exist: declared on the way
// (properties, patternProperties, additionalProperties schemas) or in a
// free-form object. A chart without a schema declares everything.
func (vs valuesSchema) declares(p vpath) bool {
	if vs.s == nil {
		return true
	}
	schemas := []*jsonschema.Schema{vs.s}
	for _, k := range p {
		schemas = helmvalues.Applicable(schemas)
		var next []*jsonschema.Schema
		structured := false
		for _, s := range schemas {
			if s.Bool != nil {
				if *s.Bool {
					return true
				}
				continue
			}
			if ps, ok := s.Properties[k]; ok {
				next = append(next, ps)
			}
			for re, ps := range s.PatternProperties {
				if re.MatchString(k) {
					next = append(next, ps)
				}
			}
			if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && s.Properties[k] == nil {
				next = append(next, ap)
			}
			if is, ok := s.Items.(*jsonschema.Schema); ok && isIndex(k) {
				next = append(next, is)
			}
			if s.Items2020 != nil && isIndex(k) {
				next = append(next, s.Items2020)
			}
			if len(s.Properties) > 0 || s.AdditionalProperties == false {
				structured = true
			}
		}
		if len(next) == 0 {
			return !structured
		}
		schemas = next
	}
	return true
}

func isInjected(p vpath) bool { return len(p) > 0 && slices.Contains(injected, p[0]) }

// valuesChecks compares how both charts take the deployment's config.
func (c *checker) valuesChecks() {
	cfg := c.in.Deployment.Config
	src := c.in.Deployment.ConfigSource
	oldS, newS := schemaOf(c.from.chart), schemaOf(c.to.chart)
	if newS.err != nil {
		c.add(findings.Finding{Rule: ruleConfigRejected, File: c.to.path + "/values.schema.json", Message: "the target chart's values.schema.json does not compile, so Helm rejects every install and upgrade: " + newS.err.Error()})
	}
	oldErrs := map[string]bool{}
	for _, e := range oldS.validate(c.from.values) {
		oldErrs[e.path.String()] = true
	}
	rejected := map[string]bool{}
	for _, e := range newS.validate(c.to.values) {
		if isInjected(e.path) {
			continue
		}
		key := e.path.String()
		rejected[key] = true
		_, inConfig := lookupPath(cfg, e.path)
		switch {
		case oldErrs[key]:
			c.add(findings.Finding{Rule: ruleConfigAlreadyBad, File: src, Path: key, Message: fmt.Sprintf("%s: %s (the current chart rejects it too)", key, e.msg)})
		case e.required:
			c.add(findings.Finding{Rule: ruleNewRequired, File: src, Path: key, KCM: kcmConfigCheck, Message: fmt.Sprintf("%s is required by %s and has no default: set it in spec.config before upgrading", key, c.rep.To.Template)})
		case inConfig:
			msg := fmt.Sprintf("%s: %s: %s rejects the config, %s accepted it", key, e.msg, c.rep.To.Template, c.rep.From.Template)
			if !inDefaults(c.to.chart.Values, e.path) && inDefaults(c.from.chart.Values, e.path) {
				msg += c.renamedHint(e.path)
			}
			line, _ := c.configLine(e.path.fpath())
			c.add(findings.Finding{Rule: ruleConfigRejected, File: src, Line: line, Path: key, KCM: kcmConfigCheck, Message: msg})
		default:
			// The value comes from the config or the target's defaults.
			file, line := c.valueAt(c.to, e.path.fpath())
			c.add(findings.Finding{Rule: ruleConfigRejected, File: cmp.Or(file, src), Line: line, Path: key, Message: fmt.Sprintf("%s: %s: the values %s gets from its defaults and this config fail its own schema", key, e.msg, c.rep.To.Template)})
		}
	}
	// Settings the new chart no longer knows and does not reject.
	for _, p := range leaves(cfg) {
		if isInjected(p) || rejected[p.String()] {
			continue
		}
		knownOld := inDefaults(c.from.chart.Values, p) && oldS.declares(p)
		knownNew := inDefaults(c.to.chart.Values, p) && newS.declares(p)
		if !knownOld || knownNew {
			continue
		}
		if c.newErr != nil || !c.ignoredByNew(p) {
			continue
		}
		c.add(findings.Finding{Rule: ruleConfigIgnored, File: src, Path: p.String(),
			Message: fmt.Sprintf("%s is set in the config and used by %s, but %s neither declares nor reads it: the setting is silently ignored after the upgrade%s", p, c.rep.From.Template, c.rep.To.Template, c.renamedHint(p))})
	}
	// Defaults that change under a config that does not set them.
	set := leaves(cfg)
	for _, p := range leaves(c.from.chart.Values) {
		if isInjected(p) || slices.ContainsFunc(set, func(q vpath) bool { return q.hasPrefix(p) || p.hasPrefix(q) }) {
			continue
		}
		oldV, _ := lookupPath(c.from.chart.Values, p)
		newV, ok := lookupPath(c.to.chart.Values, p)
		if !ok || reflect.DeepEqual(oldV, newV) {
			continue
		}
		c.rep.Defaults = append(c.rep.Defaults, DefaultChange{Path: p.String(), From: oldV, To: newV})
	}
}

// ignoredByNew renders the target without p: when nothing changes, the
// target chart does not use the setting.
func (c *checker) ignoredByNew(p vpath) bool {
	without := helmvalues.DeepCopy(c.in.Deployment.Config)
	parent, _ := lookupPath(without, p[:len(p)-1])
	if m, ok := parent.(map[string]any); ok {
		delete(m, p[len(p)-1])
	}
	d := c.in.Deployment
	objs, err := template.Render(c.to.path, template.RenderOptions{ReleaseName: d.Name, Namespace: d.Namespace, ConfigValues: without})
	if err != nil {
		return false
	}
	return sameObjects(objs, c.newObjs)
}

// renamedHint names the new values that look like the old one: the same
// key elsewhere, or a new key beside where it was.
func (c *checker) renamedHint(p vpath) string {
	var same, beside []string
	for _, q := range leaves(c.to.chart.Values) {
		if inDefaults(c.from.chart.Values, q) {
			continue
		}
		switch {
		case q[len(q)-1] == p[len(p)-1]:
			same = append(same, q.String())
		case len(q) == len(p) && slices.Equal(q[:len(q)-1], p[:len(p)-1]):
			beside = append(beside, q.String())
		}
	}
	cands := append(same, beside...)
	if len(cands) == 0 {
		return ""
	}
	if len(cands) > 3 {
		cands = cands[:3]
	}
	return "; new in " + c.rep.To.Template + ": " + strings.Join(cands, ", ") + " (renamed?)"
}

func sameObjects(a, b []template.Object) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i].Unstructured.Object, b[i].Unstructured.Object) {
			return false
		}
	}
	return true
}
