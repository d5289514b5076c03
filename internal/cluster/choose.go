package cluster

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
)

// Auto is the --cluster value of kbook run, build and serve that picks
// the backend: Kubeconfig when a kubeconfig or context is given, else
// Local.
const Auto = "auto"

// Choose resolves backend, the value of a --cluster flag (Auto, Local,
// Kind or Kubeconfig), into o.Backend and checks the options that cannot
// work together before anything starts: an unknown backend or
// --assets-from, --k0rdent-api-only without --k0rdent, --k0rdent on a
// backend other than the local one or of an unknown release. kubeGiven
// says --kubeconfig or --context was given (Auto then means Kubeconfig);
// a kind cluster is named DefaultKindName unless o.Name says otherwise.
func Choose(backend string, kubeGiven bool, o Options) (Options, error) {
	b := backend
	if b == Auto {
		b = Local
		if kubeGiven {
			b = Kubeconfig
		}
	}
	switch b {
	case Local, Kind, Kubeconfig:
	default:
		return Options{}, fmt.Errorf("--cluster %q: want auto, local, kind, kubeconfig or none", backend)
	}
	o.Backend = b
	if b == Kind && o.Name == "" {
		o.Name = DefaultKindName
	}
	if err := CheckKindImage(o.KindImage); err != nil {
		return Options{}, err
	}
	if o.KindWorkers < 0 {
		return Options{}, fmt.Errorf("--kind-workers %d: want 0 or more", o.KindWorkers)
	}
	if o.K0rdentAPIOnly && o.K0rdent == "" {
		return Options{}, fmt.Errorf("--k0rdent-api-only needs --k0rdent VERSION")
	}
	if o.K0rdent != "" {
		switch {
		case b == Kind && o.K0rdentAPIOnly:
			return Options{}, fmt.Errorf("--k0rdent-api-only is the local backend's (the k0rdent APIs without controllers); on kind, --k0rdent installs kcm itself")
		case b != Local && b != Kind:
			return Options{}, fmt.Errorf("--k0rdent runs the k0rdent plane on the local backend or installs it into a kind cluster, not on --cluster %s (a real management cluster already runs kcm: use --kubeconfig alone)", b)
		}
		if _, err := controllers.K0rdent(o.K0rdent); err != nil {
			return Options{}, fmt.Errorf("--k0rdent: %w", err)
		}
	}
	return o, nil
}
