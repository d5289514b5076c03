# kbook - developer entry points. `make test` is what CI runs (.ci/run).
GO      ?= go
BIN     := bin/kbook
PKGS    := ./...
# CGO_ENABLED=0: kbook builds the local API server and the k0rdent
# controllers static, as their releases are (internal/gobuild.Env), and no
# -trimpath; kbook's own vet, build and tests compile the same way, so the
# Kubernetes libraries both use (one version each: TestSourcesPinKbooksVersions)
# are compiled once on a fresh machine, not once per setting.
export CGO_ENABLED ?= 0

# The tests that start the local k0rdent plane (plane, target, internal/cluster)
# take one machine-wide lock, and under make test first wait for the
# controllers' build beside them, so a package can wait many minutes: go
# test's default 10-minute limit per package is too short.
# -vet=off: `make lint` has run the full go vet on the same packages, so go
# test's own subset of vet would type-check every test package a second time.
# -p 5: go test runs at most -p test binaries (and builds) at once, by
# default one per core; most of a binary's time here is waiting (for
# kube-apiserver, for the plane lock, for the controllers: the three plane
# packages can wait together), so fewer left a core idle.
# -ldflags=-w: no DWARF in the test binaries, a tenth less link work.
# -tags e2e: the packages that only hold end-to-end tests (a browser, kind
# clusters on a container engine: internal/site/e2e, internal/cluster/kindtest)
# build their tests only with it, so go test -short ./... does not link two
# of the largest test binaries to skip every test in them.
GOTESTFLAGS ?= -timeout 60m -vet=off -p 5 -ldflags=-w -tags e2e

# Reference CRDs (k0rdent, Cluster API, k0smotron) beside the repository, when
# present. Without them the local API server serves the k0rdent release's own
# CRDs (kcm, Flux, Sveltos, Cluster API, from its Go modules: nothing to
# download by hand); the few runbooks that need k0smotron's, which no module
# the proxy serves provides, are then skipped with the reason.
SHARED_CRDS ?= ../shared/crds
CRD_DIRS    := $(wildcard $(SHARED_CRDS)/k0rdent $(SHARED_CRDS)/capi $(SHARED_CRDS)/k0smotron)
CRD_FLAGS    = $(if $(CRD_DIRS),$(addprefix --crds ,$(CRD_DIRS)),--k0rdent $(K0RDENT) --k0rdent-api-only)

# The local backend's kube-apiserver and etcd: KUBEBUILDER_ASSETS if set,
# else kbook's cache, filled the first time by setup-envtest's released
# archive (seconds) or, offline, a build from pinned Go modules (4.5 min on
# 2 idle cores); ASSETS_FROM=build|download forces one (see --assets-from).
ASSETS_FROM ?= auto
ASSETS = $$(./$(BIN) cluster assets --assets-from $(ASSETS_FROM))

# The k0rdent release whose real controllers (kcm, Flux, Cluster API) the
# local backend runs with --k0rdent: built once into kbook's cache (about 15
# minutes on 2 cores the first time), and the runbooks that need them.
K0RDENT          ?= v1.11.4
# CONTENT_RUNBOOKS: kbook's own pages of content/ that run the examples
# that can run (run: shell in their front matter): kbook run runs them
# with runbooks/, and the site shows their marks.
CONTENT_RUNBOOKS := $(shell grep -rl '^run: shell' content)
K0RDENT_RUNBOOKS := runbooks/custom-template.md runbooks/local-k0rdent.md runbooks/proprietary-provider-capi.md runbooks/upgrade-k0rdent.md
# CAPD_RUNBOOKS: the --k0rdent runbooks whose workload clusters are docker
# machines, run by test-capd (bin/runbooks-capd.json).
CAPD_RUNBOOKS    := runbooks/capd-docker.md
# KIND_K0RDENT_RUNBOOKS: the runbooks of k0rdent installed into a kind
# cluster (kbook run --cluster kind --k0rdent), with the engine's clusters:
# the install's own, and the --k0rdent runbooks again, on controllers
# running as pods (CAPD's docker machines made through the engine's socket
# in the node), one at a time: the docker machines are two more kubeadm
# nodes on the same 2 cores.
KIND_K0RDENT_RUNBOOKS := runbooks/k0rdent-in-kind.md $(K0RDENT_RUNBOOKS) $(CAPD_RUNBOOKS)

