// Package kubeconfig is the one way kbook reads a kubeconfig, as kubectl
// does: --kubeconfig, else $KUBECONFIG (files merged), else ~/.kube/config;
// --context, else the current context; the namespace of that context, else
// "default". The cluster backend "kubeconfig", kbook status, kbook upgrade
// and kbook template publish all load theirs here.
package kubeconfig
