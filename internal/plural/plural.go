package plural

import (
	"strconv"
	"strings"
)

// Count is n followed by noun, in the plural unless n is 1. The plural adds
// "s", "es" after s, x, ch and sh, and turns a final consonant + "y" into
// "ies"; other nouns (and abbreviations such as "CRD") just take "s".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + Of(noun)
}

// Of is the plural of noun, as Count forms it.
func Of(noun string) string {
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case len(noun) > 1 && noun[len(noun)-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
