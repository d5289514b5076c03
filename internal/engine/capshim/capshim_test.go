package capshim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestBoundingAndMissing(t *testing.T) {
	// The bounding set of the machines kbook is developed on: every
	// capability up to 40 but CAP_SYS_RESOURCE (24).
	status := "Name:\tcat\nCapInh:\t0000000000000000\nCapBnd:\t000001fffeffffff\nCapAmb:\t0000000000000000\n"
	bnd, err := Bounding(strings.NewReader(status))
	if err != nil {
		t.Fatal(err)
	}
	if got := Missing(bnd, 40); !reflect.DeepEqual(got, []string{"CAP_SYS_RESOURCE"}) {
		t.Errorf("Missing = %v, want [CAP_SYS_RESOURCE]", got)
	}
	// A full set lacks nothing; a kernel that knows fewer capabilities
	// asks for fewer.
	if got := Missing(0x1ffffffffff, 40); len(got) != 0 {
		t.Errorf("full set: Missing = %v, want none", got)
	}
	if got := Missing(0xffffffffff, 40); !reflect.DeepEqual(got, []string{"CAP_CHECKPOINT_RESTORE"}) {
		t.Errorf("set without 40: Missing = %v", got)
	}
	if got := Missing(0xffffffffff, 39); len(got) != 0 {
		t.Errorf("kernel with cap_last_cap 39: Missing = %v, want none", got)
	}
	if _, err := Bounding(strings.NewReader("Name:\tx\n")); err == nil {
		t.Error("no CapBnd line: want an error")
	}
	if _, err := Bounding(strings.NewReader("CapBnd:\tzz\n")); err == nil {
		t.Error("CapBnd zz: want an error")
	}
}

func TestName(t *testing.T) {
	if Name(24) != "CAP_SYS_RESOURCE" || Name(0) != "CAP_CHOWN" || Name(40) != "CAP_CHECKPOINT_RESTORE" {
		t.Errorf("names: %s %s %s", Name(24), Name(0), Name(40))
	}
	if Name(63) != "CAP_63" {
		t.Errorf("Name(63) = %s", Name(63))
	}
}

// A privileged container's config.json as runc gets it (abridged), with a
// number that float64 would round.
const spec = `{"ociVersion":"1.0.2","process":{"user":{"uid":0,"gid":0},"args":["/sbin/init"],
"capabilities":{"bounding":["CAP_CHOWN","CAP_SYS_RESOURCE","CAP_SYS_ADMIN"],"effective":["CAP_CHOWN","CAP_SYS_RESOURCE"],
"inheritable":["CAP_SYS_RESOURCE"],"permitted":["CAP_CHOWN","CAP_SYS_RESOURCE"]},"oomScoreAdj":0},
"linux":{"resources":{"memory":{"limit":9223372036854771712}}}}`

func TestStripSpec(t *testing.T) {
	out, removed, err := Strip([]byte(spec), []string{"CAP_SYS_RESOURCE"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(removed, []string{"CAP_SYS_RESOURCE"}) {
		t.Errorf("removed = %v", removed)
	}
	var got struct {
		Process struct {
			Capabilities map[string][]string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"bounding": {"CAP_CHOWN", "CAP_SYS_ADMIN"}, "effective": {"CAP_CHOWN"},
		"inheritable": {}, "permitted": {"CAP_CHOWN"},
	}
	if !reflect.DeepEqual(got.Process.Capabilities, want) {
		t.Errorf("capabilities = %v, want %v", got.Process.Capabilities, want)
	}
	if !strings.Contains(string(out), "9223372036854771712") {
		t.Errorf("a large number was not kept as it was: %s", out)
	}
	if !strings.Contains(string(out), `"args":["/sbin/init"]`) {
		t.Errorf("other fields changed: %s", out)
	}
}

func TestStripProcessFile(t *testing.T) {
	// runc exec --process: the capabilities are at the top level.
	doc := `{"args":["sh"],"capabilities":{"bounding":["CAP_KILL","CAP_SYS_RESOURCE"]}}`
	out, removed, err := Strip([]byte(doc), []string{"CAP_SYS_RESOURCE"})
	if err != nil || len(removed) != 1 {
		t.Fatalf("Strip: %v, removed %v", err, removed)
	}
	if strings.Contains(string(out), "CAP_SYS_RESOURCE") || !strings.Contains(string(out), "CAP_KILL") {
		t.Errorf("out = %s", out)
	}
}

func TestStripUnchanged(t *testing.T) {
	for name, doc := range map[string]string{
		"no such capability": `{"process":{"capabilities":{"bounding":["CAP_KILL"]}}}`,
		"no capabilities":    `{"process":{"args":["x"]}}`,
	} {
		out, removed, err := Strip([]byte(doc), []string{"CAP_SYS_RESOURCE"})
		if err != nil || removed != nil || string(out) != doc {
			t.Errorf("%s: Strip = %s, %v, %v; want the document unchanged", name, out, removed, err)
		}
	}
	if _, _, err := Strip([]byte("{"), nil); err == nil {
		t.Error("broken JSON: want an error")
	}
}

func TestSpecFile(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		// containerd-shim-runc-v2's calls, as dockerd's containerd makes them.
		{[]string{"--root", "/var/run/docker/runtime-runc/moby", "--log", "/run/x/log.json", "--log-format", "json", "create", "--bundle", "/run/b", "--pid-file", "/run/b/init.pid", "abc"}, "/run/b/config.json"},
		{[]string{"--root", "/r", "--log=/l", "--log-format", "json", "--systemd-cgroup", "exec", "--process", "/tmp/runc-process1", "--detach", "--pid-file", "/p", "abc"}, "/tmp/runc-process1"},
		{[]string{"run", "-b", "/b2", "id"}, "/b2/config.json"},
		{[]string{"create", "--bundle=/b3/", "id"}, "/b3/config.json"},
		{[]string{"create", "id"}, "/wd/config.json"},
		{[]string{"exec", "-t", "id", "sh"}, ""},
		{[]string{"--root", "/r", "start", "abc"}, ""},
		{[]string{"--root", "/r", "delete", "--force", "abc"}, ""},
		{[]string{"--version"}, ""},
	} {
		if got := SpecFile(c.args, "/wd"); got != c.want {
			t.Errorf("SpecFile(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
