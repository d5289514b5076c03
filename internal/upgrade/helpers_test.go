package upgrade

import (
	"testing"

	"github.com/k0rdent/kbook/internal/kubeversion"
)

func mustVersion(t *testing.T, s string) kubeversion.Version {
	t.Helper()
	v, err := kubeversion.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
