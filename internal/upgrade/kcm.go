package upgrade

import (
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/findings"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubeversion"
)

// kcmConfigCheck is what kcm does with a config the new template rejects
// or cannot render: its webhook does not look at spec.config, so the
// change is accepted; its controller then renders the chart with the
// config (ClusterDeploymentReconciler.validateConfig, a client-only Helm
// dry-run install) and stops before it touches the HelmRelease.
const kcmConfigCheck = "accepts the new template (its webhook does not read spec.config), then HelmChartReady=False: failed to validate template with provided configuration - no Helm upgrade, the cluster stays on the current chart until spec.config is fixed"

// kcm predicts the answer of kcm's ClusterDeployment webhook to the new
// spec.template (ValidateUpdate), check by check in its order; the first
// error is what kcm answers, the later ones are what it would answer next.
func (c *checker) kcm() {
	v := &c.rep.KCM
	d := c.in.Deployment
	from, to := c.rep.From.Template, c.rep.To.Template
	var errs []string
	if d.Live {
		if !slices.Contains(d.AvailableUpgrades, to) {
			msg := fmt.Sprintf("Cluster can't be upgraded from %s to %s. This upgrade sequence is not allowed", from, to)
			errs = append(errs, "cluster upgrade is forbidden (warning: "+msg+")")
			offered := "none"
			if len(d.AvailableUpgrades) > 0 {
				offered = strings.Join(d.AvailableUpgrades, ", ")
			}
			c.add(findings.Finding{Rule: ruleNotAvailable, KCM: msg,
				Message: fmt.Sprintf("%s is not in the deployment's status.availableUpgrades (%s): kcm's webhook forbids the change; add the upgrade to a ClusterTemplateChain of namespace %s", to, offered, d.Namespace)})
		}
	} else {
		v.Unchecked = append(v.Unchecked, "status.availableUpgrades: kcm allows only the upgrades a ClusterTemplateChain of the namespace lists (check them with kbook chain validate, or check the live ClusterDeployment)")
	}
	if st := c.in.To.Status; st != nil && !st.Valid {
		msg := fmt.Sprintf("the ClusterDeployment is invalid: the ClusterTemplate %s/%s is invalid with the error: %s", d.Namespace, to, st.ValidationError)
		errs = append(errs, msg)
		c.add(findings.Finding{Rule: ruleTemplateInvalid, KCM: msg, Message: fmt.Sprintf("the ClusterTemplate %s is not valid (status.valid false): %s", to, st.ValidationError)})
	} else if st == nil {
		v.Unchecked = append(v.Unchecked, "the target ClusterTemplate's status.valid (kcm validates the chart once it is installed)")
	}
	if e := c.providerCompatibility(); e != "" {
		errs = append(errs, e)
	}
	if c.in.ExposureError != "" {
		errs = append(errs, c.in.ExposureError)
		c.add(findings.Finding{Rule: ruleProviders, KCM: c.in.ExposureError, Message: "kcm cannot check the providers the template needs: " + c.in.ExposureError})
	} else if c.in.Exposure == nil {
		v.Unchecked = append(v.Unchecked, "the providers and contracts the Management exposes (add the Management to --config, or check the live ClusterDeployment)")
	}
	if e := c.kcmK8sCompatibility(); e != "" {
		errs = append(errs, e)
	}
	v.Says = errs
	if v.Says == nil {
		v.Says = []string{}
	}
	v.Accepts = len(errs) == 0
	v.Checked = len(v.Unchecked) == 0
}

// templateProviders are the providers and contracts kcm computes for the
// target template: its status when live, else from the chart's
// annotations as kcm reads them (getProvidersList, getCAPIContracts).
func (c *checker) templateProviders() ([]string, map[string]string) {
	if st := c.in.To.Status; st != nil && (len(st.Providers) > 0 || len(st.Contracts) > 0) {
		return st.Providers, st.Contracts
	}
	return chartProviders(c.to.chart.Metadata.Annotations)
}

