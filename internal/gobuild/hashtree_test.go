package gobuild

import (
	"testing"
	"testing/fstest"
)

func TestHashTree(t *testing.T) {
	a := fstest.MapFS{"src/go.mod.txt": {Data: []byte("module x\n")}, "src/cmd/main.go.txt": {Data: []byte("package main\n")}}
	b := fstest.MapFS{"src/go.mod.txt": {Data: []byte("module x\n")}, "src/cmd/main.go.txt": {Data: []byte("package main // changed\n")}}
	ha, err := HashTree(a, "src")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := HashTree(a, "src")
	hb, _ := HashTree(b, "src")
	if ha != again || ha == hb || len(ha) != 64 {
		t.Errorf("hashes %s %s %s: want one per content, stable", ha, again, hb)
	}
	if _, err := HashTree(a, "missing"); err == nil {
		t.Error("a missing root: want an error")
	}
}
