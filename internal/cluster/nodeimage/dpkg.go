package nodeimage

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// A debian root's packages, read from its dpkg database: what an image
// layer made of some of them must hold (their files and the files of what
// they depend on, with the alternatives' symbolic links dpkg made), so that
// images which need a few tools (kube-proxy's iptables, the storage
// helper's shell) are built from the same packages as the node.

// dpkgDB is the installed packages of a root file system.
type dpkgDB struct {
	root     string
	pkgs     map[string]*dpkgPkg // by name, and by every virtual name it provides
	provides map[string][]string
}

type dpkgPkg struct {
	Name    string
	Arch    string
	Version string
	Depends [][]string // each a list of alternatives, names only
}

// readDpkg reads root/var/lib/dpkg/status: every package whose status is
// "install ok installed".
func readDpkg(root string) (*dpkgDB, error) {
	f := filepath.Join(root, "var/lib/dpkg/status")
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, fmt.Errorf("dpkg database: %w", err)
	}
	db := &dpkgDB{root: root, pkgs: map[string]*dpkgPkg{}, provides: map[string][]string{}}
	for _, stanza := range bytes.Split(data, []byte("\n\n")) {
		fields := parseStanza(stanza)
		if fields["Package"] == "" || fields["Status"] != "install ok installed" {
			continue
		}
		p := &dpkgPkg{Name: fields["Package"], Arch: fields["Architecture"], Version: fields["Version"]}
		for _, key := range []string{"Pre-Depends", "Depends"} {
			p.Depends = append(p.Depends, parseDeps(fields[key])...)
		}
		db.pkgs[p.Name] = p
		for _, alts := range parseDeps(fields["Provides"]) {
			for _, v := range alts {
				db.provides[v] = append(db.provides[v], p.Name)
			}
		}
	}
	if len(db.pkgs) == 0 {
		return nil, fmt.Errorf("dpkg database %s: no installed package", f)
	}
	return db, nil
}

// parseStanza reads one control stanza's fields; continuation lines are
// joined to their field.
func parseStanza(b []byte) map[string]string {
	out := map[string]string{}
	var last string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last != "" {
				out[last] += "\n" + strings.TrimSpace(line)
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		last = k
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// parseDeps reads a Depends-style field ("a (>= 1), b:any | c") into its
// alternatives, names only.
func parseDeps(s string) [][]string {
	var out [][]string
	for _, clause := range strings.Split(s, ",") {
		var alts []string
		for _, alt := range strings.Split(clause, "|") {
			name := strings.TrimSpace(alt)
			if i := strings.IndexAny(name, " ([<"); i >= 0 {
				name = name[:i]
			}
			name, _, _ = strings.Cut(name, ":")
			if name != "" {
				alts = append(alts, name)
			}
		}
		if len(alts) > 0 {
			out = append(out, alts)
		}
	}
	return out
}

// closure is the named packages and, recursively, what they depend on: for
// each dependency the first alternative installed (or providing it). A
// named package that is not installed is an error.
func (db *dpkgDB) closure(names ...string) ([]string, error) {
	return db.closureWithout(nil, names...)
}

// closureWithout is closure leaving out the packages of skip and what only
// they pull in: dependencies a package's maintainer scripts need (such as
// adduser), which an image that only runs its program does not.
func (db *dpkgDB) closureWithout(skip map[string]bool, names ...string) ([]string, error) {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if seen[n] || skip[n] {
			return
		}
		seen[n] = true
		for _, alts := range db.pkgs[n].Depends {
			if dep := db.resolve(alts); dep != "" {
				visit(dep)
			}
		}
	}
	for _, n := range names {
		if db.pkgs[n] == nil {
			return nil, fmt.Errorf("package %s is not installed in %s", n, db.root)
		}
		visit(n)
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

func (db *dpkgDB) resolve(alts []string) string {
	for _, a := range alts {
		if db.pkgs[a] != nil {
			return a
		}
		if p := db.provides[a]; len(p) > 0 {
			return p[0]
		}
	}
	return ""
}

// skipDoc reports files an image layer leaves out: documentation, manual
// pages, translations.
func skipDoc(p string) bool {
	for _, prefix := range []string{"/usr/share/doc/", "/usr/share/man/", "/usr/share/info/", "/usr/share/locale/", "/usr/share/lintian/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// files lists, sorted and without documentation, the paths (absolute in
// the root) the packages installed, with the symbolic links the
// alternatives system made for them.
func (db *dpkgDB) files(pkgs []string) ([]string, error) {
	set := map[string]bool{}
	for _, n := range pkgs {
		list := filepath.Join(db.root, "var/lib/dpkg/info", n+".list")
		if _, err := os.Stat(list); err != nil && db.pkgs[n] != nil {
			list = filepath.Join(db.root, "var/lib/dpkg/info", n+":"+db.pkgs[n].Arch+".list")
		}
		data, err := os.ReadFile(list)
		if err != nil {
			return nil, fmt.Errorf("files of package %s: %w", n, err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" && l != "/." && !skipDoc(l) {
				set[l] = true
			}
		}
	}
	alts, err := db.alternatives(set)
	if err != nil {
		return nil, err
	}
	for _, a := range alts {
		set[a] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// alternatives returns, for every alternative (var/lib/dpkg/alternatives)
// whose current choice is one of files, its links: the public name (as
// /usr/sbin/iptables) and /etc/alternatives/<name>, for the master and
// each slave.
func (db *dpkgDB) alternatives(files map[string]bool) ([]string, error) {
	dir := filepath.Join(db.root, "var/lib/dpkg/alternatives")
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(data), "\n")
		if len(lines) < 2 {
			continue
		}
		// mode, master link, then (slave name, slave link) pairs up to "".
		links := map[string]string{e.Name(): lines[1]}
		for i := 2; i+1 < len(lines) && lines[i] != ""; i += 2 {
			links[lines[i]] = lines[i+1]
		}
		for name, link := range links {
			choice, err := os.Readlink(filepath.Join(db.root, "etc/alternatives", name))
			if err != nil || !files[path.Clean(choice)] {
				continue
			}
			out = append(out, link, "/etc/alternatives/"+name)
		}
	}
	return out, nil
}
