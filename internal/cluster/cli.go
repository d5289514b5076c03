package cluster

import (
	"context"
	"errors"
	"os"

	"github.com/k0rdent/kbook/internal/log"
)

// DownNamed is kbook cluster down: it stops the kbook cluster up cluster
// name under root and says so on l; a cluster that is not up is said so,
// and no error.
func DownNamed(ctx context.Context, root, name string, l log.Logger) error {
	l = log.Or(l)
	s, err := ReadState(root, name)
	if errors.Is(err, ErrNoState) {
		l.Infof("cluster %q is not up", name)
		return nil
	}
	if err != nil {
		return err
	}
	if err := Down(ctx, root, s, l); err != nil {
		return err
	}
	l.Infof("cluster %q (%s) stopped", name, s.Backend)
	return nil
}

// KubeconfigOf is kbook cluster kubeconfig: the kubeconfig of the kbook
// cluster up cluster name under root, or with path its file's path and a
// newline.
func KubeconfigOf(root, name string, path bool) ([]byte, error) {
	s, err := ReadState(root, name)
	if err != nil {
		return nil, err
	}
	if path {
		return []byte(s.Kubeconfig + "\n"), nil
	}
	return os.ReadFile(s.Kubeconfig)
}
