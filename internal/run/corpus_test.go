package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/runbook"
)

// TestShellCorpusCensus reads every page of the real MkDocs projects of
// ../shared/mkdocs (Sveltos's and k0s's docs) as kbook run reads a page
// that opted in to running its shell blocks, macros expanded, with no
// overlay, and classifies each shell block before anything runs: does not
// parse, declared or needs a human (<placeholder>), runs sudo, downloads
// (skipped under --offline), needs a command this machine lacks, uses
// what only such a block makes (after), or may run (against the run's
// cluster when it runs kubectl). No page may fail to load. The
// census, per page and per reason, is compared with
// testdata/census-NAME.txt (KBOOK_UPDATE_CENSUS=1 rewrites it);
// content/runbooks/existing-docs.md quotes its totals. Which commands are
// missing depends on the machine: kubectl is taken as there (kbook's
// local backend brings it), and so are bash's builtins and the
// coreutils; no other command is, so that the census is the same on
// every machine.
func TestShellCorpusCensus(t *testing.T) {
	for _, name := range []string{"sveltos", "k0s"} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join("..", "..", "..", "shared", "mkdocs", name)
			if _, err := os.Stat(filepath.Join(root, "mkdocs.yml")); err != nil {
				t.Skipf("corpus %s absent (%v): the real MkDocs projects live in ../shared/mkdocs", name, err)
			}
			wantGolden(t, "the census of "+name, filepath.Join("testdata", "census-"+name+".txt"), census(t, root))
		})
	}
}

// present are the commands the census takes as on PATH besides bash's
// builtins: the coreutils and the few tools every Linux has, and kubectl.
var present = map[string]bool{}

func init() {
	for _, c := range strings.Fields("kubectl cat cp mv rm mkdir ls ln chmod touch head tail sort uniq wc tr cut tee grep sed awk " +
		"env sleep date base64 basename dirname find xargs printf echo test true false yes seq diff tar gzip mktemp") {
		present[c] = true
	}
}

func census(t *testing.T, root string) string {
	t.Helper()
	macros, err := PageMacros(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(root, "docs")
	var pages []string
	err = filepath.WalkDir(docs, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages)
	var b strings.Builder
	total := map[string]int{}
	nPages, nBlocks := 0, 0
	for _, p := range pages {
		rbs, err := runbook.LoadShell([]string{p}, func(string) string { return "census" }, macros)
		if err != nil {
			if strings.Contains(err.Error(), "nothing to run") {
				continue // no shell block
			}
			t.Errorf("%v", err)
			continue
		}
		counts := classify(rbs[0])
		if len(counts) == 0 {
			continue
		}
		nPages++
		rel, _ := filepath.Rel(root, p)
		var parts []string
		n := 0
		for _, k := range sortedKeys(counts) {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
			n += counts[k]
			total[k] += counts[k]
		}
		nBlocks += n
		fmt.Fprintf(&b, "%s: %d: %s\n", filepath.ToSlash(rel), n, strings.Join(parts, ", "))
	}
	var parts []string
	for _, k := range sortedKeys(total) {
		parts = append(parts, fmt.Sprintf("%s %d", k, total[k]))
	}
	return fmt.Sprintf("total: %d pages, %d blocks: %s\n", nPages, nBlocks, strings.Join(parts, ", ")) + b.String()
}

func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// classify counts a page's shell blocks by what would become of them in
// a run as a CI machine makes it (not root, --offline, kbook's kubectl).
func classify(rb *runbook.Runbook) map[string]int {
	counts := map[string]int{}
	// What cannot run here is skipped first, so that what uses it is
	// "after".
	for _, st := range rb.Steps {
		sh := st.Shell
		switch {
		case sh == nil || sh.Skip != "":
		case sh.Syntax != nil:
			sh.Skip = "does not parse"
		case sh.Needs.Sudo > 0:
			sh.Skip = "runs sudo"
		case len(sh.Needs.Fetches) > 0:
			sh.Skip = "downloads"
		}
	}
	has := func(c string) bool { return present[c] }
	may := rb.ShellMayRun(has, func(string) bool { return false })
	for _, st := range rb.Steps {
		sh := st.Shell
		if sh == nil {
			continue
		}
		switch {
		case strings.HasPrefix(sh.Skip, "needs a human"):
			counts["needs a human"]++
		case sh.Skip != "":
			counts[sh.Skip]++
		case may[st] && slices.Contains(sh.Needs.Commands, "kubectl"):
			counts["may run (cluster)"]++
		case may[st]:
			counts["may run"]++
		case missing(sh.Needs.Commands, has) != "":
			counts["needs "+missing(sh.Needs.Commands, has)]++
		default:
			counts["after a skipped block"]++
		}
	}
	return counts
}

func missing(cmds []string, has func(string) bool) string {
	for _, c := range cmds {
		if !runbook.IsBashBuiltin(c) && !has(c) {
			return c
		}
	}
	return ""
}

// wantGolden wants got to be file's content; KBOOK_UPDATE_CENSUS=1
// writes it instead. what names it in the failure.
func wantGolden(t *testing.T, what, file, got string) {
	t.Helper()
	if os.Getenv("KBOOK_UPDATE_CENSUS") != "" {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (KBOOK_UPDATE_CENSUS=1 writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed (KBOOK_UPDATE_CENSUS=1 rewrites %s):\n%s", what, file, got)
	}
}
