package version

import (
	"fmt"
	"io"
	"runtime"

	"github.com/k0rdent/kbook/internal/output"
)

// Info is what kbook version -o json and -o yaml print, the fields of
// Line: {"version": "v0.3.0", "commit": "3f2a1c9e…", "platform":
// "linux/amd64", "goVersion": "go1.26.8"}.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Platform  string `json:"platform"`
	GoVersion string `json:"goVersion"`
}

// Get is this kbook's Info.
func Get() Info {
	return Info{Version: String(), Commit: Revision(), Platform: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version()}
}

// Write writes what kbook version prints in format (-o): text is Line,
// json and yaml the fields of Get (output.Write).
func Write(w io.Writer, format string) error {
	return output.Write(w, format, Get(), func(w io.Writer) error {
		_, err := fmt.Fprintln(w, Line())
		return err
	})
}