// chartProviders reads cluster.x-k8s.io/provider (comma-separated, trimmed,
// sorted, deduplicated) and the contract annotations of a ClusterTemplate
// chart (cluster.x-k8s.io/<bootstrap-|control-plane-|infrastructure-...>).
func chartProviders(ann map[string]string) ([]string, map[string]string) {
	var providers []string
	for _, p := range strings.Split(ann[k0rdent.ProviderLabel], ",") {
		if p = strings.TrimSpace(p); p != "" {
			providers = append(providers, p)
		}
	}
	slices.Sort(providers)
	providers = slices.Compact(providers)
	contracts := map[string]string{}
	for k, val := range ann {
		name, ok := strings.CutPrefix(k, k0rdent.ContractPrefix)
		if !ok {
			continue
		}
		if strings.HasPrefix(name, k0rdent.BootstrapProviderPrefix) || strings.HasPrefix(name, k0rdent.ControlPlaneProviderPrefix) || strings.HasPrefix(name, k0rdent.InfrastructureProviderPrefix) {
			contracts[name] = val
		}
	}
	return providers, contracts
}

// providerCompatibility is validateCompatibilityAttrs: required providers
// must be available; a pinned contract must be offered by a provider the
// parent reports contracts for.
func (c *checker) providerCompatibility() string {
	ex := c.in.Exposure
	if ex == nil {
		return ""
	}
	required, contracts := c.templateProviders()
	rep := &ProvidersReport{Parent: ex.Parent, Needed: []ProviderNeed{}}
	c.rep.Providers = rep
	var missing, nonSatisfying []string
	for _, p := range required {
		if !slices.Contains(ex.Providers, p) {
			missing = append(missing, p)
		}
	}
	for _, name := range sortedKeys(contracts) {
		exposed, ok := ex.Contracts[name]
		if !ok {
			continue
		}
		var offered []string
		for _, versions := range exposed {
			offered = append(offered, strings.Split(versions, "_")...)
		}
		if !slices.Contains(offered, contracts[name]) {
			nonSatisfying = append(nonSatisfying, "provider "+name+" does not support "+contracts[name])
		}
	}
	names := slices.Clone(required)
	for name := range contracts {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		n := ProviderNeed{Name: name, Contract: contracts[name], Exposed: slices.Contains(ex.Providers, name), Satisfied: true}
		for _, versions := range ex.Contracts[name] {
			for _, v := range strings.Split(versions, "_") {
				if !slices.Contains(n.Offered, v) {
					n.Offered = append(n.Offered, v)
				}
			}
		}
		slices.Sort(n.Offered)
		if _, ok := ex.Contracts[name]; ok && n.Contract != "" {
			// kcm checks a contract only for a provider it has contracts of.
			n.Satisfied = slices.Contains(n.Offered, n.Contract)
		}
		rep.Needed = append(rep.Needed, n)
	}
	var merr error
	if len(missing) > 0 {
		slices.Sort(missing)
		merr = errors.Join(merr, fmt.Errorf("one or more required providers are not deployed yet: %v", missing))
	}
	if len(nonSatisfying) > 0 {
		slices.Sort(nonSatisfying)
		merr = errors.Join(merr, fmt.Errorf("one or more required provider contract versions does not satisfy deployed: %v", nonSatisfying))
	}
	if merr == nil {
		return ""
	}
	msg := fmt.Sprintf("failed to validate required providers: incompatible providers in %s: %v", ex.Parent, merr)
	c.add(findings.Finding{Rule: ruleProviders, KCM: msg, Message: fmt.Sprintf("%s needs what %s does not expose: %s", c.rep.To.Template, ex.Parent, strings.ReplaceAll(merr.Error(), "\n", "; "))})
	return msg
}

// kcmK8sCompatibility is ClusterTemplateK8sCompatibility: with the
// template's declared version only, first failing service wins.
func (c *checker) kcmK8sCompatibility() string {
	to := c.rep.To.K8s
	if len(c.in.Deployment.Services) == 0 || !to.Declared {
		return ""
	}
	d := c.in.Deployment
	for _, name := range d.Services {
		if d.Live && c.service(name) == nil {
			msg := fmt.Sprintf("failed to validate k8s compatibility: failed to get ServiceTemplate %s/%s: servicetemplates.%s %q not found", d.Namespace, name, k0rdent.Group, name)
			c.add(findings.Finding{Rule: ruleServiceKCM, KCM: msg, Message: fmt.Sprintf("service %s: its ServiceTemplate does not exist in namespace %s", name, d.Namespace)})
			return msg
		}
	}
	for _, svc := range c.in.Services {
		if svc.Constraint == "" || !slices.Contains(d.Services, svc.Name) {
			continue
		}
		ok, err := to.Version.Satisfies(svc.Constraint)
		if err != nil || ok {
			continue
		}
		msg := fmt.Sprintf("failed to validate k8s compatibility: k8s version %s of the ClusterTemplate %s/%s does not satisfy k8s constraint %s from the ServiceTemplate %s/%s referred in the ClusterDeployment %s/%s",
			to.Version.Raw, d.Namespace, c.rep.To.Template, svc.Constraint, svc.Namespace, svc.Name, d.Namespace, d.Name)
		c.kcmRejected = svc.Name
		c.add(findings.Finding{Rule: ruleServiceKCM, KCM: msg, File: svc.Source,
			Message: fmt.Sprintf("service %s requires Kubernetes %s; %s declares %s", svc.Name, svc.Constraint, c.rep.To.Template, to.Version)})
		return msg
	}
	return ""
}

