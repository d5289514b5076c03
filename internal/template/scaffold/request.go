package scaffold

import (
	"fmt"
	"strings"

	"github.com/k0rdent/kbook/internal/skeleton"
)

// Request is kbook template init's flags: a new chart (ChartOptions), or with
// Extend a wrapper of that template (see Extend) with the organisation's
// Registry and Labels.
type Request struct {
	ChartOptions
	// Extend is the template to wrap ("": write a new chart).
	Extend   string
	Registry string
	// Labels are KEY=VALUE labels for every cluster.
	Labels []string
}

// New writes the chart the request asks for, pulling a remote base with
// Helm, and says what it created and what to run next. --registry and
// --label without --extend, and a label that is not KEY=VALUE, are errors
// before anything is written.
func New(r Request) (skeleton.Created, error) {
	var (
		dir   string
		files []string
		err   error
	)
	if r.Extend != "" {
		if r.MachineImage != "" || r.LoadBalancerRepository != "" {
			return skeleton.Created{}, fmt.Errorf("--kind-image goes with a new chart (--provider %s); a wrapper takes its base's values", imagesProvider)
		}
		labels, perr := ParseLabels(r.Labels)
		if perr != nil {
			return skeleton.Created{}, perr
		}
		dir, files, err = Extend(ExtendOptions{Name: r.Name, Dir: r.Dir, Base: r.Extend, Registry: r.Registry, Labels: labels, Load: HelmPull})
	} else {
		if r.Registry != "" || len(r.Labels) > 0 {
			return skeleton.Created{}, fmt.Errorf("--registry and --label go with --extend; a new chart takes them from values.yaml")
		}
		dir, files, err = Init(r.ChartOptions)
	}
	if err != nil {
		return skeleton.Created{}, err
	}
	next := "kbook template validate " + dir
	if r.Extend != "" {
		// The base chart is a dependency not yet in charts/: validate
		// fetches it first, as helm dependency update would.
		next = "kbook template validate --dependency-update " + dir
	}
	return skeleton.Created{Dir: dir, Files: files, Next: next}, nil
}

// ParseLabels parses --label values, KEY=VALUE each, into a map.
func ParseLabels(labels []string) (map[string]string, error) {
	m := map[string]string{}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--label %q: want KEY=VALUE", l)
		}
		m[k] = v
	}
	return m, nil
}
