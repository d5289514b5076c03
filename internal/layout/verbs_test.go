package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// verbOwners maps every kbook command, as its words below kbook, to the
// package that owns its code: the one cmd/kbook's command calls when it
// runs (issue 40: each command in a package that names it, as kind's
// pkg/cmd/kind/<verb> and chainsaw's pkg/commands/<verb>). A command
// added to cmd/kbook fails TestVerbOwners until it is here, with an owner
// whose folder names it.
var verbOwners = map[string]string{
	"build":                "internal/sitebuild",
	"chain validate":       "internal/chain",
	"check":                "internal/check",
	"cluster assets":       "internal/cluster",
	"cluster down":         "internal/cluster",
	"cluster image":        "internal/cluster/nodeimage",
	"cluster kubeconfig":   "internal/cluster",
	"cluster load-image":   "internal/cluster",
	"cluster serve":        "internal/cluster",
	"cluster status":       "internal/cluster",
	"cluster up":           "internal/cluster",
	"gen-docs":             "internal/clidocs",
	"import mkdocs":        "internal/importmkdocs",
	"init docs":            "internal/docs/scaffold",
	"provider conformance": "internal/provider/conformance",
	"provider init":        "internal/provider/scaffold",
	"provider manifest":    "internal/provider/manifest",
	"provider validate":    "internal/provider",
	"report merge":         "internal/report/merge",
	"run":                  "internal/run",
	"serve":                "internal/serve",
	"status":               "internal/status",
	"template init":        "internal/template/scaffold",
	"template manifest":    "internal/template/manifest",
	"template publish":     "internal/template/publish",
	"template render":      "internal/template",
	"template validate":    "internal/template",
	"upgrade apply":        "internal/upgrade",
	"upgrade check":        "internal/upgrade",
	"upgrade window":       "internal/upgrade/window",
	"version":              "internal/version",
}

// shared are the packages a command may call beside its owner: the
// conventions no one verb owns (findings and exit codes, flag values,
// output formats, the logger, the process registry, the cache folder,
// kbook's version).
var shared = []string{
	"internal/cache",
	"internal/cli",
	"internal/findings",
	"internal/log",
	"internal/output",
	"internal/proc",
	"internal/version",
}

// scaffoldIsInit: the package of an init command is its folder's
// scaffold (what init writes), as template/scaffold is template init's.
const scaffoldIsInit = "scaffold"

// TestVerbOwners reads cmd/kbook's command tree (newRootCmd's AddCommand
// and group calls, each command's Use) and fails on what verbProblems
// finds: a command whose code lives elsewhere than in the package that
// names it.
func TestVerbOwners(t *testing.T) {
	cmds, err := readCommands("../../cmd/kbook")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 20 {
		t.Fatalf("found %d commands in cmd/kbook, want kbook's", len(cmds))
	}
	for _, p := range verbProblems(cmds, verbOwners) {
		t.Error(p)
	}
}

// TestVerbOwnersFixture: the rules on a fixture cmd/kbook
// (testdata/cmd): a command that calls another package than its owner as
// it runs, an owner whose folder does not name its command, a command not
// in the table and an entry that is no command are each reported; a
// method of the owner's type counts as calling it.
func TestVerbOwnersFixture(t *testing.T) {
	cmds, err := readCommands("testdata/cmd")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"serve":         {"internal/serve", "internal/site"},
		"upgrade check": {"internal/upgrade"},
		"upgrade apply": {"internal/findings", "internal/upgrade"},
	}
	if !maps.EqualFunc(cmds, want, slices.Equal) {
		t.Fatalf("commands %v, want %v", cmds, want)
	}
	got := verbProblems(cmds, map[string]string{
		"serve":         "internal/serve",
		"upgrade check": "internal/upgrade",
		"upgrade apply": "internal/site",
		"gone":          "internal/gone",
	})
	wantProblems := []string{
		`verbOwners has "gone", which is no command of cmd/kbook: remove it`,
		"kbook serve: calls internal/site as it runs: a verb's code lives in its package (internal/serve), which may call internal/site",
		"kbook upgrade apply: its owner internal/site does not name it: the package's folder should (internal/<verb>, or its group's internal/<group>)",
		"kbook upgrade apply: calls none of internal/site as it runs (calls [internal/findings internal/upgrade]): its code lives elsewhere",
		"kbook upgrade apply: calls internal/upgrade as it runs: a verb's code lives in its package (internal/site), which may call internal/upgrade",
	}
	if !slices.Equal(got, wantProblems) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantProblems, "\n"))
	}
	if p := verbProblems(cmds, map[string]string{"serve": "internal/serve", "upgrade check": "internal/upgrade", "upgrade apply": "internal/upgrade"}); len(p) != 1 {
		t.Errorf("with the right owners, problems %q, want only serve's call of site", p)
	}
}

