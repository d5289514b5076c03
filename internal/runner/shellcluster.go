package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/rogpeppe/go-internal/testscript"
)

// clusterAPI is what the runner asks the run's cluster about a shell
// block before it runs (a *kubecmd.Client answers).
type clusterAPI interface {
	ServesResource(arg string) (bool, error)
	ServesKind(apiVersion, kind string) (bool, error)
	HasNamespace(name string) (bool, error)
}

// maxManifest is the largest file given to kubectl -f that kbook reads
// for its kinds.
const maxManifest = 1 << 20

// clusterLacks decides, just before a block runs, whether the run's
// cluster lacks what the block asks of it (runbook.Kube): a resource type
// or a manifest's kind it does not serve (no CustomResourceDefinition
// defines it: the product that installs it is not installed here), or a
// namespace that does not exist and that the block does not make (what
// would have made it, an installation or a block that did not run, did
// not run here). Such a block would fail for what the page takes as
// already done, not for what it does: it is skipped, saying what it
// needs. A block that may install what kbook cannot read (helm install,
// kubectl apply -k or of a URL), or makes a CRD, is not asked about, nor
// is a block when the run has no cluster or the cluster does not answer.
func (x *execution) clusterLacks(ts *testscript.TestScript, st *runbook.Step) (shellRes, bool) {
	k := &st.Shell.Needs.Kube
	if k.Installs || (len(k.Types) == 0 && len(k.Kinds) == 0 && len(k.Files) == 0 && len(k.Namespaces) == 0) {
		return shellRes{}, false
	}
	c, ok := ts.Value(kubecmd.ClientKey{}).(clusterAPI)
	if !ok || c == nil {
		return shellRes{}, false
	}
	kinds := slices.Clone(k.Kinds)
	for _, f := range k.Files {
		data, err := readManifest(ts.MkAbs(f.Name))
		if err != nil {
			continue
		}
		for _, o := range runbook.ManifestKinds(string(data), 1) {
			o.Line = f.Line // the block's line that gives the file
			kinds = append(kinds, o)
		}
	}
	makes := slices.Clone(k.MakesNamespaces)
	for _, o := range kinds {
		switch {
		case o.Kind == "CustomResourceDefinition":
			return shellRes{}, false // it installs what it then uses
		case o.Kind == "Namespace" && o.APIVersion == "v1":
			makes = append(makes, o.Name)
		}
	}
	skip := func(format string, args ...any) (shellRes, bool) {
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf(format, args...)}, true
	}
	for _, t := range k.Types {
		if served, err := c.ServesResource(t.Name); err == nil && !served {
			return skip("needs CRD %s: kubectl is given the resource type %s (line %d), which the run's cluster does not serve (no CustomResourceDefinition defines it: what installs it is not installed here)", t.Name, t.Name, t.Line)
		}
	}
	for _, o := range kinds {
		if served, err := c.ServesKind(o.APIVersion, o.Kind); err == nil && !served {
			return skip("needs CRD %s (%s): its manifest (line %d) is of a kind the run's cluster does not serve (no CustomResourceDefinition defines it: what installs it is not installed here)", o.Kind, o.APIVersion, o.Line)
		}
	}
	names := slices.Clone(k.Namespaces)
	for _, o := range kinds {
		if o.Namespace != "" {
			names = append(names, runbook.KubeRef{Name: o.Namespace, Line: o.Line})
		}
	}
	for _, n := range names {
		if slices.Contains(makes, n.Name) {
			continue
		}
		if has, err := c.HasNamespace(n.Name); err == nil && !has {
			return skip("needs the namespace %s (line %d), which the run's cluster does not have and the block does not make (what makes it, an installation or an earlier step, did not run here)", n.Name, n.Line)
		}
	}
	return shellRes{}, false
}

// filesLack decides, just before a block runs, whether a file one of its
// kubectl commands reads (-f, --from-file) is not there, where the block
// runs, and none of the page's blocks that did not run would have
// written it (then it is skipped after that block): nothing on the page
// made it, the reader is taken to have it (cosign.pub, which a command
// the page shows makes), and the block needs it.
func (x *execution) filesLack(ts *testscript.TestScript, st *runbook.Step) (shellRes, bool) {
	p := x.page()
	if n := st.Shell.Needs.Make; n > 0 {
		found := false
		for _, f := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if _, err := os.Stat(ts.MkAbs(f)); err == nil {
				found = true
			}
		}
		if !found {
			return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("runs make (line %d), and there is no Makefile where the block runs: it runs in a checkout the page does not make here", n)}, true
		}
	}
	for _, r := range st.Shell.Needs.Kube.Reads {
		if _, err := os.Stat(ts.MkAbs(r.Name)); err == nil {
			continue
		}
		if name := filepath.Clean(r.Name); p.lostFile(name) {
			// after the block that would have written it
			return x.missing(st, []string{"f:" + name}), true
		}
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("needs the file %s (line %d), which is not where the block runs: no block of the page that ran wrote it, nor is a block of the page bound to it", r.Name, r.Line)}, true
	}
	return shellRes{}, false
}

// readManifest reads a file given to kubectl -f, when it is a file of a
// reasonable size.
func readManifest(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		// kubectl -f DIR: its manifests, not below.
		var all []byte
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			switch filepath.Ext(e.Name()) {
			case ".yaml", ".yml", ".json":
				if d, err := readManifest(filepath.Join(p, e.Name())); err == nil {
					all = append(append(all, d...), "\n---\n"...)
				}
			}
		}
		return all, nil
	}
	if fi.Size() > maxManifest {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, maxManifest)
	}
	return os.ReadFile(p)
}

// lostFile reports whether a block of the page that did not run would
// have written the file or folder name (or a folder it is in).
func (p *pageShell) lostFile(name string) bool {
	for k := range p.lost {
		if f, ok := strings.CutPrefix(k, "f:"); ok && runbook.SameOrUnder(name, f) {
			return true
		}
	}
	return false
}
