// Package capshim lets a container engine run privileged containers on a
// machine whose capability bounding set lacks some capabilities: it finds
// the missing ones (Missing) and removes exactly those from an OCI runtime
// spec or process file (Strip) before runc sees it.
//
// Why: a privileged container asks runc for every capability the kernel
// knows. Where the machine's own bounding set lacks one (a sandboxed VM
// without CAP_SYS_RESOURCE, say), runc fails with "unable to apply caps:
// operation not permitted" and no privileged container - no kind node -
// can start. hack/capshim wraps runc with this package and is registered
// as dockerd's default runtime by hack/engine (make test's engine set-up).
package capshim
