package window

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestEvaluate: kbook upgrade window's flags, good and bad.
func TestEvaluate(t *testing.T) {
	now := time.Date(2025, 11, 1, 10, 0, 0, 0, time.UTC) // a Saturday
	for _, tc := range []struct {
		name     string
		spec     string
		excl     []string
		at       string
		count    int
		wantOpen bool
		wantNext int
		wantErr  string
	}{
		{name: "open now", spec: "sat,sun 09:00 4h UTC", count: 1, wantOpen: true, wantNext: 1},
		{name: "closed at --at", spec: "sat,sun 09:00 4h UTC", at: "2025-11-03T10:00:00Z", count: 3, wantNext: 3},
		{name: "excluded", spec: "sat,sun 09:00 4h UTC", excl: []string{"2025-11-01/2025-11-02"}, count: 2, wantNext: 2},
		{name: "bad spec", spec: "someday 09:00 4h", count: 1, wantErr: "someday"},
		{name: "bad exclusion", spec: "daily 09:00 1h", excl: []string{"2025-11-01"}, count: 1, wantErr: "--exclude: "},
		{name: "bad --at", spec: "daily 09:00 1h", at: "noon", count: 1, wantErr: "--at: "},
		{name: "bad --count", spec: "daily 09:00 1h", count: 0, wantErr: "--count 0: want at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Evaluate(tc.spec, tc.excl, tc.at, tc.count, now)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Open != tc.wantOpen || len(r.Next) != tc.wantNext {
				t.Errorf("open %v, %d next, want %v, %d", r.Open, len(r.Next), tc.wantOpen, tc.wantNext)
			}
		})
	}
}

// TestWrite: json is the report's fields, text WriteText's lines.
func TestWrite(t *testing.T) {
	r, err := Evaluate("daily 09:00 1h UTC", nil, "2025-11-01T09:30:00Z", 1, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var js, text bytes.Buffer
	if err := Write(&js, "json", r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Open bool `json:"open"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || !doc.Open {
		t.Errorf("json %s: %v", js.String(), err)
	}
	if err := Write(&text, "text", r); err != nil || !strings.HasPrefix(text.String(), "Window: ") || !strings.Contains(text.String(), "Open at ") {
		t.Errorf("text %q: %v", text.String(), err)
	}
}
