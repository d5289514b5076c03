package runbook

import (
	"fmt"
	"strconv"
	"strings"
)

// parseInfo splits a fence info string such as
//
//	yaml file=values.yaml
//	testscript name="apply the template" norun
//
// into the language, key=value attributes and bare flags.
func parseInfo(info string) (lang string, attrs map[string]string, flags []string, err error) {
	words, err := splitWords(info)
	if err != nil {
		return "", nil, nil, err
	}
	attrs = map[string]string{}
	for i, w := range words {
		k, v, ok := strings.Cut(w, "=")
		switch {
		case !ok && i == 0:
			lang = w
		case !ok:
			flags = append(flags, w)
		case k == "":
			return "", nil, nil, fmt.Errorf("attribute %q has no name", w)
		default:
			if _, dup := attrs[k]; dup {
				return "", nil, nil, fmt.Errorf("attribute %q given twice", k)
			}
			attrs[k] = v
		}
	}
	return lang, attrs, flags, nil
}

// splitWords splits on spaces; a word may contain a double-quoted part
// (name="two words"), unquoted with Go string syntax.
func splitWords(s string) ([]string, error) {
	var words []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return words, nil
		}
		var w strings.Builder
		for s != "" && s[0] != ' ' && s[0] != '\t' {
			if s[0] != '"' {
				w.WriteByte(s[0])
				s = s[1:]
				continue
			}
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("unterminated quoted value in %q", s)
			}
			u, _ := strconv.Unquote(q)
			w.WriteString(u)
			s = s[len(q):]
		}
		words = append(words, w.String())
	}
}
