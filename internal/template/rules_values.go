package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmvalues"
)

const schemaFile = "values.schema.json"

// valuesChecker holds the compiled values.schema.json.
type valuesChecker struct {
	schema *jsonschema.Schema // nil when missing or invalid
	node   *yaml.Node         // the schema document, for lines
	// defaultErrs are the violations of the defaults, to tell a ci file's
	// own problems from inherited ones.
	defaultErrs map[string]bool
	// deps are the compiled schemas of dependencies, by schema text (nil:
	// it does not compile).
	deps map[string]*jsonschema.Schema
}

// checkValues runs the VALUES rules on the defaults, every ci/*.yaml and
// ChartOptions.Config.
func (c *checker) checkValues(sets []*valueSet) {
	data, ok := c.src.raw[schemaFile]
	if !ok {
		c.add(findings.Finding{Rule: ruleSchemaMissing, File: schemaFile,
			Message: "the chart has no values.schema.json: nothing checks a ClusterDeployment's config, so a misspelt or mistyped value silently has no effect or breaks the install; add a JSON Schema for the values"})
		c.checkConfigUse(sets)
		return
	}
	c.values.node = parseYAML(data)
	sch, err := helmvalues.CompileSchema(data)
	if err != nil {
		c.schemaBroken = true
		c.schemaInvalid(schemaFile, data, err)
		c.checkConfigUse(sets)
		return
	}
	c.values.schema = sch

	for _, vs := range sets {
		vals, ch := c.mergedWithChart(vs)
		errs := c.validateValues(c.values.schema, vals)
		errs = append(errs, c.validateDependencies(ch, vals, nil)...)
		isInjected := c.injectedIn(vs)
		switch vs.name {
		case defaultsName:
			c.values.defaultErrs = map[string]bool{}
			c.checkInjected(errs, isInjected)
			for _, e := range errs {
				if isInjected(e.Path) {
					continue
				}
				c.values.defaultErrs[e.Path.String()+"\x00"+errMessage(e)] = true
				line, _ := lineOf(vs.node, e.Path)
				c.add(findings.Finding{Rule: ruleDefaultsInvalid, File: "values.yaml", Line: line, Path: e.Path.String(), Config: defaultsName,
					Message: pathMessage(e.Path, errMessage(e))})
			}
		default:
			rule := ruleCIValuesInvalid
			if vs.config {
				rule = ruleConfigInvalid
			}
			for _, e := range errs {
				if isInjected(e.Path) {
					continue
				}
				line, exact := lineOf(vs.node, e.Path)
				if !exact && c.values.defaultErrs[e.Path.String()+"\x00"+errMessage(e)] {
					continue // the default is wrong, VALUES003 said so
				}
				if line == 0 {
					line = 1
				}
				c.add(findings.Finding{Rule: rule, File: vs.file, Line: line, Path: e.Path.String(), Config: vs.name,
					Message: pathMessage(e.Path, errMessage(e))})
			}
		}
	}
	c.checkConfigUse(sets)
}

// pathMessage prefixes a message with its values path ("the values" for
// the root).
func pathMessage(p vpath, msg string) string {
	if len(p) == 0 {
		return "the values: " + msg
	}
	return p.String() + ": " + msg
}

// schemaInvalid reports a values.schema.json that is not JSON or not a
// valid schema (VALUES002), at the line of the problem.
func (c *checker) schemaInvalid(file string, data []byte, err error) {
	f := findings.Finding{Rule: ruleSchemaInvalid, File: file, Line: 1}
	node := parseYAML(data)
	var syn *json.SyntaxError
	var meta *jsonschema.SchemaValidationError
	switch {
	case errors.As(err, &syn):
		f.Line = bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")) + 1
		f.Message = file + " is not valid JSON: " + syn.Error() + " (Helm fails every install of the chart)"
	case errors.As(err, &meta):
		var ve *jsonschema.ValidationError
		if errors.As(meta.Err, &ve) {
			var doc any
			_ = json.Unmarshal(data, &doc)
			for _, e := range helmvalues.Leaves(ve, doc) {
				line, _ := lineOf(node, e.Path)
				c.add(findings.Finding{Rule: ruleSchemaInvalid, File: file, Line: max(line, 1), Path: pointer(e.Path),
					Message: fmt.Sprintf("not a valid JSON Schema at %s: %s (Helm fails every install of the chart)", pointer(e.Path), errMessage(e))})
			}
			return
		}
		f.Message = "not a valid JSON Schema: " + meta.Error()
	default:
		f.Message = file + " does not compile: " + err.Error()
	}
	c.add(f)
}

// pointer formats a path into the schema document as a JSON pointer.
func pointer(p vpath) string {
	if len(p) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, s := range p {
		fmt.Fprintf(&sb, "/%v", s)
	}
	return sb.String()
}

