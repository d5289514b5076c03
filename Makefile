# kbook - developer entry points. `make test` is what CI runs (.ci/run).
GO      ?= go
BIN     := bin/kbook
PKGS    := ./...

.PHONY: all build run test test-short lint docs bench fuzz clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/kbook

## run: the main job - execute every runbook in runbooks/
run: build
	./$(BIN) run runbooks/

## test: everything CI checks: lint, unit and end-to-end tests, and the runbooks themselves
test: lint build
	$(GO) test $(PKGS)
	./$(BIN) check runbooks/
	./$(BIN) run --no-cache --junit $(or $(JUNIT),bin/runbooks.xml) runbooks/

## test-short: the fast inner loop
test-short:
	$(GO) test -short $(PKGS)

lint:
	@fmt=$$(gofmt -l cmd internal); if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet $(PKGS)

## docs: regenerate the CLI reference pages from the commands
docs: build
	./$(BIN) gen-docs content/reference/cli

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./internal/runbook

clean:
	rm -rf bin
