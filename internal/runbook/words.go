package runbook

import "errors"

// ErrUnterminatedQuote is a script line whose quoted argument does not
// end on the line: testscript stops the runbook there ("unterminated
// quoted argument"), so kbook run and kbook check reject it as they
// parse.
var ErrUnterminatedQuote = errors.New("unterminated quoted argument: a ' opens an argument that does not close on this line (testscript quotes with ' only, a line at a time; write '' for a ' inside quotes)")

// Words splits a script line into its arguments as testscript does
// (go-internal's TestScript.parse, which kbook run executes): arguments
// are separated by spaces, tabs and \r; ' quotes, a doubled ' is one ' inside
// quotes; an unquoted # starts a comment. Variables are not expanded. A
// quote left open is ErrUnterminatedQuote.
func Words(line string) ([]string, error) {
	var (
		args   []string
		arg    string // the argument so far, before line[start:i]
		start  = -1   // where the argument's current chunk starts, if >= 0
		quoted = false
	)
	for i := 0; ; i++ {
		if !quoted && (i >= len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '#') {
			if start >= 0 {
				args = append(args, arg+line[start:i])
				start, arg = -1, ""
			}
			if i >= len(line) || line[i] == '#' {
				return args, nil
			}
			continue
		}
		if i >= len(line) {
			return nil, ErrUnterminatedQuote
		}
		if line[i] == '\'' {
			if !quoted {
				if start >= 0 {
					arg += line[start:i]
				}
				start, quoted = i+1, true
				continue
			}
			if i+1 < len(line) && line[i+1] == '\'' {
				arg += line[start:i]
				start = i + 1
				i++
				continue
			}
			arg += line[start:i]
			start, quoted = i+1, false
			continue
		}
		if start < 0 {
			start = i
		}
	}
}
