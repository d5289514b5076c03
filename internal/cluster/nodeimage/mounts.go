package nodeimage

import (
	"bufio"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// mountsUnder reads mountinfo (proc(5)'s /proc/self/mountinfo) and
// returns the mount points at or below dir, deepest first: the order to
// unmount them in.
func mountsUnder(mountinfo io.Reader, dir string) []string {
	dir = filepath.Clean(dir)
	var out []string
	sc := bufio.NewScanner(mountinfo)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		p := filepath.Clean(unescapeMount(f[4]))
		if p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.Count(out[i], "/") > strings.Count(out[j], "/") })
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
