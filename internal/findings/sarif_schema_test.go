package findings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The SARIF 2.1.0 JSON schema (oasis-tcs/sarif-spec,
// sarif-2.1/schema/sarif-schema-2.1.0.json) is published under the OASIS
// IPR policy, not a licence that lets kbook ship a copy, so its
// constraints on what kbook writes are transcribed here: for each object,
// the properties the schema defines that kbook uses (every object but a
// property bag has additionalProperties false, so any other key fails),
// the required ones, enums and minimums.
type sarifShape struct {
	required []string
	props    map[string]sarifProp
	// anyOfRequired: at least one of these (message: text or id).
	anyOfRequired []string
	bag           bool // a propertyBag: any keys
}

type sarifProp struct {
	kind  string // "string", "int", "object", "array", "uri"
	of    string // the shape of an object, or of an array's items
	enum  []string
	min   int
	hasMn bool
}

var sarifSchema = map[string]sarifShape{
	"sarifLog": {required: []string{"version", "runs"}, props: map[string]sarifProp{
		"$schema": {kind: "uri"}, "version": {kind: "string", enum: []string{"2.1.0"}}, "runs": {kind: "array", of: "run"}}},
	"run": {required: []string{"tool"}, props: map[string]sarifProp{
		"tool": {kind: "object", of: "tool"}, "results": {kind: "array", of: "result"}}},
	"tool": {required: []string{"driver"}, props: map[string]sarifProp{"driver": {kind: "object", of: "toolComponent"}}},
	"toolComponent": {required: []string{"name"}, props: map[string]sarifProp{
		"name": {kind: "string"}, "version": {kind: "string"}, "informationUri": {kind: "uri"},
		"rules": {kind: "array", of: "reportingDescriptor"}}},
	"reportingDescriptor": {required: []string{"id"}, props: map[string]sarifProp{
		"id": {kind: "string"}, "name": {kind: "string"},
		"shortDescription": {kind: "object", of: "multiformatMessageString"}, "fullDescription": {kind: "object", of: "multiformatMessageString"},
		"help": {kind: "object", of: "multiformatMessageString"}, "defaultConfiguration": {kind: "object", of: "reportingConfiguration"},
		"properties": {kind: "object", of: "propertyBag"}}},
	"multiformatMessageString": {required: []string{"text"}, props: map[string]sarifProp{"text": {kind: "string"}, "markdown": {kind: "string"}}},
	"reportingConfiguration":   {props: map[string]sarifProp{"level": {kind: "string", enum: []string{"none", "note", "warning", "error"}}}},
	"result": {required: []string{"message"}, props: map[string]sarifProp{
		"ruleId": {kind: "string"}, "ruleIndex": {kind: "int", min: -1, hasMn: true},
		"level":   {kind: "string", enum: []string{"none", "note", "warning", "error"}},
		"message": {kind: "object", of: "message"}, "locations": {kind: "array", of: "location"},
		"properties": {kind: "object", of: "propertyBag"}}},
	"message":          {anyOfRequired: []string{"text", "id"}, props: map[string]sarifProp{"text": {kind: "string"}, "id": {kind: "string"}}},
	"location":         {props: map[string]sarifProp{"physicalLocation": {kind: "object", of: "physicalLocation"}}},
	"physicalLocation": {props: map[string]sarifProp{"artifactLocation": {kind: "object", of: "artifactLocation"}, "region": {kind: "object", of: "region"}}},
	"artifactLocation": {props: map[string]sarifProp{"uri": {kind: "uri"}}},
	"region":           {props: map[string]sarifProp{"startLine": {kind: "int", min: 1, hasMn: true}}},
	"propertyBag":      {bag: true},
}

// checkSARIF returns every way doc breaks the schema's constraints above.
func checkSARIF(doc []byte) []string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return []string{"more than one JSON value"}
	}
	var errs []string
	var walk func(path, shape string, v any)
	walk = func(path, shape string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: want a %s object", path, shape))
			return
		}
		s := sarifSchema[shape]
		if s.bag {
			return
		}
		for _, r := range s.required {
			if _, ok := obj[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: %s is required", path, r))
			}
		}
		if len(s.anyOfRequired) > 0 && !slices.ContainsFunc(s.anyOfRequired, func(k string) bool { _, ok := obj[k]; return ok }) {
			errs = append(errs, fmt.Sprintf("%s: one of %v is required", path, s.anyOfRequired))
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p, ok := s.props[k]
			at := path + "." + k
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: not a property of %s (additionalProperties false)", at, shape))
				continue
			}
			val := obj[k]
			switch p.kind {
			case "string", "uri":
				str, ok := val.(string)
				switch {
				case !ok:
					errs = append(errs, at+": want a string")
				case p.enum != nil && !slices.Contains(p.enum, str):
					errs = append(errs, fmt.Sprintf("%s: %q not one of %v", at, str, p.enum))
				case p.kind == "uri" && strings.ContainsAny(str, " \\"):
					errs = append(errs, fmt.Sprintf("%s: %q is no uri-reference", at, str))
				}
			case "int":
				n, ok := val.(json.Number)
				i, err := n.Int64()
				if !ok || err != nil {
					errs = append(errs, at+": want an integer")
				} else if p.hasMn && i < int64(p.min) {
					errs = append(errs, fmt.Sprintf("%s: %d below the minimum %d", at, i, p.min))
				}
			case "object":
				walk(at, p.of, val)
			case "array":
				items, ok := val.([]any)
				if !ok {
					errs = append(errs, at+": want an array")
					continue
				}
				for i, it := range items {
					walk(fmt.Sprintf("%s[%d]", at, i), p.of, it)
				}
			}
		}
	}
	walk("$", "sarifLog", v)
	return errs
}

// Every way kbook writes SARIF meets the schema: findings with positions
// and properties, what kcm says, findings with no file nor report name
// (upgrade check's), and a report with a Detail.
func TestSARIFSchema(t *testing.T) {
	noName := &Report{Findings: []Finding{{Rule: "TST001", Severity: Error, Message: "no place", KCM: "kcm: denied"}}, Detail: testDetail{}}
	for name, reports := range map[string][]*Report{
		"report":       {testReport()},
		"no location":  {noName},
		"several":      {testReport(), noName},
		"no findings":  {{Name: "x"}},
		"unknown rule": {{Name: "x", Findings: []Finding{{Rule: "policy-1", Severity: Warning, Message: "m", File: "a b/c.yaml", Line: 2}}}},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, "sarif", testRegistry, reports...); err != nil {
			t.Fatal(err)
		}
		for _, e := range checkSARIF(buf.Bytes()) {
			t.Errorf("%s: %s", name, e)
		}
	}
	// The checker catches what the schema forbids.
	for _, bad := range []string{
		`{"version":"2.1.0"}`,
		`{"version":"2.0.0","runs":[]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{}}}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"k"}},"results":[{"message":{},"level":"info"}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"k"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"region":{"startLine":0}}}]}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"k"}},"extra":1}]}`,
	} {
		if len(checkSARIF([]byte(bad))) == 0 {
			t.Errorf("%s passes", bad)
		}
	}
}

type testDetail struct{}

func (testDetail) Head(w io.Writer)             { fmt.Fprintln(w, "head") }
func (testDetail) Tail(w io.Writer)             { fmt.Fprintln(w, "tail") }
func (testDetail) Summary(e, w, i int) string   { return fmt.Sprintf("%d/%d/%d", e, w, i) }
func (testDetail) MarshalJSON() ([]byte, error) { return []byte(`{"extra": true}`), nil }