.PHONY: help all build run test test-runbooks test-kind test-kind-clusters test-kind-k0rdent test-capd test-clusters engine-clean test-short lint docs bench bench-speed fuzz cross release clean site serve site-tools screenshots

all: build

## build: kbook into bin/kbook, and the example provider's binaries into bin/
build:
	$(GO) build -o $(BIN) ./cmd/kbook
	$(GO) build -o bin/ ./examples/providers/inventory/cmd/...

## run: the main job - execute every runbook in runbooks/ on the local API server
run: build
	./$(BIN) run $(CRD_FLAGS) runbooks/

# The docs site's tools outside Go: Pagefind (search) and axe-core (the
# accessibility check) from npm into kbook's cache, Debian's Chromium for the
# browser tests. Each step says so and goes on when it cannot install: the
# tests that need the tool then skip with the reason.
NPM_DIR    ?= $(HOME)/.cache/kbook/npm
PAGEFIND   := pagefind@1.6.0
AXE        := axe-core@4.14.1
# MkDocs-material pages (internal/mkdocs/markdown): the icon sets of the emoji
# shortcodes and mermaid, read from NPM_DIR at build time (markdown.NPMPackages).
MKDOCS_NPM := @mdi/svg@7.4.47 @fortawesome/fontawesome-free@7.3.1 @primer/octicons@19.42.0 simple-icons@16.37.0 mermaid@12.3.0

## site-tools: Pagefind, axe-core, the icon sets and mermaid from npm into kbook's cache, and Debian's Chromium for the browser tests
site-tools:
	@test -x $(NPM_DIR)/node_modules/.bin/pagefind -a -f $(NPM_DIR)/node_modules/axe-core/axe.min.js \
	  -a -f $(NPM_DIR)/node_modules/mermaid/dist/mermaid.min.js -a -d $(NPM_DIR)/node_modules/@mdi/svg/svg || \
	  { echo "== npm install $(PAGEFIND) $(AXE) $(MKDOCS_NPM) into $(NPM_DIR)"; mkdir -p $(NPM_DIR) && \
	    npm install --prefix $(NPM_DIR) --no-audit --no-fund --no-update-notifier --loglevel=error $(PAGEFIND) $(AXE) $(MKDOCS_NPM) >/dev/null || \
	    echo "site-tools: npm could not install Pagefind, axe-core, the icon sets and mermaid: search and accessibility tests skip, MkDocs icons and diagrams show as text"; }
	@command -v chromium >/dev/null 2>&1 || command -v chromium-headless-shell >/dev/null 2>&1 || \
	  { echo "== apt-get install chromium (browser tests)"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	    echo "site-tools: could not install Debian's chromium (not root?): browser tests will skip"; }

## screenshots: build kbook's docs and save the home and a runbook page (light, dark, mobile) as PNGs in SCREENS
SCREENS ?= bin/screens
screenshots: site site-tools
	$(GO) test -tags e2e -count=1 -run TestScreenshots ./internal/site/e2e -args -screenshots $(abspath $(SCREENS)) -site $(CURDIR)/bin/site -runbook runbooks/first-runbook/

## test: everything CI checks: lint, unit, integration and end-to-end tests, and the runbooks themselves; each phase says its wall and CPU seconds (hack/phase), and a table of them ends the run
# The order and why: hack/test, which runs the phases below in lanes side
# by side.
PLANE_PKGS := ./internal/cluster ./internal/cluster/plane ./internal/cluster/target
# The kind lane (test-kind): the packages whose tests need a container
# engine and kbook's node image, run once both are there.
KIND_PKGS  := ./internal/cluster/kindtest ./internal/cluster/nodeimage
LOW   = PHASES=$(CURDIR)/bin/phases.tsv $(shell command -v nice >/dev/null && echo nice -n 10) hack/phase
MID   = PHASES=$(CURDIR)/bin/phases.tsv $(shell command -v nice >/dev/null && echo nice -n 5) hack/phase
PHASE = PHASES=$(CURDIR)/bin/phases.tsv hack/phase
# TEST_BUDGET: past these seconds make test prints what still runs and the
# background lanes' logs, and stops (hack/watchdog): CI allows 90 minutes
# and says nothing of a run it ends. A fresh machine's run takes about 50
# minutes (content/reference/speed.md).
TEST_BUDGET ?= 5100
LANE_LOGS := engine.log k0rdent-assets.log lint.log go-test-plane.log test-runbooks.log test-kind.log test-clusters.log run-kind-k0rdent.log
test:
	@GO='$(GO)' BIN='$(BIN)' PKGS='$(PKGS)' PLANE_PKGS='$(PLANE_PKGS)' KIND_PKGS='$(KIND_PKGS)' K0RDENT='$(K0RDENT)' \
	  ASSETS_FROM='$(ASSETS_FROM)' GOTESTFLAGS='$(GOTESTFLAGS)' TEST_BUDGET='$(TEST_BUDGET)' CAPD_RUNBOOKS='$(CAPD_RUNBOOKS)' \
	  LANE_LOGS='$(LANE_LOGS)' MAKE='$(MAKE)' hack/test

