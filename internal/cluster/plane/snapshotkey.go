package plane

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
)

// snapshotFormat names how a bootstrapped plane is restored (what rewire
// changes, what the controllers are made to redo): a change to either
// makes every older snapshot a miss.
const snapshotFormat = "kbook bootstrapped plane v1"

// SnapshotInput is one input of the key of a bootstrapped plane's
// snapshot: What says, for people, what Data is.
type SnapshotInput struct {
	What string
	Data []byte
}

// SnapshotInputs are what decides the state a bootstrapped plane leaves
// in etcd, for the key of its snapshot: the release's module versions,
// each controller binary (path, size and modification time: hashing
// hundreds of megabytes would cost seconds of every start), the CRDs as
// loaded (before WireConversion: the ports and CA are per run), the
// webhook manifests and bootstrap objects the release ships, and the
// controllers' command lines with the per-run ports and directories left
// out.
func SnapshotInputs(p controllers.K0rdentPaths, r *controllers.K0rdentRelease, crds []releasecrds.CRD) ([]SnapshotInput, error) {
	in := []SnapshotInput{{What: snapshotFormat}}
	for _, m := range r.Modules {
		in = append(in, SnapshotInput{What: "module " + m.Key, Data: []byte(m.Path + "@" + m.Version)})
	}
	for _, c := range r.Controllers {
		fi, err := os.Stat(p.Binary(c.Name))
		if err != nil {
			return nil, fmt.Errorf("snapshot key: %w", err)
		}
		in = append(in, SnapshotInput{What: "controller " + c.Name, Data: fmt.Appendf(nil, "%s %d %d", p.Binary(c.Name), fi.Size(), fi.ModTime().UnixNano())})
	}
	for _, c := range crds {
		if c.Object.Spec.Conversion != nil && c.Object.Spec.Conversion.Webhook != nil && c.Object.Spec.Conversion.Webhook.ClientConfig != nil && c.Object.Spec.Conversion.Webhook.ClientConfig.URL != nil {
			return nil, fmt.Errorf("snapshot key: CRD %s is wired to this run's webhook already", c.Object.Name)
		}
		data, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("snapshot key: CRD %s: %w", c.Object.Name, err)
		}
		in = append(in, SnapshotInput{What: "crd " + c.Source, Data: data})
	}
	var files []string
	for _, src := range webhookSources {
		if src.File != "" {
			files = append(files, filepath.Join(p.ModuleDir(src.Module), filepath.FromSlash(src.File)))
		} else {
			files = append(files, filepath.Join(p.ModuleDir(src.Module), filepath.FromSlash(src.Chart), "templates", "webhooks.yaml"))
		}
	}
	boot := filepath.Join(p.ModuleDir("kcm"), "templates", "provider", "kcm-templates", "files")
	templates, err := filepath.Glob(filepath.Join(boot, "templates", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(templates)
	files = append(append(files, filepath.Join(boot, "release.yaml")), templates...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("snapshot key: %w", err)
		}
		rel, _ := filepath.Rel(p.Modules, f)
		in = append(in, SnapshotInput{What: "file " + filepath.ToSlash(rel), Data: data})
	}
	// The command lines as Start gives them, ports zero and directories
	// fixed: a flag kbook changes is a different plane.
	pt := ports{health: map[string]int{}, webhook: map[string]int{}}
	specs := controllerSpecs(Options{Release: r, Paths: controllers.K0rdentPaths{}, StateDir: "/state"}, pt, &Certs{Dir: "/certs"}, "http://repo")
	for _, sp := range specs {
		in = append(in, SnapshotInput{What: "command " + sp.Name, Data: []byte(strings.Join(append(sp.Args, sp.Env...), "\n"))})
	}
	return in, nil
}
