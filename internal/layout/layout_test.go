package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/k0rdent/kbook"

// knownLoops are the folder loops that exist today, as "A → B → C" (A
// imports B, outside A's folder, which imports C, A or a package under it).
// Breaking one fails this test until it is removed here: the list only
// shrinks.
var knownLoops = []string{}

type pkg struct {
	ImportPath string
	Deps       []string
}

// inTree reports whether p is dir or a package under it.
func inTree(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// TestNoFolderLoops walks the import graph of ./... (go list, without
// tests) and fails on a package importing, directly or not, one outside its
// folder that imports it or a package under it back.
func TestNoFolderLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list -deps on the whole module; skipped with -short")
	}
	cmd := exec.Command("go", "list", "-json", "-deps=false", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	deps := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		deps[p.ImportPath] = p.Deps
	}
	if len(deps) < 10 {
		t.Fatalf("go list found %d packages, want the whole module", len(deps))
	}
	var loops []string
	for a, ad := range deps {
		for _, b := range ad {
			if _, ours := deps[b]; !ours || inTree(b, a) {
				continue
			}
			for _, c := range deps[b] {
				if inTree(c, a) {
					loops = append(loops, short(a)+" → "+short(b)+" → "+short(c))
				}
			}
		}
	}
	slices.Sort(loops)
	loops = slices.Compact(loops)
	for _, l := range loops {
		if !slices.Contains(knownLoops, l) {
			t.Errorf("folder loop: %s (a package imports, through one outside its folder, itself or a package under it)", l)
		}
	}
	for _, k := range knownLoops {
		if !slices.Contains(loops, k) {
			t.Errorf("known loop %s is gone: remove it from knownLoops", k)
		}
	}
}

func short(p string) string { return strings.TrimPrefix(p, module+"/") }

// readsWithoutRendering are packages that read a docs repository and
// must not depend, directly or not, on a package that renders or
// translates its pages (issue 40 item 1: one docs-repository model,
// internal/docsrepo; internal/site only renders; translation happens
// only where a page is rendered). kbook run finds its runbook pages on
// their source, so a page it does not run cannot fail it. Each entry also
// names a package it must depend on, so that the test sees real
// dependencies.
var readsWithoutRendering = map[string]string{
	"internal/run":      "internal/docsrepo",
	"internal/docsrepo": "internal/runbook",
}

// renders are the packages (with those under them) that render a site or
// translate pages.
var renders = []string{"internal/site", "internal/sitetools", "internal/mkdocs/markdown"}

// TestRunReadsWithoutRendering fails when a package of
// readsWithoutRendering depends on one of renders (go list -deps).
func TestRunReadsWithoutRendering(t *testing.T) {
	for p, must := range readsWithoutRendering {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/"+p).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", p, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, module+"/"+must) {
			t.Errorf("%s does not depend on %s: go list -deps gave %d packages, want its dependencies", p, must, len(deps))
		}
		for _, d := range deps {
			for _, r := range renders {
				if inTree(d, module+"/"+r) {
					t.Errorf("%s depends on %s, which renders or translates pages: a docs repository is read with internal/docsrepo", p, short(d))
				}
			}
		}
	}
}
