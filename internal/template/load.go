package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/yamldoc"
	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

// chartSource is a loaded chart and the raw files it came from.
type chartSource struct {
	path    string // as given
	archive bool   // a .tgz rather than a directory
	chart   *chart.Chart
	// validateErr is the chart.Validate() error the loader returned with
	// the chart (Helm's loader validates the metadata last, so the chart
	// is usable; subcharts are not loaded then).
	validateErr error

	raw   map[string][]byte     // files of the top chart by chart-relative name
	nodes map[string]*yaml.Node // parsed YAML of raw files, for positions
	// depDirs maps the name a dependency renders under (its alias, else
	// its name) to its directory, charts/<dir>, for file names in findings.
	depDirs map[string]string

	schemaDocOnce bool
	schemaDocVal  map[string]any // values.schema.json as JSON, nil when missing or invalid
}

// schemaDoc is values.schema.json parsed as plain JSON (nil when the chart
// has none or it does not parse), for reading what it says about a value.
func (s *chartSource) schemaDoc() map[string]any {
	if !s.schemaDocOnce {
		s.schemaDocOnce = true
		if data, ok := s.raw[schemaFile]; ok {
			_ = json.Unmarshal(data, &s.schemaDocVal)
		}
	}
	return s.schemaDocVal
}

// loadChart loads a chart directory or archive with Helm's loader. A path
// that does not exist is an error; a chart that Helm cannot load is a
// CHART001 finding.
func loadChart(p string) (*chartSource, *findings.Finding, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, nil, &findings.InputError{Err: fmt.Errorf("chart %s: %w", p, err)}
	}
	src := &chartSource{path: p, archive: !fi.IsDir(), nodes: map[string]*yaml.Node{}}
	if err := inputfile.CheckChart(p); err != nil {
		return nil, nil, &findings.InputError{Err: err}
	}
	ch, err := loader.Load(p)
	var verr chart.ValidationError
	switch {
	case err != nil && ch != nil && ch.Metadata != nil && errors.As(err, &verr):
		src.validateErr = err
	case err != nil:
		f := loadFinding(err, src.archive)
		return nil, &f, nil
	}
	src.chart = ch
	src.raw = make(map[string][]byte, len(ch.Raw))
	for _, f := range ch.Raw {
		src.raw[f.Name] = f.Data
	}
	src.depDirs = dependencyDirs(ch, src.raw)
	return src, nil, nil
}

// dependencyDirs maps each dependency's alias (or name) to the directory
// under charts/ that holds it (a directory chart; packaged dependencies
// keep charts/<name>).
func dependencyDirs(ch *chart.Chart, raw map[string][]byte) map[string]string {
	dirs := map[string]string{}
	byName := map[string]string{}
	for name, data := range raw {
		dir, file := path.Split(name)
		parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
		if file != "Chart.yaml" || len(parts) != 2 || parts[0] != "charts" {
			continue
		}
		var md chart.Metadata
		if err := yaml.Unmarshal(data, &md); err == nil && md.Name != "" {
			byName[md.Name] = "charts/" + parts[1]
		}
	}
	for _, d := range ch.Metadata.Dependencies {
		key := d.Name
		if d.Alias != "" {
			key = d.Alias
		}
		if dir, ok := byName[d.Name]; ok {
			dirs[key] = dir
		}
	}
	return dirs
}

// realPath maps a rendered template name, charts/<alias>/templates/x.yaml
// for a dependency, to the file in the chart.
func (s *chartSource) realPath(file string) string {
	rest, ok := strings.CutPrefix(file, "charts/")
	if !ok {
		return file
	}
	alias, tail, _ := strings.Cut(rest, "/")
	if dir, ok := s.depDirs[alias]; ok {
		return dir + "/" + tail
	}
	return file
}

var loadFileRE = regexp.MustCompile(`cannot load ([^:\s]+):`)
var subchartRE = regexp.MustCompile(`unpacking subchart (\S+) in`)

// loadFinding maps a Helm loader error to a CHART001 finding naming the
// file.
func loadFinding(err error, archive bool) findings.Finding {
	msg := err.Error()
	f := findings.Finding{Rule: ruleChartLoad, Message: "the chart does not load: " + msg}
	switch {
	case strings.Contains(msg, "Chart.yaml file is missing"):
		f.File = "Chart.yaml"
		f.Message = "Chart.yaml is missing: this is not a Helm chart"
	case loadFileRE.MatchString(msg):
		f.File = loadFileRE.FindStringSubmatch(msg)[1]
		f.Line = findings.LineIn(msg)
	case subchartRE.MatchString(msg):
		f.File = "charts/" + subchartRE.FindStringSubmatch(msg)[1]
	case archive:
		f.Message = "the chart archive does not load: " + msg
	}
	return f
}

