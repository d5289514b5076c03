package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
)

// FormatVersion is the version of the JSON report layout.
const FormatVersion = 1

// Status is the outcome of a runbook or step.
type Status string

const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	// Interrupted is a runbook (or step) the run's interrupt (Ctrl-C,
	// SIGTERM, a closed output) stopped while it ran: not a failure of
	// the runbook, and not a result either. Runbooks the interrupt kept
	// from starting are Skipped.
	Interrupted Status = "interrupted"
)

// Report is the result of one `kbook run` (or several, merged).
type Report struct {
	FormatVersion int `json:"formatVersion"`
	// Kbook is the version of kbook that produced the report.
	Kbook string `json:"kbook"`
	// Backend names what the runbooks ran against ("none" when no cluster).
	Backend string `json:"backend"`
	// Host describes where the run happened (OS/arch, CI provider).
	Host     string        `json:"host,omitempty"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	// Interrupted is true when the run was stopped by a signal.
	Interrupted bool       `json:"interrupted,omitempty"`
	Runbooks    []*Runbook `json:"runbooks"`
}

// Runbook is the result of one runbook.
type Runbook struct {
	Path   string `json:"path"`
	Title  string `json:"title"`
	Status Status `json:"status"`
	// Reason says why a runbook was skipped or failed.
	Reason string `json:"reason,omitempty"`
	// Cached is true when the result was reused from the cache; Verified is
	// then the time of the run that produced it.
	Cached   bool          `json:"cached,omitempty"`
	Verified time.Time     `json:"verified"`
	Duration time.Duration `json:"duration"`
	Steps    []*Step       `json:"steps"`
	Failure  *Failure      `json:"failure,omitempty"`
	// Log is the testscript log of a failed runbook, secrets masked.
	Log string `json:"log,omitempty"`
	// Diagnostics describe the cluster state after a failure: events,
	// conditions of the objects the runbook touched.
	Diagnostics string `json:"diagnostics,omitempty"`
	// Updated lists what --update rewrote: files, and the expected
	// output of exact-mode shell blocks ("the expected output at line 14").
	Updated []string `json:"updated,omitempty"`
	// WorkDir is the kept work directory (with --keep-work).
	WorkDir string `json:"workDir,omitempty"`
	// SourceSHA256 is the hex sha256 of the runbook source the result was
	// produced from: the docs site compares it with the source it renders
	// and shows a result of another source as not verified.
	SourceSHA256 string `json:"sourceSHA256,omitempty"`
	// Env describes what the runbook ran against; unlike the report's
	// fields it stays with a result reused from the cache.
	Env *Environment `json:"env,omitempty"`
	// Shell counts the shell blocks of a page that runs them, by
	// result; nil for a runbook without any.
	Shell *ShellCounts `json:"shell,omitempty"`
	// Alone says why the page ran alone on the run's cluster (it names
	// a namespace of its own or makes a cluster-wide object); "" when it
	// shared the cluster with the runbooks beside it.
	Alone string `json:"alone,omitempty"`
	// Restored is what kbook put back after a page that ran alone, on
	// a cluster kbook made: nil for a page that shared the cluster, ran
	// on one kbook did not make (--kubeconfig), or came from the cache.
	Restored *Restored `json:"restored,omitempty"`
	// Bindings are the blocks of a page that runs its shell blocks that
	// kbook wrote to a file no file= attribute names: by their title=,
	// or inferred from the prose.
	Bindings []Binding `json:"bindings,omitempty"`
}

// Restored is how kbook put the run's cluster back as it was before a
// page that ran alone: the objects it changed were put back, those it
// deleted re-created, those it made deleted. Status is not restored (the
// controllers recompute it).
type Restored struct {
	Changed   Objects `json:"changed"`
	Recreated Objects `json:"recreated"`
	Deleted   Objects `json:"deleted"`
	// Failed are the objects kbook could not put back, each with why
	// ("configmaps/x -n default: ...field is immutable"): reported, not
	// a failure of the page.
	Failed []string `json:"failed,omitempty"`
	// Duration is what the snapshot before the page and the restore
	// after it took.
	Duration time.Duration `json:"duration"`
}

// Objects counts objects and names the first few ("namespaces/default",
// "configmaps/x -n default").
type Objects struct {
	Count int      `json:"count"`
	First []string `json:"first,omitempty"`
}

// FirstObjects is how many objects Objects names.
const FirstObjects = 5

// Add counts an object, naming it among the first few.
func (o *Objects) Add(name string) {
	o.Count++
	if len(o.First) < FirstObjects {
		o.First = append(o.First, name)
	}
}

func (o Objects) named() string {
	s := strings.Join(o.First, ", ")
	if o.Count > len(o.First) {
		s += fmt.Sprintf(", and %d more", o.Count-len(o.First))
	}
	return s
}

// String says it as the terminal does: "restored 2 changed objects
// (managements.k0rdent.mirantis.com/kcm, namespaces/default), re-created
// 1 (configmaps/x -n default), deleted 3 new (...) in 41ms", or "nothing
// to restore (checked in 12ms)".
func (r *Restored) String() string {
	var parts []string
	if r.Changed.Count > 0 {
		what := "objects"
		if r.Changed.Count == 1 {
			what = "object"
		}
		parts = append(parts, fmt.Sprintf("restored %d changed %s (%s)", r.Changed.Count, what, r.Changed.named()))
	}
	if r.Recreated.Count > 0 {
		parts = append(parts, fmt.Sprintf("re-created %d (%s)", r.Recreated.Count, r.Recreated.named()))
	}
	if r.Deleted.Count > 0 {
		parts = append(parts, fmt.Sprintf("deleted %d new (%s)", r.Deleted.Count, r.Deleted.named()))
	}
	d := r.Duration.Round(time.Millisecond)
	if len(parts) == 0 && len(r.Failed) == 0 {
		return fmt.Sprintf("nothing to restore (checked in %s)", d)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("nothing restored (in %s)", d)
	}
	return fmt.Sprintf("%s in %s", strings.Join(parts, ", "), d)
}

// Binding is a block kbook wrote to a file before the page ran.
type Binding struct {
	// Line is the block's opening fence; Lang its language.
	Line int    `json:"line"`
	Lang string `json:"lang"`
	// File is the file's name, relative to the work folder.
	File string `json:"file"`
	// By says why: "its title= attribute", or "inferred: named in the
	// prose at line 12, given to -f at line 20".
	By string `json:"by"`
}

// ShellCounts counts a page's shell blocks by result, and says whether
// the page is verified.
type ShellCounts struct {
	Blocks   int `json:"blocks"`
	Passed   int `json:"passed"`
	Ran      int `json:"ran"`
	Provided int `json:"provided"`
	Skipped  int `json:"skipped"`
	Failed   int `json:"failed"`
	// Unflagged are the page's shell blocks that did not run because the
	// page runs only its blocks with the run flag and they have none:
	// not among Blocks, and the page is not verified while there are.
	Unflagged int `json:"unflagged,omitempty"`
	// Verification is Verified when every block passed or ran, else
	// PartlyVerified; "" for a page that failed.
	Verification string `json:"verification,omitempty"`
}

// What a page that runs its shell blocks is, once it passed.
const (
	// Verified: every shell block passed or ran.
	Verified = "verified"
	// PartlyVerified: some blocks were provided by kbook (or a stand-in
	// ran in their place), or skipped. A page whose only passing blocks
	// are stand-ins is never verified.
	PartlyVerified = "partially verified"
)

// CountShell counts the shell blocks of steps; nil when there are none.
// passed is whether the page passed; unflagged counts the page's shell
// blocks left out because they lack the run flag (ShellCounts.Unflagged).
func CountShell(steps []*Step, passed bool, unflagged int) *ShellCounts {
	c := &ShellCounts{}
	for _, st := range steps {
		if st.Shell == nil {
			continue
		}
		c.Blocks++
		switch st.Shell.Result {
		case BlockPassed:
			c.Passed++
		case BlockRan:
			c.Ran++
		case BlockProvided:
			c.Provided++
		case BlockSkipped:
			c.Skipped++
		case BlockFailed:
			c.Failed++
		}
	}
	if c.Blocks == 0 {
		return nil
	}
	c.Unflagged = unflagged
	if passed {
		c.Verification = PartlyVerified
		if c.Passed+c.Ran == c.Blocks && c.Unflagged == 0 {
			c.Verification = Verified
		}
	}
	return c
}

// String says it as the terminal does: "verified: all 4 shell blocks
// passed or ran", or "partially verified: 11 of 25 ran; 14 provided by
// kbook; 0 skipped; 0 failed".
func (c *ShellCounts) String() string {
	ran := c.Passed + c.Ran
	s := fmt.Sprintf("%d of %d ran; %d provided by kbook; %d skipped; %d failed", ran, c.Blocks, c.Provided, c.Skipped, c.Failed)
	if c.Unflagged > 0 {
		s += fmt.Sprintf("; %d more without the run flag not run", c.Unflagged)
	}
	switch c.Verification {
	case Verified:
		return fmt.Sprintf("verified: all %d shell blocks passed or ran", c.Blocks)
	case "":
		return "not verified: " + s
	}
	return c.Verification + ": " + s
}

// Environment is what a runbook was verified with and against.
type Environment struct {
	Kbook   string `json:"kbook"`
	Backend string `json:"backend"`
	Host    string `json:"host,omitempty"`
	// Server is the Kubernetes server version ("v1.34.12").
	Server string `json:"server,omitempty"`
	// APIs are the group/versions of the CustomResourceDefinitions the
	// cluster served ("k0rdent.mirantis.com/v1beta1").
	APIs []string `json:"apis,omitempty"`
	// K0rdent is the k0rdent management plane the cluster ran, when it
	// ran one (the local plane of --k0rdent, or a Management kcm made).
	K0rdent *K0rdent `json:"k0rdent,omitempty"`
}

// K0rdent is what a verification says of the k0rdent a runbook ran on.
type K0rdent struct {
	// Version is the k0rdent release ("v1.11.4").
	Version string `json:"version,omitempty"`
	// Release is the Release object the Management reports
	// (status.release, "kcm-1-11-0").
	Release string `json:"release,omitempty"`
	// Mode is how it ran: "controllers (local)", "API only (local)", or
	// empty for a cluster kbook did not start.
	Mode string `json:"mode,omitempty"`
	// Components are the controllers and their versions (the local
	// plane's binaries, built from pinned modules) or, on a cluster kbook
	// did not start, the Management's components and their templates.
	Components []Component `json:"components,omitempty"`
}

// Component is one controller of a k0rdent plane and its version.
type Component struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Step is the result of one testscript block.
type Step struct {
	Index    int           `json:"index"`
	Name     string        `json:"name"`
	Line     int           `json:"line"`
	Status   Status        `json:"status"`
	Reason   string        `json:"reason,omitempty"`
	Duration time.Duration `json:"duration"`
	Commands []*Command    `json:"commands,omitempty"`
	Failure  *Failure      `json:"failure,omitempty"`
	// Shell is set for a shell block of a page that runs its shell
	// blocks (a bash, sh or shell block, or a console block with $
	// prompts) rather than a testscript block.
	Shell *ShellBlock `json:"shell,omitempty"`
}

// ShellBlock is what one shell block of a page did.
type ShellBlock struct {
	// Lang is the block's fence language.
	Lang string `json:"lang"`
	// Result is BlockPassed, BlockRan, BlockProvided, BlockFailed or
	// BlockSkipped (the step's reason says why).
	Result string `json:"result"`
	// Mode is how its output was compared (exact, shape, illustrative);
	// "" when the page shows no output for it.
	Mode string `json:"mode,omitempty"`
	// ExpectedLine is the line of the expected output's first line.
	ExpectedLine int `json:"expectedLine,omitempty"`
	// ExitCode is the block's exit status.
	ExitCode int `json:"exitCode"`
	// Note is what kbook provides in a provided block's place, as its
	// overlay rule or provided= attribute says.
	Note string `json:"note,omitempty"`
	// By is where the block was declared skipped or provided, or given
	// a stand-in ("overlay.yaml:12", "its skip= attribute").
	By string `json:"by,omitempty"`
	// After is the line of the block that did not run and that this
	// skipped block depends on (it uses what that block would have
	// set, written or defined); the step's reason says what.
	After int `json:"after,omitempty"`
	// Interrupted names the command that runs until it is interrupted
	// (kubectl get -w) and that kbook interrupted once the expected
	// output's last line had appeared: "kubectl get pods -w (line 12)".
	Interrupted string `json:"interrupted,omitempty"`
}

// The results of a shell block.
const (
	// BlockPassed: it ran, exited 0, and its output matched the
	// expected output the page shows (if it shows one).
	BlockPassed = "passed"
	// BlockRan: it ran and exited 0; the page's output for it is
	// illustrative, not compared.
	BlockRan = "ran"
	// BlockFailed: it exited non-zero, its output differed, or the
	// session it runs in ended.
	BlockFailed = "failed"
	// BlockProvided: kbook provides what it does (an overlay or its
	// provided= attribute says so): it did not run, or a stand-in ran
	// in its place and passed. Not the page's block verified.
	BlockProvided = "provided"
	// BlockSkipped: it did not run: it needs what this run does not
	// have (a command, root, the internet), is declared skipped,
	// depends on a block that did not run, or an earlier block failed
	// (-run left it out). The step's reason says which.
	BlockSkipped = "skipped"
)

// ShellResult says in words what a shell block did, as kbook run prints
// it at the block's line: "passed (exit 0, output matched: shape)",
// "provided by kbook: NOTE (BY)", "skipped: REASON"; "" for a testscript
// step.
func (st *Step) ShellResult() string {
	sh := st.Shell
	if sh == nil {
		return ""
	}
	switch sh.Result {
	case BlockPassed:
		if sh.Mode == "" {
			return "passed (exit 0; the page shows no output for it)"
		}
		if sh.Interrupted != "" {
			return fmt.Sprintf("passed (output matched: %s; then kbook interrupted %s)", sh.Mode, sh.Interrupted)
		}
		return fmt.Sprintf("passed (exit 0, output matched: %s)", sh.Mode)
	case BlockRan:
		if sh.Interrupted != "" {
			return "ran (its output is illustrative, not compared; kbook interrupted " + sh.Interrupted + " once it had printed as many lines)"
		}
		return "ran (exit 0; its output is illustrative, not compared)"
	case BlockProvided:
		s := "provided by kbook: " + sh.Note
		if sh.By != "" {
			s += " (" + sh.By + ")"
		}
		return s
	case BlockFailed:
		if st.Status == Interrupted {
			return "interrupted (the run was stopped while it ran)"
		}
		return "failed"
	}
	if st.Reason != "" {
		return "skipped: " + st.Reason
	}
	return sh.Result
}

// Command is one executed script line with what it printed.
type Command struct {
	Line     int           `json:"line"`
	Text     string        `json:"text"`
	Stdout   string        `json:"stdout,omitempty"`
	Stderr   string        `json:"stderr,omitempty"`
	ExitCode int           `json:"exitCode"`
	Duration time.Duration `json:"duration"`
	// Skipped is true when a [condition] prefix was not met.
	Skipped bool `json:"skipped,omitempty"`
	Failed  bool `json:"failed,omitempty"`
}

// Failure locates a failure in the runbook source.
type Failure struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (f *Failure) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)
	}
	return fmt.Sprintf("%s: %s", f.File, f.Message)
}

// Summary counts runbooks by outcome.
type Summary struct {
	Passed, Failed, Skipped, Interrupted, Cached int
}

// Summary counts the report's runbooks.
func (r *Report) Summary() Summary {
	var s Summary
	for _, rb := range r.Runbooks {
		switch rb.Status {
		case Passed:
			s.Passed++
		case Failed:
			s.Failed++
		case Skipped:
			s.Skipped++
		case Interrupted:
			s.Interrupted++
		}
		if rb.Cached {
			s.Cached++
		}
	}
	return s
}

// Sort orders runbooks by path.
func (r *Report) Sort() {
	sort.Slice(r.Runbooks, func(i, j int) bool { return r.Runbooks[i].Path < r.Runbooks[j].Path })
}

// Stdout is the report file name that means standard output, as in
// kbook run --json - (kubectl's and helm's convention for file flags).
const Stdout = "-"

// JSON renders the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	return append(data, '\n'), nil
}

// WriteJSON writes the report as indented JSON to file, or to stdout
// when file is Stdout.
func (r *Report) WriteJSON(file string, stdout io.Writer) error {
	data, err := r.JSON()
	if err != nil {
		return err
	}
	return writeFile(file, stdout, data)
}

// writeFile writes data to file (atomically: a reader never sees half a
// report), or to stdout when file is Stdout.
func writeFile(file string, stdout io.Writer, data []byte) error {
	if file == Stdout {
		if stdout == nil {
			return fmt.Errorf("a report to stdout (-), but no stdout to write it to")
		}
		if _, err := stdout.Write(data); err != nil {
			return fmt.Errorf("write report to stdout: %w", err)
		}
		return nil
	}
	return atomicfile.Write(file, data)
}

// ReadJSON reads a report written by WriteJSON.
func ReadJSON(file string) (*Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a kbook JSON report: %w", file, err)
	}
	if r.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%s: report format version %d, this kbook reads version %d", file, r.FormatVersion, FormatVersion)
	}
	return &r, nil
}

// Merge combines reports of runs over disjoint runbook sets (CI shards) into
// one. A runbook that appears in several reports (runs on several
// backends) keeps its latest result, unless that one is a skip and an
// earlier one is not: a backend that skips a runbook says nothing of it.
func Merge(reports ...*Report) *Report {
	out := &Report{FormatVersion: FormatVersion}
	byPath := map[string]int{}
	var end time.Time
	for _, r := range reports {
		if out.Kbook == "" {
			out.Kbook, out.Backend, out.Host = r.Kbook, r.Backend, r.Host
		}
		if out.Started.IsZero() || r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		if e := r.Started.Add(r.Duration); e.After(end) {
			end = e
		}
		out.Interrupted = out.Interrupted || r.Interrupted
		for _, rb := range r.Runbooks {
			if i, ok := byPath[rb.Path]; ok {
				prev := out.Runbooks[i]
				if skipped := rb.Status == Skipped && prev.Status != Skipped; !skipped && rb.Verified.After(prev.Verified) ||
					prev.Status == Skipped && rb.Status != Skipped {
					out.Runbooks[i] = rb
				}
				continue
			}
			byPath[rb.Path] = len(out.Runbooks)
			out.Runbooks = append(out.Runbooks, rb)
		}
	}
	out.Duration = end.Sub(out.Started)
	out.Sort()
	return out
}

// MergeFiles reads the JSON reports in files (kbook run --json) and
// merges them (Merge).
func MergeFiles(files ...string) (*Report, error) {
	var rs []*Report
	for _, file := range files {
		r, err := ReadJSON(file)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return Merge(rs...), nil
}
