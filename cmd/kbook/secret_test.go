package main

import (
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/site"
)

// The runbooks of TestNothingSecretPublished. leak.sh prints the passed
// secrets in every form kbook masks, and secrets it makes itself (known
// to kbook by their shape only), whose values it leaves in $LEAK_OUT for
// the test to look for.
const (
	leakScript = "```sh file=leak.sh\n" + `T="$K0RDENT_TOKEN"
echo "plain: $T"
echo "base64: $(printf %s "$T" | base64 -w0)"
echo "base64 of echo: $(echo "$T" | base64 -w0)"
echo "callback: https://example.com/cb?token=$(printf %s "$T" | sed -e 's/%/%25/g' -e 's|/|%2F|g' -e 's/+/%2B/g' -e 's/=/%3D/g')"
echo "callback, lower case: https://example.com/cb?token=$(printf %s "$T" | sed -e 's/%/%25/g' -e 's|/|%2f|g' -e 's/+/%2b/g' -e 's/=/%3d/g')"
echo "Authorization: Bearer $T"
echo "secret data: $(printf 'apiVersion: v1\nusers:\n- user:\n    token: %s\n' "$T" | base64 -w0)"
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
echo "jwt: $(printf '{"alg":"HS256","typ":"JWT"}' | b64url).$(printf '{"sub":"%s"}' "$T" | b64url).c2lnbmF0dXJlLXNpZ25hdHVyZQ"
cat <<EOF
apiVersion: v1
kind: Config
users:
- name: ci
  user:
    token: $T
    client-key-data: $(printf '%s\n' "$TLS_PRIVATE_KEY" | base64 -w0)
EOF
printf '%s\n' "$TLS_PRIVATE_KEY"
G=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
printf %s "$G" > "$LEAK_OUT/generated-$$"
echo "made: Authorization: Bearer gen$G"
echo "made: jwt: $(printf '{"alg":"HS256"}' | b64url).$(printf '{"sub":"%s"}' "$G" | b64url).c2lnbmF0dXJlLXNpZ25hdHVyZQ"
printf 'users:\n- user:\n    token: tok%s\n' "$G"
printf -- '-----BEGIN EC PRIVATE KEY-----\npem%s\n-----END EC PRIVATE KEY-----\n' "$G"
` + "```\n"
	leakPassing = "---\ntitle: Prints secrets\n---\n\n" + leakScript + "\n## Print\n\n```testscript\nexec sh leak.sh\nstdout plain\n```\n"
	leakFailing = "---\ntitle: Fails with secrets\n---\n\n" + leakScript + "\n```text file=want.txt\nnot what it printed\n```\n\n## Print and fail\n\n```testscript\nexec sh leak.sh\ncmp stdout want.txt\n```\n"
)

// TestNothingSecretPublished (issue 18): a runbook prints a secret passed
// with --env in every form kbook masks (plain, base64, URL-encoded,
// inside a kubeconfig and inside base64 of one, a PEM private key, a
// bearer token, a JWT) and secrets it makes itself; kbook run's JSON and
// JUnit reports, every file kbook build writes with search (the Pagefind
// index decompressed) and every file kbook serve --run serves carry none
// of them.
func TestNothingSecretPublished(t *testing.T) {
	r := newSiteRun(t)
	pf := site.FindPagefind(".")
	if !pf.Available() {
		t.Skipf("no Pagefind (make site-tools): %s", pf.Why)
	}
	t.Setenv(site.EnvPagefind, pf.Path)

	token := "kbS3cr3tZq7xK2mP9wR4/tV6y+Hn8=Lw5"
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	leakOut := t.TempDir()
	docs := t.TempDir()
	writeFiles(t, docs, map[string]string{
		"content/_index.md":   "---\ntitle: Home\n---\n\nHello.\n",
		"runbooks/passing.md": leakPassing,
		"runbooks/failing.md": leakFailing,
	})
	envFlags := []string{"--env", "K0RDENT_TOKEN=" + token, "--env", "TLS_PRIVATE_KEY=" + pemKey, "--env", "LEAK_OUT=" + leakOut}

	// kbook run: the reports and what it prints.
	reports := t.TempDir()
	jsonRep, junit := filepath.Join(reports, "run.json"), filepath.Join(reports, "run.xml")
	out, _ := r.command(docs, append([]string{"run", "--no-cache", "--json", jsonRep, "--junit", junit, "runbooks/"}, envFlags...)...).CombinedOutput()
	if !strings.Contains(string(out), "failing.md") {
		t.Fatalf("kbook run did not run the runbooks:\n%s", out)
	}

	// kbook build with search, from that report.
	public := filepath.Join(t.TempDir(), "public")
	if res, err := r.command(docs, "build", "--report", jsonRep, "--out", public, ".").CombinedOutput(); err != nil {
		t.Fatalf("kbook build: %v\n%s", err, res)
	}
	if m, _ := filepath.Glob(filepath.Join(public, "*", "pagefind", "fragment", "*.pf_fragment")); len(m) == 0 {
		t.Fatal("kbook build wrote no Pagefind fragments: nothing searched")
	}

	// kbook serve --run: every file of the served folder, over HTTP.
	_, line := r.startLine(docs, "serving", append([]string{"serve", "--run", "--port", "0"}, envFlags...)...)
	base := strings.Fields(line[strings.Index(line, "http://"):])[0]
	served := r.glob(filepath.Join(r.cache, "procs", "*", "tmp", "kbook-serve-*"))
	if len(served) != 1 {
		t.Fatalf("served folders: %v, want one", served)
	}

	made := r.glob(filepath.Join(leakOut, "generated-*"))
	if len(made) < 4 { // run and serve --run, two runbooks each
		t.Fatalf("leak.sh ran %d times, want 4 (kbook run and serve --run, two runbooks)", len(made))
	}
	needles := secretForms(token, pemKey)
	for _, f := range made {
		g, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		needles = append(needles, madeForms(string(g))...)
	}

	look := func(where string, data []byte) {
		t.Helper()
		for _, n := range found(data, needles) {
			t.Errorf("%s carries a secret: %q", where, n)
		}
	}
	look("kbook run's output", out)
	for _, f := range []string{jsonRep, junit} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		look(f, data)
	}
	pages := 0
	walkFiles(t, public, func(rel string, data []byte) {
		pages++
		look("public/"+rel, data)
	})
	// The first build starts after the "serving" line; the server
	// answers once it is done.
	if resp, err := http.Get(base + "next/runbooks/passing/"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("kbook serve: the runbook's page: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
	walkFiles(t, served[0], func(rel string, _ []byte) {
		resp, err := http.Get(base + (&url.URL{Path: rel}).EscapedPath())
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("kbook serve: GET /%s = %s", rel, resp.Status)
		}
		look("kbook serve /"+rel, data)
	})
	// The check finds what it looks for: run by hand, leak.sh prints
	// every form looked for.
	raw, g := leakOutput(t, token, pemKey)
	for _, n := range append(secretForms(token, pemKey), madeForms(g)...) {
		if len(found(raw, []string{n})) == 0 {
			t.Errorf("%q is not in leak.sh's own output: the test looks for a form the runbook does not print", n)
		}
	}
	t.Logf("looked for %d forms in kbook run's output and reports, %d files of public/ and the files kbook serve served", len(needles), pages)
}