// node returns the parsed YAML of a chart file (nil when it is missing or
// does not parse).
func (s *chartSource) node(name string) *yaml.Node {
	if n, ok := s.nodes[name]; ok {
		return n
	}
	var n *yaml.Node
	if data, ok := s.raw[name]; ok {
		n = parseYAML(data)
	}
	s.nodes[name] = n
	return n
}

// name is the chart's name.
func (s *chartSource) name() string { return s.chart.Metadata.Name }

// ciFiles lists the chart's ci/*.yaml files, sorted.
func (s *chartSource) ciFiles() []string {
	var out []string
	for _, f := range s.chart.Files {
		dir, base := path.Split(f.Name)
		if dir == "ci/" && (strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml")) {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// file returns the data of a non-template chart file (ci/*.yaml).
func (s *chartSource) file(name string) []byte {
	for _, f := range s.chart.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return s.raw[name]
}

// valueSet is one set of values the chart is checked and rendered with, as
// a ClusterDeployment's spec.config would supply them.
type valueSet struct {
	name   string         // "defaults", "ci/aws.yaml", the --config path
	file   string         // where its values are: values.yaml for defaults
	values map[string]any // the supplied values (nil for defaults)
	node   *yaml.Node     // the values' YAML (spec.config of a ClusterDeployment), for lines
	config bool           // ChartOptions.Config
}

const defaultsName = "defaults"

// readValues reads a values file the way Helm does (sigs.k8s.io/yaml, so
// numbers are float64 as in Helm's own validation), with positions.
func readValues(name string, data []byte) (map[string]any, *yaml.Node, *findings.Finding) {
	vals, err := chartutil.ReadValues(data)
	if err != nil {
		return nil, nil, &findings.Finding{File: name, Line: findings.LineIn(err.Error()), Message: "values do not parse: " + err.Error()}
	}
	return vals, parseYAML(data), nil
}

// loadConfig reads ChartOptions.Config: a YAML file with a ClusterDeployment
// (its spec.config is used) or a plain values map. A file that cannot be
// read, does not parse or holds no map is an InputError at its line.
func loadConfig(file string) (*valueSet, error) {
	data, err := inputfile.ReadFile(file)
	if err != nil {
		return nil, &findings.InputError{Err: fmt.Errorf("config: %w", err)}
	}
	vs := &valueSet{name: file, file: file, config: true, values: map[string]any{}}
	docs, err := yamldoc.Documents(file, data, "the config does not parse: ")
	if err != nil {
		return nil, err
	}
	var first *yaml.Node
	for _, doc := range docs {
		root := deref(doc)
		if first == nil {
			first = root
		}
		if isClusterDeployment(root) {
			cfg := nodeAt(root, vpath{"spec", "config"})
			if cfg == nil || cfg.Tag == "!!null" {
				// The admission webhook copies the template's defaults into
				// a ClusterDeployment without spec.config
				// (internal/webhook/clusterdeployment_webhook.go, Default).
				return vs, nil
			}
			return nodeValues(vs, cfg)
		}
	}
	if first == nil || first.Tag == "!!null" {
		return vs, nil
	}
	return nodeValues(vs, first)
}

func nodeValues(vs *valueSet, n *yaml.Node) (*valueSet, error) {
	if n.Kind != yaml.MappingNode {
		return nil, findings.Inputf(vs.file, n.Line, "the config is not a map of values (nor a ClusterDeployment)")
	}
	data, err := yaml.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", vs.file, err)
	}
	vals, err := chartutil.ReadValues(data)
	if err != nil {
		return nil, findings.Inputf(vs.file, n.Line, "the config does not parse: %v", err)
	}
	vs.values, vs.node = vals, n
	return vs, nil
}

func isClusterDeployment(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	_, k := mapEntry(n, "kind")
	_, av := mapEntry(n, "apiVersion")
	return k != nil && k.Value == k0rdent.KindClusterDeployment && av != nil && strings.HasPrefix(av.Value, k0rdent.Group+"/")
}
