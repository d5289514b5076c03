package findings_test

import (
	"fmt"
	"os"

	"github.com/k0rdent/kbook/internal/findings"
)

// A validator registers its rules once, collects findings per input, and
// lets Finish, the writers and ExitCode do the rest.
func Example() {
	registry := findings.NewRegistry([]string{"Contract"},
		findings.Rule{ID: "PROV001", Category: "Contract", Severity: findings.Error,
			Title:       "CRDs carry a contract label",
			Description: "CAPI reads a provider's contract from the CRD label `cluster.x-k8s.io/<contract>` alone (cluster-api internal/contract)."},
	)
	found := []findings.Finding{{
		Rule: "PROV001", File: "crds/widgets.yaml", Line: 4, Path: "metadata.labels",
		Object:  "CustomResourceDefinition widgets.infrastructure.cluster.x-k8s.io",
		Message: "no cluster.x-k8s.io/v1beta2 label: CAPI cannot tell which contract the provider follows",
		Hint:    "add the label with kustomize labels: at release",
	}}
	report := &findings.Report{Kind: "provider", Name: "acme", Base: "acme", Findings: registry.Finish(found, nil)}
	_ = findings.Write(os.Stdout, "text", registry, report)
	fmt.Println("exit code:", registry.ExitCode(report))
	// Output:
	// acme/crds/widgets.yaml:4: error: CustomResourceDefinition widgets.infrastructure.cluster.x-k8s.io: no cluster.x-k8s.io/v1beta2 label: CAPI cannot tell which contract the provider follows [PROV001]
	//     fix: add the label with kustomize labels: at release
	// acme: 1 error, 0 warnings
	// exit code: 1
}
