package chain

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubeversion"
)

// Options are kbook chain validate's (Check), and tune Validate.
type Options struct {
	// Paths are the files and folders Check loads (Validate is given
	// them loaded).
	Paths []string
	// SystemNamespace is kcm's system namespace (k0rdent.SystemNamespace
	// when empty).
	SystemNamespace string
}

// Verdict is what kcm does with a chain.
type Verdict struct {
	// Accepted reports whether kcm's webhook admits the chain.
	Accepted bool `json:"accepted"`
	// Says is kcm's answer: the webhook's error and warnings, or, when it
	// admits the chain, what it offers.
	Says string `json:"says,omitempty"`
	// Offers maps each supported template to the upgrades kcm lists in
	// status.availableUpgrades of a ClusterDeployment using it (direct
	// entries only, sorted; chain validity is ignored).
	Offers map[string][]string `json:"offers"`
}

// ChainResult is one chain and kcm's verdict on it.
type ChainResult struct {
	*Chain
	KCM Verdict `json:"kcm"`
	// Hops are the upgrades with what kbook knows of both ends.
	Hops []Hop `json:"hops"`
}

// Hop is one upgrade of a chain.
type Hop struct {
	From        string `json:"from"`
	To          string `json:"to"`
	FromVersion string `json:"fromVersion,omitempty"`
	ToVersion   string `json:"toVersion,omitempty"`
	FromK8s     string `json:"fromK8s,omitempty"`
	ToK8s       string `json:"toK8s,omitempty"`
}

// Result is what Validate found.
type Result struct {
	Chains    []*ChainResult `json:"chains"`
	Templates []*Template    `json:"templates"`
	// Findings are written by findings.Write (Report), beside the rest.
	Findings []findings.Finding `json:"-"`
}

// Validate checks the chains in the inputs against kcm's rules and kbook's.
func Validate(in *Inputs, opts Options) *Result {
	sys := cmp.Or(opts.SystemNamespace, k0rdent.SystemNamespace)
	res := &Result{Templates: in.Templates, Findings: []findings.Finding{}}
	offers := offersByNamespace(in.Chains)
	for _, c := range in.Chains {
		v := &validation{chain: c, in: in, sys: sys}
		cr := &ChainResult{Chain: c}
		v.kcmChecks(cr)
		cr.KCM.Offers = map[string][]string{}
		for _, s := range c.Supported {
			cr.KCM.Offers[s.Name] = offers[offerKey{c.Kind, c.Namespace, s.Name}]
		}
		cr.Hops = v.hops()
		v.graphChecks()
		v.hopChecks(cr.Hops)
		res.Chains = append(res.Chains, cr)
		res.Findings = append(res.Findings, v.findings...)
	}
	res.Findings = Registry.Finish(res.Findings, nil)
	return res
}

type offerKey struct{ kind, namespace, name string }

// offersByNamespace is setAvailableUpgrades: the direct upgrades of a
// template, from every chain of its namespace that lists it.
func offersByNamespace(chains []*Chain) map[offerKey][]string {
	out := map[offerKey][]string{}
	for _, c := range chains {
		for _, s := range c.Supported {
			k := offerKey{c.Kind, c.Namespace, s.Name}
			for _, u := range s.Upgrades {
				if !slices.Contains(out[k], u.Name) {
					out[k] = append(out[k], u.Name)
				}
			}
			slices.Sort(out[k])
			if out[k] == nil {
				out[k] = []string{}
			}
		}
	}
	return out
}

type validation struct {
	chain    *Chain
	in       *Inputs
	sys      string
	findings []findings.Finding
}

func (v *validation) add(rule string, line int, msg, kcm string) {
	v.findings = append(v.findings, findings.Finding{
		// No Object: the messages name the templates, FILE:LINE the chain.
		Rule: rule, Message: msg, File: v.chain.File, Line: line, KCM: kcm,
	})
}

