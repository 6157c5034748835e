# Skyrocket — one Makefile; CI (.ci/run) runs the same targets.
GO        ?= go
FUZZTIME  ?= 3s
PKGS      := ./...
BIN       := bin

.PHONY: help build test unit fuzz race bench lint run run-ha conformance conformance-java generate check-generated clean bench-compare

help:
	@echo "make run        build and start NameServer + Broker (all-in-one) on the default ports, data in ./data"
	@echo "make run-ha     build and start NameServer :9886, SYNC_MASTER :10921 and SLAVE :10931, data in ./data-ha"
	@echo "make test       build and run every test (unit, fuzz seeds + short fuzzing, conformance, Java conformance)"
	@echo "make build      binaries into bin/"
	@echo "make lint       gofmt + go vet, failing on any finding"
	@echo "make race       tests with the race detector"
	@echo "make fuzz       each fuzz target for FUZZTIME (default $(FUZZTIME))"
	@echo "make bench      Go benchmarks"

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

unit:
	$(GO) test -count=1 -timeout 20m $(PKGS)

test: build unit fuzz conformance-java

race:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

fuzz:
	@./.ci/fuzz.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Side by side with Java's broker on this machine; not part of make test. BENCH_* variables
# and steps: see .ci/bench-compare.sh (e.g. make bench-compare BENCH_STEPS="send route").
bench-compare: build
	@./.ci/bench-compare.sh $(BENCH_STEPS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

generate:
	$(GO) generate ./protocol

check-generated: generate
	git diff --exit-code -- protocol/

conformance:
	$(GO) test -count=1 -timeout 20m ./conformance/...

conformance-java:
	@./.ci/java-conformance.sh

run: build
	./$(BIN)/skyrocket -data ./data

# Three processes (configs/run-ha/run.sh); Ctrl-C stops all three.
run-ha: build
	./configs/run-ha/run.sh $(BIN)

clean:
	rm -rf $(BIN)
