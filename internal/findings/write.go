package findings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/plural"
	sigsyaml "sigs.k8s.io/yaml"
)

// Formats are the -o values Write accepts: output's (text, json, yaml),
// and sarif.
var Formats = append(slices.Clone(output.Formats), "sarif")

// CheckFormat returns an error for an -o value Write does not accept.
func CheckFormat(format string) error {
	return CheckOutput(format, Formats...)
}

// CheckOutput returns an error for an -o value that is not one of
// formats: -o "xml": want text, json, yaml or sarif. Every command's -o flag is
// checked with it.
func CheckOutput(value string, formats ...string) error {
	if slices.Contains(formats, value) {
		return nil
	}
	return fmt.Errorf("-o %q: want %s", value, OneOf(formats))
}

// Output is the value of a command's -o flag (a pflag.Value): Set accepts
// one of its formats only, so that a bad -o is refused as the flag is
// parsed, before anything runs.
type Output struct {
	p       *string
	formats []string
}

// NewOutput sets *p to the first of formats, the default, and returns the
// flag value that sets it to one of them.
func NewOutput(p *string, formats ...string) *Output {
	*p = formats[0]
	return &Output{p, formats}
}

func (o *Output) String() string { return *o.p }

// Choices are the formats Set accepts, the default first: the shell
// completes the flag with them (package cli).
func (o *Output) Choices() []string { return o.formats }

// Type is the value's type in the flag's help: string.
func (o *Output) Type() string { return "string" }

// Set sets the format s, if it is one of the value's; pflag puts the flag
// and s before its error: invalid argument "xml" for "-o, --output" flag:
// want text, json, yaml or sarif.
func (o *Output) Set(s string) error {
	if !slices.Contains(o.formats, s) {
		return errors.New("want " + OneOf(o.formats))
	}
	*o.p = s
	return nil
}

// Usage is the flag's help text: "output format: text, json, yaml or sarif".
func (o *Output) Usage() string { return "output format: " + OneOf(o.formats) }

// OneOf words a list of choices: "a", "a or b", "a, b or c".
func OneOf(choices []string) string {
	n := len(choices)
	if n < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:n-1], ", ") + " or " + choices[n-1]
}

// Write writes the reports in a format of Formats: text (WriteText for
// each), json (WriteJSON), yaml (WriteJSON's fields as YAML) or sarif
// (WriteSARIF with the registry's rules).
func Write(w io.Writer, format string, reg *Registry, reports ...*Report) error {
	switch format {
	case "text":
		for _, r := range reports {
			if err := WriteText(w, r); err != nil {
				return err
			}
		}
		return nil
	case "json":
		return WriteJSON(w, reports...)
	case "yaml":
		var b bytes.Buffer
		if err := WriteJSON(&b, reports...); err != nil {
			return err
		}
		data, err := sigsyaml.JSONToYAML(b.Bytes())
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case "sarif":
		return WriteSARIF(w, reg.Rules(), reports...)
	}
	return CheckFormat(format)
}