## help: the targets, each with what it does
help:
	@sed -n 's/^## \([a-z-]*\): /\1\t/p' $(MAKEFILE_LIST) | awk -F'\t' '{ printf "  %-12s %s\n", $$1, $$2 }'

# test-runbooks: make test's runbook phases (KUBEBUILDER_ASSETS set by it):
# kbook check, every runbook on the local API server, the k0rdent ones on
# the real plane.
test-runbooks:
	@echo "== kbook check ($$(date +%T))" && \
	$(PHASE) check ./$(BIN) check runbooks/ $(CONTENT_RUNBOOKS) && \
	echo "== kbook run ($$(date +%T))" && \
	$(PHASE) run ./$(BIN) run --no-cache $(CRD_FLAGS) --junit $(or $(JUNIT),bin/runbooks.xml) --json bin/runbooks.json runbooks/ $(CONTENT_RUNBOOKS) && \
	echo "== kbook run --k0rdent $(K0RDENT) ($$(date +%T))" && \
	$(PHASE) run-k0rdent ./$(BIN) run --no-cache --k0rdent $(K0RDENT) --junit bin/runbooks-k0rdent.xml --json bin/runbooks-k0rdent.json $(K0RDENT_RUNBOOKS)

# test-kind: make test's kind lane, once hack/engine has started an engine
# (without one, say so and pass: the kind tests then skip): kbook's node
# image, built here with no registry (at nice 5), beside the other lanes.
# The engine's clusters come after every lane (test-clusters): beside them,
# at a load of 25 to 45, kubeadm's init failed inside kind nodes, with the
# engine at nice -5 too.
test-kind:
	@hack/engine start >/dev/null; \
	if ! docker version >/dev/null 2>&1; then echo "== no container engine answers (bin/engine.log): the kind lane is skipped"; exit 0; fi; \
	echo "== kbook cluster image ($$(date +%T))" && \
	$(MID) node-image ./$(BIN) cluster image

# The engine's clusters (KUBEBUILDER_ASSETS set by make test; by hand,
# after its other phases), three targets, run by test-clusters. They wait
# mostly on real nodes (alone, one after another, they used half a core),
# so test-clusters runs them in two chains side by side.
KIND_CRD_FLAGS = $(if $(CRD_DIRS),$(addprefix --crds ,$(CRD_DIRS)),)
HIGH = PHASES=$(CURDIR)/bin/phases.tsv $(shell [ "$$(id -u)" = 0 ] && command -v nice >/dev/null && echo nice -n -5) hack/phase
NO_ENGINE = ! docker version >/dev/null 2>&1

# test-kind-clusters: every runbook on a kind cluster of a control plane
# and a worker (those that pass on the local backend must pass here too,
# and the ones that need real nodes run only here), then the packages that
# need the node image. -p 1: the node image package's rebuild test re-tags
# the image the kind tests' clusters are made from.
test-kind-clusters:
	@if $(NO_ENGINE); then echo "== no container engine answers (bin/engine.log): the kind tests skip"; \
	  $(GO) test $(GOTESTFLAGS) $(KIND_PKGS); exit; fi; \
	status=0; \
	echo "== kbook run --cluster kind ($$(date +%T))"; \
	$(HIGH) run-kind ./$(BIN) run --no-cache --cluster kind --kind-image build --kind-workers 1 $(KIND_CRD_FLAGS) --junit bin/runbooks-kind.xml --json bin/runbooks-kind.json runbooks/ || status=1; \
	echo "== go test $(KIND_PKGS) ($$(date +%T))"; \
	$(HIGH) go-test-kind $(GO) test $(GOTESTFLAGS) -p 1 $(KIND_PKGS) || status=1; \
	exit $$status

