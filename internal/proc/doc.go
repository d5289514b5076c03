// Package proc owns the lifetime of what kbook starts outside itself
// (servers, controllers, their key and data directories): children that die
// with kbook, a record of each, and the sweep that reaps what a `kill -9`
// left.
//
// It owns the lifetime of what kbook starts outside its own process: servers
// and controllers (kube-apiserver, etcd, and the k0rdent plane's
// controllers) and the temporary directories they keep their keys and data
// in. Nothing it records outlives kbook for long:
//
//   - Children die with kbook. Registry.Start runs a command in its own
//     process group (so a terminal's Ctrl-C reaches kbook, which stops it
//     in order) with a parent-death signal on Linux: if kbook dies in any
//     way, SIGKILL included, the kernel kills the child. For programs that
//     another library starts (envtest starts kube-apiserver and etcd),
//     Registry.Wrap returns the path of a small wrapper that sets the same
//     parent-death signal and records the process before it becomes the
//     real program.
//
//   - Everything is recorded. A Registry is one directory per kbook process
//     under a state root (kbook uses <cache dir>/procs):
//
//     <root>/<pid>-<start>/owner.json   the kbook process: pid, start time, executable
//     <root>/<pid>-<start>/p-<pid>.json one per child: pid, start time, executable, name
//     <root>/<pid>-<start>/d-<hash>.json one per directory kept outside the registry
//     <root>/<pid>-<start>/tmp/         directories made by Registry.MkdirTemp
//
//     Each record is written atomically before (or, for Start, right
//     after) the thing it names exists, so a crash at any point leaves a
//     record of it.
//
//   - The next run reaps. Sweep, which kbook calls when a command that
//     starts processes begins, finds registries whose owner no longer runs
//     and kills their recorded processes that still run and are really the
//     ones recorded - the same pid, start time and executable, never a
//     reused pid - and the processes whose environment names a path inside
//     a tracked directory (the commands a runbook ran in its work
//     directory, which have no record of their own), then removes the
//     directories. Reap does the same for one registry whatever its owner
//     (kbook cluster down).
//
// A process counts as running only if it exists, is not a zombie (a dead
// process its parent has not reaped: in containers whose PID 1 reaps
// nothing these stay forever) and has the recorded start time.
//
// On Linux all of this is complete. Elsewhere children still get their
// own process group and are recorded, but there is no parent-death signal
// and no start time to verify a pid by, so Sweep removes directories and
// never kills a process it cannot verify.
//
// Libraries never print: Sweep and Reap return what they did.
package proc
