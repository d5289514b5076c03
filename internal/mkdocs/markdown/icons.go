package markdown

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// IconSource resolves an emoji extension's icon shortcode to inline SVG.
// set is "material", "fontawesome/brands", "fontawesome/solid",
// "fontawesome/regular", "octicons" or "simple"; name is the icon's name
// in it ("check", "github", "mark-github-16").
type IconSource interface {
	Icon(set, name string) (svg string, ok bool)
}

// NPMPackages are the npm packages (pinned, as the Makefile's site-tools
// installs them) that a build reads icons and mermaid from.
var NPMPackages = []string{
	"@mdi/svg@7.4.47",
	"@fortawesome/fontawesome-free@7.3.1",
	"@primer/octicons@19.42.0",
	"simple-icons@16.37.0",
	"mermaid@12.3.0",
}

// DefaultNPMDir is where `make site-tools` installs the site's npm
// packages: ~/.cache/kbook/npm (its node_modules holds them).
func DefaultNPMDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "kbook", "npm")
}

// NPMIcons reads icons from the npm packages below dir (a folder holding
// node_modules): @mdi/svg, @fortawesome/fontawesome-free,
// @primer/octicons and simple-icons. It returns nil (no icons; Translate
// then leaves shortcodes as text, with a warning) when none is installed.
func NPMIcons(dir string) IconSource {
	nm := filepath.Join(dir, "node_modules")
	pkgs := map[string]string{}
	for _, name := range []string{"@mdi/svg", "@fortawesome/fontawesome-free", "@primer/octicons", "simple-icons"} {
		pkgs[name] = filepath.Join(nm, filepath.FromSlash(name))
	}
	return PackageIcons(pkgs)
}

// PackageIcons reads icons from the icon packages' folders, by npm name
// ("@mdi/svg": its folder holding svg/); nil when none has its icons.
func PackageIcons(pkgs map[string]string) IconSource {
	roots := map[string]string{}
	add := func(set, pkg string, elem ...string) {
		if d, ok := pkgs[pkg]; ok && d != "" {
			roots[set] = filepath.Join(append([]string{d}, elem...)...)
		}
	}
	add("material", "@mdi/svg", "svg")
	add("fontawesome/brands", "@fortawesome/fontawesome-free", "svgs", "brands")
	add("fontawesome/solid", "@fortawesome/fontawesome-free", "svgs", "solid")
	add("fontawesome/regular", "@fortawesome/fontawesome-free", "svgs", "regular")
	add("octicons", "@primer/octicons", "build", "svg")
	add("simple", "simple-icons", "icons")
	found := false
	for _, r := range roots {
		if st, err := os.Stat(r); err == nil && st.IsDir() {
			found = true
		}
	}
	if !found {
		return nil
	}
	return &npmIcons{roots: roots, cache: map[string]string{}}
}

// MermaidJS is the path of mermaid.min.js below dir (as NPMIcons), or ""
// when it is not installed.
func MermaidJS(dir string) string {
	p := filepath.Join(dir, "node_modules", "mermaid", "dist", "mermaid.min.js")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

type npmIcons struct {
	roots map[string]string
	mu    sync.Mutex
	cache map[string]string
}

var (
	svgComment = regexp.MustCompile(`<!--.*?-->`)
	svgTitle   = regexp.MustCompile(`<title>.*?</title>`)
	iconName   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

func (n *npmIcons) Icon(set, name string) (string, bool) {
	root, ok := n.roots[set]
	if !ok || !iconName.MatchString(name) {
		return "", false
	}
	key := set + "/" + name
	n.mu.Lock()
	defer n.mu.Unlock()
	if s, ok := n.cache[key]; ok {
		return s, s != ""
	}
	data, err := os.ReadFile(filepath.Join(root, name+".svg"))
	s := ""
	if err == nil {
		s = strings.Join(strings.Fields(string(data)), " ")
		s = svgComment.ReplaceAllString(s, "")
		s = svgTitle.ReplaceAllString(s, "")
		s = strings.TrimSpace(s)
	}
	n.cache[key] = s
	return s, s != ""
}

// iconSet splits an icon shortcode name ("material-check",
// "fontawesome-brands-github", "octicons-mark-github-16",
// "simple-github") into the set and the icon's name.
func iconSet(code string) (set, name string, ok bool) {
	switch {
	case strings.HasPrefix(code, "material-"):
		return "material", code[len("material-"):], true
	case strings.HasPrefix(code, "fontawesome-"):
		rest := code[len("fontawesome-"):]
		style, icon, ok := strings.Cut(rest, "-")
		if !ok {
			return "", "", false
		}
		return "fontawesome/" + style, icon, true
	case strings.HasPrefix(code, "octicons-"):
		return "octicons", code[len("octicons-"):], true
	case strings.HasPrefix(code, "simple-"):
		return "simple", code[len("simple-"):], true
	}
	return "", "", false
}
