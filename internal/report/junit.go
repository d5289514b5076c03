package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML, in the layout Jenkins, GitLab and the GitHub test reporters
// read: one testsuite per runbook, one testcase per step.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string `xml:"name,attr"`
	Tests     int    `xml:"tests,attr"`
	Failures  int    `xml:"failures,attr"`
	Skipped   int    `xml:"skipped,attr"`
	Time      string `xml:"time,attr"`
	Timestamp string `xml:"timestamp,attr,omitempty"`
	File      string `xml:"file,attr"`
	// Properties say what the page's result is beside its steps: how
	// far a page of shell blocks is verified, why it ran alone and what
	// was restored after it.
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Skipped   *junitMessage `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// JUnit renders the report as JUnit XML.
func (r *Report) JUnit() ([]byte, error) {
	out := junitSuites{Name: "kbook", Time: secs(r.Duration)}
	for _, rb := range r.Runbooks {
		s := junitSuite{Name: rb.Path, File: rb.Path, Time: secs(rb.Duration)}
		if !rb.Verified.IsZero() {
			s.Timestamp = rb.Verified.UTC().Format("2006-01-02T15:04:05")
		}
		s.Properties = suiteProperties(rb)
		for _, st := range rb.Steps {
			c := junitCase{Name: st.Name, Classname: strings.TrimSuffix(rb.Path, ".md"), File: rb.Path, Line: st.Line, Time: secs(st.Duration)}
			switch st.Status {
			case Failed:
				msg := st.Reason
				text := rb.Log
				if st.Failure != nil {
					msg = st.Failure.String()
				}
				c.Failure = &junitMessage{Message: msg, Type: "failure", Text: text}
				s.Failures++
			case Skipped, Interrupted:
				// An interrupted step is skipped, not failed nor in
				// error: Jenkins, GitLab and the GitHub test reporters
				// count <error> with the failures, and the step did not
				// fail - the run was stopped (kbook's exit status, 130,
				// says so to CI).
				reason := st.Reason
				if reason == "" {
					reason = rb.Reason
				}
				c.Skipped = &junitMessage{Message: reason}
				s.Skipped++
			}
			c.SystemOut = transcript(st)
			if sh := st.Shell; sh != nil && sh.Result == BlockProvided {
				// It passes, but the page's block is not what ran.
				c.SystemOut = "provided by kbook: " + sh.Note + "\n" + c.SystemOut
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Skipped += s.Skipped
		out.Suites = append(out.Suites, s)
	}
	data, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode junit: %w", err)
	}
	return append([]byte(xml.Header), append(data, '\n')...), nil
}

// suiteProperties are a runbook's kbook.shell (its shell blocks' verdict
// and counts), kbook.alone and kbook.restored, as the terminal says them;
// nil when it has none.
func suiteProperties(rb *Runbook) *junitProperties {
	var p junitProperties
	add := func(name, value string) {
		if value != "" {
			p.Property = append(p.Property, junitProperty{Name: name, Value: value})
		}
	}
	if rb.Shell != nil {
		add("kbook.shell", rb.Shell.String())
	}
	add("kbook.alone", rb.Alone)
	if rb.Restored != nil {
		add("kbook.restored", rb.Restored.String())
	}
	if len(p.Property) == 0 {
		return nil
	}
	return &p
}

// WriteJUnit writes the JUnit XML rendering of the report to file, or to
// stdout when file is Stdout.
func (r *Report) WriteJUnit(file string, stdout io.Writer) error {
	data, err := r.JUnit()
	if err != nil {
		return err
	}
	return writeFile(file, stdout, data)
}

// transcript renders a step's commands as a terminal would show them.
func transcript(st *Step) string {
	var b strings.Builder
	for _, c := range st.Commands {
		fmt.Fprintf(&b, "> %s\n", c.Text)
		b.WriteString(c.Stdout)
		b.WriteString(c.Stderr)
	}
	return b.String()
}
