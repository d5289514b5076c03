package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
)

// Variable is a clusterctl variable of a components file.
type Variable struct {
	Name string `json:"name"`
	// Default is the default value, when the variable has one.
	Default    string `json:"default,omitempty"`
	HasDefault bool   `json:"hasDefault"`
	File       string `json:"file"`
	Line       int    `json:"line"`
}

// clusterctl substitutes variables with drone/envsubst: ${VAR},
// ${VAR:=default}, ${VAR=default}, ${VAR:-default}, ${VAR-default}, with
// optional spaces around the name (docs/book/src/developer/providers/contracts/clusterctl.md,
// "Variables").
var (
	varRE     = regexp.MustCompile(`\$\{([^{}]*)\}`)
	varBodyRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:(:=|=|:-|-)(.*))?$`)
)

// checkClusterctl runs the CLUSTERCTL rules: metadata.yaml, the target
// namespace, variables and the manager container.
func (c *checker) checkClusterctl() {
	c.checkMetadata()
	for _, t := range c.set.texts {
		c.checkVariables(t)
	}
	c.checkNamespaces()
}

func (c *checker) checkMetadata() {
	for _, m := range c.set.Metadata {
		if m.APIVersion != k0rdent.ClusterctlAPIVersion {
			c.at(RuleMetadata, m, findings.Path{"apiVersion"}, fmt.Sprintf("metadata.yaml has apiVersion %s: clusterctl (v1.11 and later) requires %s", m.APIVersion, k0rdent.ClusterctlAPIVersion), "set apiVersion: "+k0rdent.ClusterctlAPIVersion)
		}
		series := items(get(m.Root, "releaseSeries"))
		if len(series) == 0 {
			c.at(RuleMetadata, m, findings.Path{"releaseSeries"}, "metadata.yaml has no releaseSeries: clusterctl refuses it and cannot map a provider release to a contract", "list one entry per release series: {major, minor, contract}")
			continue
		}
		newest, newestContract := -1, ""
		var newestMajor, newestMinor int
		for i, s := range series {
			p := findings.Path{"releaseSeries", i}
			major, err1 := strconv.Atoi(str(s, "major"))
			minor, err2 := strconv.Atoi(str(s, "minor"))
			contract := str(s, "contract")
			if err1 != nil || err2 != nil {
				c.at(RuleMetadata, m, p, fmt.Sprintf("releaseSeries[%d] has no integer major and minor", i), "set major: and minor: to the release series numbers")
				continue
			}
			if !apiVersionRE.MatchString(contract) {
				c.at(RuleMetadata, m, p.Child("contract"), fmt.Sprintf("releaseSeries[%d] (v%d.%d) has contract %q, not a contract version such as v1beta2", i, major, minor, contract), "set contract: v1beta2 (or the contract the series implements)")
				continue
			}
			if newest < 0 || major > newestMajor || major == newestMajor && minor > newestMinor {
				newest, newestMajor, newestMinor, newestContract = i, major, minor, contract
			}
		}
		if newest < 0 {
			continue
		}
		var labelled []string
		for _, d := range c.crds {
			if d.role != RoleNone && d.contract.Contract != "" && !slices.Contains(labelled, d.contract.Contract) {
				labelled = append(labelled, d.contract.Contract)
			}
		}
		if len(labelled) > 0 && !slices.Contains(labelled, newestContract) {
			c.at(RuleMetadataContract, m, findings.Path{"releaseSeries", newest, "contract"}, fmt.Sprintf("the newest release series v%d.%d declares contract %s, but Cluster API reads the CRDs with contract %s (their labels): clusterctl init and upgrade would pick the wrong release", newestMajor, newestMinor, newestContract, strings.Join(labelled, ", ")),
				"make metadata.yaml and the CRD labels agree")
		}
	}
}

func (c *checker) checkVariables(t text) {
	seen := map[string]bool{}
	for i, line := range strings.Split(string(t.data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		for _, m := range varRE.FindAllStringSubmatchIndex(line, -1) {
			body := line[m[2]:m[3]]
			sm := varBodyRE.FindStringSubmatch(body)
			if sm == nil {
				c.add(findings.Finding{Rule: RuleVariables, File: t.file, Line: i + 1,
					Message: fmt.Sprintf("${%s} is not a clusterctl variable: clusterctl supports ${VAR}, ${VAR:=default}, ${VAR=default} and ${VAR:-default} (drone/envsubst), not forms such as ${VAR$FOO}", body),
					Hint:    "use a plain variable name, optionally with a default"})
				continue
			}
			if seen[sm[1]] {
				continue
			}
			seen[sm[1]] = true
			c.variables = append(c.variables, Variable{Name: sm[1], Default: sm[3], HasDefault: sm[2] != "", File: t.file, Line: i + 1})
		}
		if strings.Count(line, "${") > len(varRE.FindAllString(line, -1)) {
			c.add(findings.Finding{Rule: RuleVariables, File: t.file, Line: i + 1, Message: "a ${ is not closed on this line: clusterctl would leave it (or the rest of the file) unsubstituted", Hint: "close the variable with }"})
		}
	}
	slices.SortStableFunc(c.variables, func(a, b Variable) int {
		if a.HasDefault != b.HasDefault {
			if a.HasDefault {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// checkNamespaces: a components file holds one Namespace, the target
// namespace; every namespaced object is in it (clusterctl.md, "Target
// namespace"). Files holding only CRDs (or a chart) are not components.
func (c *checker) checkNamespaces() {
	for _, t := range c.set.texts {
		var objs []*Object
		var namespaces []*Object
		components := false
		for _, o := range c.set.Objects {
			if o.File != t.file || o.Chart != nil {
				continue
			}
			objs = append(objs, o)
			switch {
			case o.Kind == "Namespace" && o.Group() == "":
				namespaces = append(namespaces, o)
			case o.Kind == "Deployment":
				components = true
			}
		}
		if !components {
			continue
		}
		switch {
		case len(namespaces) == 0:
			c.add(findings.Finding{Rule: RuleTargetNamespace, Severity: findings.Warning, File: t.file, Line: 1,
				Message: "the components have no Namespace object: clusterctl init then requires --target-namespace", Hint: "add the provider's Namespace (such as acme-system) to the components"})
		case len(namespaces) > 1:
			for _, n := range namespaces[1:] {
				c.at(RuleTargetNamespace, n, findings.Path{"metadata", "name"}, fmt.Sprintf("a second Namespace, %s (the first is %s): clusterctl aborts the installation of components with more than one Namespace", n.Name, namespaces[0].Name), "keep one Namespace: the provider's target namespace")
			}
		}
		if len(namespaces) == 0 {
			continue
		}
		target := namespaces[0].Name
		for _, o := range objs {
			if o.Namespace != "" && o.Namespace != target {
				c.at(RuleTargetNamespace, o, findings.Path{"metadata", "namespace"}, fmt.Sprintf("%s is in namespace %s, not the target namespace %s: clusterctl moves every namespaced object into the target namespace, so references to %s break", o.ID(), o.Namespace, target, o.Namespace),
					"put every namespaced object in the target namespace")
			}
		}
		for _, o := range objs {
			if o.Kind != "Deployment" {
				continue
			}
			containers := items(get(o.Root, "spec", "template", "spec", "containers"))
			found := false
			for _, ct := range containers {
				if str(ct, "name") == "manager" {
					found = true
				}
			}
			if !found && len(containers) > 0 {
				c.at(RuleManagerContainer, o, findings.Path{"spec", "template", "spec", "containers"}, fmt.Sprintf("Deployment %s has no container named manager: clusterctl and the cluster-api-operator (which k0rdent installs providers with) find the controller by that name to set --namespace, images and the deployment overrides", o.Name),
					"name the controller's container manager")
			}
		}
	}
}
