package mkdocs

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher says which docs_dir files MkDocs leaves out: exclude_docs
// (gitignore-style, after MkDocs's defaults .* and /templates/) and the
// exclude plugin's globs (Python fnmatch over the docs-relative path, or
// a folder prefix) and regexes (re.match).
type matcher struct {
	ignore []ignoreRule
	globs  []*regexp.Regexp
	prefix []string
	regex  []*regexp.Regexp
}

type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// defaultExcludeDocs are MkDocs's own exclusions, which exclude_docs
// patterns follow (a !pattern can take one back).
const defaultExcludeDocs = ".*\n/templates/\n"

func newMatcher(excludeDocs string, globs, regexes []string) (*matcher, error) {
	m := &matcher{}
	for i, l := range strings.Split(defaultExcludeDocs+excludeDocs, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		r, err := ignorePattern(l)
		if err != nil {
			return nil, fmt.Errorf("exclude_docs line %d: %q: %v", i-1, l, err)
		}
		m.ignore = append(m.ignore, r)
	}
	for _, g := range globs {
		re, err := regexp.Compile("^" + fnmatch(g) + "$")
		if err != nil {
			return nil, fmt.Errorf("glob %q: %v", g, err)
		}
		m.globs = append(m.globs, re)
		m.prefix = append(m.prefix, strings.TrimSuffix(g, "/")+"/")
	}
	for _, r := range regexes {
		re, err := regexp.Compile("^(?:" + r + ")")
		if err != nil {
			return nil, fmt.Errorf("regex %q: %v", r, err)
		}
		m.regex = append(m.regex, re)
	}
	return m, nil
}

// excluded reports whether the docs-relative, slash-separated file is
// left out.
func (m *matcher) excluded(rel string) bool {
	for i, g := range m.globs {
		if g.MatchString(rel) || strings.HasPrefix(rel, m.prefix[i]) {
			return true
		}
	}
	for _, r := range m.regex {
		if r.MatchString(rel) {
			return true
		}
	}
	out := false
	parts := strings.Split(rel, "/")
	for _, r := range m.ignore {
		for i := range parts {
			cand := strings.Join(parts[:i+1], "/")
			isDir := i < len(parts)-1
			if r.dirOnly && !isDir {
				continue
			}
			if r.re.MatchString(cand) {
				out = !r.negate
				break
			}
		}
	}
	return out
}

func ignorePattern(l string) (ignoreRule, error) {
	r := ignoreRule{}
	if strings.HasPrefix(l, "!") {
		r.negate, l = true, l[1:]
	} else if strings.HasPrefix(l, `\`) {
		l = l[1:]
	}
	if strings.HasSuffix(l, "/") {
		r.dirOnly, l = true, strings.TrimSuffix(l, "/")
	}
	anchored := strings.Contains(l, "/")
	l = strings.TrimPrefix(l, "/")
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case strings.HasPrefix(l[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(l[i:], "/**") && i+3 == len(l):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(l[i:], "**"):
			b.WriteString(".*")
			i++
		case l[i] == '*':
			b.WriteString("[^/]*")
		case l[i] == '?':
			b.WriteString("[^/]")
		case l[i] == '[':
			j := strings.IndexByte(l[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := l[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(l[i : i+1]))
		}
	}
	expr := b.String() + "$"
	if anchored {
		expr = "^" + expr
	} else {
		expr = "^(?:.*/)?" + expr
	}
	re, err := regexp.Compile(expr)
	r.re = re
	return r, err
}

// fnmatch is Python's fnmatch translated to a regexp: * and ? match any
// character, '/' included.
func fnmatch(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(g[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}
