package overlay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/runbook"
)

const head = "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\nrules:\n"

// TestParseErrors: bad overlay input is one error at file:line.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"yaml", head + "  - page: [\n", "o.yaml:4: "},
		{"apiVersion", "apiVersion: v1\nkind: DocsOverlay\nrules: []\n", "o.yaml:1: apiVersion: want kbook.k0rdent.io/v1alpha1"},
		{"kind", "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: Other\n", "o.yaml:2: kind: want DocsOverlay"},
		{"no rules", "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\n", "o.yaml:1: rules: want a list"},
		{"unknown key", head + "  - page: a.md\n    skipp: x\n", `o.yaml:5: rule: unknown key "skipp"`},
		{"no page", head + "  - skip: x\n", "o.yaml:4: rule: page is required"},
		{"nothing to do", head + "  - page: a.md\n    heading: H\n", "o.yaml:4: rule: says nothing to do"},
		{"skip and more", head + "  - page: a.md\n    skip: x\n    output: exact\n", "o.yaml:5: skip: a skipped block does not run"},
		{"block", head + "  - page: a.md\n    block: first\n    skip: x\n", "o.yaml:5: block: want the block's position"},
		{"command", head + "  - page: a.md\n    command: '(['\n    skip: x\n", "o.yaml:5: command: error parsing regexp"},
		{"output", head + "  - page: a.md\n    output: loose\n", "o.yaml:5: output: "},
		{"env", head + "  - page: a.md\n    env: {1X: a}\n", `o.yaml:5: env: "1X" is not a variable name`},
		{"replace", head + "  - page: a.md\n    replace: [{new: x}]\n", "o.yaml:5: replace: old is required"},
		{"replace and run", head + "  - page: a.md\n    replace: [{old: a, new: b}]\n    run: echo\n", "o.yaml:6: run: replaces the whole block"},
		{"duplicate", head + "  - page: a.md\n    skip: x\n    skip: y\n", "o.yaml:6: rule: skip given twice"},
		{"pages not a list", "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\npages: a.md\nrules:\n  - page: a.md\n    skip: x\n", "o.yaml:3: pages: want a list"},
		{"pages alone, a list of no rules", "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\npages: [a.md]\nrules: []\n", "o.yaml:4: rules: want a list"},
		{"pages glob", "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\npages:\n  - '[a.md'\nrules:\n  - page: a.md\n    skip: x\n", "o.yaml:4: pages: syntax error in pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("o.yaml", []byte(tc.src))
			if err == nil || !findings.IsInput(err) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err %v, want bad input starting %q", err, tc.want)
			}
		})
	}
}

// TestPagesAlone: an overlay that only opts pages in needs no rules.
func TestPagesAlone(t *testing.T) {
	o, err := Parse("o.yaml", []byte("apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\npages: [\"docs/**/*.md\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Rules) != 0 || o.File != "o.yaml" || !o.ShellPage("docs/a/b.md") || o.ShellPage("README.md") {
		t.Errorf("got %+v: want docs/**/*.md opted in, no rules", o)
	}
}

// TestUnmatched: a rule that matches no block is an error at its line,
// unless its pages are not in this run; a replace that finds nothing is
// one at the replace's line.
func TestUnmatched(t *testing.T) {
	rbs, err := runbook.Load([]string{"testdata/docs/guide/page.md", "testdata/docs/guide/plain.md"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, rule, want string
	}{
		{"page gone", "  - page: guide/moved.md\n    skip: x\n", "o.yaml:4: the rule matches nothing: no page under"},
		{"heading", "  - page: guide/page.md\n    heading: Uninstall\n    skip: x\n", `o.yaml:4: the rule matches nothing: no shell block of guide/page.md is under the heading "Uninstall"`},
		{"position", "  - page: guide/page.md\n    block: 2\n    skip: x\n", "o.yaml:4: the rule matches nothing: no shell block of guide/page.md is at position 2"},
		{"command", "  - page: guide/p*.md\n    command: ^helm\n    skip: x\n", `o.yaml:4: the rule matches nothing: no shell block of guide/page.md, guide/plain.md has a first command matching "^helm"`},
		{"not a shell page", "  - page: guide/plain.md\n    skip: x\n", "o.yaml:4: the rule matches nothing: guide/plain.md does not run its shell blocks"},
		{"replace", "  - page: guide/page.md\n    replace:\n      - {old: two, new: three}\n    provided: x\n", `o.yaml:6: replace: "two" is not in the block at testdata/docs/guide/page.md:7`},
		{"not in this run", "  - page: guide/other.md\n    skip: x\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Parse("o.yaml", []byte(head+tc.rule))
			if err != nil {
				t.Fatal(err)
			}
			err = o.Apply(rbs, "testdata/docs")
			if tc.want == "" {
				if err != nil {
					t.Errorf("a rule whose page is not in the run: %v", err)
				}
				return
			}
			if err == nil || !findings.IsInput(err) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err %v, want bad input starting %q", err, tc.want)
			}
		})
	}
}

