package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// choicesKey is the flag annotation Choose writes: the values the shell
// completes the flag's value with.
const choicesKey = "kbook_choices"

// Chooser is a flag value that lists the values it accepts (the -o flag:
// findings.Output); Complete completes its flag with them.
type Chooser interface{ Choices() []string }

// Choose has the shell complete the value of fl's flag name with values
// (Complete registers it), for a flag that takes other values too, such as
// --kind-image's image references. Naming no defined flag is a defect of
// the command, and panics as soon as the command is built.
func Choose(fl *pflag.FlagSet, name string, values ...string) {
	if err := fl.SetAnnotation(name, choicesKey, values); err != nil {
		panic(err)
	}
}

// Choices are the values the shell completes flag f's value with: its
// value's choices (a Chooser), else the ones Choose gave it; nil when it
// has none.
func Choices(f *pflag.Flag) []string {
	if c, ok := f.Value.(Chooser); ok {
		return c.Choices()
	}
	return f.Annotations[choicesKey]
}

// Complete registers the completion of every flag value that has
// Choices, on root and every command under it: "kbook template render -o
// <TAB>" offers yaml and json, and no file names. A flag registered twice
// is a defect of the command tree, and panics.
func Complete(root *cobra.Command) {
	root.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
		values := Choices(f)
		if values == nil {
			return
		}
		err := root.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		})
		if err != nil {
			panic(err)
		}
	})
	for _, c := range root.Commands() {
		Complete(c)
	}
}
