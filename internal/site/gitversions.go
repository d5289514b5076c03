package site

import (
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Checkout is one version of kbook.yaml's list, ready to build.
type Checkout struct {
	Spec docsrepo.VersionSpec
	// Dir is the docs root to build it from: the working tree for next
	// (or an empty ref), else a git worktree of the ref.
	Dir string
	// Kept is true for a version that is not built again: a tag whose
	// folder is already in the output (tags do not move).
	Kept bool
}

// CheckoutVersions prepares every version of cfg.Versions: the working
// tree for next, a detached git worktree for every other ref, nothing for
// tagged versions already built into out. The worktrees live in a folder
// of out that the returned cleanup removes; dirs records it meanwhile, so
// that the next kbook removes it if this one is killed (nil: untracked).
func CheckoutVersions(dir, out string, cfg *docsrepo.Config, dirs DirTracker) ([]Checkout, func(), error) {
	if len(cfg.Versions) == 0 {
		return nil, func() {}, &findings.InputError{File: docsrepo.ConfigFile, Err: errors.New("--all-versions: kbook.yaml lists no versions (versions: [{name: v0.1, ref: v0.1}, {name: next}])")}
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, func() {}, fmt.Errorf("--all-versions needs a git repository: %s is not in one", dir)
	}
	root := strings.TrimSpace(string(top))
	prefix := repoPrefix(dir)
	_, _ = git(root, "worktree", "prune")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, func() {}, err
	}
	wt, err := trackedTemp(dirs, out, ".kbook-build-worktrees-")
	if err != nil {
		return nil, func() {}, err
	}
	var made []string
	cleanup := func() {
		for _, d := range made {
			_, _ = git(root, "worktree", "remove", "--force", d)
		}
		removeTracked(dirs, wt)
		_, _ = git(root, "worktree", "prune")
	}
	var cos []Checkout
	for _, v := range cfg.Versions {
		ref := v.Ref
		if ref == "" && v.Name != NextVersion {
			ref = v.Name
		}
		if ref == "" {
			cos = append(cos, Checkout{Spec: v, Dir: dir})
			continue
		}
		v.Ref = ref
		if _, err := git(root, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
			cleanup()
			return nil, func() {}, findings.Inputf(docsrepo.ConfigFile, v.Line, "version %s: git ref %q does not exist", v.Name, ref)
		}
		_, tagErr := git(root, "show-ref", "--verify", "--quiet", "refs/tags/"+ref)
		if _, err := os.Stat(filepath.Join(out, v.Name, "index.html")); err == nil && tagErr == nil {
			cos = append(cos, Checkout{Spec: v, Kept: true})
			continue
		}
		d := filepath.Join(wt, v.Name)
		cmd := exec.Command("git", "worktree", "add", "--detach", "--quiet", d, ref)
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			cleanup()
			return nil, func() {}, fmt.Errorf("version %s: git worktree add %s: %v: %s", v.Name, ref, err, strings.TrimSpace(string(msg)))
		}
		made = append(made, d)
		cos = append(cos, Checkout{Spec: v, Dir: filepath.Join(d, filepath.FromSlash(prefix))})
	}
	return cos, cleanup, nil
}