// TestSyntaxAfterRules: a rule that matches a block applies before the
// block's syntax is checked, so that a block it skips, provides or
// fills in is no syntax error; a rule that changes nothing of what runs
// (env) leaves it one, and a stand-in that still does not parse is one at
// the rule's line. A block that needs a human (a <placeholder>) can be
// provided or filled in by a rule.
func TestSyntaxAfterRules(t *testing.T) {
	const page = "---\nrun: shell\n---\n\n# Setup\n\n```bash\necho 'never closed\n```\n\n```bash\nkubectl create secret generic gcp --from-file=<credentialsFile>\n```\n"
	for _, tc := range []struct {
		name, rules string
		// want is the error of Apply, then of ShellSyntax ("" none).
		want string
		// skip1, skip2: the blocks' skip reasons afterwards; run2: the
		// second block's commands run.
		skip1, skip2, run2 string
	}{
		{"no rule: the syntax error", "  - page: p.md\n    block: 2\n    output: exact\n", "p.md:8: bash syntax:", "", "needs a human: fill in <credentialsFile>", ""},
		{"skip", "  - page: p.md\n    block: 1\n    skip: broken on the page\n", "", "broken on the page", "needs a human: fill in <credentialsFile>", ""},
		{"provided", "  - page: p.md\n    command: ^echo\n    provided: kbook says it\n", "", "", "needs a human: fill in <credentialsFile>", ""},
		{"replace that mends it", "  - page: p.md\n    block: 1\n    replace: [{old: \"'never\", new: \"never\"}]\n", "", "", "needs a human: fill in <credentialsFile>", ""},
		{"env alone leaves it", "  - page: p.md\n    block: 1\n    env: {A: b}\n", "p.md:8: bash syntax:", "", "needs a human: fill in <credentialsFile>", ""},
		{"replace that does not mend it", "  - page: p.md\n    block: 1\n    replace:\n      - {old: never, new: still}\n", "o.yaml:7: replace: the block at", "", "", ""},
		{"a placeholder provided", "  - page: p.md\n    block: 1\n    skip: x\n  - page: p.md\n    command: ^kubectl create secret\n    provided: the run's secret\n", "", "x", "", ""},
		{"a placeholder filled in", "  - page: p.md\n    block: 1\n    skip: x\n  - page: p.md\n    block: 2\n    replace: [{old: <credentialsFile>, new: creds.json}]\n", "", "x", "", "kubectl create secret generic gcp --from-file=creds.json\n"},
		{"a placeholder skipped with the overlay's reason", "  - page: p.md\n    block: 1\n    skip: x\n  - page: p.md\n    block: 2\n    skip: needs a GCP account\n", "", "x", "needs a GCP account", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rb, err := runbook.Parse(filepath.Join(dir, "p.md"), []byte(page))
			if err != nil {
				t.Fatalf("Parse: %v (syntax is checked after the overlays)", err)
			}
			if err := rb.RunShellBlocks("test"); err != nil {
				t.Fatal(err)
			}
			o, err := Parse("o.yaml", []byte(head+tc.rules))
			if err != nil {
				t.Fatal(err)
			}
			err = o.Apply([]*runbook.Runbook{rb}, dir)
			if err == nil {
				err = rb.ShellSyntax()
			}
			if tc.want == "" && err != nil {
				t.Fatalf("err %v, want none", err)
			}
			if tc.want != "" {
				if err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err %v, want bad input with %q", err, tc.want)
				}
				if strings.HasPrefix(tc.want, "o.yaml") {
					return
				}
			}
			sh1, sh2 := rb.Steps[0].Shell, rb.Steps[1].Shell
			if sh1.Skip != tc.skip1 || sh2.Skip != tc.skip2 {
				t.Errorf("skip reasons %q, %q, want %q, %q", sh1.Skip, sh2.Skip, tc.skip1, tc.skip2)
			}
			if sh2.Run != tc.run2 {
				t.Errorf("the second block runs %q, want %q", sh2.Run, tc.run2)
			}
		})
	}
}
