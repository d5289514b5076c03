package output

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

type result struct {
	Name   string   `json:"name"`
	Checks []string `json:"checks,omitempty"`
	Note   string   `json:"note,omitempty"`
}

func TestWrite(t *testing.T) {
	v := result{Name: "a<b", Checks: []string{"x", "y"}}
	text := func(w io.Writer) error { _, err := io.WriteString(w, "text of a\n"); return err }
	for format, want := range map[string]string{
		"":     "text of a\n",
		"text": "text of a\n",
		// As json.MarshalIndent with two spaces, and a newline.
		"json": "{\n  \"name\": \"a\\u003cb\",\n  \"checks\": [\n    \"x\",\n    \"y\"\n  ]\n}\n",
		// The JSON field names; omitempty holds.
		"yaml": "checks:\n- x\n- \"y\"\nname: a<b\n",
	} {
		var b bytes.Buffer
		if err := Write(&b, format, v, text); err != nil {
			t.Fatalf("%q: %v", format, err)
		}
		if b.String() != want {
			t.Errorf("-o %q:\n%s\nwant\n%s", format, b.String(), want)
		}
	}
	if err := Write(io.Discard, "sarif", v, text); err == nil {
		t.Error("-o sarif: no error")
	}
	boom := errors.New("boom")
	if err := Write(io.Discard, "text", v, func(io.Writer) error { return boom }); err != boom {
		t.Errorf("text writer's error: %v", err)
	}
}
