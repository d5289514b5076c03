package inventory

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestClaimRelease(t *testing.T) {
	srv := httptest.NewServer(NewServer("s3cret", Pool(2, []string{"zone-a", "zone-b"})))
	defer srv.Close()
	ctx := context.Background()
	c := NewClient(srv.URL, "s3cret")
	zones, err := c.Zones(ctx)
	if err != nil || strings.Join(zones, ",") != "zone-a,zone-b" {
		t.Fatalf("zones %v %v", zones, err)
	}
	m1, err := c.Claim(ctx, Claim{Owner: "ns/a", Zone: "zone-b"})
	if err != nil || m1.Zone != "zone-b" || m1.Owner != "ns/a" {
		t.Fatalf("claim %+v %v", m1, err)
	}
	again, _ := c.Claim(ctx, Claim{Owner: "ns/a"})
	if again.ID != m1.ID {
		t.Errorf("a second claim by the same owner got another machine: %s, %s", again.ID, m1.ID)
	}
	if _, err := c.Claim(ctx, Claim{Owner: "ns/b", Zone: "zone-b"}); !errors.Is(err, ErrNoMachine) {
		t.Errorf("claim in a full zone: %v", err)
	}
	if err := c.Release(ctx, "ns/a"); err != nil {
		t.Fatal(err)
	}
	ms, _ := c.Machines(ctx)
	for _, m := range ms {
		if m.Owner != "" {
			t.Errorf("still owned after release: %+v", m)
		}
	}
}

func TestTokenRequiredAndNeverInErrors(t *testing.T) {
	srv := httptest.NewServer(NewServer("s3cret", Pool(1, []string{"z"})))
	defer srv.Close()
	_, err := NewClient(srv.URL, "wrong-token-value").Machines(context.Background())
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 401 {
		t.Fatalf("want 401, got %v", err)
	}
	if strings.Contains(err.Error(), "wrong-token-value") {
		t.Errorf("the token leaked into the error: %v", err)
	}
}
