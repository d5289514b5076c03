package overlay

import (
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("o.yaml", []byte(tc.src))
			if err == nil || !findings.IsInput(err) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err %v, want bad input starting %q", err, tc.want)
			}
		})
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
