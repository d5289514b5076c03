package target

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/runbook"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// A cluster kbook did not create (the kubeconfig backend) may be shared:
// while a runbook runs, other people, controllers and other kbooks create
// objects in it too, and "new since the runbook started" is not "made by
// the runbook". There kbook deletes, of the objects that appeared outside
// the runbook's namespace, only those it can attribute to the runbook:
//
//   - an object that names the runbook's namespace (kb-<name>-<random>,
//     made for this run) anywhere in it: Helm's meta.helm.sh/release-namespace
//     annotation, a ClusterRoleBinding's subject, a webhook's service;
//   - an object a program the runbook runs wrote: one of its managedFields
//     entries has that program's manager. The API server names a writer
//     that sets no field manager after its user agent's program
//     (client-go's default user agent starts with its binary's name), and
//     kubectl's own managers are "kubectl-<verb>" (kubectl-create,
//     kubectl-client-side-apply), so a manager is the runbook's when it is
//     a program the runbook runs, or that name and "-<verb>".
//
// The rest is left and said once per runbook. On the local and kind
// backends kbook made the cluster for the run and deletes everything new.

// attribution is what ties objects to the runbooks of a run: their
// namespaces and the programs they run.
type attribution struct {
	namespaces map[string]bool
	programs   map[string]bool
}

// clientPrograms are the programs whose objects are the runbook's when a
// runbook's text names them anywhere (a script file it writes and runs
// with sh runs kubectl too); other programs count when the runbook runs
// them (runbook.Programs).
var clientPrograms = func() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	for _, p := range []string{"kubectl", "helm", "kbook", "clusterctl"} {
		out[p] = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + p + `($|[^A-Za-z0-9_.-])`)
	}
	return out
}()

// programsOf lists, lower-cased, the programs whose writes are rb's.
func programsOf(rb *runbook.Runbook) map[string]bool {
	out := map[string]bool{}
	for _, p := range rb.Programs() {
		out[strings.ToLower(filepath.Base(p))] = true
	}
	var text []string
	for _, st := range rb.Steps {
		for _, l := range st.Script {
			text = append(text, l.Text)
		}
		if st.Shell != nil {
			for _, l := range st.Shell.Script {
				text = append(text, l.Text)
			}
		}
	}
	for _, f := range rb.Files {
		text = append(text, f.Content)
	}
	all := strings.Join(text, "\n")
	for p, re := range clientPrograms {
		if re.MatchString(all) {
			out[p] = true
		}
	}
	return out
}

// add counts a runbook's namespace and programs in.
func (a *attribution) add(namespace string, programs map[string]bool) {
	if a.namespaces == nil {
		a.namespaces, a.programs = map[string]bool{}, map[string]bool{}
	}
	a.namespaces[namespace] = true
	for p := range programs {
		a.programs[p] = true
	}
}

// byManager reports whether one of the field managers is a program of the
// runbooks.
func (a *attribution) byManager(managers []string) bool {
	for _, m := range managers {
		m = strings.ToLower(m)
		for p := range a.programs {
			if m == p || strings.HasPrefix(m, p+"-") {
				return true
			}
		}
	}
	return false
}

// names reports whether the text (an object as JSON) names one of the
// runbooks' namespaces as a whole word.
func (a *attribution) names(text string) bool {
	for ns := range a.namespaces {
		for i := 0; ; {
			j := strings.Index(text[i:], ns)
			if j < 0 {
				break
			}
			j += i
			end := j + len(ns)
			if (j == 0 || !nameByte(text[j-1])) && (end == len(text) || !nameByte(text[end])) {
				return true
			}
			i = j + 1
		}
	}
	return false
}

func nameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '.'
}

// runbookNamespace matches the namespaces kbook makes for runbooks
// (namespaceFor): kb-<runbook>-<6 hex digits>.
var runbookNamespace = regexp.MustCompile(`^kb-[a-z0-9-]+-[0-9a-f]{6}$`)

// othersRunbook reports whether o is another runbook's: its namespace, or
// an object in it, of a runbook this run did not start (another kbook on
// the same cluster, the outer run of a kbook run inside a runbook). Its
// own kbook deletes it, and objects there written by the same program
// (kubectl) would otherwise count as this runbook's.
func (a *attribution) othersRunbook(o object) bool {
	ns := o.Namespace
	if ns == "" && o.GVR.Group == "" && o.GVR.Resource == "namespaces" {
		ns = o.Name
	}
	return ns != "" && runbookNamespace.MatchString(ns) && !a.namespaces[ns]
}

// split parts objs into those the runbooks made (to delete) and those it
// cannot tell (to leave); objects gone meanwhile, and another runbook's
// namespace and what is in it, are neither.
func (a *attribution) split(ctx context.Context, dyn dynamic.Interface, objs []object) (own, left []object, err error) {
	for _, o := range objs {
		if a.othersRunbook(o) {
			continue // that runbook's kbook cleans it up
		}
		if a.byManager(o.Managers) {
			own = append(own, o)
			continue
		}
		var u *unstructured.Unstructured
		if o.Namespace != "" {
			u, err = dyn.Resource(o.GVR).Namespace(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
		} else {
			u, err = dyn.Resource(o.GVR).Get(ctx, o.Name, metav1.GetOptions{})
		}
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			// Not readable (forbidden to this user, a server that does
			// not answer): not attributable either.
			left = append(left, o)
			continue
		}
		unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
		data, err := json.Marshal(u.Object)
		if err != nil {
			return nil, nil, err
		}
		if a.names(string(data)) {
			own = append(own, o)
		} else {
			left = append(left, o)
		}
	}
	return own, left, nil
}

// shared reports whether the cluster may be someone else's too: kbook
// did not create it, so it deletes only what it can attribute.
func (t *Target) shared() bool { return t.opts.Backend == cluster.Kubeconfig }

// ownObjects returns the objects of made that kbook deletes: all of them
// on a cluster it made, those it can attribute to the runbooks on a
// shared one, where it says once what it leaves (of the runbook at path,
// or of the whole run when path is "").
func (t *Target) ownObjects(ctx context.Context, a *attribution, made []object, path string) ([]object, error) {
	if !t.shared() || len(made) == 0 {
		return made, nil
	}
	dyn, err := dynamic.NewForConfig(cluster.FastConfig(t.cluster.RESTConfig()))
	if err != nil {
		return nil, err
	}
	own, left, err := a.split(ctx, dyn, made)
	if err != nil {
		return nil, err
	}
	if len(left) > 0 {
		t.opts.Log().Infof("%s", leftMessage(left, path))
	}
	return own, nil
}

// leftMessage says what the cleanup of the runbook at path (of the run's
// runbooks when "") left on a shared cluster.
func leftMessage(left []object, path string) string {
	names := make([]string, 0, len(left))
	for _, o := range left {
		names = append(names, o.String())
	}
	sort.Strings(names)
	const most = 10
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	what := fmt.Sprintf("%s: left %d objects created outside its namespace during the runbook", path, len(left))
	if path == "" {
		what = fmt.Sprintf("the run: left %d objects created outside the runbooks' namespaces during the run", len(left))
	}
	return fmt.Sprintf("%s: %s; kbook deletes on a shared cluster only what it can attribute to the runbook (naming its namespace, or written by a program it runs)",
		what, strings.Join(names, ", "))
}
