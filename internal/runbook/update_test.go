package runbook

import (
	"os"
	"strings"
	"testing"
)

func TestRewrite(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		crlf    bool
		changes map[string]string
		// replace lists old->new substitutions that turn the original
		// source into the expected one.
		replace []string
	}{
		{"top-level block", "testdata/basic.md", false,
			map[string]string{"want.txt": "replicas: 2\nextra line\n"},
			[]string{"```text file=want.txt\nreplicas: 1\n```", "```text file=want.txt\nreplicas: 2\nextra line\n```"}},
		{"indented block keeps its indentation", "testdata/nested.md", false,
			map[string]string{"cm.yaml": "kind: Secret\n"},
			[]string{"   ```yaml file=cm.yaml\n   kind: ConfigMap\n   data:\n     a: \"1\"\n   ```", "   ```yaml file=cm.yaml\n   kind: Secret\n   ```"}},
		{"empty block filled", "testdata/nested.md", false,
			map[string]string{"empty.txt": "now\nfull"},
			[]string{"```text file=empty.txt\n```", "```text file=empty.txt noeol\nnow\nfull\n```"}},
		{"block emptied", "testdata/basic.md", false,
			map[string]string{"want.txt": ""},
			[]string{"```text file=want.txt\nreplicas: 1\n```", "```text file=want.txt\n```"}},
		{"CRLF kept", "testdata/basic.md", true,
			map[string]string{"values.yaml": "replicas: 3\n"},
			[]string{"replicas: 1\r\n```\r\n\r\n## Apply", "replicas: 3\r\n```\r\n\r\n## Apply"}},
		{"unchanged content is a no-op", "testdata/basic.md", false,
			map[string]string{"values.yaml": "replicas: 1\n"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if tc.crlf {
				src = []byte(strings.ReplaceAll(string(src), "\n", "\r\n"))
			}
			rb, err := Parse(tc.file, src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := rb.Rewrite(tc.changes)
			if err != nil {
				t.Fatal(err)
			}
			want := string(src)
			for i := 0; i+1 < len(tc.replace); i += 2 {
				if !strings.Contains(want, tc.replace[i]) {
					t.Fatalf("fixture lacks %q", tc.replace[i])
				}
				want = strings.Replace(want, tc.replace[i], tc.replace[i+1], 1)
			}
			if string(got) != want {
				t.Errorf("Rewrite =\n%s\nwant\n%s", got, want)
			}
			// The rewritten runbook parses to the new content.
			again, err := Parse(tc.file, got)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range again.Files {
				if c, ok := tc.changes[f.Name]; ok && strings.TrimSuffix(f.Content, "\n") != strings.TrimSuffix(c, "\n") {
					t.Errorf("re-parsed %s = %q, want %q", f.Name, f.Content, c)
				}
			}
		})
	}
}

func TestRewriteFenceClash(t *testing.T) {
	rb := mustParse(t, "testdata/basic.md")
	_, err := rb.Rewrite(map[string]string{"want.txt": "a\n```\nb\n"})
	if err == nil || !strings.Contains(err.Error(), "testdata/basic.md:31: cannot update") {
		t.Errorf("error = %v", err)
	}
}

