package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Args rewrites the spellings kbook still accepts into cobra's: go test's
// single-dash -run, a leading -v (see compat) and -o DIR where it was the
// output folder (see outDir); a deprecated one is noted on stderr.
func Args(args []string, stderr io.Writer) []string {
	return outDir(compat(normalize(args), stderr), stderr)
}

// outDirCommands are the commands whose -o was their output folder: it
// is --out there now, and -o the output format in every command.
var outDirCommands = [][]string{{"build"}, {"import", "mkdocs"}}

// OutDirDeprecated is the note outDir prints.
const OutDirDeprecated = "kbook: -o as the output folder is deprecated: use --out (-o is the output format, as in kbook's other commands)"

// outDir keeps -o DIR (and -oDIR, -o=DIR) of the commands of
// outDirCommands working for a release, as --out DIR, with a note.
func outDir(args []string, stderr io.Writer) []string {
	for _, c := range outDirCommands {
		if len(args) < len(c) || !slices.Equal(args[:len(c)], c) {
			continue
		}
		out := slices.Clone(args)
		for i := len(c); i < len(out) && out[i] != "--"; i++ {
			switch a := out[i]; {
			case a == "-o":
				out[i] = "--out"
			case strings.HasPrefix(a, "-o"):
				out[i] = "--out=" + strings.TrimPrefix(a[2:], "=")
			default:
				continue
			}
			fmt.Fprintln(stderr, OutDirDeprecated)
		}
		return out
	}
	return args
}

// compat keeps "kbook -v", which once printed the version, working
// with a note: -v means verbose (kbook run -v), as in kubectl, where it
// goes before or after the command: "kbook -v run x.md" is "kbook run -v
// x.md".
func compat(args []string, stderr io.Writer) []string {
	if len(args) == 0 || args[0] != "-v" {
		return args
	}
	if len(args) == 1 {
		fmt.Fprintln(stderr, "kbook: -v for the version is deprecated (-v means --verbose, as in kbook run -v): use kbook version or kbook --version")
		return []string{"--version"}
	}
	// The command's own flags: before a "--" that ends them.
	rest := append([]string(nil), args[1:]...)
	end := slices.Index(rest, "--")
	if end < 0 {
		end = len(rest)
	}
	return slices.Concat(rest[:end], []string{"-v"}, rest[end:])
}

// normalize accepts go test's single-dash spelling of -run.
func normalize(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "-run":
			a = "--run"
		case len(a) > 5 && a[:5] == "-run=":
			a = "-" + a
		}
		out[i] = a
	}
	return out
}
