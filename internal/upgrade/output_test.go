package upgrade

import (
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// An acknowledged state (a pin --allow-k8s-change lets go) is a note: it
// is counted apart from warnings and never makes the upgrade unsafe.
func TestVerdict(t *testing.T) {
	f := func(rule string) findings.Finding {
		r, ok := Registry.Lookup(rule)
		if !ok {
			t.Fatalf("no rule %s", rule)
		}
		return findings.Finding{Rule: rule, Severity: r.Severity}
	}
	for _, tc := range []struct {
		findings []findings.Finding
		want     string
	}{
		{nil, "no hazards"},
		{[]findings.Finding{f(rulePinAllowed)}, "no hazards, 1 info"},
		{[]findings.Finding{f(rulePinAllowed), f(ruleProviderChange)}, "no hazards, 1 warning, 1 info"},
		{[]findings.Finding{f(rulePinned), f(ruleProviderChange)}, "1 hazard, 1 warning: the upgrade is not safe"},
	} {
		r := &Report{Findings: tc.findings}
		if got := Verdict(r); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.findings, got, tc.want)
		}
	}
	if r, _ := Registry.Lookup(rulePinAllowed); r.Severity != findings.Info {
		t.Errorf("%s is %s, want info", rulePinAllowed, r.Severity)
	}
}

// Without a ClusterDeployment the report says whose name it rendered under.
func TestWriteTextAssumedDeployment(t *testing.T) {
	for _, tc := range []struct {
		assumed bool
		want    string
	}{
		{true, "Upgrade of ClusterDeployment kcm-system/render-test (none given: rendered as kbook template render does)\n"},
		{false, "Upgrade of ClusterDeployment kcm-system/render-test\n"},
	} {
		var sb strings.Builder
		WriteText(&sb, &Report{Deployment: "kcm-system/render-test", DeploymentAssumed: tc.assumed, KCM: KCMVerdict{Accepts: true, Checked: true}})
		if first, _, _ := strings.Cut(sb.String(), "  from"); first != tc.want {
			t.Errorf("assumed %v: %q, want %q", tc.assumed, first, tc.want)
		}
	}
}
