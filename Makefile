# Skyrocket — one Makefile; CI (.ci/run) runs the same targets.
GO        ?= go
FUZZTIME  ?= 3s
PKGS      := ./...
BIN       := bin
# Unit packages: everything but conformance/ (which starts processes and runs clients; it
# runs without the race detector). Evaluated only by the targets that use it.
UNIT_PKGS  = $(shell $(GO) list ./... | grep -v '/conformance')

# staticcheck 2026.2.2 analyses Go 1.26 code (2026.1 added 1.26, 2026.2 1.27). It is built
# with this module's Go into a directory named by its version, so bumping the pin rebuilds it.
STATICCHECK_VERSION := v0.8.2
STATICCHECK         := $(BIN)/tools/staticcheck-$(STATICCHECK_VERSION)/staticcheck

.PHONY: help build image test unit fuzz race bench lint staticcheck run run-ha conformance conformance-java generate check-generated clean bench-compare

help:
	@echo "make run              build and start NameServer + Broker (all-in-one) on the default ports, data in ./data"
	@echo "make run-ha           build and start NameServer :9886, SYNC_MASTER :10921 and SLAVE :10931, data in ./data-ha"
	@echo "make test             what CI runs after lint: build, race, conformance, fuzz, conformance-java"
	@echo "make build            binaries into bin/ (and the mqshutdown script)"
	@echo "make image            the container image (docker build, IMAGE=$(IMAGE)); without a docker daemon, its root filesystem as bin/skyrocket-rootfs.tar.gz"
	@echo "make unit             unit tests (every package but conformance/), no race detector: the quick loop"
	@echo "make race             unit tests with the race detector (part of make test)"
	@echo "make conformance      Go conformance suite: real processes, Go client, differential runs"
	@echo "make conformance-java Java clients and mqadmin against Java's servers and ours; goldens from Java"
	@echo "make fuzz             each fuzz target for FUZZTIME (default $(FUZZTIME)); seeds also run in unit/race"
	@echo "make lint             gofmt, go vet and staticcheck $(STATICCHECK_VERSION), failing on any finding"
	@echo "make staticcheck      staticcheck alone (installed into $(BIN)/tools on first use)"
	@echo "make generate         regenerate protocol/zz_generated_*.go from protocol/spec"
	@echo "make check-generated  fail if the generated code differs from protocol/spec"
	@echo "make bench            Go benchmarks"
	@echo "make bench-compare    mqbench side by side with Java's broker (BENCH_STEPS, see .ci/bench-compare.sh)"
	@echo "make clean            remove bin/ (binaries and tools)"

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...
	@cp cmd/mqshutdown/mqshutdown $(BIN)/

# The Dockerfile's image when a docker daemon answers; otherwise the same files (static
# binaries, entrypoint, users, volume directories: .ci/rootfs.sh) as a tarball.
IMAGE ?= skyrocket:dev
image:
	@if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then \
	  docker build -t $(IMAGE) . ; \
	else \
	  echo "no docker daemon: building the image's root filesystem instead"; \
	  GO=$(GO) ./.ci/rootfs.sh $(BIN)/skyrocket-rootfs.tar.gz; \
	fi

unit:
	$(GO) test -count=1 -timeout 20m $(UNIT_PKGS)

# Unit packages run under the race detector only: conformance/ runs once, without it.
test: build race conformance fuzz conformance-java

race:
	$(GO) test -race -count=1 -timeout 30m $(UNIT_PKGS)

fuzz:
	@./.ci/fuzz.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Side by side with Java's broker on this machine; not part of make test. BENCH_* variables
# and steps: see .ci/bench-compare.sh (e.g. make bench-compare BENCH_STEPS="send route").
bench-compare: build
	@./.ci/bench-compare.sh $(BENCH_STEPS)

lint: staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@out=$$(for t in $$(sed -n 's/^\.PHONY://p' Makefile); do [ $$t = help ] || grep -q "@echo \"make $$t " Makefile || echo $$t; done); \
	  if [ -n "$$out" ]; then echo "make help does not list:" $$out; exit 1; fi
	$(GO) vet $(PKGS)

# Deliberate exceptions are //lint:ignore directives next to the code, each with its reason.
staticcheck: $(STATICCHECK)
	$(STATICCHECK) $(PKGS)

$(STATICCHECK):
	GOBIN=$(abspath $(dir $@)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

generate:
	$(GO) generate ./protocol

check-generated: generate
	git diff --exit-code -- protocol/

conformance:
	$(GO) test -count=1 -timeout 30m ./conformance/...

conformance-java:
	@./.ci/java-conformance.sh

run: build
	./$(BIN)/skyrocket -data ./data

# Three processes (configs/run-ha/run.sh); Ctrl-C stops all three.
run-ha: build
	./configs/run-ha/run.sh $(BIN)

clean:
	rm -rf $(BIN)
