// Package supervisor starts local processes and keeps them running: in
// order, each with one log file, ready once its readiness check passes,
// restarted with doubling waits when it exits after it was ready (as the
// kubelet's CrashLoopBackOff), given up on after a limit (Down), and
// stopped by SIGTERM then SIGKILL. Children die with kbook (parent-death
// signal) and are recorded for the next run's sweep through the Launcher
// (Registry). The local k0rdent plane (internal/cluster/plane) runs its
// controllers through it.
//
// Libraries never print: exits and restarts go to a Logger.
package supervisor