// verbProblems lists what breaks the rule of each command in the package
// that names it, for the commands cmds (each with the packages it calls as
// it runs) and the table owners: a command not in owners or an entry that
// is no command; an owner whose folder does not name its command (its last
// element holds one of the command's words, or it is its group's package:
// internal/template for template validate); a command that does not call
// its owner as it runs, or calls a package of the module other than its
// owner, one under it, or a shared one - then the verb's code lives
// elsewhere.
func verbProblems(cmds map[string][]string, owners map[string]string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(owners)) {
		if _, ok := cmds[name]; !ok {
			out = append(out, fmt.Sprintf("verbOwners has %q, which is no command of cmd/kbook: remove it", name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cmds)) {
		calls := cmds[name]
		owner, ok := owners[name]
		if !ok {
			out = append(out, fmt.Sprintf("kbook %s: not in verbOwners: add it with the package that owns its code (one whose folder names it)", name))
			continue
		}
		if !namesVerb(owner, name) {
			out = append(out, fmt.Sprintf("kbook %s: its owner %s does not name it: the package's folder should (internal/<verb>, or its group's internal/<group>)", name, owner))
		}
		if !slices.ContainsFunc(calls, func(p string) bool { return inTree(p, owner) }) {
			out = append(out, fmt.Sprintf("kbook %s: calls none of %s as it runs (calls %v): its code lives elsewhere", name, owner, calls))
		}
		for _, p := range calls {
			if !inTree(p, owner) && !slices.Contains(shared, p) {
				out = append(out, fmt.Sprintf("kbook %s: calls %s as it runs: a verb's code lives in its package (%s), which may call %s", name, p, owner, p))
			}
		}
	}
	return out
}

// namesVerb reports whether owner's folder names the command: its last
// element holds one of the command's words (gen-docs: gen, docs), an
// init command's is scaffold, or a command of a group is the group's
// package (internal/<group>).
func namesVerb(owner, command string) bool {
	words := strings.FieldsFunc(command, func(r rune) bool { return r == ' ' || r == '-' })
	last := path.Base(owner)
	for _, w := range words {
		if strings.Contains(last, w) || (w == "init" && last == scaffoldIsInit) {
			return true
		}
	}
	group := words[0]
	return len(strings.Fields(command)) > 1 && owner == "internal/"+group
}

// readCommands parses the Go files of cmd/kbook (dir) and returns each
// command below kbook ("template publish") with the module packages
// (folders, "internal/template/publish") its constructor's function
// literals call: what the command does as it runs, not the flags it
// declares.
func readCommands(dir string) (map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{}
	imports := map[*ast.FuncDecl]map[string]string{} // a func's file's import names → folders
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		names := map[string]string{}
		for _, im := range file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			rel, ours := strings.CutPrefix(p, module+"/")
			if !ours {
				continue
			}
			name := path.Base(p)
			if im.Name != nil {
				name = im.Name.Name
			}
			names[name] = rel
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = fd
				imports[fd] = names
			}
		}
	}
	root := funcs["newRootCmd"]
	if root == nil {
		return nil, errNoRoot
	}
	cmds := map[string][]string{}
	// add records the command newCmd (a call of a newXCmd function) under group.
	add := func(group string, newCmd ast.Expr) {
		call, ok := newCmd.(*ast.CallExpr)
		if !ok {
			return
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok || funcs[id.Name] == nil {
			return
		}
		fd := funcs[id.Name]
		use := useOf(fd)
		if use == "" {
			return
		}
		name := strings.TrimSpace(group + " " + use)
		cmds[name] = runCalls(fd, imports[fd])
	}
	ast.Inspect(root.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "AddCommand" {
			return true
		}
		for _, a := range call.Args {
			g, ok := a.(*ast.CallExpr)
			if id, isID := g.Fun.(*ast.Ident); ok && isID && id.Name == "group" && len(g.Args) > 0 {
				lit, _ := g.Args[0].(*ast.BasicLit)
				if lit == nil {
					continue
				}
				group, _ := strconv.Unquote(lit.Value)
				for _, c := range g.Args[1:] {
					add(group, c)
				}
				continue
			}
			add("", a)
		}
		return false
	})
	return cmds, nil
}