// kcmChecks are kcm's: TemplateChainSpec.IsValid, then the webhook's
// existence check, and the API server's list-map uniqueness.
func (v *validation) kcmChecks(cr *ChainResult) {
	c := v.chain
	supported := map[string]bool{}
	seen := map[string]int{}
	var dups []string
	for i, s := range c.Supported {
		supported[s.Name] = true
		if j, dup := seen[s.Name]; dup {
			e := fmt.Sprintf("spec.supportedTemplates[%d]: Duplicate value: {\"name\":%q}", i, s.Name)
			dups = append(dups, e)
			v.add(ruleDuplicate, s.Line, fmt.Sprintf("%s is listed twice in spec.supportedTemplates (entries %d and %d): the API server rejects the chain (the list is keyed by name)", s.Name, j, i), e)
		} else {
			seen[s.Name] = i
		}
	}
	if len(dups) > 0 {
		cr.KCM.Says = fmt.Sprintf("the API server rejects the chain: %s.%s %q is invalid: %s", c.Kind, k0rdent.Group, c.Name, strings.Join(dups, ", "))
		return
	}
	var warnings []string
	reported := map[string]bool{}
	for _, s := range c.Supported {
		for _, u := range s.Upgrades {
			if supported[u.Name] || reported[u.Name] {
				continue
			}
			reported[u.Name] = true
			w := fmt.Sprintf("template %s is allowed for upgrade but is not present in the list of '.spec.supportedTemplates'", u.Name)
			warnings = append(warnings, w)
			v.add(ruleTargetNotSupported, u.Line, fmt.Sprintf("upgrade target %s (from %s) is not among spec.supportedTemplates: add it there, or kcm rejects the chain", u.Name, s.Name), w)
		}
	}
	for _, s := range c.Supported {
		if len(s.Upgrades) == 0 {
			continue
		}
		has := s.Upgrades[0].Version != ""
		for _, u := range s.Upgrades[1:] {
			if (u.Version != "") != has {
				w := fmt.Sprintf("template %s has mixed version/no-version available upgrades: either all or none should have version set", s.Name)
				warnings = append(warnings, w)
				v.add(ruleMixedVersions, s.Line, fmt.Sprintf("the upgrades of %s set a version on some entries only (%s): set it on all or none, or kcm rejects the chain", s.Name, describeVersions(s.Upgrades)), w)
				break
			}
		}
	}
	slices.Sort(warnings)
	if len(warnings) > 0 {
		cr.KCM.Says = "the webhook denies the chain: the template chain spec is invalid (warnings: " + strings.Join(warnings, "; ") + "); created without the webhook, its status is valid=false, validationError=" + strings.Join(warnings, ";")
		return
	}
	// The webhook's existence check, for chains it validates, when kbook
	// was given the templates of that kind.
	known := v.knownTemplates()
	if known != nil && (!c.Managed || c.Namespace == v.sys) {
		var errs []string
		for i, s := range c.Supported {
			if _, ok := known[s.Name]; ok {
				continue
			}
			e := fmt.Sprintf("spec.supportedTemplates[%d].name: Not found: %q", i, s.Name)
			errs = append(errs, e)
			v.add(ruleTemplateNotFound, s.Line, fmt.Sprintf("%s %s is not among the templates given: kcm's webhook rejects a chain whose supported templates do not exist in its namespace", templateKindOf[c.Kind], s.Name), e)
		}
		if len(errs) > 0 {
			cr.KCM.Says = fmt.Sprintf("the webhook denies the chain: %s.%s %q is invalid: [%s]", c.Kind, k0rdent.Group, c.Name, strings.Join(errs, ", "))
			return
		}
	}
	cr.KCM.Accepted = true
	cr.KCM.Says = "accepts the chain (status valid=true)"
}

