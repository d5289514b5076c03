package chain

import (
	"context"
	"fmt"

	"github.com/k0rdent/kbook/internal/findings"
)

// Check is kbook chain validate: o.Paths are loaded (Load) and must
// hold a chain, else that is a findings.InputError; then the chains are
// validated with o. A context already done checks nothing.
func Check(ctx context.Context, o Options) (*findings.Report, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	paths := o.Paths
	in, err := Load(paths...)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	if len(in.Chains) == 0 {
		return nil, &findings.InputError{Err: fmt.Errorf("no ClusterTemplateChain or ServiceTemplateChain in %v", paths)}
	}
	return Validate(in, o).Report(), nil
}