# test-kind-k0rdent: k0rdent installed into a kind cluster and its
# runbooks, once the k0rdent controllers for inside kind are built (cluster
# assets --in-cluster waits for make test's build of them), on a kind
# cluster of its own name: beside test-kind-clusters, both would take the
# default name at once. The run is exec'd, with hack/phase --bg: a TERM to
# this make (test-clusters ending early) reaches kbook, which deletes its
# cluster.
test-kind-k0rdent:
	@if $(NO_ENGINE); then echo "== no container engine answers (bin/engine.log): k0rdent inside kind is not run"; exit 0; fi; \
	echo "== the k0rdent $(K0RDENT) controllers for inside kind ($$(date +%T))"; \
	$(PHASE) await-k0rdent ./$(BIN) cluster assets --k0rdent $(K0RDENT) --in-cluster --assets-from $(ASSETS_FROM) || exit 1; \
	echo "== kbook run --cluster kind --k0rdent $(K0RDENT) $(KIND_K0RDENT_RUNBOOKS) ($$(date +%T))"; \
	exec env $(HIGH) --bg run-kind-k0rdent ./$(BIN) run --no-cache -p 1 --cluster kind --name kbook-k0rdent --kind-image build --k0rdent $(K0RDENT) --junit bin/runbooks-kind-k0rdent.xml --json bin/runbooks-kind-k0rdent.json $(KIND_K0RDENT_RUNBOOKS)

# test-capd: the --k0rdent runbook whose workload cluster is CAPD's docker
# machines, on the local plane (one plane at a time: after the plane lane).
test-capd:
	@if $(NO_ENGINE); then echo "== no container engine answers (bin/engine.log): the CAPD runbook is not run"; exit 0; fi; \
	echo "== kbook run --k0rdent $(K0RDENT) $(CAPD_RUNBOOKS) ($$(date +%T))"; \
	$(HIGH) run-capd ./$(BIN) run --no-cache --k0rdent $(K0RDENT) --junit bin/runbooks-capd.xml --json bin/runbooks-capd.json $(CAPD_RUNBOOKS)

# test-clusters: every phase that makes clusters of engine containers,
# alone on the machine once make test's other phases are done:
# test-kind-k0rdent in the background (bin/run-kind-k0rdent.log, shown
# after it) beside test-kind-clusters, then the CAPD runbook on the plane.
# Not beside test-kind-k0rdent: inside kind the same runbook makes docker
# machines of the same names (and, one at a time, kbook run takes its
# runbooks in path order: it comes first there). Nor beside the kind tests:
# in a fresh run CAPD's machines exited while they made and deleted
# clusters.
test-clusters:
	@status=0; \
	$(MAKE) --no-print-directory test-kind-k0rdent >bin/run-kind-k0rdent.log 2>&1 & k0rdent=$$!; \
	trap 'kill $$k0rdent 2>/dev/null' EXIT; \
	$(MAKE) --no-print-directory test-kind-clusters || status=1; \
	echo "== waiting for k0rdent inside kind (bin/run-kind-k0rdent.log) ($$(date +%T))"; \
	wait $$k0rdent || status=1; trap - EXIT; \
	cat bin/run-kind-k0rdent.log; \
	$(MAKE) --no-print-directory test-capd || status=1; \
	exit $$status

# engine-clean: after both lanes (kind clusters in the kind lane, CAPD's
# docker machines in the plane lane's capd-docker runbook), nothing of
# kbook's is left in the engine: no kind node or CAPD machine (both carry
# kind's cluster label), no build container, no kind network, and - when
# make test started the engine itself - no volume made since make test
# started (bin/test-started): a machine whose engine outlives one run may
# hold volumes of others, or of an earlier run that was killed.
engine-clean:
	@docker version >/dev/null 2>&1 || exit 0; \
	since=$$(cat bin/test-started 2>/dev/null || echo 0); \
	left=$$(docker ps -aq --filter label=io.x-k8s.kind.cluster; docker ps -aq --filter label=io.k0rdent.kbook.node-image.build; \
	  docker network ls -q --filter name=^kind$$; \
	  if test -f bin/engine/dockerd.pid; then for v in $$(docker volume ls -q); do \
	    t=$$(date -u -d "$$(docker volume inspect -f '{{.CreatedAt}}' $$v)" +%s 2>/dev/null || echo 0); [ "$$t" -lt "$$since" ] || echo $$v; done; fi) ; \
	if [ -n "$$left" ]; then echo "left in the engine: $$left"; docker ps -a; docker network ls; docker volume ls; exit 1; fi; \
	echo "nothing of kbook's left in the engine"

