package chain

import (
	"fmt"
	"io"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/plural"
)

// Report is the result as findings.Write writes it: for text, each
// chain's kcm verdict and upgrades with their versions before the
// findings (FILE:LINE: severity: message [RULE], and what kcm says), then
// "N chains: ..."; for JSON, the chains and templates after the findings.
func (r *Result) Report() *findings.Report {
	if r.Templates == nil {
		r.Templates = []*Template{}
	}
	if r.Chains == nil {
		r.Chains = []*ChainResult{}
	}
	return &findings.Report{Findings: r.Findings, Detail: detail{r}}
}

type detail struct{ *Result }

func (d detail) Head(w io.Writer) {
	for _, c := range d.Chains {
		fmt.Fprintf(w, "%s %s (%s:%d)\n", c.Kind, c.Name, c.File, c.Line)
		fmt.Fprintf(w, "  kcm: %s\n", c.KCM.Says)
		for _, h := range c.Hops {
			fmt.Fprintf(w, "  %s%s → %s%s\n", h.From, describe(h.FromVersion, h.FromK8s), h.To, describe(h.ToVersion, h.ToK8s))
		}
	}
}

func (detail) Tail(io.Writer) {}

func (d detail) Summary(errors, warnings, infos int) string {
	return plural.Count(len(d.Chains), "chain") + ": " + findings.Tally(errors, warnings, infos)
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
