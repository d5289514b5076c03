package kcminstall

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/kube"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/log"
)

// ReleaseName is the Helm release k0rdent's QuickStart installs kcm as.
const ReleaseName = "kcm"

// Options are Install's.
type Options struct {
	// Release and Paths: the k0rdent release and its cache (modules and
	// built controllers: controllers.K0rdentDir).
	Release *controllers.K0rdentRelease
	Paths   controllers.K0rdentPaths
	// Config and Kubeconfig reach the cluster.
	Config     *rest.Config
	Kubeconfig []byte
	// Nodes are the cluster's nodes, whose containerd the images are
	// loaded into (kind's nodes).
	Nodes []nodes.Node
	// ClusterIP is this host's address as the cluster's pods reach it
	// (a kind network's gateway): the chart registry listens there too.
	ClusterIP string
	// Logger hears progress.
	Logger log.Logger
}

// Installed is a running install: its registry serves the charts for as
// long as the cluster needs them (Close stops it).
type Installed struct {
	// Registry serves the release's charts.
	Registry *Registry
	// Charts is the Helm repository `kbook template publish` publishes to
	// (its URL in helmrepo's locator ConfigMap), on the cluster-facing
	// address.
	Charts *helmrepo.Server
	// Images are the images loaded into the nodes, by controller.
	Images map[string]string
	// LeftOut are the parts of the release not installed, with why.
	LeftOut []string
}

// Close stops the chart registry and the Helm repository, and removes
// the repository's charts.
func (i *Installed) Close() error {
	if i == nil {
		return nil
	}
	err := i.Registry.Close()
	if i.Charts != nil {
		_ = i.Charts.Close()
		_ = os.RemoveAll(i.Charts.Dir())
	}
	return err
}

// program is how a controller's image runs it, as its project's
// Dockerfile builds it.
type program struct{ path, user string }

var programs = map[string]program{
	controllers.KCM:                   {"/manager", "65532:65532"},
	controllers.SourceController:      {"/usr/local/bin/source-controller", "65534:65534"},
	controllers.HelmController:        {"/usr/local/bin/helm-controller", "65534:65534"},
	controllers.CertManagerController: {"/app/cmd/controller/controller", "1000"},
	controllers.CertManagerWebhook:    {"/app/cmd/webhook/webhook", "1000"},
	controllers.CertManagerCAInjector: {"/app/cmd/cainjector/cainjector", "1000"},
	controllers.CAPIOperator:          {"/manager", "65532"},
	controllers.CAPICore:              {"/manager", "65532"},
	controllers.KubeadmBootstrap:      {"/manager", "65532"},
	controllers.KubeadmControlPlane:   {"/manager", "65532"},
	controllers.CAPD:                  {"/manager", ""}, // root: it talks to the Docker socket
}

// Providers are the Cluster API providers of the release Install leaves in
// the Management (by the name kcm's Release gives them): those whose
// controllers kbook builds. The core (cluster-api) is the Management's
// own component.
var Providers = []string{"cluster-api-provider-docker", "projectsveltos"}

// LeftOut are the parts of a k0rdent release Install does not install,
// and why.
var LeftOut = []string{
	"the providers but Cluster API core, CAPD and kubeadm (k0smotron, AWS, Azure, vSphere, OpenStack, GCP, IPAM, Infoblox, KubeVirt): their controllers' images are not built here (Install takes them out of the Management)",
	"Sveltos's controllers: projectsveltos installs only Sveltos's CRDs (its sveltos-crds dependency, built from the modules kcm pins), so kcm runs its ClusterDeployment controller, but services (MultiClusterService, ClusterDeployment serviceSpec) are not delivered",
	"cert-manager is v1.11.5, not kcm-regional's 1.21.0: from v1.12 on its commands are Go modules the module proxy does not serve",
	"Velero, reloader, rbac-manager and the Flux chart: their charts come from Helm repositories this machine cannot reach (Flux itself is installed from its controllers' kustomize bases)",
	"telemetry: its image is not built",
}

// CASecret is the Secret (in kcm's namespace, key ca.crt) holding the CA
// of kbook's registry: kcm's registry-cert-secret.
const CASecret = "kbook-registry-ca"

