package findings

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// SplitYAMLError returns the line a YAML parser error names (0 if none)
// and its message without the "yaml: " and "line N: " prefixes. It reads
// the messages of go.yaml.in/yaml/v3, gopkg.in/yaml.v2 and sigs.k8s.io/yaml
// (which wrap their errors: "error converting YAML to JSON: yaml: line 3:
// ...").
func SplitYAMLError(err error) (line int, msg string) {
	msg = err.Error()
	if i := strings.Index(msg, "yaml: "); i >= 0 {
		msg = msg[i:]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		return line, msg[len(m[0]):]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// YAMLError returns the line of a YAML syntax error in data and the
// message. go.yaml.in/yaml/v3 reports parser errors at the line before the
// enclosing block, so the line comes from the yaml.v2 parser behind
// sigs.k8s.io/yaml where it finds the error too: it names the problem
// itself, 0-based for parser errors ("did not find expected ...") and
// 1-based for scanner errors. The line is at least 1 and at most the last
// line of data that is not blank: a parser that runs out of input (an
// unclosed [ or {, an unterminated quote) names the line after the end,
// and the problem is on the last line there is.
func YAMLError(data []byte, err error) (line int, msg string) {
	line, msg = SplitYAMLError(err)
	if _, err2 := sigsyaml.YAMLToJSON(data); err2 != nil {
		if l2, msg2 := SplitYAMLError(err2); l2 > 0 {
			if strings.HasPrefix(msg2, "did not find expected") {
				l2++
			}
			line, msg = l2, msg2
		}
	}
	return max(min(line, lastLine(data)), 1), msg
}

// lastLine is the number of the last line of data that is not blank.
func lastLine(data []byte) int {
	return bytes.Count(bytes.TrimRight(data, " \t\r\n"), []byte("\n")) + 1
}

var anyLineRE = regexp.MustCompile(`\bline (\d+)\b`)

// LineIn returns the first "line N" in a message that wraps a YAML error
// somewhere inside (Helm's "cannot load values.yaml: error converting
// YAML to JSON: yaml: line 3: ..."); 0 when there is none.
func LineIn(msg string) int {
	m := anyLineRE.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
