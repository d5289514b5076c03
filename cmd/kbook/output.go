package main

import (
	"errors"
	"slices"

	"github.com/spf13/pflag"

	"github.com/k0rdent/kbook/internal/findings"
)

// outputFlag registers -o/--output, the one way every command takes an
// output format: the value must be one of formats (the first is the
// default), checked as the flag is parsed, so a bad -o exits 2 before
// anything runs.
func outputFlag(fl *pflag.FlagSet, p *string, formats ...string) {
	*p = formats[0]
	fl.VarP(&outputValue{p, formats}, "output", "o", "output format: "+findings.OneOf(formats))
}

type outputValue struct {
	p       *string
	formats []string
}

func (v *outputValue) String() string { return *v.p }
func (v *outputValue) Type() string   { return "string" }

func (v *outputValue) Set(s string) error {
	if !slices.Contains(v.formats, s) {
		// pflag says: invalid argument "xml" for "-o, --output" flag: ...
		return errors.New("want " + findings.OneOf(v.formats))
	}
	*v.p = s
	return nil
}
