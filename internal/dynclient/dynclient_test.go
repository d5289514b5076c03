package dynclient

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestNew: a client is made without reaching the server (nothing listens
// at the address), its Mapper reading Discovery; a configuration client-go
// refuses is an error naming the client.
func TestNew(t *testing.T) {
	c, err := New(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Dynamic == nil || c.Mapper == nil || c.Discovery == nil {
		t.Fatalf("client %+v, want all three", c)
	}
	if c.Discovery.Fresh() {
		t.Error("discovery was read: New must not contact the server")
	}
	_, err = New(&rest.Config{Host: "http://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{CAFile: "/no/such/ca.crt"}})
	if err == nil || !strings.HasPrefix(err.Error(), "dynamic client: ") {
		t.Errorf("bad CA file: %v, want an error naming the dynamic client", err)
	}
}
