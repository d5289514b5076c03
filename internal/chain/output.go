package chain

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// WriteText writes, for each chain, kcm's verdict and its upgrades with
// their versions, then one line per finding (FILE:LINE: severity: message
// [RULE], and what kcm says when it says something), then a summary.
func WriteText(w io.Writer, r *Result) {
	for _, c := range r.Chains {
		fmt.Fprintf(w, "%s %s (%s:%d)\n", c.Kind, c.Name, c.File, c.Line)
		fmt.Fprintf(w, "  kcm: %s\n", c.KCM.Says)
		for _, h := range c.Hops {
			fmt.Fprintf(w, "  %s%s → %s%s\n", h.From, describe(h.FromVersion, h.FromK8s), h.To, describe(h.ToVersion, h.ToK8s))
		}
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%s: %s: %s [%s]\n", (&findings.Report{}).Location(f.Finding), f.Severity, f.Message, f.Rule)
		if f.KCM != "" {
			fmt.Fprintf(w, "    kcm says: %s\n", f.KCM)
		}
	}
	fmt.Fprintln(w, Summary(r))
}

func describe(version, k8s string) string {
	var parts []string
	if version != "" {
		parts = append(parts, version)
	}
	if k8s != "" {
		parts = append(parts, "Kubernetes "+k8s)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// Summary is the last line of the text output.
func Summary(r *Result) string {
	chains := plural(len(r.Chains), "chain")
	e, wn := r.Errors(), r.Warnings()
	if e == 0 && wn == 0 {
		return chains + ": no problems found"
	}
	return fmt.Sprintf("%s: %s, %s", chains, plural(e, "error"), plural(wn, "warning"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

type jsonResult struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	*Result
}

// WriteJSON writes the result as one JSON document.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if r.Templates == nil {
		r.Templates = []*Template{}
	}
	if r.Chains == nil {
		r.Chains = []*ChainResult{}
	}
	return enc.Encode(jsonResult{r.Errors(), r.Warnings(), r})
}
