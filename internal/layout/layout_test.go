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
