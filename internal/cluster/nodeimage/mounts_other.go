//go:build !linux

package nodeimage

// unmountUnder does nothing where debootstrap does not run.
func unmountUnder(string) error { return nil }
