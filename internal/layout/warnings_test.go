package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// handWrittenWarning is a printed line that says it is a warning on its
// own: "warning: ...", "kbook: warning: ..." or "kbook build: warning: ...".
// Users read every warning one way (log.Warning's "kbook: warning: MSG",
// issue 40 item 3), so a library warns with log.Warnf and a command's
// Logger prints it.
var handWrittenWarning = regexp.MustCompile(`^(kbook[a-z -]*: )?warning: `)

// printers are the calls that print a format or a line.
var printers = map[string]bool{"Infof": true, "Printf": true, "Fprintf": true, "Fprintln": true, "Println": true, "Message": true}

// warningProblems lists the calls of the Go source src (named file) that
// print a hand-written warning, as file:line.
func warningProblems(file string, src any) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !printers[sel.Sel.Name] {
			return true
		}
		for _, a := range call.Args {
			lit, ok := a.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && handWrittenWarning.MatchString(s) {
				out = append(out, fset.Position(call.Pos()).String()+": "+sel.Sel.Name+"("+lit.Value+", ...): warn with log.Warnf")
			}
			break
		}
		return true
	})
	return out, nil
}

// TestOneWarningPath fails on a library or command that prints a warning
// by hand instead of through log.Warnf.
func TestOneWarningPath(t *testing.T) {
	files := 0
	for _, root := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || path == filepath.Join("..", "..", "internal", "log")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			files++
			ps, err := warningProblems(path, nil)
			for _, p := range ps {
				t.Error(p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("read %d Go files, want kbook's", files)
	}
}

// TestOneWarningPathFixture: each hand-written form is found, log.Warnf
// and a warning inside a message are not.
func TestOneWarningPathFixture(t *testing.T) {
	src := `package p

func f() {
	l.Infof("warning: the processes kbook starts are not tracked: %v", err)
	fmt.Fprintf(w, "kbook build: warning: %s\n", s)
	fmt.Fprintf(w, "kbook: warning: %s\n", s)
	log.Warnf(l, "no snapshot saved (%v)", err)
	l.Infof("%s: warning: %s", file, msg)
	fmt.Fprintf(w, "cluster upgrade is forbidden (warning: %s)", msg)
}
`
	got, err := warningProblems("p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !strings.HasPrefix(got[0], "p.go:4:") || !strings.HasPrefix(got[1], "p.go:5:") || !strings.HasPrefix(got[2], "p.go:6:") {
		t.Errorf("problems %q, want lines 4, 5 and 6", got)
	}
}
