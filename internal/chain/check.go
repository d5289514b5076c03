package chain

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/findings"
)

// Check is kbook chain validate: the paths are loaded (Load) and must
// hold a chain, else that is a findings.InputError; then the chains are
// validated with o.
func Check(o Options, paths ...string) (*findings.Report, error) {
	in, err := Load(paths...)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	if len(in.Chains) == 0 {
		return nil, &findings.InputError{Err: fmt.Errorf("no ClusterTemplateChain or ServiceTemplateChain in %v", paths)}
	}
	return Validate(in, o).Report(), nil
}
