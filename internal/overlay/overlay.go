package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/outmatch"
	"github.com/k0rdent/kbook/internal/pathglob"
	"github.com/k0rdent/kbook/internal/runbook"
)

// The apiVersion and kind an overlay file declares, and the name kbook
// looks for at the root of a docs tree.
const (
	APIVersion = "kbook.k0rdent.io/v1alpha1"
	Kind       = "DocsOverlay"
	File       = "kbook.overlay.yaml"
)

// Overlay is one overlay file.
type Overlay struct {
	// File is the overlay's path, as given.
	File string
	// Pages are globs of the pages, relative to the docs root, that run
	// their shell blocks because the overlay lists them (as kbook.yaml's
	// run.pages): docs kbook does not own opt in from kbook's side,
	// without a kbook.yaml in their tree. PagesLine is the key's line.
	Pages     []string
	PagesLine int
	Rules     []*Rule
}

// ShellPage reports whether the overlay's pages list the page rel
// (slash-separated, relative to the docs root).
func (o *Overlay) ShellPage(rel string) bool {
	for _, p := range o.Pages {
		if pathglob.Match(p, rel) {
			return true
		}
	}
	return false
}

// Rule is one rule: which blocks it matches, and what it does to them.
type Rule struct {
	// Line is the rule's line in the overlay file.
	Line int
	// Page is a glob of page paths relative to the docs root (* within a
	// folder, ** across folders).
	Page string
	// Heading, when set, is the text of the heading the block is under.
	Heading string
	// Block, when not 0, is the block's 1-based position among the
	// page's shell blocks under Heading (the page's, without Heading).
	Block int
	// Command, when set, must match the block's first command.
	Command *regexp.Regexp

	// Skip is the reason the block does not run.
	Skip string
	// Provided is the note of what kbook provides in the block's place.
	Provided string
	// Replace are literals replaced in the block's commands (a stand-in).
	Replace []Replace
	// Run replaces the block's commands (a stand-in).
	Run string
	// Env are variables exported in the page's session before the block.
	Env []string
	// Output is the block's output mode.
	Output outmatch.Mode

	matched int
}

// Replace is one literal replaced in a block's commands.
type Replace struct {
	Old, New string
	Line     int
}

var ruleKeys = []string{"page", "heading", "block", "command", "skip", "provided", "replace", "run", "env", "output"}