// Values are the kcm chart values Install sets: the templates repository
// and global registry are kbook's registry (registry, host:port as the
// cluster reaches it, over TLS with the CA in CASecret); the subcharts
// that are not available are off; cert-manager v1.11 installs its CRDs
// (installCRDs: kcm-regional's crds.enabled is the key of later releases).
func Values(registry string) map[string]any {
	off := map[string]any{"enabled": false}
	return map[string]any{
		"controller": map[string]any{
			"templatesRepoURL":   "oci://" + registry + "/" + ChartsPath,
			"globalRegistry":     registry,
			"registryCertSecret": CASecret,
		},
		// kcm asks for half a CPU; a rolling update of it (kcm's
		// Management takes kcm's release over from Helm) needs a second
		// half beside the first: more than a 2-CPU node has left.
		"resources":    map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}},
		"flux2":        off,
		"rbac-manager": off,
		"regional": map[string]any{
			"cert-manager": map[string]any{"installCRDs": true, "startupapicheck": off},
			"velero":       off,
			"reloader":     off,
			"telemetry":    map[string]any{"mode": "disabled"},
		},
	}
}

// Install installs the release into the cluster: the chart registry, the
// controllers' images, Flux, then `helm install kcm` from the registry,
// and waits for kcm's Deployment to be Available. ctx bounds it all; the
// registry keeps serving after Install returns, until Close.
func Install(ctx context.Context, o Options) (inst *Installed, err error) {
	l := log.Or(o.Logger)
	r, p := o.Release, o.Paths
	version := strings.TrimPrefix(r.Version, "v")
	if o.ClusterIP == "" {
		return nil, fmt.Errorf("k0rdent install: no address the cluster reaches this host at")
	}
	cm, err := CertManagerChart(p.ModuleDir("cert-manager"), r.Module("cert-manager").Version)
	if err != nil {
		return nil, err
	}
	op, err := OperatorChart(p.ModuleDir("capi-operator"), r.Module("capi-operator").Version)
	if err != nil {
		return nil, err
	}
	sv, err := SveltosCRDsChart(r.Module("sveltos-addon").Version, p.ModuleDir("sveltos-addon"), p.ModuleDir("sveltos-lib"))
	if err != nil {
		return nil, err
	}
	charts, err := ReleaseCharts(filepath.Join(p.ModuleDir("kcm"), "templates"), r.Version, cm, op, sv)
	if err != nil {
		return nil, err
	}
	kubeadm, err := KubeadmChart(r.Module("capi").Version)
	if err != nil {
		return nil, err
	}
	archive, err := helmrepo.Package(kubeadm)
	if err != nil {
		return nil, err
	}
	charts = append(charts, Chart{Name: kubeadm.Name(), Version: kubeadm.Metadata.Version, Archive: archive})
	kubeadmPT, kubeadmEntry, err := kubeadmTemplate(kubeadm)
	if err != nil {
		return nil, err
	}
	components, err := releaseComponents(p, kubeadm.Metadata.AppVersion)
	if err != nil {
		return nil, err
	}
	reg, err := StartRegistry(o.ClusterIP)
	if err != nil {
		return nil, err
	}
	// (A failed Install returns a nil *Installed: this one is closed.)
	started := &Installed{Registry: reg, LeftOut: LeftOut}
	inst = started
	defer func() {
		if err != nil {
			started.Close()
			inst = nil
		}
	}()
	dir, err := os.MkdirTemp("", "kbook-helm-repository-")
	if err != nil {
		return nil, err
	}
	if started.Charts, err = helmrepo.StartOn(dir, o.ClusterIP); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := Push(reg.Host, charts); err != nil {
		return nil, err
	}
	if err := PushComponents(reg.Host, components); err != nil {
		return nil, err
	}
	l.Infof("serving k0rdent %s's %d charts at oci://%s/%s and %d providers' components at %s/%s (the cluster reaches it at %s over TLS)",
		r.Version, len(charts), reg.Host, ChartsPath, len(components), reg.Host, ProviderPath, reg.Cluster)

	if inst.Images, err = loadImages(ctx, o, reg.Cluster, l); err != nil {
		return nil, err
	}
	a, err := newApplier(o.Config)
	if err != nil {
		return nil, err
	}
	ns := k0rdent.SystemNamespace
	if err := a.ensureNamespace(ctx, ns); err != nil {
		return nil, err
	}
	if err := a.apply(ctx, []*unstructured.Unstructured{caSecret(ns, reg.CA), locator(inst.Charts.URL())}); err != nil {
		return nil, fmt.Errorf("registry CA secret, Helm repository locator: %w", err)
	}
	start := time.Now()
	for _, f := range []struct{ key, ctl, image string }{
		{"flux-source", controllers.SourceController, "fluxcd/source-controller"},
		{"flux-helm", controllers.HelmController, "fluxcd/helm-controller"},
	} {
		objs, err := fluxObjects(p.ModuleDir(f.key), ns, f.image, inst.Images[f.ctl])
		if err != nil {
			return nil, err
		}
		if err := a.apply(ctx, objs); err != nil {
			return nil, fmt.Errorf("install Flux %s: %w", f.ctl, err)
		}
	}
	if err := a.deploymentsAvailable(ctx, ns, controllers.SourceController, controllers.HelmController); err != nil {
		return nil, fmt.Errorf("Flux: %w", err)
	}
	l.Infof("Flux's source and helm controllers are Available (%s)", time.Since(start).Round(time.Second))

	start = time.Now()
	ch, err := Pull(reg.Host, "kcm", version)
	if err != nil {
		return nil, err
	}
	cfg, cleanup, err := helmConfig(o.Kubeconfig, ns)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace, in.Timeout = ReleaseName, ns, 5*time.Minute
	if _, err := in.RunWithContext(ctx, ch, Values(reg.Cluster)); err != nil {
		return nil, fmt.Errorf("helm install kcm oci://%s/%s/kcm --version %s: %w", reg.Host, ChartsPath, version, err)
	}
	l.Infof("installed kcm %s from oci://%s/%s/kcm; waiting for its controller…", version, reg.Host, ChartsPath)
	if err := a.deploymentsAvailable(ctx, ns, "kcm-controller-manager"); err != nil {
		return nil, fmt.Errorf("kcm: %w", err)
	}
	l.Infof("kcm's controller is Available (%s)", time.Since(start).Round(time.Second))

	start = time.Now()
	if err := a.apply(ctx, []*unstructured.Unstructured{kubeadmPT}); err != nil {
		return nil, fmt.Errorf("ProviderTemplate %s: %w", kubeadmPT.GetName(), err)
	}
	if err := a.keepProviders(ctx, Providers, kubeadmEntry); err != nil {
		return nil, err
	}
	l.Infof("the Management keeps the providers %s and adds %s (ProviderTemplate %s); waiting for it to be Ready (cert-manager, the Cluster API operator, then the providers)…",
		strings.Join(Providers, ", "), KubeadmProvider, kubeadmPT.GetName())
	if err := a.managementReady(ctx, l); err != nil {
		return nil, err
	}
	if err := a.providersReady(ctx, l); err != nil {
		return nil, err
	}
	l.Infof("the Management is Ready and the Cluster API operator installed its providers (%s)", time.Since(start).Round(time.Second))
	return inst, nil
}

