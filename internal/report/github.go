package report

import (
	"fmt"
	"io"
	"strings"
)

// GitHubAnnotations writes one ::error workflow command per failure, so
// GitHub Actions marks the runbook line in the pull request diff.
func (r *Report) GitHubAnnotations(w io.Writer) {
	for _, rb := range r.Runbooks {
		if rb.Status != Failed {
			continue
		}
		f := rb.Failure
		if f == nil {
			f = &Failure{File: rb.Path, Message: rb.Reason}
		}
		fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n",
			escapeProperty(f.File), max(f.Line, 1), escapeProperty("kbook: "+rb.Title), escapeData(f.Message))
	}
}

// Escaping per the GitHub Actions workflow command syntax.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