// Load reads an overlay file. Bad input is one error at file:line.
func Load(file string) (*Overlay, error) {
	data, err := inputfile.ReadFile(file)
	if err != nil {
		if inputfile.IsLimit(err) {
			return nil, findings.Input(err)
		}
		return nil, findings.Inputf(file, 0, "read overlay: %v", unwrapPath(err))
	}
	return Parse(file, data)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse reads an overlay from its source.
func Parse(file string, data []byte) (*Overlay, error) {
	bad := func(line int, format string, args ...any) error {
		return findings.Inputf(file, line, format, args...)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		msg := err.Error()
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.Replace(msg, m[0], "", 1)
		}
		return nil, bad(line, "%s", strings.TrimPrefix(msg, "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, bad(0, "empty overlay: want apiVersion: %s, kind: %s and rules", APIVersion, Kind)
	}
	root := doc.Content[0]
	f, err := fields(file, root, []string{"apiVersion", "kind", "pages", "rules"}, "")
	if err != nil {
		return nil, err
	}
	if n := f["apiVersion"]; n == nil || n.Value != APIVersion {
		return nil, bad(lineOf(n, root), "apiVersion: want %s", APIVersion)
	}
	if n := f["kind"]; n == nil || n.Value != Kind {
		return nil, bad(lineOf(n, root), "kind: want %s", Kind)
	}
	// An overlay that only opts pages in (pages:, no rules) is whole:
	// their blocks run, or are skipped for what kbook finds itself.
	o := &Overlay{File: file}
	if rules := f["rules"]; rules != nil || f["pages"] == nil {
		if rules == nil {
			return nil, bad(root.Line, "rules: want a list of rules (page:, then what to do: skip, provided, replace, run, env, output), or pages: alone")
		}
		if o, err = ParseRules(file, "rules", rules); err != nil {
			return nil, err
		}
	}
	if pn := f["pages"]; pn != nil {
		if pn.Kind != yaml.SequenceNode || len(pn.Content) == 0 {
			return nil, bad(pn.Line, "pages: want a list of page paths or globs, relative to the docs root, whose shell blocks run")
		}
		o.PagesLine = pn.Line
		for _, g := range pn.Content {
			if g.Kind != yaml.ScalarNode || strings.TrimSpace(g.Value) == "" {
				return nil, bad(g.Line, "pages: want a page path or glob")
			}
			if _, err := path.Match(strings.ReplaceAll(g.Value, "**", "*"), ""); err != nil {
				return nil, bad(g.Line, "pages: %v", err)
			}
			o.Pages = append(o.Pages, g.Value)
		}
	}
	return o, nil
}

// ParseRules reads the rules of an overlay given as the value of a key
// of another file (kbook.yaml's run.overlay): n is that value, a list of
// rules as an overlay file's rules, key its name for messages and file
// the file errors are at. The one reader of rules: an overlay file's go
// through it too.
func ParseRules(file, key string, n *yaml.Node) (*Overlay, error) {
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		line := 0
		if n != nil {
			line = n.Line
		}
		return nil, findings.Inputf(file, line, "%s: want a list of rules (page:, then what to do: skip, provided, replace, run, env, output)", key)
	}
	o := &Overlay{File: file}
	for _, rn := range n.Content {
		r, err := parseRule(file, rn)
		if err != nil {
			return nil, err
		}
		o.Rules = append(o.Rules, r)
	}
	return o, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

func lineOf(n, parent *yaml.Node) int {
	if n != nil {
		return n.Line
	}
	return parent.Line
}

// fields checks a mapping's keys against known and returns its values.
func fields(file string, n *yaml.Node, known []string, what string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, findings.Inputf(file, n.Line, "%swant a mapping", what)
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(known, k.Value) {
			return nil, findings.Inputf(file, k.Line, "%sunknown key %q (known: %s)", what, k.Value, strings.Join(known, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, findings.Inputf(file, k.Line, "%s%s given twice", what, k.Value)
		}
		out[k.Value] = v
	}
	return out, nil
}

// scalar is a string value, an error when it is not one.
func scalar(file string, f map[string]*yaml.Node, key string) (string, error) {
	n := f[key]
	if n == nil {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		return "", findings.Inputf(file, n.Line, "%s: want a non-empty string", key)
	}
	return n.Value, nil
}

func parseRule(file string, n *yaml.Node) (*Rule, error) {
	bad := func(line int, format string, args ...any) error {
		return findings.Inputf(file, line, format, args...)
	}
	f, err := fields(file, n, ruleKeys, "rule: ")
	if err != nil {
		return nil, err
	}
	r := &Rule{Line: n.Line}
	for _, s := range []struct {
		key string
		to  *string
	}{{"page", &r.Page}, {"heading", &r.Heading}, {"skip", &r.Skip}, {"provided", &r.Provided}, {"run", &r.Run}} {
		if *s.to, err = scalar(file, f, s.key); err != nil {
			return nil, err
		}
	}
	if r.Page == "" {
		return nil, bad(n.Line, "rule: page is required (a page path or glob, relative to the docs root)")
	}
	if _, err := path.Match(strings.ReplaceAll(r.Page, "**", "*"), ""); err != nil {
		return nil, bad(f["page"].Line, "page: %v", err)
	}
	if b := f["block"]; b != nil {
		if r.Block, err = strconv.Atoi(b.Value); err != nil || r.Block < 1 || b.Kind != yaml.ScalarNode {
			return nil, bad(b.Line, "block: want the block's position, 1 for the first shell block (under heading, when given)")
		}
	}
	if c := f["command"]; c != nil {
		s, err := scalar(file, f, "command")
		if err != nil {
			return nil, err
		}
		if r.Command, err = regexp.Compile(s); err != nil {
			return nil, bad(c.Line, "command: %v", err)
		}
	}
	if rp := f["replace"]; rp != nil {
		if rp.Kind != yaml.SequenceNode || len(rp.Content) == 0 {
			return nil, bad(rp.Line, "replace: want a list of {old: TEXT, new: TEXT}")
		}
		for _, e := range rp.Content {
			ef, err := fields(file, e, []string{"old", "new"}, "replace: ")
			if err != nil {
				return nil, err
			}
			if ef["old"] == nil || ef["old"].Kind != yaml.ScalarNode || ef["old"].Value == "" {
				return nil, bad(e.Line, "replace: old is required, the literal text to replace")
			}
			if ef["new"] == nil || ef["new"].Kind != yaml.ScalarNode {
				return nil, bad(e.Line, "replace: new is required, the text in its place (\"\" to drop it)")
			}
			r.Replace = append(r.Replace, Replace{Old: ef["old"].Value, New: ef["new"].Value, Line: e.Line})
		}
	}
	if e := f["env"]; e != nil {
		if e.Kind != yaml.MappingNode || len(e.Content) == 0 {
			return nil, bad(e.Line, "env: want a mapping of NAME: value")
		}
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, v := e.Content[i], e.Content[i+1]
			if !validName.MatchString(k.Value) {
				return nil, bad(k.Line, "env: %q is not a variable name", k.Value)
			}
			if v.Kind != yaml.ScalarNode {
				return nil, bad(v.Line, "env: %s: want a string", k.Value)
			}
			r.Env = append(r.Env, k.Value+"="+v.Value)
		}
	}
	if o := f["output"]; o != nil {
		if r.Output, err = outmatch.ParseMode(o.Value); err != nil {
			return nil, bad(o.Line, "output: %v", err)
		}
	}
	switch {
	case r.Skip == "" && r.Provided == "" && r.Replace == nil && r.Run == "" && r.Env == nil && r.Output == "":
		return nil, bad(n.Line, "rule: says nothing to do: give skip, provided, replace, run, env or output")
	case r.Skip != "" && (r.Provided != "" || r.Replace != nil || r.Run != "" || r.Env != nil || r.Output != ""):
		return nil, bad(f["skip"].Line, "skip: a skipped block does not run: drop what else the rule says (provided, replace, run, env, output)")
	case r.Replace != nil && r.Run != "":
		return nil, bad(f["run"].Line, "run: replaces the whole block, replace a literal in it: give one of them")
	}
	return r, nil
}

var validName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Apply applies the overlay to the runbooks of a run whose docs root is
// root (page globs are relative to it; "" is the current folder). A
// rule that matches no block is an error at its line: when no page
// under root matches its page, or when every page that does is in the
// run and none of their shell blocks matches. (A rule whose pages are
// not in this run cannot be checked, and is no error.)
func (o *Overlay) Apply(rbs []*runbook.Runbook, root string) error {
	if root == "" {
		root = "."
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	rel := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return filepath.ToSlash(p)
		}
		r, err := filepath.Rel(absRoot, abs)
		if err != nil {
			return filepath.ToSlash(p)
		}
		return filepath.ToSlash(r)
	}
	for _, r := range o.Rules {
		r.matched = 0 // an overlay applied again (kbook serve) counts anew
	}
	loaded := map[string]*runbook.Runbook{}
	for _, rb := range rbs {
		loaded[rel(rb.Path)] = rb
	}
	pages := make([]string, 0, len(loaded))
	for p := range loaded {
		pages = append(pages, p)
	}
	sort.Strings(pages)
	for _, r := range o.Rules {
		for _, p := range pages {
			rb := loaded[p]
			if rb.ShellPage() == "" || !pathglob.Match(r.Page, p) {
				continue
			}
			if err := o.applyRule(r, rb); err != nil {
				return err
			}
		}
	}
	for _, r := range o.Rules {
		if r.matched > 0 {
			continue
		}
		if err := o.unmatched(r, absRoot, loaded); err != nil {
			return err
		}
	}
	for _, p := range o.Pages {
		if len(pagesOnDisk(absRoot, p)) == 0 {
			return findings.Inputf(o.File, o.PagesLine, "pages: %s matches no page under %s (a page moved or was renamed?)", p, absRoot)
		}
	}
	return nil
}

// pagesOnDisk lists the files under absRoot that the glob pat matches,
// relative to it, slash-separated; hidden folders and node_modules are
// not searched.
func pagesOnDisk(absRoot, pat string) []string {
	var onDisk []string
	_ = filepath.WalkDir(absRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != absRoot && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(absRoot, p)
		if err == nil && pathglob.Match(pat, filepath.ToSlash(rel)) {
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	return onDisk
}

// applyRule applies r to the matching shell blocks of rb.
func (o *Overlay) applyRule(r *Rule, rb *runbook.Runbook) error {
	pos := map[string]int{}
	for _, st := range rb.Steps {
		sh := st.Shell
		if sh == nil {
			continue
		}
		key := ""
		if r.Heading != "" {
			key = st.Block.Heading
		}
		pos[key]++
		switch {
		case r.Heading != "" && st.Block.Heading != r.Heading:
			continue
		case r.Block != 0 && pos[key] != r.Block:
			continue
		case r.Command != nil && !r.Command.MatchString(firstCommand(sh)):
			continue
		}
		r.matched++
		by := fmt.Sprintf("%s:%d", o.File, r.Line)
		sh.By = by
		if r.Skip != "" {
			sh.Skip, sh.Provided = r.Skip, ""
			continue
		}
		if r.Provided != "" {
			sh.Provided, sh.Skip = r.Provided, ""
		}
		if r.Output != "" {
			sh.Mode = r.Output
		}
		sh.Env = append(sh.Env, r.Env...)
		if r.Run != "" {
			var script []runbook.Line
			for i, l := range strings.Split(strings.TrimSuffix(r.Run, "\n"), "\n") {
				script = append(script, runbook.Line{Text: l, Num: sh.Script[0].Num + min(i, len(sh.Script)-1)})
			}
			if err := sh.SetScript(rb.Path, script); err != nil {
				return findings.Inputf(o.File, r.Line, "run: for %s:%d: %v", rb.Path, st.Line, err)
			}
			sh.Standin = true
		}
		for _, rp := range r.Replace {
			text := joinScript(sh.Script)
			if !strings.Contains(text, rp.Old) {
				return findings.Inputf(o.File, rp.Line, "replace: %q is not in the block at %s:%d, which the rule at line %d matches", rp.Old, rb.Path, st.Line, r.Line)
			}
			lines := strings.Split(strings.ReplaceAll(text, rp.Old, rp.New), "\n")
			script := make([]runbook.Line, len(lines))
			for i, l := range lines {
				script[i] = runbook.Line{Text: l, Num: sh.Script[min(i, len(sh.Script)-1)].Num}
			}
			if err := sh.SetScript(rb.Path, script); err != nil {
				return findings.Inputf(o.File, rp.Line, "replace: the block at %s:%d then does not parse: %v", rb.Path, st.Line, err)
			}
			sh.Standin = true
		}
	}
	return nil
}

// unmatched is the error of a rule that matched no block, or nil when
// its pages are not in this run.
func (o *Overlay) unmatched(r *Rule, absRoot string, loaded map[string]*runbook.Runbook) error {
	onDisk := pagesOnDisk(absRoot, r.Page)
	if len(onDisk) == 0 {
		return findings.Inputf(o.File, r.Line, "the rule matches nothing: no page under %s is %s (a page moved or was renamed?)", absRoot, r.Page)
	}
	var notShell []string
	for _, p := range onDisk {
		rb, ok := loaded[p]
		if !ok {
			return nil // not in this run: cannot tell
		}
		if rb.ShellPage() == "" {
			notShell = append(notShell, p)
		}
	}
	if len(notShell) == len(onDisk) {
		return findings.Inputf(o.File, r.Line, "the rule matches nothing: %s does not run its shell blocks (run: shell in its front matter, or run.pages in kbook.yaml)", strings.Join(notShell, ", "))
	}
	var want []string
	if r.Heading != "" {
		want = append(want, fmt.Sprintf("is under the heading %q", r.Heading))
	}
	if r.Block != 0 {
		want = append(want, fmt.Sprintf("is at position %d", r.Block))
	}
	if r.Command != nil {
		want = append(want, fmt.Sprintf("has a first command matching %q", r.Command))
	}
	return findings.Inputf(o.File, r.Line, "the rule matches nothing: no shell block of %s %s (the page changed?)", strings.Join(onDisk, ", "), strings.Join(want, " and "))
}

// firstCommand is a block's first command line, trimmed.
func firstCommand(sh *runbook.Shell) string {
	for _, l := range sh.Script {
		if t := strings.TrimSpace(l.Text); t != "" && !strings.HasPrefix(t, "#") {
			return t
		}
	}
	return ""
}

func joinScript(script []runbook.Line) string {
	var b bytes.Buffer
	for i, l := range script {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.Text)
	}
	return b.String()
}
