package findings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the -o values Write accepts.
var Formats = []string{"text", "json", "sarif"}

// CheckFormat returns an error for an -o value Write does not accept.
func CheckFormat(format string) error {
	for _, f := range Formats {
		if f == format {
			return nil
		}
	}
	n := len(Formats)
	return fmt.Errorf("-o %q: want %s or %s", format, strings.Join(Formats[:n-1], ", "), Formats[n-1])
}

// Write writes the reports in a format of Formats: text (WriteText for
// each), json (WriteJSON) or sarif (WriteSARIF with the registry's rules).
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
	case "sarif":
		return WriteSARIF(w, reg.Rules(), reports...)
	}
	return CheckFormat(format)
}

// WriteText writes one line per finding, FILE:LINE: severity: [OBJECT: ]
// message [RULE] (with "(with CONFIG)" after the message for a finding
// found with another Config than Report.Default, and the Hint indented on
// the next line), then a summary line: NAME: no problems found, or NAME: N
// errors, M warnings.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		msg := f.text()
		if f.Config != "" && f.Config != r.Default && f.File != f.Config {
			msg += " (with " + f.Config + ")"
		}
		fmt.Fprintf(&b, "%s: %s: %s [%s]\n", r.Location(f), f.Severity, msg, f.Rule)
		if f.Hint != "" {
			fmt.Fprintf(&b, "    fix: %s\n", f.Hint)
		}
	}
	b.WriteString(Summary(r))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is the last line of text output: NAME: no problems found, or
// NAME: N errors, M warnings (", K infos" when there are infos; "no
// problems found, K infos" when there is nothing else).
func Summary(r *Report) string {
	e, wn, in := Count(r.Findings)
	infos := ""
	if in > 0 {
		infos = ", " + plural(in, "info")
	}
	if e == 0 && wn == 0 {
		return r.Name + ": no problems found" + infos
	}
	return fmt.Sprintf("%s: %s, %s%s", r.Name, plural(e, "error"), plural(wn, "warning"), infos)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// WriteJSON writes one report as an indented JSON object, {"<Kind>":
// Name, "errors": N, "warnings": N, "findings": [...]} ("infos": N after
// "warnings" when there are infos), or several as a list of such objects.
// Findings keep their own (chart-relative) File.
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
	parts := []part{{kind, r.Name}, {"errors", e}, {"warnings", wn}}
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
	b.WriteByte('}')
	return nil
}
