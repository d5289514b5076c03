package output

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// TestColor: colour on a terminal only, and never with $NO_COLOR set (to
// anything but "") or --no-color; a file or a buffer never.
func TestColor(t *testing.T) {
	var b bytes.Buffer
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		name, noColor string
		flag          bool
		w             io.Writer
		want          bool
	}{
		{name: "terminal", w: Terminal{&b}, want: true},
		{name: "NO_COLOR empty", noColor: "", w: Terminal{&b}, want: true},
		{name: "NO_COLOR=1", noColor: "1", w: Terminal{&b}},
		{name: "--no-color", flag: true, w: Terminal{&b}},
		{name: "buffer", w: &b},
		{name: "file", w: f},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tc.noColor)
			NoColor = tc.flag
			defer func() { NoColor = false }()
			w := tc.w
			if got := Color(w); got != tc.want {
				t.Errorf("Color = %v, want %v", got, tc.want)
			}
			p := Colors(w)
			want := "FAIL"
			if tc.want {
				want = "\033[31mFAIL\033[0m"
			}
			if got := p.Bad("FAIL"); got != want {
				t.Errorf("Bad(FAIL) = %q, want %q", got, want)
			}
		})
	}
	if got := (Palette{}).Good("ok") + (Palette{on: true}).Good(""); got != "ok" {
		t.Errorf("plain palette, or an empty word: %q", got)
	}
}

func TestManifestsAs(t *testing.T) {
	in := []byte("# Source: a\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n")
	for format, want := range map[string]string{
		"":     string(in),
		"yaml": string(in),
		"json": `{
  "apiVersion": "v1",
  "items": [
    {
      "apiVersion": "v1",
      "kind": "ConfigMap",
      "metadata": {
        "name": "a"
      }
    },
    {
      "apiVersion": "v1",
      "kind": "Secret",
      "metadata": {
        "name": "b"
      }
    }
  ],
  "kind": "List"
}
`,
	} {
		got, err := ManifestsAs(format, in)
		if err != nil || string(got) != want {
			t.Errorf("-o %q: %v\n%s\nwant\n%s", format, err, got, want)
		}
	}
	if _, err := ManifestsAs("text", in); err == nil {
		t.Error("-o text: no error")
	}
	if _, err := ManifestsAs("json", []byte("a: [")); err == nil {
		t.Error("bad YAML: no error")
	}
}
