package template

import (
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkSchemas runs the SCHEMA rules: every rendered object against the
// OpenAPI schema and CEL rules of its CRD (ChartOptions.Schemas).
func (c *checker) checkSchemas(rs *renderedSet) {
	v := c.opts.Schemas
	if (v == nil || c.opts.NoRelease != "") && len(rs.objs) > 0 && !c.warnedNoCRDs {
		c.warnedNoCRDs = true
		msg := "no CRDs given: objects were not checked against schemas (use --k0rdent, --crds or --kubeconfig)"
		switch {
		case c.opts.NoRelease != "" && v == nil:
			msg = c.opts.NoRelease + ": objects were not checked against schemas (give --crds or --kubeconfig)"
		case c.opts.NoRelease != "":
			msg = c.opts.NoRelease + ": objects were checked against the --crds given only"
		}
		f := findings.Finding{Rule: ruleNoCRDs, Message: msg}
		if c.opts.NoRelease != "" {
			// The default check could not run: not a silent gap.
			f.Severity = findings.Warning
		}
		c.add(f)
	}
	if v == nil {
		return
	}
	served := map[schema.GroupKind]bool{}
	for _, gvk := range v.Kinds() {
		served[gvk.GroupKind()] = true
	}
	var vios []violation
	for _, d := range rs.objs {
		gvk := d.obj.GroupVersionKind()
		if !v.Has(gvk) && !served[gvk.GroupKind()] {
			what := "no CRD given defines " + gvk.Kind + " in " + gvk.GroupVersion().String()
			if gvk.Group == "" || isBuiltinGroup(gvk.Group) {
				what = "built-in kind " + gvk.GroupVersion().String() + " " + gvk.Kind + " has no CRD"
			}
			c.add(c.objFinding(ruleUnknownKind, rs, d, "",
				what+": the object was not checked against a schema"))
			continue
		}
		// A CRD that exists but does not serve this version: the
		// validator says which versions it serves.
		for _, e := range v.Validate(d.obj) {
			vios = append(vios, violation{d: d, err: e})
		}
	}
	if len(vios) > 0 {
		c.reportSchemaViolations(rs, vios, c.traceEmptyInputs(rs, vios))
	}
}

// fieldErrorMessage formats a field error the way kubectl prints the API
// server's: "spec.replicas: Invalid value: -1: must be ...".
func fieldErrorMessage(e *field.Error) string {
	if e.Field == "" || e.Field == "<nil>" {
		return e.Detail
	}
	return e.Error()
}

// fieldPath is the path of a field error without the leading dot some
// validators put there.
func fieldPath(e *field.Error) string {
	if e.Field == "<nil>" {
		return ""
	}
	return strings.TrimPrefix(e.Field, ".")
}

// isBuiltinGroup reports the API groups of Kubernetes itself (no dot, or
// *.k8s.io).
func isBuiltinGroup(g string) bool {
	for i := 0; i < len(g); i++ {
		if g[i] == '.' {
			return len(g) > 7 && g[len(g)-7:] == ".k8s.io"
		}
	}
	return true
}