// useOf is the command's name: the first word of the Use of the
// cobra.Command that fd builds.
func useOf(fd *ast.FuncDecl) string {
	var use string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || use != "" {
			return use == ""
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Use" {
			if lit, ok := kv.Value.(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(lit.Value)
				if f := strings.Fields(s); len(f) > 0 {
					use = f[0]
				}
			}
		}
		return true
	})
	return use
}

// runCalls are the module packages (folders) whose functions fd's
// function literals call (RunE, and those given to helpers such as
// checkCmd), sorted: pkg.F(...), and v.M(...) on a variable fd declares
// of one of pkg's types (var r pkg.Request; r.Check(ctx)).
func runCalls(fd *ast.FuncDecl, imports map[string]string) []string {
	vars := map[string]string{} // fd's variables of a module package's type → its folder
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if p := typePackage(vs.Type, imports); p != "" {
				for _, id := range vs.Names {
					vars[id.Name] = p
				}
			}
		}
		return true
	})
	seen := map[string]bool{}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok {
					if p := imports[x.Name]; p != "" {
						seen[p] = true
					} else if p := vars[x.Name]; p != "" {
						seen[p] = true
					}
				}
			}
			return true
		})
		return false
	})
	return slices.Sorted(maps.Keys(seen))
}

// typePackage is the module package (folder) of a type written pkg.T or
// *pkg.T, "" for any other.
func typePackage(t ast.Expr, imports map[string]string) string {
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if sel, ok := t.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok {
			return imports[x.Name]
		}
	}
	return ""
}

type layoutError string

func (e layoutError) Error() string { return string(e) }

const errNoRoot = layoutError("cmd/kbook has no newRootCmd")

// TestNamesSayWhatTheyOwn fails on a package named build (it says neither
// what it builds nor whose command it is: kbook build is sitebuild) and on
// a Go file X.go beside a package folder X/ (a cluster/local.go beside
// cluster/local/), where a reader cannot tell from the name which holds
// what: internal/cluster's backends are backend_local.go and
// backend_kubeconfig.go, beside the packages they use.
func TestNamesSayWhatTheyOwn(t *testing.T) {
	pkgs, err := Packages("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, p := range pkgs {
		dirs[p.Dir] = true
		if p.Name == "build" {
			t.Errorf("%s: a package named build: name it for what it builds", p.Dir)
		}
	}
	for _, p := range pkgs {
		files, err := filepath.Glob(filepath.Join("../..", p.Dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".go")
			if !strings.HasSuffix(f, "_test.go") && dirs[path.Join(p.Dir, name)] {
				t.Errorf("%s sits beside package %s: name the file for what it holds", path.Join(p.Dir, name+".go"), path.Join(p.Dir, name))
			}
		}
	}
}