// WriteText writes the Detail's Head, then one line per finding,
// FILE:LINE: severity: [OBJECT: ]message [RULE] (with "(with CONFIG)"
// after the message for a finding found with another Config than
// Report.Default, the Hint indented on the next line and what kcm says on
// the one after), then the Detail's Tail and a summary line: NAME: no
// problems found, or NAME: N errors, M warnings (or the Detail's
// Summary).
//
// On a terminal (output.Color) the severities and the summary are
// coloured: errors red, warnings yellow, no problems green.
func WriteText(w io.Writer, r *Report) error {
	p := output.Colors(w)
	var b strings.Builder
	if r.Detail != nil {
		r.Detail.Head(&b)
	}
	for _, f := range r.Findings {
		msg := f.text()
		if f.Config != "" && f.Config != r.Default && f.File != f.Config {
			msg += " (with " + f.Config + ")"
		}
		if loc := r.Location(f); loc != "" {
			b.WriteString(loc + ": ")
		}
		fmt.Fprintf(&b, "%s: %s [%s]\n", color(p, f.Severity)(string(f.Severity)), msg, f.Rule)
		if f.Hint != "" {
			fmt.Fprintf(&b, "    fix: %s\n", f.Hint)
		}
		if f.KCM != "" {
			fmt.Fprintf(&b, "    kcm says: %s\n", f.KCM)
		}
	}
	if r.Detail != nil {
		r.Detail.Tail(&b)
	}
	summary := p.Good
	if e, wn, _ := Count(r.Findings); e > 0 {
		summary = p.Bad
	} else if wn > 0 {
		summary = p.Warn
	}
	b.WriteString(summary(Summary(r)))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// color is how p colours a word of severity sev: errors red, warnings
// yellow, infos as they are.
func color(p output.Palette, sev Severity) func(string) string {
	switch sev {
	case Error:
		return p.Bad
	case Warning:
		return p.Warn
	}
	return func(s string) string { return s }
}

// Summary is the last line of text output: the Detail's Summary, else
// NAME: Tally.
func Summary(r *Report) string {
	e, wn, in := Count(r.Findings)
	if r.Detail != nil {
		return r.Detail.Summary(e, wn, in)
	}
	return r.Name + ": " + Tally(e, wn, in)
}

// Tally words counts as summaries do: "no problems found", or "N errors,
// M warnings" (", K infos" when there are infos; "no problems found, K
// infos" when there is nothing else).
func Tally(errors, warnings, infos int) string {
	s := ""
	if infos > 0 {
		s = ", " + plural.Count(infos, "info")
	}
	if errors == 0 && warnings == 0 {
		return "no problems found" + s
	}
	return plural.Count(errors, "error") + ", " + plural.Count(warnings, "warning") + s
}

// WriteJSON writes one report as an indented JSON object, {"<Kind>":
// Name, "errors": N, "warnings": N, "findings": [...]} ("infos": N after
// "warnings" when there are infos; no Kind key when Name is empty; the
// Detail's fields after "findings"), or several as a list of such
// objects. Findings keep their own (chart-relative) File.
func WriteJSON(w io.Writer, reports ...*Report) error {
	var b bytes.Buffer
	if len(reports) != 1 {
		b.WriteString("[")
	}
	for i, r := range reports {
		if i > 0 {
			b.WriteString(",")
		}
		if err := r.marshalJSON(&b); err != nil {
			return err
		}
	}
	if len(reports) != 1 {
		b.WriteString("]")
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}

// marshalJSON writes the report's JSON with its keys in a fixed order.
func (r *Report) marshalJSON(b *bytes.Buffer) error {
	kind := r.Kind
	if kind == "" {
		kind = "name"
	}
	fs := r.Findings
	if fs == nil {
		fs = []Finding{}
	}
	e, wn, in := Count(fs)
	type part struct {
		key string
		v   any
	}
	var parts []part
	if r.Name != "" {
		parts = append(parts, part{kind, r.Name})
	}
	parts = append(parts, part{"errors", e}, part{"warnings", wn})
	if in > 0 {
		parts = append(parts, part{"infos", in})
	}
	parts = append(parts, part{"findings", fs})
	b.WriteByte('{')
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.key)
		v, err := json.Marshal(p.v)
		if err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if r.Detail != nil {
		v, err := json.Marshal(r.Detail)
		if err != nil {
			return err
		}
		v = bytes.TrimSpace(v)
		if len(v) < 2 || v[0] != '{' {
			return fmt.Errorf("findings: the detail of %q is no JSON object", r.Name)
		}
		if inner := bytes.TrimSpace(v[1 : len(v)-1]); len(inner) > 0 {
			b.WriteByte(',')
			b.Write(inner)
		}
	}
	b.WriteByte('}')
	return nil
}
