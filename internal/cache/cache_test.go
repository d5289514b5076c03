package cache

import (
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/report"
)

func TestKeySum(t *testing.T) {
	base := Key{Kbook: "k", Backend: "none", Path: "a.md", Source: []byte("src"), Inputs: map[string][]byte{"x": []byte("1")}}
	change := []func(k *Key){
		func(k *Key) { k.Kbook = "k2" },
		func(k *Key) { k.Backend = "local" },
		func(k *Key) { k.Path = "b.md" },
		func(k *Key) { k.Source = []byte("src2") },
		func(k *Key) { k.Inputs = map[string][]byte{"x": []byte("2")} },
		func(k *Key) { k.Inputs = map[string][]byte{"y": []byte("1")} },
		// Field boundaries count: moving a byte between fields changes the key.
		func(k *Key) { k.Path, k.Source = "a.mds", []byte("rc") },
	}
	for i, c := range change {
		k := base
		c(&k)
		if k.Sum() == base.Sum() {
			t.Errorf("change %d did not change the key", i)
		}
	}
	same := base
	same.Inputs = map[string][]byte{"x": []byte("1")}
	if same.Sum() != base.Sum() {
		t.Error("equal keys differ")
	}
}

func TestPutGet(t *testing.T) {
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sum := Key{Path: "a.md"}.Sum()
	if _, ok := c.Get(sum); ok {
		t.Fatal("hit in an empty cache")
	}
	rb := &report.Runbook{Path: "a.md", Status: report.Passed, Duration: 2 * time.Second,
		Steps: []*report.Step{{Name: "s", Commands: []*report.Command{{Text: "exec echo", Stdout: "x\n"}}}}}
	if err := c.Put(sum, rb); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Get(sum)
	if !ok || got.Steps[0].Commands[0].Stdout != "x\n" {
		t.Fatalf("Get = %+v %v", got, ok)
	}
	if d := c.Durations()["a.md"]; d != 2*time.Second {
		t.Errorf("duration = %s", d)
	}
}