// releaseComponents are the Cluster API providers' components the
// Management's providers are installed from by the Cluster API operator:
// the core's and CAPD's, at their provider charts' appVersion (the
// fetchConfig.oci tag the charts name), and the kubeadm bootstrap and
// control-plane providers' at kubeadmVersion (KubeadmChart's appVersion).
// The operator reads <type>-components.yaml of each.
func releaseComponents(p controllers.K0rdentPaths, kubeadmVersion string) ([]Components, error) {
	provider := filepath.Join(p.ModuleDir("kcm"), "templates", "provider")
	capi := p.ModuleDir("capi")
	metadata := filepath.Join(capi, "metadata.yaml")
	var out []Components
	for _, c := range []struct{ chart, repo, typ, dir string }{
		{"cluster-api", "cluster-api-components", "core", capi},
		{"cluster-api-provider-docker", "cluster-api-provider-docker-components", "infrastructure", filepath.Join(p.ModuleDir("capd"), "infrastructure", "docker")},
		{"", "cluster-api-bootstrap-kubeadm-components", "bootstrap", filepath.Join(capi, "bootstrap", "kubeadm")},
		{"", "cluster-api-control-plane-kubeadm-components", "control-plane", filepath.Join(capi, "controlplane", "kubeadm")},
	} {
		v := kubeadmVersion
		if c.chart != "" {
			var err error
			if v, err = appVersion(filepath.Join(provider, c.chart)); err != nil {
				return nil, err
			}
		}
		comp, err := ProviderComponents(c.dir, metadata, c.repo, v, c.typ)
		if err != nil {
			return nil, err
		}
		out = append(out, comp)
	}
	return out, nil
}