## site: build kbook's own docs site into bin/site (runbooks run first, cached when unchanged)
site: build
	KUBEBUILDER_ASSETS=$(ASSETS) ./$(BIN) build $(CRD_FLAGS) --out bin/site .

## serve: preview kbook's own docs on http://127.0.0.1:1313 with live reload
serve: build
	./$(BIN) serve .

## test-short: the fast inner loop (no API server)
# -ldflags=-w: no DWARF in the test binaries; linking 85 of them is most of
# this loop.
test-short:
	$(GO) test -short -ldflags=-w $(PKGS)

## lint: gofmt, go vet and staticcheck (its checks: staticcheck.conf)
# STATICCHECK: a pinned release, built from the module proxy on first use.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	@echo "== gofmt, go vet ($$(date +%T))"
	@fmt=$$(gofmt -l cmd internal site); if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet -tags e2e $(PKGS)
	@echo "== staticcheck ($$(date +%T))"
	$(GO) run $(STATICCHECK) -tags e2e $(PKGS)

## docs: regenerate the CLI reference pages from the commands, and README.md's package table from the doc comments
docs: build
	$(GO) generate ./internal/layout
	./$(BIN) gen-docs --rules content/templates/rules.md --provider-rules content/providers/rules.md --upgrade-rules content/upgrades/rules.md content/reference/cli

## bench: the speed issue's rows with the load and ratios against baselines of the same run (hack/bench-speed.sh), then all Go benchmarks; helm (the baseline of the template benchmark) is built into bin/ first
bench: bench-speed bin/helm
	PATH=$(CURDIR)/bin:$$PATH KUBEBUILDER_ASSETS=$(ASSETS) $(GO) test -tags e2e -run '^$$' -bench . -benchmem $(PKGS)

## bench-speed: only the speed issue's rows (REPEAT=3 for best of 3, SKIP_PLANE=1 without the controllers' row)
bench-speed: build
	hack/bench-speed.sh

bin/helm:
	GOBIN=$(CURDIR)/bin $(GO) install helm.sh/helm/v3/cmd/helm@v3.19.0

## cross: check that kbook builds for macOS and Windows too
cross:
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/kbook
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./cmd/kbook

## release: kbook's release into bin/release (RELEASE_OUT): per platform (linux and darwin, amd64 and arm64) a stripped, -trimpath, version- and commit-stamped archive and its CycloneDX SBOM, the container image (an OCI archive, no Docker daemon) and SHA256SUMS (hack/release); VERSION=v0.3.0 stamps another version than the tag at HEAD
# Not part of make test: each platform is a full compile (-trimpath shares
# nothing with make build's cache), about 10 CPU minutes on 2 cores; make
# test checks this platform's archive, linked from make build's cache
# (internal/release's TestHostRelease).
RELEASE_OUT ?= bin/release
release:
	$(GO) run ./hack/release -out $(RELEASE_OUT) $(if $(VERSION),-version $(VERSION))

# Each target fuzzes for FUZZTIME (default 60s: about 7 minutes for the seven).
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/runbook
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/policy
	$(GO) test -run '^$$' -fuzz '^FuzzChainLoad$$' -fuzztime $(FUZZTIME) ./internal/chain
	$(GO) test -run '^$$' -fuzz '^FuzzLoadConfig$$' -fuzztime $(FUZZTIME) ./internal/upgrade
	$(GO) test -run '^$$' -fuzz '^FuzzLoadConfig$$' -fuzztime $(FUZZTIME) ./internal/site
	$(GO) test -run '^$$' -fuzz '^FuzzCompileSchema$$' -fuzztime $(FUZZTIME) ./internal/helmvalues

clean:
	rm -rf bin
