package upgrade

import (
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/yamldoc"
)

// Config is what a --config file holds: the deployment (a
// ClusterDeployment, whose spec.config is the values, or a plain values
// map) and, in more YAML documents, the ServiceTemplates it uses and the
// Management (or Region) whose providers it needs.
type Config struct {
	Deployment Deployment
	Services   []ServiceTemplate
	Exposure   *Exposure
	// Template is the ClusterDeployment's spec.template, when given.
	Template string
}

// LoadConfig reads a --config file. Any problem is an error naming the
// file and line.
func LoadConfig(file string) (*Config, error) {
	data, err := inputfile.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	name := filepath.ToSlash(file)
	cfg := &Config{Deployment: Deployment{ConfigSource: name}}
	docs, err := yamldoc.Documents(name, data, "")
	if err != nil {
		return nil, err
	}
	var values *yaml.Node
	sawDeployment := false
	for _, n := range docs {
		if yamldoc.IsNull(n) {
			continue
		}
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: not a map: want a ClusterDeployment, ServiceTemplate, Management or a map of values", name, n.Line)
		}
		var head struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		}
		_ = n.Decode(&head)
		if !strings.HasPrefix(head.APIVersion, k0rdent.Group+"/") {
			if head.APIVersion != "" && head.Kind != "" {
				return nil, fmt.Errorf("%s:%d: %s %s: kbook reads a ClusterDeployment, ServiceTemplates and a Management or Region here", name, n.Line, head.APIVersion, head.Kind)
			}
			if values != nil || sawDeployment {
				return nil, fmt.Errorf("%s:%d: a second set of values: give one ClusterDeployment or one map of values", name, n.Line)
			}
			values = n
			continue
		}
		switch head.Kind {
		case k0rdent.KindClusterDeployment:
			if sawDeployment || values != nil {
				return nil, fmt.Errorf("%s:%d: a second ClusterDeployment or set of values: give one", name, n.Line)
			}
			sawDeployment = true
			if err := cfg.deployment(name, n); err != nil {
				return nil, err
			}
		case k0rdent.KindServiceTemplate:
			st, err := serviceTemplate(name, n)
			if err != nil {
				return nil, err
			}
			cfg.Services = append(cfg.Services, st)
		case k0rdent.KindManagement, k0rdent.KindRegion:
			ex, err := exposure(name, n, head.Kind)
			if err != nil {
				return nil, err
			}
			cfg.Exposure = ex
		default:
			return nil, fmt.Errorf("%s:%d: %s: kbook reads a ClusterDeployment, ServiceTemplates and a Management or Region here", name, n.Line, head.Kind)
		}
	}
	if !sawDeployment {
		// A values file: the ServiceTemplates given are the deployment's.
		for _, st := range cfg.Services {
			cfg.Deployment.Services = append(cfg.Deployment.Services, st.Name)
		}
	}
	if values != nil {
		vals, err := nodeValues(name, values)
		if err != nil {
			return nil, err
		}
		cfg.Deployment.Config, cfg.Deployment.ConfigNode = vals, values
	}
	return cfg, nil
}

func nodeValues(file string, n *yaml.Node) (map[string]any, error) {
	data, err := yaml.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", file, n.Line, err)
	}
	// As Helm reads values (sigs.k8s.io/yaml: JSON types).
	vals, err := chartutil.ReadValues(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: values: %w", file, n.Line, err)
	}
	return vals, nil
}

func (cfg *Config) deployment(file string, n *yaml.Node) error {
	var cd struct {
		Metadata struct {
			Name        string            `yaml:"name"`
			Namespace   string            `yaml:"namespace"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
		Spec struct {
			Template    string    `yaml:"template"`
			Config      yaml.Node `yaml:"config"`
			ServiceSpec struct {
				Services []struct {
					Template string `yaml:"template"`
					Disable  bool   `yaml:"disable"`
				} `yaml:"services"`
			} `yaml:"serviceSpec"`
		} `yaml:"spec"`
	}
	if err := n.Decode(&cd); err != nil {
		return fmt.Errorf("%s:%d: ClusterDeployment: %s", file, n.Line, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	d := &cfg.Deployment
	d.Name, d.Namespace, d.Annotations = cd.Metadata.Name, cd.Metadata.Namespace, cd.Metadata.Annotations
	cfg.Template = cd.Spec.Template
	for _, s := range cd.Spec.ServiceSpec.Services {
		if !s.Disable && s.Template != "" {
			d.Services = append(d.Services, s.Template)
		}
	}
	if c := &cd.Spec.Config; c.Kind != 0 && c.Tag != "!!null" {
		if c.Kind != yaml.MappingNode {
			return fmt.Errorf("%s:%d: spec.config: want a map of values", file, c.Line)
		}
		vals, err := nodeValues(file, c)
		if err != nil {
			return err
		}
		d.Config, d.ConfigNode = vals, c
	}
	return nil
}

func serviceTemplate(file string, n *yaml.Node) (ServiceTemplate, error) {
	var st struct {
		Metadata struct {
			Name      string `yaml:"name"`
			Namespace string `yaml:"namespace"`
		} `yaml:"metadata"`
		Spec struct {
			K8sConstraint string `yaml:"k8sConstraint"`
		} `yaml:"spec"`
		Status struct {
			K8sConstraint string `yaml:"k8sConstraint"`
		} `yaml:"status"`
	}
	if err := n.Decode(&st); err != nil {
		return ServiceTemplate{}, fmt.Errorf("%s:%d: ServiceTemplate: %s", file, n.Line, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if st.Metadata.Name == "" {
		return ServiceTemplate{}, fmt.Errorf("%s:%d: ServiceTemplate without metadata.name", file, n.Line)
	}
	c := st.Status.K8sConstraint
	if c == "" {
		c = st.Spec.K8sConstraint
	}
	return ServiceTemplate{Name: st.Metadata.Name, Namespace: st.Metadata.Namespace, Constraint: c, Source: fmt.Sprintf("%s:%d", file, n.Line)}, nil
}

func exposure(file string, n *yaml.Node, kind string) (*Exposure, error) {
	var m struct {
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Status struct {
			AvailableProviders []string                     `yaml:"availableProviders"`
			CAPIContracts      map[string]map[string]string `yaml:"capiContracts"`
		} `yaml:"status"`
	}
	if err := n.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s:%d: %s: %s", file, n.Line, kind, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return &Exposure{Parent: kind + " " + m.Metadata.Name, Providers: m.Status.AvailableProviders, Contracts: m.Status.CAPIContracts}, nil
}
