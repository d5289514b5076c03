package mask

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces every masked secret.
const Redacted = "***"

// Sanitiser rewrites one kind of secret.
type Sanitiser struct {
	Name string
	Re   *regexp.Regexp
	// Repl is the regexp replacement template; "$1" keeps the key part.
	Repl string
}

// Defaults are the sanitisers every Masker starts with.
var Defaults = []Sanitiser{
	{"pem-private-key", regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`), "-----BEGIN ${1}PRIVATE KEY-----" + Redacted + "-----END ${1}PRIVATE KEY-----"},
	{"bearer-token", regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}" + Redacted},
	{"kubeconfig-credential", regexp.MustCompile(`(?m)^([ \t]*-?[ \t]*"?(?:client-key-data|client-certificate-data|client-key|token|id-token|refresh-token|password)"?[ \t]*:[ \t]*)("?)[^\s"]\S*?("?)[ \t]*$`), "${1}${2}" + Redacted + "${3}"},
	{"jwt", regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Redacted},
}

// Masker applies sanitisers and literal secret values to text.
type Masker struct {
	sanitisers []Sanitiser
	literals   []string
}

// New returns a Masker with the default sanitisers and the given literal
// secret values (empty and very short values are ignored: masking "1"
// everywhere would destroy the output without protecting anything).
func New(literals ...string) *Masker {
	m := &Masker{sanitisers: append([]Sanitiser(nil), Defaults...)}
	m.AddLiterals(literals...)
	return m
}

// AddSanitiser appends a sanitiser.
func (m *Masker) AddSanitiser(s Sanitiser) { m.sanitisers = append(m.sanitisers, s) }

// AddLiterals adds secret values to mask wherever they appear, in the
// forms tools print them in as well (see Encodings).
func (m *Masker) AddLiterals(values ...string) {
	seen := map[string]bool{}
	for _, l := range m.literals {
		seen[l] = true
	}
	for _, v := range values {
		if len(v) < 4 {
			continue
		}
		for _, l := range append([]string{v}, Encodings(v)...) {
			if !seen[l] && len(l) >= 4 {
				seen[l] = true
				m.literals = append(m.literals, l)
			}
		}
	}
	// Longest first, so a secret containing another is masked whole.
	sort.Slice(m.literals, func(i, j int) bool { return len(m.literals[i]) > len(m.literals[j]) })
}

// Mask returns s with every secret replaced by Redacted.
func (m *Masker) Mask(s string) string {
	if m == nil || s == "" {
		return s
	}
	for _, l := range m.literals {
		s = strings.ReplaceAll(s, l, Redacted)
	}
	for _, san := range m.sanitisers {
		s = san.Re.ReplaceAllString(s, san.Repl)
	}
	return s
}

var percentHex = regexp.MustCompile(`%[0-9A-F]{2}`)

// secretNames are the substrings that make an environment variable secret.
var secretNames = []string{"TOKEN", "PASSWORD", "SECRET", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY"}

// IsSecretName reports whether an environment variable name looks secret.
func IsSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range secretNames {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}

// SecretValues returns the values of the secret-looking variables in an
// environment given as KEY=VALUE pairs.
func SecretValues(env []string) []string {
	var out []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && IsSecretName(k) && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Encodings returns the forms in which tools print a secret value besides
// the value itself: base64 (standard and URL-safe, padded or not, also of
// the value with the newline echo adds - a Kubernetes Secret's data, kubectl
// -o jsonpath, base64 of a file), hex (lower and upper case), and the
// value as JSON, URL query strings and URL paths escape it, where that
// differs, with upper- and lower-case percent-encoding (Go and most tools
// write %2F, some %2f).
//
// A secret inside a longer encoded string is found too: base64 encodes 3
// bytes as 4 characters, so the secret's encoding depends on where in the
// string it starts (offset mod 3). For each offset, the characters that
// encode the secret's bytes alone are included (for secrets of 6 bytes or
// more); the one or two characters at each end that mix in neighbouring
// bytes stay visible.
func Encodings(v string) []string {
	var out []string
	add := func(s string) {
		if s != v && s != "" {
			out = append(out, s)
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		add(enc.EncodeToString([]byte(v)))
		add(enc.EncodeToString([]byte(v + "\n")))
		if len(v) < 6 {
			continue
		}
		n := len(v)
		for k := 0; k < 3; k++ {
			e := enc.WithPadding(base64.NoPadding).EncodeToString(append(make([]byte, k), v...))
			from, to := (8*k+5)/6, 8*(k+n)/6
			if to-from >= 6 {
				add(e[from:to])
			}
		}
	}
	add(hex.EncodeToString([]byte(v)))
	add(strings.ToUpper(hex.EncodeToString([]byte(v))))
	if j, err := json.Marshal(v); err == nil {
		add(string(j[1 : len(j)-1]))
	}
	for _, u := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		add(u)
		add(percentHex.ReplaceAllStringFunc(u, strings.ToLower))
	}
	return out
}
