//go:build !linux

package nodeimage

import "errors"

func mountProc(string) error { return errors.New("not Linux") }
