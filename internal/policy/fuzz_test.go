package policy

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/fuzzseed"
)

// FuzzParse: any policy file either parses or fails with an error naming
// the file; never a panic.
func FuzzParse(f *testing.F) {
	fuzzseed.Add(f, "testdata/*.yaml", "testdata/invalid/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse("fuzz.yaml", data); err != nil && !strings.Contains(err.Error(), "fuzz.yaml") {
			t.Fatalf("error without the file: %v", err)
		}
	})
}

// TestHostilePolicy: a YAML alias bomb and deep nesting fail with an
// error naming the file, in bounded time.
func TestHostilePolicy(t *testing.T) {
	bomb, err := os.ReadFile("testdata/hostile/alias-bomb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"alias bomb":   bomb,
		"deep nesting": []byte(strings.Repeat("[", 100000) + strings.Repeat("]", 100000)),
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse("hostile.yaml", data)
			if err == nil || !strings.Contains(err.Error(), "hostile.yaml") {
				t.Errorf("Parse = %v, want an error naming the file", err)
			}
			t.Logf("%s: %v in %s", name, err, time.Since(start))
		})
	}
}