// services checks every service's constraint against the version the
// cluster will really run, which kcm cannot when the template declares no
// version or the config overrides it.
func (c *checker) services() {
	to := c.rep.To.K8s
	d := c.in.Deployment
	for _, name := range d.Services {
		if c.service(name) == nil && !d.Live {
			c.add(findings.Finding{Rule: ruleServiceMissing, File: d.ConfigSource, Message: fmt.Sprintf("the deployment uses service %s, but its ServiceTemplate is not in the config: its Kubernetes constraint is not checked (add the ServiceTemplate as another YAML document)", name)})
		}
	}
	for _, svc := range c.in.Services {
		if svc.Constraint == "" || !slices.Contains(d.Services, svc.Name) {
			continue
		}
		if to.Version.IsZero() {
			c.add(findings.Finding{Rule: ruleVersionUnknown, File: svc.Source, Message: fmt.Sprintf("service %s requires Kubernetes %s, and the Kubernetes version of %s is not known", svc.Name, svc.Constraint, c.rep.To.Template)})
			continue
		}
		ok, err := to.Version.Satisfies(svc.Constraint)
		if err != nil {
			c.add(findings.Finding{Rule: ruleServiceK8s, File: svc.Source, Message: fmt.Sprintf("service %s: %v: kcm marks the ServiceTemplate invalid", svc.Name, err)})
			continue
		}
		if ok {
			continue
		}
		if svc.Name == c.kcmRejected {
			continue
		}
		why := "kcm does not check it: " + c.rep.To.Template + " declares no Kubernetes version (spec.k8sVersion or the " + k0rdent.K8sVersionAnnotation + " annotation)"
		if to.Declared {
			why = "kcm checks the template's declared version only"
		}
		c.add(findings.Finding{Rule: ruleServiceK8s, File: svc.Source,
			Message: fmt.Sprintf("service %s requires Kubernetes %s, and the cluster would run %s after the upgrade (%s); %s", svc.Name, svc.Constraint, to.Version, describeSource(to), why)})
	}
}

func (c *checker) service(name string) *ServiceTemplate {
	for i, s := range c.in.Services {
		if s.Name == name {
			return &c.in.Services[i]
		}
	}
	return nil
}

func describeSource(s kubeversion.Source) string {
	if s.Path != "" {
		return s.Kind + " " + s.Path
	}
	return s.Kind
}

// providers compares the providers and contracts both charts declare.
func (c *checker) providers() {
	oldP, oldC := chartProviders(c.from.chart.Metadata.Annotations)
	newP, newC := chartProviders(c.to.chart.Metadata.Annotations)
	for _, p := range newP {
		if !slices.Contains(oldP, p) {
			c.add(findings.Finding{Rule: ruleProviderChange, File: c.to.path + "/Chart.yaml", Message: fmt.Sprintf("%s needs provider %s, which %s did not: the Management must expose it", c.rep.To.Template, p, c.rep.From.Template)})
		}
	}
	for _, p := range oldP {
		if !slices.Contains(newP, p) {
			c.add(findings.Finding{Rule: ruleProviderChange, File: c.to.path + "/Chart.yaml", Message: fmt.Sprintf("%s no longer uses provider %s: the objects of that provider are removed or replaced (see the object changes)", c.rep.To.Template, p)})
		}
	}
	for _, name := range sortedKeys(newC) {
		if oldV, ok := oldC[name]; ok && oldV != newC[name] {
			c.add(findings.Finding{Rule: ruleProviderChange, File: c.to.path + "/Chart.yaml", Message: fmt.Sprintf("%s moves provider %s from contract %s to %s: the Management's provider must support %s", c.rep.To.Template, name, oldV, newC[name], newC[name])})
		}
	}
}
