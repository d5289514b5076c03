package mkdocs

import (
	"regexp"
	"strings"
)

var (
	atxH1       = regexp.MustCompile(`^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	setextH1    = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	attrList    = regexp.MustCompile(`[ \t]*\{[:]?[ \t]*[.#][^}]*\}[ \t]*$`)
	mdLink      = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	emphasis    = regexp.MustCompile("(\\*\\*|__|\\*|`)")
	htmlTag     = regexp.MustCompile(`<[^>]+>`)
	fenceOpener = regexp.MustCompile("^ {0,3}(```+|~~~+)")
)

// Heading is a page's first level-1 heading.
type Heading struct {
	// Text is the heading as plain text (markup, links and { attr } lists dropped).
	Text string
	// Line is its first line (1-based); EndLine its last (a setext
	// heading's underline).
	Line, EndLine int
	// Leading says nothing but blank lines and HTML comments precede it:
	// it is the page's title line.
	Leading bool
}

// FirstH1 finds the first level-1 heading of a page body outside code
// fences, as MkDocs takes a page's title from it. startLine is the line
// number of body's first line.
func FirstH1(body []byte, startLine int) (Heading, bool) {
	lines := strings.Split(string(body), "\n")
	fence := ""
	comment := false
	leading := true
	for i, raw := range lines {
		l := strings.TrimRight(raw, "\r")
		if fence != "" {
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) {
				fence = ""
			}
			continue
		}
		if comment {
			if strings.Contains(l, "-->") {
				comment = false
			}
			continue
		}
		t := strings.TrimSpace(l)
		if m := fenceOpener.FindStringSubmatch(l); m != nil {
			fence = m[1]
			leading = false
			continue
		}
		if strings.HasPrefix(t, "<!--") {
			if !strings.Contains(t, "-->") {
				comment = true
			}
			continue
		}
		if m := atxH1.FindStringSubmatch(l); m != nil {
			return Heading{Text: plain(m[1]), Line: startLine + i, EndLine: startLine + i, Leading: leading}, true
		}
		if t != "" && i+1 < len(lines) && setextH1.MatchString(strings.TrimRight(lines[i+1], "\r")) && !strings.HasPrefix(l, "    ") {
			return Heading{Text: plain(t), Line: startLine + i, EndLine: startLine + i + 1, Leading: leading}, true
		}
		if t != "" {
			leading = false
		}
	}
	return Heading{}, false
}

func plain(s string) string {
	s = attrList.ReplaceAllString(s, "")
	s = mdLink.ReplaceAllString(s, "$1")
	s = htmlTag.ReplaceAllString(s, "")
	s = emphasis.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// FileTitle is the title MkDocs gives a page with no other: its file
// name without extension, "_" and "-" as spaces, capitalised when it was
// all lower case ("myAPI.md" stays "myAPI"); a folder's index.md or
// README.md takes the folder's name.
func FileTitle(rel string) string {
	base := rel[strings.LastIndex(rel, "/")+1:]
	base = strings.TrimSuffix(base, base[strings.LastIndex(base, "."):])
	if l := strings.ToLower(base); l == "index" || l == "readme" {
		dir := strings.TrimSuffix(rel[:strings.LastIndex(rel, "/")+1], "/")
		if dir == "" {
			return "Home"
		}
		base = dir[strings.LastIndex(dir, "/")+1:]
	}
	return DirTitle(base)
}
