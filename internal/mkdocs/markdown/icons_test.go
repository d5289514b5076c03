package markdown

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNPMPackagesPinnedInMakefile: the packages NPMIcons and MermaidJS
// read are the ones `make site-tools` installs, at the same versions.
func TestNPMPackagesPinnedInMakefile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^MKDOCS_NPM\s*:=\s*(.*)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("Makefile: no MKDOCS_NPM list")
	}
	if got, want := strings.Fields(string(m[1])), NPMPackages; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Makefile MKDOCS_NPM = %v, markdown.NPMPackages = %v", got, want)
	}
}

// TestNPMIcons reads real icons from the npm packages `make site-tools`
// installs (skipped when they are not installed).
func TestNPMIcons(t *testing.T) {
	dir := DefaultNPMDir()
	icons := NPMIcons(dir)
	if icons == nil {
		t.Skipf("no icon packages in %s (make site-tools installs them)", dir)
	}
	for _, code := range []string{"material-check", "fontawesome-brands-github", "fontawesome-solid-rss", "octicons-mark-github-16", "simple-kubernetes"} {
		set, name, ok := iconSet(code)
		if !ok {
			t.Fatalf("%s: not an icon shortcode", code)
		}
		svg, ok := icons.Icon(set, name)
		if !ok || !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(svg, "</svg>") || strings.Contains(svg, "\n") {
			t.Errorf("%s: got %q, want one line of inline SVG", code, svg)
		}
	}
	if _, ok := icons.Icon("material", "no-such-icon-here"); ok {
		t.Error("an unknown icon resolved")
	}
	if _, ok := icons.Icon("material", "../../../etc/passwd"); ok {
		t.Error("a path outside the icon set resolved")
	}
	if MermaidJS(dir) == "" {
		t.Errorf("mermaid.min.js not found below %s", dir)
	}
}
