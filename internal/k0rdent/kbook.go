package k0rdent

// KbookDomain is the domain of kbook's own labels and annotations.
const KbookDomain = "kbook.k0rdent.io"

// kbook's own labels and annotations on the objects it manages.
const (
	// PinAnnotation pins a ClusterDeployment's Kubernetes version
	// (kbook upgrade check and apply).
	PinAnnotation = KbookDomain + "/pin-k8s-version"
	// WindowAnnotation and ExclusionsAnnotation schedule upgrades, on a
	// ClusterDeployment or its namespace.
	WindowAnnotation     = KbookDomain + "/maintenance-window"
	ExclusionsAnnotation = KbookDomain + "/maintenance-exclusions"
	// UpgradeFromAnnotation is the template kbook upgrade apply upgrades a
	// deployment from.
	UpgradeFromAnnotation = KbookDomain + "/upgrade-from"
	// RunbookLabel names the runbook a namespace was made for.
	RunbookLabel = KbookDomain + "/runbook"
	// NudgeAnnotation asks a controller to reconcile an object now, as
	// Flux's FluxReconcileRequestAnnotation does: kcm reconciles Releases
	// and the Management on every update, and the local plane sets it.
	NudgeAnnotation = KbookDomain + "/reconcile-requested-at"
	// StubLabel ("true") marks the objects of the stand-in charts the
	// local plane serves in place of the components it does not run.
	StubLabel = KbookDomain + "/stand-in"
)
