package markdown

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
