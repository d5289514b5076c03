package site

import "testing"

func TestTranslate(t *testing.T) {
	for _, tc := range []struct {
		in, kind, text, cond string
		fail                 bool
	}{
		{"exec kubectl get ns", KindCommand, "kubectl get ns", "", false},
		{"! exec false", KindCommand, "false", "", true},
		{"[exec:helm] exec helm version", KindCommand, "helm version", "exec:helm", false},
		{"env CLUSTER=dev-1", KindCommand, "export CLUSTER=dev-1", "", false},
		{"mkdir a b", KindCommand, "mkdir -p a b", "", false},
		{"stdout 'Ready'", KindCheck, "output matches 'Ready'", "", false},
		{"! stderr .", KindCheck, "error output does not match .", "", false},
		{"cmp stdout want.txt", KindCheck, "output is exactly want.txt", "", false},
		{"exists a.yaml", KindCheck, "a.yaml exists", "", false},
		{"grep 'x: 1' f.yaml", KindCheck, "f.yaml matches 'x: 1'", "", false},
		{"await --for=condition=Ready cluster/dev", KindCheck, "await --for=condition=Ready cluster/dev", "", false},
		{"cp stdout out.txt", KindNote, "save the output above as out.txt", "", false},
		{"# a comment", KindComment, "# a comment", "", false},
		{"symlink l -> t", KindCommand, "ln -s t l", "", false},
	} {
		l := translate(tc.in)
		if l.Kind != tc.kind || l.Text != tc.text || l.Cond != tc.cond || l.ExpectFail != tc.fail {
			t.Errorf("translate(%q) = %+v", tc.in, l)
		}
	}
}

func TestVersionOrder(t *testing.T) {
	var list []VersionEntry
	for _, v := range []string{"v0.1", "next", "v0.10", "v0.2", "dev"} {
		list = mergeVersions(list, VersionEntry{Version: v, Aliases: []string{}})
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Version)
	}
	want := "next v0.10 v0.2 v0.1 dev"
	if g := join(got); g != want {
		t.Errorf("order = %s, want %s", g, want)
	}
	if v, f := defaultVersion(list, "latest"); v != "v0.10" || f != "v0.10" {
		t.Errorf("default = %s %s", v, f)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
