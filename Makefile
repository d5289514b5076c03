# kbook - developer entry points. `make test` is what CI runs (.ci/run).
GO      ?= go
BIN     := bin/kbook
PKGS    := ./...

# Reference CRDs (k0rdent, Cluster API, k0smotron) beside the repository, when
# present: runbooks that need them are skipped, with the reason, without.
SHARED_CRDS ?= ../shared/crds
CRD_DIRS    := $(wildcard $(SHARED_CRDS)/k0rdent $(SHARED_CRDS)/capi $(SHARED_CRDS)/k0smotron)
CRD_FLAGS   := $(addprefix --crds ,$(CRD_DIRS))

# The local backend's kube-apiserver and etcd: KUBEBUILDER_ASSETS if set,
# else built once from pinned Go modules into kbook's cache (~10 min on 2
# cores the first time, then instant).
ASSETS = $$(./$(BIN) cluster assets)

.PHONY: all build run test test-short lint docs bench fuzz cross clean site serve

all: build

build:
	$(GO) build -o $(BIN) ./cmd/kbook

## run: the main job - execute every runbook in runbooks/ on the local API server
run: build
	./$(BIN) run $(CRD_FLAGS) runbooks/

## test: everything CI checks: lint, unit, integration and end-to-end tests, and the runbooks themselves
test: lint build
	@echo "== local API server binaries"
	@assets=$(ASSETS) && echo "$$assets" && \
	echo "== go test" && \
	KUBEBUILDER_ASSETS=$$assets $(GO) test $(PKGS) && \
	echo "== kbook check" && \
	./$(BIN) check runbooks/ && \
	echo "== kbook run" && \
	KUBEBUILDER_ASSETS=$$assets ./$(BIN) run --no-cache $(CRD_FLAGS) --junit $(or $(JUNIT),bin/runbooks.xml) --json bin/runbooks.json runbooks/ && \
	echo "== kbook build (the docs site, from the results of that run)" && \
	./$(BIN) build --report bin/runbooks.json --out bin/site .

## site: build kbook's own docs site into bin/site (runbooks run first, cached when unchanged)
site: build
	KUBEBUILDER_ASSETS=$(ASSETS) ./$(BIN) build $(CRD_FLAGS) --out bin/site .

## serve: preview kbook's own docs on http://127.0.0.1:1313 with live reload
serve: build
	./$(BIN) serve .

## test-short: the fast inner loop (no API server)
test-short:
	$(GO) test -short $(PKGS)

lint:
	@fmt=$$(gofmt -l cmd internal site); if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet $(PKGS)

## docs: regenerate the CLI reference pages from the commands
docs: build
	./$(BIN) gen-docs --rules content/templates/rules.md --provider-rules content/providers/rules.md content/reference/cli

## bench: all benchmarks; helm (the baseline of the template benchmark) is built into bin/ first
bench: build bin/helm
	PATH=$(CURDIR)/bin:$$PATH KUBEBUILDER_ASSETS=$(ASSETS) $(GO) test -run '^$$' -bench . -benchmem $(PKGS)

bin/helm:
	GOBIN=$(CURDIR)/bin $(GO) install helm.sh/helm/v3/cmd/helm@v3.19.0

## cross: check that kbook builds for macOS and Windows too
cross:
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/kbook
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./cmd/kbook

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./internal/runbook

clean:
	rm -rf bin
