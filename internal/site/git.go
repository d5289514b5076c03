package site

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// repoPrefix is the docs root's path inside its git repository ("docs/"),
// "" at the repository root or outside git.
func repoPrefix(dir string) string {
	out, err := git(dir, "rev-parse", "--show-prefix")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Lastmod maps the docs-relative paths of files below the given
// directories to the time of the last commit that touched them; nil
// outside git or without git.
func Lastmod(dir string, subdirs ...string) map[string]string {
	args := append([]string{"log", "--format=%x00%cI", "--name-only", "--relative", "--"}, subdirs...)
	out, err := git(dir, args...)
	if err != nil {
		return nil
	}
	m := map[string]string{}
	var date string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if d, ok := strings.CutPrefix(l, "\x00"); ok {
			date = d
			continue
		}
		if l == "" || date == "" {
			continue
		}
		if _, seen := m[l]; !seen {
			m[filepath.ToSlash(l)] = date
		}
	}
	return m
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	return cmd.Output()
}