func TestRewriteTxtar(t *testing.T) {
	rb := mustParse(t, "testdata/steps-and-files.txtar")
	got, err := rb.Rewrite(map[string]string{"want.txt": "bye\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(rb.Source), "-- want.txt --\nhello\n", "-- want.txt --\nbye\n", 1)
	if string(got) != want {
		t.Errorf("Rewrite =\n%s\nwant\n%s", got, want)
	}
}

// TestRewriteNoEOL: content without a final newline is written with the
// noeol flag, read back exactly, and loses the flag when it ends in one.
func TestRewriteNoEOL(t *testing.T) {
	src := "# x\n\n```text file=out.txt\nold\n```\n"
	rb, err := Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got, err := rb.Rewrite(map[string]string{"out.txt": "abc"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# x\n\n```text file=out.txt noeol\nabc\n```\n"
	if string(got) != want {
		t.Fatalf("Rewrite = %q, want %q", got, want)
	}
	rb, err = Parse("x.md", got)
	if err != nil {
		t.Fatal(err)
	}
	if c := rb.Files[0].Content; c != "abc" {
		t.Fatalf("noeol content = %q, want %q", c, "abc")
	}
	if again, err := rb.Rewrite(map[string]string{"out.txt": "abc"}); err != nil || string(again) != want {
		t.Fatalf("second Rewrite = %q, %v: not idempotent", again, err)
	}
	back, err := rb.Rewrite(map[string]string{"out.txt": "abc\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# x\n\n```text file=out.txt\nabc\n```\n"; string(back) != want {
		t.Fatalf("Rewrite back = %q, want %q", back, want)
	}
}

// TestUpdateOutput: --update of an exact shell block rewrites only its
// expected output (the block after it, or a console block's own lines
// after its last command), in the block's indentation and line endings;
// every other byte stays.
func TestUpdateOutput(t *testing.T) {
	const page = "---\nrun: shell\noutput: exact\n---\n\n# Steps\n\n" +
		"1. Say it:\n\n   ```bash\n   echo new\n   ```\n\n   ```console { .no-copy }\n   old\n   ```\n\n" +
		"```console\n$ echo a \\\n> b\nold a\nold b\n```\n\n" +
		"> ```sh\n> true\n> ```\n>\n> ```text\n> ```\n\ntail\n"
	for _, crlf := range []bool{false, true} {
		src := page
		if crlf {
			src = strings.ReplaceAll(src, "\n", "\r\n")
		}
		rb, err := Parse("page.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if len(rb.Steps) != 3 {
			t.Fatalf("%d steps", len(rb.Steps))
		}
		got, err := rb.Update(nil, map[*Step]string{
			rb.Steps[0]: "new  \n\n",         // trailing spaces and blank lines dropped
			rb.Steps[1]: "\na b\r\nsecond\n", // a console block's own output
			rb.Steps[2]: "filled",            // an empty block filled, in a blockquote
		})
		if err != nil {
			t.Fatal(err)
		}
		want := strings.NewReplacer(
			"   ```console { .no-copy }\n   old\n", "   ```console { .no-copy }\n   new\n",
			"> b\nold a\nold b\n", "> b\na b\nsecond\n",
			">\n> ```text\n> ```", ">\n> ```text\n> filled\n> ```",
		).Replace(page)
		if crlf {
			want = strings.ReplaceAll(want, "\n", "\r\n")
		}
		if string(got) != want {
			t.Errorf("crlf=%v: Update =\n%q\nwant\n%q", crlf, got, want)
		}
		again, err := Parse("page.md", got)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range []string{"new\n", "a b\nsecond\n", "filled\n"} {
			if e := again.Steps[i].Shell.Expected; e == nil || e.Text != w {
				t.Errorf("crlf=%v: re-parsed step %d expects %+v, want %q", crlf, i+1, e, w)
			}
		}
	}
}

func TestUpdateOutputRefused(t *testing.T) {
	src := "---\nrun: shell\n---\n\n```console\n$ echo one\none\n$ echo two\ntwo\n```\n\n```bash\necho x\n```\n\n```console\nx\n```\n"
	rb, err := Parse("page.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		st   *Step
		out  string
		want string
	}{
		{rb.Steps[0], "one\ntwo\n", "page.md:7: cannot update: the console block at line 5 mixes commands and output"},
		{rb.Steps[1], "$ rm -rf /\n", "page.md:17: cannot update: output line 1 (\"$ rm -rf /\") would read as a command"},
		{rb.Steps[1], "```\n", "page.md:16: cannot update: new content line 1"},
	} {
		if _, err := rb.Update(nil, map[*Step]string{tc.st: tc.out}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Update(%q) error = %v, want %q", tc.out, err, tc.want)
		}
	}
}
