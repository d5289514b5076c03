package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/cluster/plane/images"
	"sigs.k8s.io/yaml"
)

// K0rdentAssetsFrom sets where the controllers come from (default
// assetsfrom.Auto): built from the release's Go modules (Build), pulled
// from their released images (Download, see package images), or pulled
// with what cannot be pulled built, saying so (Auto).
func K0rdentAssetsFrom(src assetsfrom.Source) K0rdentOption {
	return func(c *k0rdentConfig) { c.source = src }
}

// K0rdentImageOptions sets how images are pulled (a mirror, a transport).
func K0rdentImageOptions(o images.Options) K0rdentOption {
	return func(c *k0rdentConfig) { c.images = o }
}

// ImagesFile, in a release's cache directory, records the image each
// pulled controller came from: reference, the registry's digest, the
// binary's sha256 (a JSON object by controller name).
const ImagesFile = "images.json"

// upstreamCAPI is where Cluster API publishes its images. The release's
// provider charts name them under k0rdent's mirror layout only
// (<global.registry>/capi/<image>:<appVersion>): the image name and
// version come from the charts, the registry is upstream's.
const upstreamCAPI = "registry.k8s.io/cluster-api/"

// chartImageRE finds the image a provider chart's _helpers.tpl names.
var chartImageRE = regexp.MustCompile(`printf "%s/capi/([a-z0-9][a-z0-9._-]*):%s"`)

// ControllerImages returns the released image of each controller of r,
// read from the release's charts in p's module trees where they name one:
// kcm's repository from the kcm chart's values (tagged with the release's
// version, as k0rdent tags it); the Cluster API core and CAPD images from
// their provider charts (image name, appVersion). The kubeadm bootstrap and
// control-plane providers, which no chart of the release installs, take
// Cluster API's names at the core's version; Flux's controllers, whose
// chart (flux2, a dependency) is not in the module, ghcr.io/fluxcd's at the
// module versions kcm pins.
func ControllerImages(r *K0rdentRelease, p K0rdentPaths) (map[string]string, error) {
	provider := filepath.Join(p.ModuleDir("kcm"), "templates", "provider")
	var values struct {
		Image struct {
			Repository string `json:"repository"`
		} `json:"image"`
	}
	vf := filepath.Join(provider, "kcm", "values.yaml")
	data, err := os.ReadFile(vf)
	if err != nil {
		return nil, fmt.Errorf("k0rdent %s images: %w", r.Version, err)
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		return nil, fmt.Errorf("k0rdent %s images: %s: %w", r.Version, vf, err)
	}
	if values.Image.Repository == "" {
		return nil, fmt.Errorf("k0rdent %s images: %s names no image.repository", r.Version, vf)
	}
	core, coreVersion, err := chartImage(filepath.Join(provider, "cluster-api"))
	if err != nil {
		return nil, fmt.Errorf("k0rdent %s images: %w", r.Version, err)
	}
	capd, capdVersion, err := chartImage(filepath.Join(provider, "cluster-api-provider-docker"))
	if err != nil {
		return nil, fmt.Errorf("k0rdent %s images: %w", r.Version, err)
	}
	return map[string]string{
		KCM:                 values.Image.Repository + ":" + strings.TrimPrefix(r.Version, "v"),
		SourceController:    "ghcr.io/fluxcd/source-controller:" + r.Module("flux-source").Version,
		HelmController:      "ghcr.io/fluxcd/helm-controller:" + r.Module("flux-helm").Version,
		CAPICore:            upstreamCAPI + core + ":" + coreVersion,
		KubeadmBootstrap:    upstreamCAPI + "kubeadm-bootstrap-controller:" + coreVersion,
		KubeadmControlPlane: upstreamCAPI + "kubeadm-control-plane-controller:" + coreVersion,
		CAPD:                upstreamCAPI + capd + ":" + capdVersion,
		// The in-cluster ones, at the module versions kbook pins for them
		// (where each project publishes its images).
		CertManagerController: "quay.io/jetstack/cert-manager-controller:" + r.Module("cert-manager").Version,
		CertManagerWebhook:    "quay.io/jetstack/cert-manager-webhook:" + r.Module("cert-manager").Version,
		CertManagerCAInjector: "quay.io/jetstack/cert-manager-cainjector:" + r.Module("cert-manager").Version,
		CAPIOperator:          "registry.k8s.io/capi-operator/cluster-api-operator:" + r.Module("capi-operator").Version,
	}, nil
}

// chartImage reads the image name a provider chart's helpers name and the
// chart's appVersion.
func chartImage(chart string) (image, version string, err error) {
	helpers := filepath.Join(chart, "templates", "_helpers.tpl")
	data, err := os.ReadFile(helpers)
	if err != nil {
		return "", "", err
	}
	m := chartImageRE.FindSubmatch(data)
	if m == nil {
		return "", "", fmt.Errorf("%s names no image (%s)", helpers, chartImageRE)
	}
	cf := filepath.Join(chart, "Chart.yaml")
	data, err = os.ReadFile(cf)
	if err != nil {
		return "", "", err
	}
	var meta struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		return "", "", fmt.Errorf("%s: %w", cf, err)
	}
	if meta.AppVersion == "" {
		return "", "", fmt.Errorf("%s has no appVersion", cf)
	}
	return string(m[1]), meta.AppVersion, nil
}

// puller pulls the controllers of one K0rdentDir call.
type puller struct {
	c       *k0rdentConfig
	refs    map[string]string
	refsErr error
	records map[string]images.Record
	down    error // under auto, the first failure: the rest are built
}

func (c *k0rdentConfig) newPuller(r *K0rdentRelease, p K0rdentPaths) *puller {
	if c.source == assetsfrom.Build {
		return nil
	}
	pl := &puller{c: c, records: map[string]images.Record{}}
	pl.refs, pl.refsErr = ControllerImages(r, p)
	if data, err := os.ReadFile(filepath.Join(p.Dir, ImagesFile)); err == nil {
		_ = json.Unmarshal(data, &pl.records) // an unreadable record is rewritten
	}
	return pl
}

// pull takes ctl from its image into target. ok false: build it (auto,
// after saying why); an error: fail (download).
func (pl *puller) pull(ctx context.Context, ctl Controller, target string) (ok bool, err error) {
	if pl == nil {
		return false, nil
	}
	if pl.down != nil {
		return false, nil
	}
	fail := func(err error) (bool, error) {
		if pl.c.source == assetsfrom.Download || ctx.Err() != nil {
			return false, fmt.Errorf("%w (--assets-from build builds it from its Go module instead)", err)
		}
		pl.down = err
		pl.c.log.Infof("could not pull %s (%v): building it and the rest from their Go modules instead", ctl.Name, err)
		return false, nil
	}
	if pl.refsErr != nil {
		return fail(pl.refsErr)
	}
	ref := pl.refs[ctl.Name]
	pl.c.log.Infof("pulling %s from %s…", ctl.Name, ref)
	rec, err := images.Pull(ctx, ref, target, pl.c.images)
	if err != nil {
		return fail(fmt.Errorf("pull %s: %w", ctl.Name, err))
	}
	pl.records[ctl.Name] = rec
	pl.c.log.Infof("pulled %s from %s@%s (%s, sha256 %s)", ctl.Name, rec.Ref, rec.Digest, rec.Path, rec.SHA256[:12])
	return true, nil
}

// save writes the records beside the binaries.
func (pl *puller) save(p K0rdentPaths) error {
	if pl == nil || len(pl.records) == 0 {
		return nil
	}
	data, err := json.MarshalIndent(pl.records, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(p.Dir, ImagesFile), append(data, '\n'))
}
