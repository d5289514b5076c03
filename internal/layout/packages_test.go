package layout

import (
	"os"
	"strings"
	"testing"
)

// TestOneDocCommentPerPackage fails on a package of the module without a
// doc comment, with more than one, or (under internal/ and examples/) with
// its comment outside doc.go.
func TestOneDocCommentPerPackage(t *testing.T) {
	pkgs, err := Packages("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages, want the whole module", len(pkgs))
	}
	for _, p := range DocProblems(pkgs) {
		t.Error(p)
	}
}

// TestREADMEPackageTable fails when README.md's package table is not the
// one the packages' doc comments give.
func TestREADMEPackageTable(t *testing.T) {
	pkgs, err := Packages("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := CurrentTable(readme)
	if err != nil {
		t.Fatal(err)
	}
	if want := Table(pkgs); got != want {
		t.Errorf("README.md's package table differs from the packages' doc comments: run go generate ./internal/layout (or make docs)\n%s", lineDiff(got, want))
	}
}

// lineDiff lists the lines only in got (-) and only in want (+).
func lineDiff(got, want string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var b strings.Builder
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// TestFixtureModule checks the doc-comment rules and the table on the
// fixture module in testdata/mod: one package of each kind of problem.
func TestFixtureModule(t *testing.T) {
	pkgs, err := Packages("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, synopsis, problem string
	}{
		{"internal/elsewhere", "has its doc comment outside doc.go", "internal/elsewhere: the package doc comment is in elsewhere.go, want doc.go"},
		{"internal/good", "the fixture of a package as it should be: one doc comment, in doc.go", ""},
		{"internal/none", "", "internal/none: no package doc comment"},
		{"internal/testsonly", "a package of tests only", ""},
		{"internal/twice", "has one doc comment here", "internal/twice: 2 package doc comments (doc.go, twice_test.go), want one"},
	}
	if len(pkgs) != len(tests) {
		t.Fatalf("found %d packages (%v), want %d (testdata below a package is no package)", len(pkgs), pkgs, len(tests))
	}
	problems := DocProblems(pkgs)
	for i, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			p := pkgs[i]
			if p.Dir != tt.dir {
				t.Fatalf("package %d is %s, want %s", i, p.Dir, tt.dir)
			}
			if got := p.Synopsis(); got != tt.synopsis {
				t.Errorf("Synopsis() = %q, want %q", got, tt.synopsis)
			}
			var got []string
			for _, pr := range problems {
				if strings.HasPrefix(pr, p.Dir+":") {
					got = append(got, pr)
				}
			}
			if want := tt.problem; (want == "") != (len(got) == 0) || (want != "" && got[0] != want) {
				t.Errorf("problems = %q, want %q", got, want)
			}
		})
	}

	readme, err := os.ReadFile("testdata/mod/README.md")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Splice(readme, Table(pkgs))
	if err != nil {
		t.Fatal(err)
	}
	want := "# fixture\n\nbefore\n" + TableBegin + "\n| package | what it owns |\n|---|---|\n" +
		"| `internal/elsewhere` | has its doc comment outside doc.go |\n" +
		"| `internal/good` | the fixture of a package as it should be: one doc comment, in doc.go |\n" +
		"| `internal/none` |  |\n" +
		"| `internal/testsonly` | a package of tests only |\n" +
		"| `internal/twice` | has one doc comment here |\n" +
		TableEnd + "\nafter\n"
	if string(out) != want {
		t.Errorf("Splice:\n%s\nwant:\n%s", out, want)
	}
	if _, err := Splice([]byte("no markers"), ""); err == nil {
		t.Error("Splice of a README without markers: no error")
	}
}
