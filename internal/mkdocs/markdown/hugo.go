package markdown

import "strings"

// Goldmark is the markup.goldmark entry of the Hugo configuration that
// renders Translate's output (and kbook's own pages): raw HTML kept (the
// wrappers of admonitions, tabs, details), GitHub-style heading ids,
// attributes on headings and, on the line after, on blocks (attr_list),
// and the extensions Python-Markdown's def_list, footnotes, tasklist and
// tilde map to.
func Goldmark() map[string]any {
	return map[string]any{
		"renderer": map[string]any{"unsafe": true},
		"parser": map[string]any{
			"autoHeadingIDType": "github",
			"attribute":         map[string]any{"title": true, "block": true},
		},
		"extensions": map[string]any{
			"definitionList": true,
			"footnote":       true,
			"strikethrough":  true,
			"table":          true,
			"taskList":       true,
			"linkify":        true,
		},
	}
}

// ShortcodeBreak is the character Translate puts between the braces and
// the < or % of a Hugo shortcode delimiter ({{< or {{%) that nothing
// closes, so that Hugo reads it as text; the site's written pages drop
// it (it is a private-use character, which no page means to show).
const ShortcodeBreak = "\uE000"

// escapeShortcodes makes Hugo show {{< ... >}} and {{% ... %}} as the
// text they are in an MkDocs page (MkDocs has no shortcodes; Hugo reads
// them anywhere in a page, code included, and fails the build on an
// unknown one). A delimiter that a closing one follows becomes Hugo's
// escaped form, {{</* ... */>}}, which Hugo writes as the text between
// the markers, exactly as it was; one that nothing closes gets
// ShortcodeBreak after its braces. The line count does not change.
func escapeShortcodes(s string) string {
	if !strings.Contains(s, "{{<") && !strings.Contains(s, "{{%") {
		return s
	}
	var b strings.Builder
	for {
		j := shortcodeOpen(s)
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		closing := "%}}"
		if s[j+2] == '<' {
			closing = ">}}"
		}
		k := strings.Index(s[j+3:], closing)
		if k < 0 {
			// Unclosed: break the delimiter instead.
			b.WriteString(s[:j+2] + ShortcodeBreak + s[j+2:j+3])
			s = s[j+3:]
			continue
		}
		b.WriteString(s[:j+3])
		s = s[j+3:]
		// Hugo ends the escaped form at the first */ and closing delimiter
		// after it: the one written here, since the text holds no closing
		// delimiter before it.
		b.WriteString("/*")
		b.WriteString(s[:k])
		b.WriteString("*/")
		b.WriteString(closing)
		s = s[k+len(closing):]
	}
}

// shortcodeOpen is the index of the first {{< or {{% in s, or -1.
func shortcodeOpen(s string) int {
	for i := 0; ; {
		k := strings.Index(s[i:], "{{")
		if k < 0 {
			return -1
		}
		i += k
		if i+2 < len(s) && (s[i+2] == '<' || s[i+2] == '%') {
			return i
		}
		i++
	}
}
