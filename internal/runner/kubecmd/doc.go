// Package kubecmd provides `await`, `assert` and `error` for runbooks, and
// diagnostics of failed runbooks.
//
// It talks to the API server with client-go (a dynamic client and a
// discovery-backed REST mapper); it never shells out to kubectl.
//
// The runner creates one [Client] per runbook and stores it in the script's
// Env.Values under [ClientKey]; [Commands] returns the commands to merge into
// testscript.Params.Cmds:
//
//	await [-n NS] [--timeout=30s] [--interval=500ms] --for=COND TARGET...
//	assert [-n NS] [--timeout=30s] [--interval=500ms] FILE...
//	error  [-n NS] [--timeout=30s] [--interval=500ms] FILE...   (same as ! assert)
//
// await is modelled on kubectl wait (testscript's own wait builtin cannot be
// overridden); assert and error on chainsaw/KUTTL partial matches. See
// [Commands] for the full syntax.
//
// When a runbook fails, [Diagnose] collects what is most likely to explain
// it: the namespace's events and the status of the objects the commands
// looked at ([Client.Touched]).
package kubecmd
