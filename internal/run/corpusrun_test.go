package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/report"
)

// TestShellCorpusRun runs the shell blocks of every page of the real
// MkDocs projects of ../shared/mkdocs (Sveltos's and k0s's docs) with
// kbook run, as a CI machine would: the local backend (an API server, no
// controllers, no nodes), --offline, each page opted in and the blocks
// that are no commands declared by the overlay kbook keeps in
// examples/NAME-docs, no page edited. Every block must end passed, ran,
// provided or skipped with its reason: a block that failed is an error,
// with its reason. The per-page results are compared with
// testdata/corpus-run-NAME.txt (KBOOK_UPDATE_CENSUS=1 rewrites it);
// content/runbooks/existing-docs.md quotes them.
//
// The blocks' PATH is the census's (bash, the coreutils, kubectl), so
// that what a block needs of the machine is the same on every machine.
// It takes about 10 s a project (and the local API server's start); it
// is not run with -short, nor without KUBEBUILDER_ASSETS.
func TestShellCorpusRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two real docs trees on a local API server: not with -short")
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: the local backend's binaries (export KUBEBUILDER_ASSETS=$(kbook cluster assets))")
	}
	for _, name := range []string{"sveltos", "k0s"} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join("..", "..", "..", "shared", "mkdocs", name)
			if _, err := os.Stat(filepath.Join(root, "mkdocs.yml")); err != nil {
				t.Skipf("corpus %s absent (%v): the real MkDocs projects live in ../shared/mkdocs", name, err)
			}
			var out bytes.Buffer
			start := time.Now()
			o := Options{
				Paths:    []string{filepath.Join(root, "docs")},
				Overlays: []string{filepath.Join("..", "..", "examples", name+"-docs", "kbook.overlay.yaml")},
				Offline:  true, NoCache: true, Parallel: 2, Timeout: 2 * time.Minute,
				// No Docker daemon, whatever runs on this machine (make test
				// starts one for kind): the result is the same everywhere.
				Env:      []string{"PATH=" + censusPath(t), "DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "no-docker.sock")},
				Progress: "plain", IOStreams: log.IOStreams{Out: &out},
				Cluster: Cluster{Options: cluster.Options{Backend: cluster.Local}},
			}
			rep, err := Run(context.Background(), o)
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			t.Logf("%s: %s wall", name, time.Since(start).Round(time.Second))
			rbs, err := Load(o.Paths, o.Overlays)
			if err != nil {
				t.Fatal(err)
			}
			sudo := map[string]bool{} // path:line of the blocks that run sudo
			for _, rb := range rbs {
				for _, st := range rb.Steps {
					if st.Shell != nil && st.Shell.Needs.Sudo > 0 {
						sudo[fmt.Sprintf("%s:%d", rb.Path, st.Line)] = true
					}
				}
			}
			wantGolden(t, "the run of "+name, filepath.Join("testdata", "corpus-run-"+name+".txt"), corpusTable(t, root, rep, sudo))
		})
	}
}

// censusPath is a folder of links to bash and the commands the census
// takes as on PATH (kubectl comes with the run's cluster).
func censusPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range append([]string{"bash"}, sortedKeys(mapOf(present))...) {
		if c == "kubectl" {
			continue
		}
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		if err := os.Symlink(p, filepath.Join(dir, c)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mapOf(m map[string]bool) map[string]int {
	out := map[string]int{}
	for k := range m {
		out[k] = 1
	}
	return out
}

// skipKinds sorts skip reasons into the kinds the table counts, first
// match wins.
var skipKinds = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`kbook\.overlay\.yaml:\d+\)$`), "declared by the overlay"},
	{regexp.MustCompile(`^after L\d+|^not run: an earlier step`), "after a skipped block"},
	{regexp.MustCompile(`^needs a human`), "needs a human"},
	{regexp.MustCompile(`^downloads from the internet`), "downloads"},
	{regexp.MustCompile(`^needs CRD `), "needs a CRD"},
	{regexp.MustCompile(`^needs the namespace `), "needs a namespace"},
	{regexp.MustCompile(`^needs a node`), "needs a node"},
	{regexp.MustCompile(`^needs .*, which (is|are) not on PATH`), "needs a command"},
	{regexp.MustCompile(`not a command`), "not a command"},
	{regexp.MustCompile(`^(uses /|writes /|needs the machine|fetches from|needs a running Docker)`), "the host the page sets up"},
	{regexp.MustCompile(`^(needs the file|points KUBECONFIG|works on a checkout|uses the home folder|needs .*, which is not on this machine)`), "files or a checkout the reader has"},
}

