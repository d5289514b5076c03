package nodeimage

import "golang.org/x/sys/unix"

func mountProc(dir string) error { return unix.Mount("proc", dir, "proc", 0, "") }
