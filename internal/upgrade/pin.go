package upgrade

import (
	"fmt"
	"github.com/k0rdent/kbook/internal/findings"
	"strings"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubeversion"
)

// PinAnnotation pins a ClusterDeployment's Kubernetes version: "true" pins
// the version it runs; v1.32 pins the minor version (patch upgrades are
// allowed); v1.32.5 pins the exact version. kbook upgrade check and apply
// refuse a change outside the pin without --allow-k8s-change.
const PinAnnotation = k0rdent.PinAnnotation

// Pin is a deployment's pinned Kubernetes version.
type Pin struct {
	// Value is the annotation as written.
	Value string `json:"value"`
	// Allows says which versions the pin allows: "v1.32.x", "v1.32.5".
	Allows string `json:"allows"`
	// Breaks reports whether the upgrade leaves the pin.
	Breaks bool `json:"breaks"`
	// Allowed reports whether --allow-k8s-change lets it.
	Allowed bool `json:"allowed"`
}

// ParsePin reads the pin annotation relative to the version the
// deployment runs now. ok is false when the deployment is not pinned.
func ParsePin(value string, current kubeversion.Version) (pin Pin, match func(kubeversion.Version) bool, err error) {
	value = strings.TrimSpace(value)
	pin.Value = value
	switch {
	case value == "" || value == "false":
		return pin, nil, nil
	case value == "true":
		if current.IsZero() {
			return pin, nil, fmt.Errorf("%s: %q pins the version the cluster runs, which is not known", PinAnnotation, value)
		}
		pin.Allows = current.String()
		return pin, func(v kubeversion.Version) bool { return v.Compare(current) == 0 }, nil
	}
	parts := strings.Split(strings.TrimPrefix(value, "v"), ".")
	v, perr := kubeversion.Parse(strings.TrimSuffix(value, ".x"))
	if perr != nil || len(parts) < 2 || len(parts) > 3 {
		return pin, nil, fmt.Errorf("%s: %q: want true, a minor version (v1.32) or an exact version (v1.32.5)", PinAnnotation, value)
	}
	if len(parts) == 2 || parts[2] == "x" {
		pin.Allows = v.MinorString() + ".x"
		return pin, func(w kubeversion.Version) bool { return w.Major() == v.Major() && w.Minor() == v.Minor() }, nil
	}
	pin.Allows = v.String()
	return pin, func(w kubeversion.Version) bool { return w.Compare(v) == 0 }, nil
}

func (c *checker) pin() {
	value, ok := c.in.Deployment.Annotations[PinAnnotation]
	if !ok {
		return
	}
	pin, match, err := ParsePin(value, c.rep.From.K8s.Version)
	if err != nil {
		c.add(findings.Finding{Rule: rulePinned, Message: err.Error(), File: c.in.Deployment.ConfigSource})
		return
	}
	if match == nil {
		return
	}
	c.rep.Pin = &pin
	to := c.rep.To.K8s.Version
	if to.IsZero() {
		c.add(findings.Finding{Rule: rulePinned, File: c.in.Deployment.ConfigSource, Message: fmt.Sprintf("the deployment is pinned to Kubernetes %s (%s), and the version of %s is not known", pin.Allows, PinAnnotation, c.rep.To.Template)})
		return
	}
	if match(to) {
		return
	}
	pin.Breaks = true
	pin.Allowed = c.in.AllowK8sChange
	c.rep.Pin = &pin
	if c.in.AllowK8sChange {
		c.add(findings.Finding{Rule: rulePinAllowed, File: c.in.Deployment.ConfigSource, Message: fmt.Sprintf("the deployment is pinned to Kubernetes %s (%s); the upgrade moves it to %s, allowed by --allow-k8s-change", pin.Allows, PinAnnotation, to)})
		return
	}
	c.add(findings.Finding{Rule: rulePinned, File: c.in.Deployment.ConfigSource, Message: fmt.Sprintf("the deployment is pinned to Kubernetes %s (%s=%q) and the upgrade moves it to %s (%s): keep the version by setting it in spec.config, pick a template with a version the pin allows, or pass --allow-k8s-change", pin.Allows, PinAnnotation, value, to, describeSource(c.rep.To.K8s))})
}
