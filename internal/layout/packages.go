package layout

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Package is one Go package of the module as its doc comment describes it.
type Package struct {
	// Dir is the package's folder, slash-separated, relative to the
	// module root ("internal/run").
	Dir string
	// Name is the package clause of its non-test files.
	Name string
	// Doc is the package doc comment's text; DocFiles the files that carry
	// one (relative to Dir), tests included.
	Doc      string
	DocFiles []string
	// testName is the package clause of a package of tests only.
	testName string
}

// Synopsis is the first sentence of the package's doc comment without its
// "Package name" / "Command name" opening (and a following "is"): the
// package's row in README.md's package table.
func (p Package) Synopsis() string {
	var d doc.Package
	s := d.Synopsis(p.Doc)
	name := p.Name
	if name == "" {
		name = p.testName
	}
	for _, open := range []string{"Package " + name + " ", "Command " + filepath.Base(p.Dir) + " "} {
		if rest, ok := strings.CutPrefix(s, open); ok {
			s = rest
			break
		}
	}
	s = strings.TrimPrefix(s, "is ")
	return strings.TrimSuffix(s, ".")
}

// Packages lists the Go packages in the module at root, in folder order:
// every folder with a .go file, except testdata, hidden and underscore
// folders and nested modules.
func Packages(root string) ([]Package, error) {
	var pkgs []Package
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, ok, err := readPackage(root, path)
		if err != nil {
			return err
		}
		if ok {
			pkgs = append(pkgs, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing packages under %s: %w", root, err)
	}
	return pkgs, nil
}

// readPackage reads the package clause and doc comments of the .go files in
// dir; ok is false when dir has none.
func readPackage(root, dir string) (Package, bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Package{}, false, err
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return Package{}, false, err
	}
	p := Package{Dir: filepath.ToSlash(rel)}
	found := false
	var testDoc, testName string
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		found = true
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return Package{}, false, err
		}
		test := strings.HasSuffix(e.Name(), "_test.go")
		if !test && p.Name == "" {
			p.Name = f.Name.Name
		}
		if f.Doc != nil && !isBuildDirective(f.Doc) {
			p.DocFiles = append(p.DocFiles, e.Name())
			if !test && p.Doc == "" {
				p.Doc = f.Doc.Text()
			}
			if test && testDoc == "" {
				testDoc, testName = f.Doc.Text(), f.Name.Name
			}
		}
	}
	if p.Name == "" { // tests only: the test package's comment and name
		p.Doc = testDoc
		p.testName = testName
	}
	return p, found, nil
}

// isBuildDirective reports whether a comment group holds only directives
// (//go:build), which go/parser attaches as Doc when no blank line follows.
func isBuildDirective(g *ast.CommentGroup) bool { return strings.TrimSpace(g.Text()) == "" }

// The markers between which README.md holds the generated package table.
const (
	TableBegin = "<!-- package table: generated from each package's doc.go by `go generate ./internal/layout`; edit the doc comments, not this table -->"
	TableEnd   = "<!-- end of package table -->"
)

// Table is README.md's package table: one row per package, its folder and
// the synopsis of its doc comment.
func Table(pkgs []Package) string {
	var b strings.Builder
	b.WriteString("| package | what it owns |\n|---|---|\n")
	for _, p := range pkgs {
		s := strings.ReplaceAll(p.Synopsis(), "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s |\n", p.Dir, s)
	}
	return b.String()
}

// Splice returns readme with the text between TableBegin and TableEnd
// replaced by table.
func Splice(readme []byte, table string) ([]byte, error) {
	i := bytes.Index(readme, []byte(TableBegin))
	j := bytes.Index(readme, []byte(TableEnd))
	if i < 0 || j < i {
		return nil, errors.New("README.md has no package table markers (" + TableBegin + " ... " + TableEnd + ")")
	}
	var out bytes.Buffer
	out.Write(readme[:i+len(TableBegin)])
	out.WriteString("\n")
	out.WriteString(table)
	out.Write(readme[j:])
	return out.Bytes(), nil
}

// CurrentTable returns the text between the markers of readme.
func CurrentTable(readme []byte) (string, error) {
	i := bytes.Index(readme, []byte(TableBegin))
	j := bytes.Index(readme, []byte(TableEnd))
	if i < 0 || j < i {
		return "", errors.New("README.md has no package table markers")
	}
	return strings.TrimPrefix(string(readme[i+len(TableBegin):j]), "\n"), nil
}

// DocProblems lists what breaks the rule of one doc comment per package:
// a package without one, one with several, and (under internal/ and
// examples/) one whose comment is not in doc.go.
func DocProblems(pkgs []Package) []string {
	var out []string
	for _, p := range pkgs {
		switch {
		case len(p.DocFiles) == 0:
			out = append(out, p.Dir+": no package doc comment")
		case len(p.DocFiles) > 1:
			out = append(out, fmt.Sprintf("%s: %d package doc comments (%s), want one", p.Dir, len(p.DocFiles), strings.Join(p.DocFiles, ", ")))
		case needsDocGo(p) && p.DocFiles[0] != "doc.go":
			out = append(out, p.Dir+": the package doc comment is in "+p.DocFiles[0]+", want doc.go")
		}
	}
	slices.Sort(out)
	return out
}

func needsDocGo(p Package) bool {
	// A package of tests only (no non-test file, so no name) cannot have a
	// doc.go: its comment stays in a test file.
	dir := p.Dir
	if p.Name == "" {
		return false
	}
	return strings.HasPrefix(dir, "internal/") || strings.HasPrefix(dir, "examples/")
}
