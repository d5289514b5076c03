package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestKillDescendantsIn starts sleeping children with and without the
// runbook's directory in their environment or as their working directory:
// those that name it either way are killed (the working directory is what
// still shows a program in the middle of an execve, whose environment the
// kernel shows empty), the others are left running.
func TestKillDescendantsIn(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	// A symbolic link to root: the kernel shows the working directory
	// resolved, the runner passes the path it made.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	for _, tc := range []struct {
		name   string
		env    []string
		cwd    string
		killed bool
	}{
		{"env", []string{"WORK=" + filepath.Join(link, "work")}, other, true},
		{"cwd only", nil, work, true},
		{"neither", []string{"WORK=" + other}, other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "300")
			cmd.Env, cmd.Dir = append([]string{"PATH=" + os.Getenv("PATH")}, tc.env...), tc.cwd
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
			// cmd.Start returns after the execve: sleep's environment and
			// working directory are in place.
			n := KillDescendantsIn(link)
			if tc.killed {
				if n != 1 {
					t.Fatalf("killed %d processes, want 1", n)
				}
				<-exited
				return
			}
			if n != 0 {
				t.Fatalf("killed %d processes, want 0", n)
			}
			if !(Process{PID: cmd.Process.Pid}).Running() {
				t.Fatal("the process outside the directory was killed")
			}
		})
	}
}
