// Package inventory is the machine-inventory HTTP API the example provider
// drives, the stand-in for an organisation's proprietary system.
//
// It is a machine-inventory HTTP API: the stand-in for an organisation's
// proprietary system that the example provider drives. A Server hands out
// machines from a fixed pool; a Client claims and releases them. Every call
// but /healthz needs the bearer token.
//
//	GET    /healthz                      200 when up
//	GET    /v1/zones                     ["zone-a", ...]
//	GET    /v1/machines                  every machine, with its claim
//	POST   /v1/claims {owner, zone, minCPU}  a free machine, now owned by owner
//	                                         (the same one again for the same owner)
//	DELETE /v1/claims/{owner}            return the owner's machine to the pool
package inventory