// validateDependencies validates the values of each dependency against
// its own values.schema.json, as Helm does (chartutil.ValidateAgainstSchema
// recurses into the dependencies, with the values under their name or
// alias). Paths are from the top of the values.
func (c *checker) validateDependencies(ch *chart.Chart, vals map[string]any, prefix vpath) []helmvalues.Error {
	var out []helmvalues.Error
	for _, d := range ch.Dependencies() {
		p := prefix.Child(d.Name())
		sub, _ := vals[d.Name()].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
		}
		if len(d.Schema) > 0 {
			if sch := c.dependencySchema(d); sch != nil {
				for _, e := range c.validateValues(sch, sub) {
					e.Path = append(slices.Clone(p), e.Path...)
					out = append(out, e)
				}
			}
		}
		out = append(out, c.validateDependencies(d, sub, p)...)
	}
	return out
}

// dependencySchema compiles a dependency's schema once; a schema that does
// not compile is reported (VALUES002) at its file.
func (c *checker) dependencySchema(d *chart.Chart) *jsonschema.Schema {
	key := string(d.Schema)
	if sch, ok := c.values.deps[key]; ok {
		return sch
	}
	if c.values.deps == nil {
		c.values.deps = map[string]*jsonschema.Schema{}
	}
	sch, err := helmvalues.CompileSchema(d.Schema)
	if err != nil {
		file := "charts/" + d.Name() + "/" + schemaFile
		for name, data := range c.src.raw {
			if strings.HasPrefix(name, "charts/") && strings.HasSuffix(name, "/"+schemaFile) && bytes.Equal(data, d.Schema) {
				file = name
			}
		}
		c.schemaInvalid(file, d.Schema, err)
		sch = nil
	}
	c.values.deps[key] = sch
	return sch
}

// validateValues validates a values tree against a schema, one error per
// values path.
func (c *checker) validateValues(schema *jsonschema.Schema, vals map[string]any) []helmvalues.Error {
	return helmvalues.Validate(schema, vals)
}

// errMessage is a values schema error as template validate words it.
func errMessage(e helmvalues.Error) string {
	if e.Forbidden {
		return e.Message + " (additionalProperties: false)"
	}
	return e.Message
}

// injectedIn tells, for a value set, whether a values path is one kcm
// injects: clusterIdentity and global are always kcm's (it replaces them),
// clusterLabels only when neither the set nor the defaults have it.
func (c *checker) injectedIn(vs *valueSet) func(p vpath) bool {
	_, userLabels := vs.values["clusterLabels"]
	_, defaultLabels := c.src.chart.Values["clusterLabels"]
	return func(p vpath) bool {
		if len(p) == 0 {
			return false
		}
		switch p[0] {
		case "clusterIdentity", "global":
			return true
		case "clusterLabels":
			return !userLabels && !defaultLabels
		}
		return false
	}
}

var injectedWhy = map[string]string{
	"clusterIdentity": "kcm sets it on every install to the Credential's identity {apiVersion, kind, name, namespace}",
	"global":          "kcm sets it to {registry, k0sURL, registryCertSecret, k0sURLCertSecret} when it runs with a global registry or k0s URL",
	"clusterLabels":   "kcm sets it to the ClusterDeployment's labels when the config has none",
}

// checkInjected reports (VALUES005) the violations of the defaults that
// concern the values kcm injects, at the line of the schema that rejects
// them.
func (c *checker) checkInjected(errs []helmvalues.Error, isInjected func(vpath) bool) {
	seen := map[string]bool{}
	for _, e := range errs {
		if !isInjected(e.Path) {
			continue
		}
		key := e.Path[0].(string)
		if seen[key] {
			continue
		}
		seen[key] = true
		line, exact := lineOf(c.values.node, vpath{"properties", key})
		if !exact {
			if l, ok := lineOf(c.values.node, vpath{"additionalProperties"}); ok {
				line = l
			}
		}
		c.add(findings.Finding{Rule: ruleInjectedRejected, File: schemaFile, Line: max(line, 1), Path: e.Path.String(),
			Message: fmt.Sprintf("the schema rejects %s (%s): %s; Helm validates the values kcm installs with, so every ClusterDeployment of this template would fail — declare it, e.g. \"%s\": {\"type\": \"object\"}", key, errMessage(e), injectedWhy[key], key)})
	}
}