// corpusTable is the run's result per page: how many shell blocks
// passed, ran, were provided, skipped (by kind of reason) and failed.
// A failed block is an error, with its reason.
// A skipped block that runs sudo counts as sudo's, whatever its reason:
// as root, kbook runs sudo's commands and skips the block for what they
// need; otherwise for sudo.
func corpusTable(t *testing.T, root string, rep *report.Report, sudo map[string]bool) string {
	t.Helper()
	var b strings.Builder
	total := map[string]int{}
	kinds := map[string]int{}
	pages := 0
	var rows []string
	for _, rb := range rep.Runbooks {
		counts := map[string]int{}
		byKind := map[string]int{}
		for _, st := range rb.Steps {
			if st.Shell == nil {
				continue
			}
			counts[st.Shell.Result]++
			switch st.Shell.Result {
			case report.BlockFailed:
				t.Errorf("%s:%d: failed: %s", rb.Path, st.Line, failure(rb, st))
			case report.BlockSkipped:
				kind := "other"
				if os.Getenv("KBOOK_CORPUS_REASONS") != "" {
					t.Logf("%s:%d: %s", rb.Path, st.Line, st.Reason)
				}
				if sudo[fmt.Sprintf("%s:%d", rb.Path, st.Line)] && !strings.Contains(st.Reason, "kbook.overlay.yaml:") {
					kind = "sudo"
				}
				for _, k := range skipKinds {
					if kind == "sudo" {
						break
					}
					if k.re.MatchString(st.Reason) {
						kind = k.kind
						break
					}
				}
				byKind[kind]++
			}
		}
		if len(counts) == 0 {
			continue
		}
		pages++
		rel, err := filepath.Rel(filepath.Join(root, "docs"), rb.Path)
		if err != nil {
			rel = rb.Path
		}
		n := 0
		var parts []string
		for _, r := range []string{report.BlockPassed, report.BlockRan, report.BlockProvided, report.BlockSkipped, report.BlockFailed} {
			n += counts[r]
			total[r] += counts[r]
			if counts[r] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", r, counts[r]))
			}
		}
		var why []string
		for _, k := range sortedKeys(byKind) {
			why = append(why, fmt.Sprintf("%s %d", k, byKind[k]))
			kinds[k] += byKind[k]
		}
		total["blocks"] += n
		row := fmt.Sprintf("docs/%s: %d: %s", filepath.ToSlash(rel), n, strings.Join(parts, ", "))
		if len(why) > 0 {
			row += " (" + strings.Join(why, ", ") + ")"
		}
		rows = append(rows, row)
	}
	sort.Strings(rows)
	var why []string
	for _, k := range sortedKeys(kinds) {
		why = append(why, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	fmt.Fprintf(&b, "total: %d pages, %d blocks: passed %d, ran %d, provided %d, skipped %d, failed %d\n", pages, total["blocks"],
		total[report.BlockPassed], total[report.BlockRan], total[report.BlockProvided], total[report.BlockSkipped], total[report.BlockFailed])
	fmt.Fprintf(&b, "skipped: %s\n", strings.Join(why, ", "))
	b.WriteString(strings.Join(rows, "\n") + "\n")
	return b.String()
}

// failure is what a failed block's step says.
func failure(rb *report.Runbook, st *report.Step) string {
	if st.Failure != nil {
		return st.Failure.Message
	}
	return rb.Reason
}
