package plane

import (
	"os/exec"
	"sync"
	"time"
)

// directChild is a Child started by DirectLauncher.
type directChild struct {
	cmd  *exec.Cmd
	done chan struct{}
	once sync.Once
	err  error
}

// DirectLauncher starts cmd in its own process group with a parent-death
// signal where the system has one (Linux), so it dies with kbook even
// when kbook is killed with SIGKILL; nothing is recorded.
func DirectLauncher(cmd *exec.Cmd, name string) (Child, error) {
	childAttr(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &directChild{cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

func (c *directChild) Done() <-chan struct{} { return c.done }

func (c *directChild) Wait() error {
	<-c.done
	return c.err
}

func (c *directChild) Stop(grace time.Duration) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	terminateGroup(c.cmd.Process.Pid)
	select {
	case <-c.done:
		return nil
	case <-time.After(grace):
	}
	killGroup(c.cmd.Process.Pid)
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		return errTimeout
	}
}