// checkConfigUse runs VALUES007 to VALUES009 on ChartOptions.Config: values that
// would silently have no effect.
func (c *checker) checkConfigUse(sets []*valueSet) {
	var cfg *valueSet
	for _, vs := range sets {
		if vs.config {
			cfg = vs
		}
	}
	c.checkInjectedReach(cfg)
	if cfg == nil {
		return
	}
	at := func(p vpath) int {
		l, _ := lineOf(cfg.node, p)
		return max(l, 1)
	}
	for _, key := range []string{"clusterIdentity", "global"} {
		if _, ok := cfg.values[key]; ok {
			c.add(findings.Finding{Rule: ruleConfigOverwritten, File: cfg.file, Line: at(vpath{key}), Path: key, Config: cfg.name,
				Message: key + ": " + overwrittenWhy[key]})
		}
	}
	// The dependencies as the config enables and names them.
	ch, err := c.src.withDependencies(injectValues(cfg.values, c.src.chart.Values, c.opts.Namespace))
	if err != nil {
		ch = c.src.chart
	}
	undeclared := map[string]bool{}
	if c.values.schema != nil {
		depSchemas := map[string][]*jsonschema.Schema{}
		for _, d := range ch.Dependencies() {
			if len(d.Schema) > 0 {
				if sch := c.dependencySchema(d); sch != nil {
					depSchemas[d.Name()] = append(depSchemas[d.Name()], sch)
				}
			}
		}
		for _, p := range undeclaredKeys(c.values.schema, cfg.values, depSchemas) {
			undeclared[p.String()] = true
			c.add(findings.Finding{Rule: ruleConfigNotInSchema, File: cfg.file, Line: at(p), Path: p.String(), Config: cfg.name,
				Message: p.String() + ": the schema does not declare this key (a typo?): it passes validation and may have no effect"})
		}
	}
	refs := scanValueRefs(ch)
	if refs.all {
		return
	}
	for _, p := range refs.unread(cfg.values) {
		if undeclared[p.String()] {
			continue // VALUES007 already says it is likely a typo
		}
		c.add(findings.Finding{Rule: ruleConfigUnread, File: cfg.file, Line: at(p), Path: p.String(), Config: cfg.name,
			Message: p.String() + ": no template reads this value, so it has no effect"})
	}
}

var overwrittenWhy = map[string]string{
	"clusterIdentity": "kcm replaces clusterIdentity with the identity of the ClusterDeployment's Credential on every install; this value has no effect (set spec.credential instead)",
	"global":          "kcm replaces the whole global map when it runs with a global registry or k0s URL, so this value only takes effect on management clusters without them (use spec.registryOverride for the registry)",
}

// undeclaredKeys lists the keys of vals that the schema neither declares
// nor forbids, where it describes an object by its properties. deps are the
// schemas of dependencies, by the top-level key their values are under.
func undeclaredKeys(s *jsonschema.Schema, vals map[string]any, deps map[string][]*jsonschema.Schema) []vpath {
	var out []vpath
	var walk func(schemas []*jsonschema.Schema, v any, p vpath)
	walk = func(schemas []*jsonschema.Schema, v any, p vpath) {
		schemas = helmvalues.Applicable(schemas)
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(v) {
				if len(p) == 0 && slices.Contains(injectedKeys, k) {
					continue
				}
				children, status := property(schemas, k)
				if len(p) == 0 && len(deps[k]) > 0 {
					children, status = append(children, deps[k]...), propDeclared
				}
				switch status {
				case propDeclared:
					walk(children, v[k], p.Child(k))
				case propUndeclared:
					out = append(out, p.Child(k))
				}
			}
		case []any:
			var items []*jsonschema.Schema
			for _, s := range schemas {
				if s.Items2020 != nil {
					items = append(items, s.Items2020)
				}
				if is, ok := s.Items.(*jsonschema.Schema); ok {
					items = append(items, is)
				}
			}
			if len(items) == 0 {
				return
			}
			for i, e := range v {
				walk(items, e, p.Child(i))
			}
		}
	}
	walk([]*jsonschema.Schema{s}, vals, nil)
	return out
}

type propStatus int

const (
	propFree       propStatus = iota // free-form object: not checked
	propDeclared                     // declared: check below
	propUndeclared                   // not declared, not forbidden
	propForbidden                    // forbidden: a validation error already
)

// property finds the schemas of key in an object described by schemas.
func property(schemas []*jsonschema.Schema, key string) ([]*jsonschema.Schema, propStatus) {
	var children []*jsonschema.Schema
	structured, forbidden := false, false
	for _, s := range schemas {
		if s.Bool != nil && *s.Bool {
			return nil, propFree
		}
		if ps, ok := s.Properties[key]; ok {
			children = append(children, ps)
		}
		for re, ps := range s.PatternProperties {
			if re.MatchString(key) {
				children = append(children, ps)
			}
		}
		switch ap := s.AdditionalProperties.(type) {
		case *jsonschema.Schema:
			if len(s.Properties) == 0 || s.Properties[key] == nil {
				children = append(children, ap)
			}
		case bool:
			if !ap {
				forbidden = true
			}
		}
		if len(s.Properties) > 0 {
			structured = true
		}
	}
	switch {
	case len(children) > 0:
		return children, propDeclared
	case forbidden:
		return nil, propForbidden
	case structured:
		return nil, propUndeclared
	default:
		return nil, propFree
	}
}

