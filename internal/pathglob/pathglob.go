package pathglob

import (
	"path"
	"strings"
)

// Match reports whether name (slash-separated, relative) matches pattern:
// "**" as a whole segment is any number of segments (none included), any
// other segment is a path.Match pattern of one segment ("*" does not
// cross a slash). A malformed segment matches nothing.
func Match(pattern, name string) bool {
	return match(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func match(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if match(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], segs[0])
	return ok && match(pat[1:], segs[1:])
}
