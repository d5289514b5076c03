package proc

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSweepEndsExternals: a dead kbook's recorded kind cluster is ended by
// the reaper of its kind; one whose reaper fails, or that has none, keeps
// its record (and the registry) for the next sweep, while the registry's
// other leftovers go.
func TestSweepEndsExternals(t *testing.T) {
	requireLinux(t)
	root := t.TempDir()
	var ended []string
	fail := true
	RegisterReaper("test-ok", func(name string) error { ended = append(ended, name); return nil })
	RegisterReaper("test-flaky", func(name string) error {
		if fail {
			return errors.New("engine down")
		}
		ended = append(ended, name)
		return nil
	})
	dir := fakeRegistry(t, root, deadProcess(t))
	for _, x := range []External{{"test-ok", "a"}, {"test-flaky", "b"}} {
		data, _ := json.Marshal(x)
		if err := os.WriteFile(filepath.Join(dir, extRecordName(x)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	leftover := filepath.Join(dir, tmpDir, "work")
	os.MkdirAll(leftover, 0o700)

	res, err := Sweep(root)
	if err == nil {
		t.Error("a reaper failed: want Sweep's error")
	}
	if !reflect.DeepEqual(ended, []string{"a"}) || len(res) != 1 || !reflect.DeepEqual(res[0].Ended, []External{{"test-ok", "a"}}) {
		t.Fatalf("first sweep: ended %v, result %+v", ended, res)
	}
	if _, err := os.Stat(filepath.Join(dir, extRecordName(External{"test-flaky", "b"}))); err != nil {
		t.Errorf("the record of what could not be ended is gone: %v", err)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("the registry's other leftovers stay: %v", err)
	}
	if res[0].String() != "deleted test-ok a; removed "+leftover {
		t.Errorf("String() = %q", res[0].String())
	}

	fail = false
	if _, err := Sweep(root); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ended, []string{"a", "b"}) {
		t.Errorf("second sweep: ended %v", ended)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("registry left after everything was ended: %v", err)
	}
}

func TestTrackExternal(t *testing.T) {
	requireLinux(t)
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x := External{Kind: "kind-cluster", Name: "kbook"}
	if err := r.TrackExternal(x); err != nil {
		t.Fatal(err)
	}
	var got External
	if err := readJSON(filepath.Join(r.Dir(), extRecordName(x)), &got); err != nil || got != x {
		t.Fatalf("record: %+v, %v", got, err)
	}
	r.ForgetExternal(x)
	if _, err := os.Stat(filepath.Join(r.Dir(), extRecordName(x))); !os.IsNotExist(err) {
		t.Errorf("record left after ForgetExternal: %v", err)
	}
	var nilReg *Registry
	if nilReg.TrackExternal(x) != nil {
		t.Error("a nil registry tracks nothing, without error")
	}
}

// TestExternalOwner: another running registry's recorded External has that
// registry's owner; one it forgot, one of a registry whose owner is dead,
// and r's own have none.
func TestExternalOwner(t *testing.T) {
	requireLinux(t)
	root := t.TempDir()
	mine, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	other, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	x := External{Kind: "test-owner", Name: "kbook"}
	if _, ok := mine.ExternalOwner(x); ok {
		t.Fatal("owned before anyone recorded it")
	}
	if err := other.TrackExternal(x); err != nil {
		t.Fatal(err)
	}
	if p, ok := mine.ExternalOwner(x); !ok || p.PID != other.Owner().PID {
		t.Errorf("owner %+v %v, want %+v", p, ok, other.Owner())
	}
	if _, ok := other.ExternalOwner(x); ok {
		t.Error("a registry's own External counts as another's")
	}
	other.ForgetExternal(x)
	if _, ok := mine.ExternalOwner(x); ok {
		t.Error("owned after it was forgotten")
	}
	dead := fakeRegistry(t, root, deadProcess(t))
	data, _ := json.Marshal(x)
	if err := os.WriteFile(filepath.Join(dead, extRecordName(x)), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := mine.ExternalOwner(x); ok {
		t.Error("a dead kbook's record counts as an owner")
	}
}

// TestSweepLeavesExternalsOfTheLiving: a dead kbook's record of a kind
// cluster that a running kbook has made again under the same name (and
// records) is dropped, not reaped: reaping by name would delete the
// running kbook's cluster.
func TestSweepLeavesExternalsOfTheLiving(t *testing.T) {
	requireLinux(t)
	root := t.TempDir()
	var ended []string
	RegisterReaper("test-living", func(name string) error { ended = append(ended, name); return nil })
	x := External{Kind: "test-living", Name: "kbook"}
	dead := fakeRegistry(t, root, deadProcess(t))
	data, _ := json.Marshal(x)
	if err := os.WriteFile(filepath.Join(dead, extRecordName(x)), data, 0o600); err != nil {
		t.Fatal(err)
	}
	live, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := live.TrackExternal(x); err != nil {
		t.Fatal(err)
	}
	if _, err := Sweep(root); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 0 {
		t.Errorf("reaped %v, which a running kbook records", ended)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead registry stays: %v", err)
	}
	live.ForgetExternal(x)
}