// locator is helmrepo's ConfigMap naming the Helm repository that serves
// the cluster (as the local plane writes it), for kbook template publish.
func locator(url string) *unstructured.Unstructured {
	cm := helmrepo.Locator(url)
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetName(cm.Name)
	u.SetNamespace(cm.Namespace)
	u.SetLabels(cm.Labels)
	_ = unstructured.SetNestedStringMap(u.Object, cm.Data, "data")
	return u
}

// caSecret is CASecret holding ca.
func caSecret(ns string, ca []byte) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Secret")
	u.SetName(CASecret)
	u.SetNamespace(ns)
	_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"ca.crt": string(ca)}, "stringData")
	return u
}

// loadImages builds the images of the controllers Install runs from the
// release's binaries and loads them into every node.
func loadImages(ctx context.Context, o Options, registry string, l log.Logger) (map[string]string, error) {
	refs, err := controllers.ControllerImages(o.Release, o.Paths)
	if err != nil {
		return nil, err
	}
	// Named as kcm's charts name them under a global registry: kcm's
	// deployment <registry>/kcm-controller:<tag>, the providers' imageUrl
	// <registry>/capi/<image>:<tag>.
	_, tag, err := splitImage(refs[controllers.KCM])
	if err != nil {
		return nil, err
	}
	refs[controllers.KCM] = registry + "/kcm-controller:" + tag
	for _, name := range []string{controllers.CAPICore, controllers.KubeadmBootstrap, controllers.KubeadmControlPlane, controllers.CAPD} {
		refs[name] = registry + "/" + ProviderPath + "/" + path.Base(refs[name])
	}
	work, err := os.MkdirTemp("", "kbook-kcm-images-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	loaded := map[string]string{}
	start := time.Now()
	for _, name := range []string{controllers.SourceController, controllers.HelmController, controllers.KCM,
		controllers.CertManagerController, controllers.CertManagerWebhook, controllers.CertManagerCAInjector,
		controllers.CAPIOperator, controllers.CAPICore, controllers.KubeadmBootstrap, controllers.KubeadmControlPlane, controllers.CAPD} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pr, ref := programs[name], refs[name]
		archive := filepath.Join(work, name+".tar")
		if err := nodeimage.WriteProgramImage(archive, nodeimage.ProgramImage{Ref: ref, Bin: o.Paths.Binary(name), Path: pr.path, User: pr.user}); err != nil {
			return nil, fmt.Errorf("image %s: %w", ref, err)
		}
		if err := nodeimage.LoadIntoNodes(archive, ref, o.Nodes); err != nil {
			return nil, err
		}
		loaded[name] = ref
	}
	l.Infof("loaded %d controller images into %d node(s) (%s)", len(loaded), len(o.Nodes), time.Since(start).Round(time.Second))
	return loaded, nil
}

// helmConfig is a Helm action configuration for the cluster, its
// kubeconfig in a private temporary file removed by cleanup.
func helmConfig(kubeconfig []byte, ns string) (*action.Configuration, func(), error) {
	dir, err := os.MkdirTemp("", "kbook-helm-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		cleanup()
		return nil, nil, err
	}
	cfg := new(action.Configuration)
	if err := cfg.Init(kube.GetConfig(path, "", ns), ns, "secret", func(string, ...any) {}); err != nil {
		cleanup()
		return nil, nil, err
	}
	return cfg, cleanup, nil
}
