package releasecrds

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// crdSource is one folder of CRDs a module ships, and how its release
// build would install them.
type crdSource struct {
	// Module is the assets module key, Dir the folder inside it.
	Module, Dir string
	// Kustomize: Dir holds a kustomization.yaml (CAPI style) whose
	// resources are the CRDs, whose labels (the contract labels) are added
	// and whose webhook_in_* patches switch conversion to the webhook of
	// Webhook (a controller name).
	Kustomize bool
	Webhook   string
}

// crdSources are the CRDs of the management plane, in install order.
var crdSources = []crdSource{
	{Module: "kcm", Dir: "templates/provider/kcm/templates/crds"},
	{Module: "kcm", Dir: "templates/provider/kcm-regional/templates/crds"},
	{Module: "flux-source", Dir: "config/crd/bases"},
	{Module: "flux-helm", Dir: "config/crd/bases"},
	{Module: "sveltos-addon", Dir: "config/crd/bases"},
	{Module: "sveltos-lib", Dir: "config/crd/bases"},
	{Module: "capi", Dir: "config/crd", Kustomize: true, Webhook: controllers.CAPICore},
	{Module: "capi", Dir: "bootstrap/kubeadm/config/crd", Kustomize: true, Webhook: controllers.KubeadmBootstrap},
	{Module: "capi", Dir: "controlplane/kubeadm/config/crd", Kustomize: true, Webhook: controllers.KubeadmControlPlane},
	{Module: "capd", Dir: "infrastructure/docker/config/crd", Kustomize: true, Webhook: controllers.CAPD},
}

// CRD is a CustomResourceDefinition and the controller whose webhook
// converts its versions ("" when it has none).
type CRD struct {
	Object *apiextv1.CustomResourceDefinition
	// Source is the file it came from, relative to the release's module
	// folder.
	Source string
	// ConversionBy is the controller serving its conversion webhook.
	ConversionBy string
}

// kustomization is the part of a kustomization.yaml the loader reads.
type kustomization struct {
	Resources []string `json:"resources"`
	Labels    []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
	CommonLabels map[string]string `json:"commonLabels"`
	Patches      []struct {
		Path string `json:"path"`
	} `json:"patches"`
	PatchesStrategicMerge []string `json:"patchesStrategicMerge"`
}

// Load reads the management plane's CRDs from a release's module
// trees: kcm's chart CRDs (kcm and kcm-regional), Flux's and Sveltos'
// config/crd/bases, and the Cluster API CRDs as their kustomizations build
// them, contract labels included.
// The sources are read side by side (their YAML is most of a k0rdent
// start's own work before the API server starts: 0.2 s one after the
// other), the result in crdSources' order.
func Load(p controllers.K0rdentPaths) ([]CRD, error) {
	loaded := make([][]CRD, len(crdSources))
	errs := make([]error, len(crdSources))
	var wg sync.WaitGroup
	for i, src := range crdSources {
		wg.Go(func() {
			dir := filepath.Join(p.ModuleDir(src.Module), filepath.FromSlash(src.Dir))
			crds, err := loadSource(dir, src)
			if err != nil {
				errs[i] = fmt.Errorf("CRDs of %s (%s): %w", src.Module, src.Dir, err)
				return
			}
			for j := range crds {
				rel, _ := filepath.Rel(p.Modules, crds[j].Source)
				crds[j].Source = filepath.ToSlash(rel)
			}
			loaded[i] = crds
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return slices.Concat(loaded...), nil
}

func loadSource(dir string, src crdSource) ([]CRD, error) {
	if !src.Kustomize {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no CRDs in %s", dir)
		}
		sort.Strings(files)
		var out []CRD
		for _, f := range files {
			objs, err := readCRDs(f)
			if err != nil {
				return nil, err
			}
			for _, o := range objs {
				out = append(out, CRD{Object: o, Source: f})
			}
		}
		return out, nil
	}
	var k kustomization
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("kustomization.yaml: %w", err)
	}
	labels := map[string]string{}
	for _, l := range k.Labels {
		for key, v := range l.Pairs {
			labels[key] = v
		}
	}
	for key, v := range k.CommonLabels {
		labels[key] = v
	}
	// The CRDs the webhook_in_* patches switch to conversion by webhook.
	converted := map[string]bool{}
	patches := k.PatchesStrategicMerge
	for _, p := range k.Patches {
		patches = append(patches, p.Path)
	}
	for _, p := range patches {
		if !strings.HasPrefix(filepath.Base(p), "webhook_in_") {
			continue
		}
		objs, err := readCRDs(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.Spec.Conversion != nil && o.Spec.Conversion.Strategy == apiextv1.WebhookConverter {
				converted[o.Name] = true
			}
		}
	}
	var out []CRD
	for _, r := range k.Resources {
		f := filepath.Join(dir, filepath.FromSlash(r))
		objs, err := readCRDs(f)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.Labels == nil {
				o.Labels = map[string]string{}
			}
			for key, v := range labels {
				o.Labels[key] = v
			}
			c := CRD{Object: o, Source: f}
			if converted[o.Name] && len(o.Spec.Versions) > 1 {
				c.ConversionBy = src.Webhook
			}
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CRDs listed in %s", filepath.Join(dir, "kustomization.yaml"))
	}
	return out, nil
}

// readCRDs reads the CustomResourceDefinitions of a multi-document YAML
// file (a kustomize patch is a partial one).
func readCRDs(path string) ([]*apiextv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*apiextv1.CustomResourceDefinition
	for {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var crd apiextv1.CustomResourceDefinition
		if err := yaml.Unmarshal(doc, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		out = append(out, &crd)
	}
	return out, nil
}
