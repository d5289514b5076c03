package kubeversion

import "fmt"

// Problem is one breach of the version skew policy.
type Problem struct {
	// Rule is a short identifier: downgrade, major-change, minor-skip,
	// kubelet-newer, kubelet-too-old.
	Rule    string
	Message string
}

// Skew rules.
const (
	RuleDowngrade     = "downgrade"
	RuleMajorChange   = "major-change"
	RuleMinorSkip     = "minor-skip"
	RuleKubeletNewer  = "kubelet-newer"
	RuleKubeletTooOld = "kubelet-too-old"
)

// CheckUpgrade checks a control plane moving from one version to another:
// Kubernetes supports neither downgrades nor skipping a minor version ("The
// kube-apiserver must not be upgraded past one minor version at a time";
// "Downgrades are not supported"), and a different major version is no
// upgrade path at all.
func CheckUpgrade(from, to Version) []Problem {
	if from.IsZero() || to.IsZero() {
		return nil
	}
	switch {
	case to.Major() != from.Major():
		return []Problem{{RuleMajorChange, fmt.Sprintf("Kubernetes %s to %s changes the major version: there is no supported upgrade path", from, to)}}
	case to.Compare(from) < 0:
		return []Problem{{RuleDowngrade, fmt.Sprintf("Kubernetes %s to %s is a downgrade: Kubernetes does not support downgrading a cluster (etcd data and APIs may already be at the newer version)", from, to)}}
	}
	if n := minorsBetween(from, to); n > 1 {
		return []Problem{{RuleMinorSkip, fmt.Sprintf("Kubernetes %s to %s skips %d minor version(s): the API server must be upgraded one minor version at a time (%s first)", from, to, n-1, nextMinor(from))}}
	}
	return nil
}

func nextMinor(v Version) string { return fmt.Sprintf("v%d.%d", v.Major(), v.Minor()+1) }

// MaxKubeletLag is how many minor versions a kubelet may be older than the
// API server: three since Kubernetes 1.28, two before.
func MaxKubeletLag(apiserver Version) int {
	if apiserver.Major() == 1 && apiserver.Minor() < 28 {
		return 2
	}
	return 3
}

// CheckKubelet checks nodes at kubelet against an API server at apiserver:
// a kubelet must not be newer than the API server, nor more than
// MaxKubeletLag minor versions older.
func CheckKubelet(apiserver, kubelet Version) *Problem {
	if apiserver.IsZero() || kubelet.IsZero() {
		return nil
	}
	if kubelet.Major() != apiserver.Major() {
		return &Problem{RuleKubeletTooOld, fmt.Sprintf("kubelet %s and API server %s differ in major version", kubelet, apiserver)}
	}
	lag := minorsBetween(kubelet, apiserver)
	switch {
	case lag < 0:
		return &Problem{RuleKubeletNewer, fmt.Sprintf("kubelet %s would be newer than the API server %s: kubelets must not be newer than kube-apiserver", kubelet.MinorString(), apiserver.MinorString())}
	case lag > MaxKubeletLag(apiserver):
		return &Problem{RuleKubeletTooOld, fmt.Sprintf("kubelet %s would be %d minor versions behind the API server %s: at most %d are supported", kubelet.MinorString(), lag, apiserver.MinorString(), MaxKubeletLag(apiserver))}
	}
	return nil
}
