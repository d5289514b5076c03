// Command kbook-assets is `kbook cluster assets` without the rest of kbook:
// it prepares the local API server's binaries, or with -k0rdent a k0rdent
// release's controllers, and prints their folder. Its imports are a few
// dozen packages, so it compiles in seconds: make test starts it first, to
// build the longest path of a fresh machine's run (the API server and the
// controllers, which the plane tests wait for) while kbook compiles beside
// it.
//
//	go run ./internal/cluster/assets/kbook-assets [-k0rdent v1.11.4] [-assets-from auto]
package main
