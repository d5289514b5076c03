package main

import (
	"flag"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	infrav1 "github.com/k0rdent/kbook/examples/providers/inventory/api/v1alpha1"
	"github.com/k0rdent/kbook/examples/providers/inventory/controller"
	"github.com/k0rdent/kbook/examples/providers/inventory/inventory"
)

func main() {
	var metrics, probes, namespace string
	var leaderElect bool
	flag.StringVar(&metrics, "metrics-bind-address", "0", "metrics address (0 disables)")
	flag.StringVar(&probes, "health-probe-bind-address", ":8081", "health probe address (0 disables)")
	flag.StringVar(&namespace, "namespace", "", "watch only this namespace (clusterctl installs providers watching all)")
	flag.BoolVar(&leaderElect, "leader-elect", false, "enable leader election")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = infrav1.AddToScheme(scheme)
	mo := ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: metrics}, HealthProbeBindAddress: probes,
		LeaderElection: leaderElect, LeaderElectionID: "inventory.infrastructure.inventory.example"}
	if namespace != "" {
		mo.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}}
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), mo)
	if err != nil {
		log.Error(err, "create manager")
		os.Exit(1)
	}
	if err := (&controller.ClusterReconciler{Client: mgr.GetClient(), NewClient: inventory.NewClient}).SetupWithManager(mgr); err != nil {
		log.Error(err, "setup cluster controller")
		os.Exit(1)
	}
	if err := (&controller.MachineReconciler{Client: mgr.GetClient(), NewClient: inventory.NewClient}).SetupWithManager(mgr); err != nil {
		log.Error(err, "setup machine controller")
		os.Exit(1)
	}
	_ = mgr.AddHealthzCheck("healthz", healthz.Ping)
	_ = mgr.AddReadyzCheck("readyz", healthz.Ping)
	log.Info("starting the inventory provider")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