// valueRefs are the values paths the templates read (VALUES008).
type valueRefs struct {
	all   bool // .Values is used as a whole
	paths []vpath
}

var (
	// .Values, $.Values, $root.Values, with the chain of fields after it.
	valuesRefRE = regexp.MustCompile(`(?:\$[A-Za-z0-9_]*)?\.Values\b((?:\.[A-Za-z_][A-Za-z0-9_]*)*)`)
	// index/get/hasKey just before the reference.
	indexFuncRE = regexp.MustCompile(`\b(?:index|get|hasKey)\s+\(?\s*$`)
	// The string-literal arguments after it.
	literalArgRE = regexp.MustCompile(`^\s+"((?:[^"\\]|\\.)*)"`)
)

// scanValueRefs finds the values the chart's templates (and its
// subcharts', under their name) read. See the description of VALUES008 for
// the heuristic.
func scanValueRefs(ch *chart.Chart) valueRefs {
	var refs valueRefs
	var scan func(ch *chart.Chart, prefix vpath)
	scan = func(ch *chart.Chart, prefix vpath) {
		for _, t := range ch.Templates {
			text := string(t.Data)
			for _, m := range valuesRefRE.FindAllStringSubmatchIndex(text, -1) {
				p := slices.Clone(prefix)
				for _, f := range strings.Split(text[m[2]:m[3]], ".")[1:] {
					p = append(p, f)
				}
				if indexFuncRE.MatchString(text[:m[0]]) {
					rest := text[m[1]:]
					for {
						lm := literalArgRE.FindStringSubmatch(rest)
						if lm == nil {
							break
						}
						p = append(p, lm[1])
						rest = rest[len(lm[0]):]
					}
				}
				if len(p) == 0 {
					refs.all = true
					return
				}
				refs.paths = append(refs.paths, p)
			}
		}
		for _, d := range ch.Dependencies() {
			scan(d, prefix.Child(d.Name()))
		}
	}
	scan(ch, nil)
	return refs
}

// unread lists the paths of vals that no reference reads: a reference reads
// its path and everything below it.
func (r valueRefs) unread(vals map[string]any) []vpath {
	var out []vpath
	var walk func(v any, p vpath)
	walk = func(v any, p vpath) {
		below := false
		for _, ref := range r.paths {
			if p.HasPrefix(ref) {
				return // read as a whole
			}
			if ref.HasPrefix(p) {
				below = true
			}
		}
		m, isMap := v.(map[string]any)
		switch {
		case !below:
			out = append(out, p)
		case isMap:
			for _, k := range sortedKeys(m) {
				walk(m[k], p.Child(k))
			}
		}
	}
	for _, k := range sortedKeys(vals) {
		if slices.Contains(injectedKeys, k) {
			continue
		}
		walk(vals[k], vpath{k})
	}
	return out
}

// checkInjectedReach runs VALUES010: kcm injects clusterIdentity and
// clusterLabels at the top level of the values, and Helm passes only
// global on to dependencies, so a dependency whose templates read them
// only gets them when the parent sets <alias>.<key>: in its defaults or in
// the ClusterDeployment's config (cfg, may be nil).
func (c *checker) checkInjectedReach(cfg *valueSet) {
	user := map[string]any{}
	if cfg != nil {
		user = cfg.values
	}
	ch, err := c.src.withDependencies(injectValues(user, c.src.chart.Values, c.opts.Namespace))
	if err != nil {
		return
	}
	cy := c.src.node("Chart.yaml")
	for _, d := range ch.Dependencies() {
		refs := scanValueRefs(d)
		for _, key := range []string{"clusterIdentity", "clusterLabels"} {
			if !refs.all && !slices.ContainsFunc(refs.paths, func(p vpath) bool { return len(p) > 0 && p[0] == key }) {
				continue
			}
			p := vpath{d.Name(), key}
			if lookupPath(c.src.chart.Values, p) != nil || lookupPath(user, p) != nil {
				continue
			}
			line := 1
			for i, dep := range c.src.chart.Metadata.Dependencies {
				if dep.Alias == d.Name() || (dep.Alias == "" && dep.Name == d.Name()) {
					line, _ = lineOf(cy, vpath{"dependencies", i})
				}
			}
			f := findings.Finding{Rule: ruleInjectedReach, File: "Chart.yaml", Line: line, Path: p.String(),
				Message: fmt.Sprintf("dependency %s reads %s, but kcm injects %s at the top level of the values and Helm passes only global on to dependencies: set %s in the ClusterDeployment's spec.config", d.Name(), key, key, p)}
			if cfg != nil {
				f.Config = cfg.name
			}
			c.add(f)
		}
	}
}
