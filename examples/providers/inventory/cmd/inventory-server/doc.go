// Command inventory-server serves the example provider's machine inventory
// over HTTP (package inventory).
//
// It serves a machine inventory over HTTP (package inventory): the stand-in
// for a proprietary system in the example provider's runbook. The token
// comes from a file or INVENTORY_TOKEN, never from a flag (flags show up in
// process lists).
//
//	inventory-server --listen 127.0.0.1:0 --addr-file addr --token-file token --machines 3 --zones zone-a,zone-b
//	inventory-server list --url-file addr --token-file token --wait 10s
package main
