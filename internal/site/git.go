package site

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/mkdocs/markdown"
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

// macrosGit is the macros plugin's git variable for the project in dir:
// the last commit, its tags and author, as the plugin's git commands
// give them; outside git (or without git) every text is empty and status
// false, as the plugin has it.
func macrosGit(dir string) map[string]any {
	g := map[string]any{"status": false, "date": nil}
	for _, k := range markdown.GitKeys {
		g[k] = ""
	}
	out, err := git(dir, "log", "-1", "--format=%H%x00%h%x00%an%x00%ae%x00%cn%x00%ce%x00%cd%x00%cI%x00%B")
	if err != nil {
		return g
	}
	f := strings.SplitN(string(out), "\x00", 9)
	if len(f) < 9 {
		return g
	}
	g["status"] = true
	g["commit"], g["short_commit"], g["author"], g["author_email"] = f[0], f[1], f[2], f[3]
	g["committer"], g["committer_email"], g["date_ISO"], g["message"] = f[4], f[5], f[6], strings.TrimSpace(f[8])
	if t, err := time.Parse(time.RFC3339, f[7]); err == nil {
		g["date"] = t.Format("2006-01-02 15:04:05-07:00") // Python's str of the date
	}
	if raw, err := git(dir, "log", "-1"); err == nil {
		g["raw"] = strings.TrimSpace(string(raw))
	}
	if tag, err := git(dir, "describe", "--tags"); err == nil {
		g["tag"] = strings.TrimSpace(string(tag))
	}
	if tag, err := git(dir, "describe", "--tags", "--abbrev=0"); err == nil {
		g["short_tag"] = strings.TrimSpace(string(tag))
	}
	if top, err := git(dir, "rev-parse", "--show-toplevel"); err == nil {
		g["root_dir"] = strings.TrimSpace(string(top))
	}
	return g
}
