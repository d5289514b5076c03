package scaffold

import (
	"context"
	"fmt"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/skeleton"
)

// Options are kbook template init's flags: a new chart (ChartOptions), or
// with Extend a wrapper of that template (see Extend) with the
// organisation's Registry and Labels.
type Options struct {
	ChartOptions
	// Extend is the template to wrap ("": write a new chart).
	Extend   string
	Registry string
	// Labels are KEY=VALUE labels for every cluster.
	Labels []string
	// KindImage is --kind-image: the node image a new docker chart's
	// machines boot from, build (kbook's node image and load balancer,
	// built or from CacheDir), or "" (kindest/node); see useKindImage.
	KindImage string
	CacheDir  string
	// Logger says what building the images does.
	Logger log.Logger
}

// New is kbook template init: it writes the chart the options ask for,
// pulling a remote base with Helm, and says what it created and what to
// run next. --registry and --label without --extend, a label that is not
// KEY=VALUE and a --kind-image that does not go with the chart are bad
// input (findings.InputError), found before any image is built or
// anything written; so is what Init and Extend refuse. Building
// --kind-image build's images can fail otherwise, or be interrupted.
func New(ctx context.Context, r Options) (skeleton.Created, error) {
	if err := ctx.Err(); err != nil {
		return skeleton.Created{}, err
	}
	bad := func(err error) (skeleton.Created, error) {
		return skeleton.Created{}, &findings.InputError{Err: err}
	}
	var labels map[string]string
	if r.Extend != "" {
		if r.MachineImage != "" || r.LoadBalancerRepository != "" {
			return bad(fmt.Errorf("--kind-image goes with a new chart (--provider %s); a wrapper takes its base's values", imagesProvider))
		}
		var err error
		if labels, err = ParseLabels(r.Labels); err != nil {
			return bad(err)
		}
	} else if r.Registry != "" || len(r.Labels) > 0 {
		return bad(fmt.Errorf("--registry and --label go with --extend; a new chart takes them from values.yaml"))
	}
	if err := useKindImage(ctx, &r); err != nil {
		return skeleton.Created{}, err
	}
	var (
		dir   string
		files []string
		err   error
	)
	if r.Extend != "" {
		dir, files, err = Extend(ExtendOptions{Name: r.Name, Dir: r.Dir, Base: r.Extend, Registry: r.Registry, Labels: labels, Load: HelmPull})
	} else {
		dir, files, err = Init(r.ChartOptions)
	}
	if err != nil {
		return bad(err)
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
