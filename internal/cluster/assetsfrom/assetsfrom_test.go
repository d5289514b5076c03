package assetsfrom

import "testing"

// TestParse: every name reads back as itself, "" and the zero value are
// Auto (the CLI's default), an unknown value names the valid ones.
func TestParse(t *testing.T) {
	var zero Source
	if zero != Auto || zero.String() != "auto" {
		t.Errorf("the zero Source is %v, want auto", zero)
	}
	for _, n := range Names {
		var s Source
		if err := s.Set(n); err != nil || s.String() != n {
			t.Errorf("Set(%q) = %v, %v", n, s, err)
		}
	}
	if s, err := Parse(""); err != nil || s != Auto {
		t.Errorf(`Parse("") = %v, %v; want auto`, s, err)
	}
	s := Build
	if err := s.Set("mirror"); err == nil || err.Error() != "want auto, download or build" || s != Build {
		t.Errorf(`Set("mirror") = %v, left %v; want an error naming the values, the value unchanged`, err, s)
	}
}
