// Package plural counts things in English for kbook's messages: "1
// runbook", "2 runbooks", "0 directories".
package plural