// leakOutput runs leak.sh with sh, as the runbooks do but without kbook,
// and returns what it printed and the secret it made.
func leakOutput(t *testing.T, token, pemKey string) ([]byte, string) {
	t.Helper()
	dir := t.TempDir()
	script := strings.TrimSuffix(strings.TrimPrefix(leakScript, "```sh file=leak.sh\n"), "```\n")
	if err := os.WriteFile(filepath.Join(dir, "leak.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command("sh", "leak.sh")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "K0RDENT_TOKEN="+token, "TLS_PRIVATE_KEY="+pemKey, "LEAK_OUT="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sh leak.sh: %v\n%s", err, out)
	}
	m, _ := filepath.Glob(filepath.Join(dir, "generated-*"))
	if len(m) != 1 {
		t.Fatalf("leak.sh left %v", m)
	}
	g, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return out, string(g)
}

// secretForms are the forms of the passed secrets leak.sh prints, worked
// out here without internal/mask.
func secretForms(token, pemKey string) []string {
	std := base64.StdEncoding
	forms := []string{
		token,
		std.EncodeToString([]byte(token)),
		std.EncodeToString([]byte(token + "\n")),
		url.QueryEscape(token),
		percentHex.ReplaceAllStringFunc(url.QueryEscape(token), strings.ToLower),
		inner(base64.RawURLEncoding, `{"sub":"`, token),
		inner(std, "apiVersion: v1\nusers:\n- user:\n    token: ", token),
		inner(std, "-----BEGIN PRIVATE KEY-----\n", strings.TrimPrefix(pemKey, "-----BEGIN PRIVATE KEY-----\n")), // client-key-data: the key's bytes, not its header's
	}
	for _, l := range strings.Split(pemKey, "\n") {
		if !strings.HasPrefix(l, "-----") {
			forms = append(forms, l)
		}
	}
	return forms
}

// madeForms are the forms of a secret leak.sh made, which kbook knows by
// their shape only.
func madeForms(g string) []string {
	return []string{"gen" + g, "tok" + g, "pem" + g, inner(base64.RawURLEncoding, `{"sub":"`, g)}
}

// inner is the part of enc(prefix+secret) that encodes the secret's bytes
// alone (the characters at its ends mix in the neighbouring bytes).
func inner(enc *base64.Encoding, prefix, secret string) string {
	e := enc.WithPadding(base64.NoPadding).EncodeToString([]byte(prefix + secret))
	from, to := (8*len(prefix)+5)/6, 8*(len(prefix)+len(secret))/6
	return e[from:to]
}

var percentHex = regexp.MustCompile(`%[0-9A-F]{2}`)

var wordRun = regexp.MustCompile(`[A-Za-z0-9]{12,}`)

// found lists the needles in data, gzip-decompressed first when it is
// gzip (Pagefind's .pf_fragment, .pf_index and .pf_meta files). A needle
// is found whole, or by the start of one of its long alphanumeric runs in
// lower case: Pagefind's index keeps words, lower-cased and stemmed.
func found(data []byte, needles []string) []string {
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			if plain, err := io.ReadAll(zr); err == nil {
				data = plain
			}
		}
	}
	lower := bytes.ToLower(data)
	var out []string
	for _, n := range needles {
		hit := bytes.Contains(data, []byte(n))
		for _, w := range wordRun.FindAllString(n, -1) {
			hit = hit || bytes.Contains(lower, []byte(strings.ToLower(w[:12])))
		}
		if hit {
			out = append(out, n)
		}
	}
	return out
}

// walkFiles calls fn with each file below dir.
func walkFiles(t *testing.T, dir string, fn func(rel string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir // a build's working folder, not part of the site
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fn(filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