func describeVersions(ups []Upgrade) string {
	var parts []string
	for _, u := range ups {
		if u.Version != "" {
			parts = append(parts, u.Name+" version "+u.Version)
		} else {
			parts = append(parts, u.Name+" without")
		}
	}
	return strings.Join(parts, ", ")
}

// knownTemplates returns the templates given whose kind matches the chain
// (chart folders match either kind) and namespace (when both say), or nil
// when none were given.
func (v *validation) knownTemplates() map[string]*Template {
	if len(v.in.Templates) == 0 {
		return nil
	}
	out := map[string]*Template{}
	for _, t := range v.in.Templates {
		if t.Kind != "" && t.Kind != templateKindOf[v.chain.Kind] {
			continue
		}
		if t.Namespace != "" && v.chain.Namespace != "" && t.Namespace != v.chain.Namespace {
			continue
		}
		out[t.Name] = t
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// versionedName is kcm's template naming, <chart>-<major>-<minor>-<patch>.
var versionedName = regexp.MustCompile(`^(.+)-(\d+)-(\d+)-(\d+)$`)

// endpoint is what kbook knows of one end of a hop.
type endpoint struct {
	chart   string
	version *semver.Version
	from    string // where the version came from
	k8s     kubeversion.Version
}

func (v *validation) endpoint(name, upgradeVersion string) endpoint {
	var e endpoint
	if t := v.knownTemplates()[name]; t != nil {
		e.chart = t.ChartName
		if sv, err := semver.NewVersion(t.ChartVersion); err == nil {
			e.version, e.from = sv, "chart"
		}
		e.k8s = t.K8s.Version
	}
	if e.version == nil && upgradeVersion != "" {
		if sv, err := semver.NewVersion(upgradeVersion); err == nil {
			e.version, e.from = sv, "availableUpgrades version"
		}
	}
	if m := versionedName.FindStringSubmatch(name); m != nil {
		if e.chart == "" {
			e.chart = m[1]
		}
		if e.version == nil {
			if sv, err := semver.NewVersion(m[2] + "." + m[3] + "." + m[4]); err == nil {
				e.version, e.from = sv, "name"
			}
		}
	}
	return e
}

func (v *validation) hops() []Hop {
	var out []Hop
	for _, s := range v.chain.Supported {
		from := v.endpoint(s.Name, "")
		for _, u := range s.Upgrades {
			to := v.endpoint(u.Name, u.Version)
			h := Hop{From: s.Name, To: u.Name, FromK8s: from.k8s.String(), ToK8s: to.k8s.String()}
			if from.version != nil {
				h.FromVersion = from.version.String()
			}
			if to.version != nil {
				h.ToVersion = to.version.String()
			}
			out = append(out, h)
		}
	}
	return out
}

// hopChecks look at each upgrade: version mismatch, downgrade, chart
// change, Kubernetes skew.
func (v *validation) hopChecks([]Hop) {
	for _, s := range v.chain.Supported {
		from := v.endpoint(s.Name, "")
		for _, u := range s.Upgrades {
			if u.Name == s.Name {
				continue // a cycle of one, reported as such
			}
			to := v.endpoint(u.Name, "")
			if t := v.knownTemplates()[u.Name]; t != nil && u.Version != "" && t.ChartVersion != "" {
				uv, err1 := semver.NewVersion(u.Version)
				tv, err2 := semver.NewVersion(t.ChartVersion)
				if err1 != nil || err2 != nil || !uv.Equal(tv) {
					v.add(ruleVersionMismatch, u.Line, fmt.Sprintf("the upgrade %s → %s says version %s but %s is chart %s %s (%s)", s.Name, u.Name, u.Version, u.Name, t.ChartName, t.ChartVersion, t.File), "")
				}
			}
			if to.version == nil && u.Version != "" {
				to = v.endpoint(u.Name, u.Version)
			}
			hop := s.Name + " → " + u.Name
			var down []string
			switch {
			case from.chart != "" && to.chart != "" && from.chart != to.chart:
				v.add(ruleChartChange, u.Line, fmt.Sprintf("%s changes the chart from %s to %s: Flux uninstalls the cluster's Helm release and installs the new chart, which deletes and recreates the objects the old chart made (kcm only warns: HelmChartNameChanged)", hop, from.chart, to.chart), "")
			case from.version != nil && to.version != nil && to.version.LessThan(from.version):
				msg := fmt.Sprintf("chart version %s to %s", from.version, to.version)
				if from.from == "name" && to.from == "name" {
					// No template or chart given: kcm's naming is all there is.
					msg += " (read from the template names; give the templates or charts to check their versions)"
				}
				down = append(down, msg)
			}
			for _, p := range kubeversion.CheckUpgrade(from.k8s, to.k8s) {
				if p.Rule == kubeversion.RuleMinorSkip {
					v.add(ruleK8sSkip, u.Line, hop+": "+p.Message, "")
					continue
				}
				down = append(down, p.Message)
			}
			if len(down) > 0 {
				v.add(ruleDowngrade, u.Line, fmt.Sprintf("%s is a downgrade: %s", hop, strings.Join(down, "; ")), "")
			}
		}
	}
}

// graphChecks find cycles and templates nothing upgrades to.
func (v *validation) graphChecks() {
	c := v.chain
	edges := map[string][]Upgrade{}
	line := map[string]int{}
	var names []string
	for _, s := range c.Supported {
		if _, dup := line[s.Name]; dup {
			continue
		}
		names = append(names, s.Name)
		line[s.Name] = s.Line
		edges[s.Name] = s.Upgrades
	}
	// Cycles: a depth-first search; each cycle once, starting at its
	// smallest name.
	seen := map[string]bool{}
	const (
		unvisited = iota
		onStack
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(n string)
	visit = func(n string) {
		state[n] = onStack
		stack = append(stack, n)
		for _, u := range edges[n] {
			if _, ok := line[u.Name]; !ok {
				continue
			}
			switch state[u.Name] {
			case unvisited:
				visit(u.Name)
			case onStack:
				i := slices.Index(stack, u.Name)
				cyc := slices.Clone(stack[i:])
				cyc = rotate(cyc)
				key := strings.Join(cyc, "\x00")
				if !seen[key] {
					seen[key] = true
					path := strings.Join(append(cyc, cyc[0]), " → ")
					v.add(ruleCycle, u.Line, fmt.Sprintf("upgrade cycle %s: a cluster can be moved back to a template it left (kcm finds no cycles; it skips visited templates when it computes upgrade paths)", path), "")
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
	}
	for _, n := range names {
		if state[n] == unvisited {
			visit(n)
		}
	}
	if len(names) < 2 {
		return
	}
	incoming := map[string]bool{}
	for _, n := range names {
		for _, u := range edges[n] {
			if u.Name != n {
				incoming[u.Name] = true
			}
		}
	}
	for _, n := range names {
		if incoming[n] {
			continue
		}
		if len(edges[n]) == 0 {
			v.add(ruleUnreachable, line[n], fmt.Sprintf("%s is in the chain but no template upgrades to it and it upgrades to none: clusters can neither reach nor leave it through this chain", n), "")
			continue
		}
		self := v.endpoint(n, "")
		if self.version == nil {
			continue
		}
		for _, m := range names {
			other := v.endpoint(m, "")
			if m != n && other.version != nil && other.chart == self.chart && other.version.LessThan(self.version) {
				v.add(ruleUnreachable, line[n], fmt.Sprintf("no template upgrades to %s: clusters on the older %s (%s %s) can never reach it", n, m, other.chart, other.version), "")
				break
			}
		}
	}
}

// rotate starts a cycle at its smallest name, so that each cycle is
// reported once and the same way.
func rotate(cyc []string) []string {
	i := slices.Index(cyc, slices.Min(cyc))
	return append(slices.Clone(cyc[i:]), cyc[:i]...)
}
