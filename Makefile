# Suite — build, test, run and benchmark. `make` lists the targets.
SWIFT ?= swift
BIN_DIR = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
FORMAT_PATHS = Package.swift Modules Plugins Tests Tools
# Library modules an app links: they compile for Apple platforms too, which `make lint` checks (one folder a line).
PORTABLE_MODULES = \
	Modules/SuiteCore \
	Modules/SuiteHTTP \
	Modules/SuiteHTTPURLSession \
	Modules/SuitePluginKit \
	Modules/Documents \
	Modules/DocumentsPluginSupport \
	Modules/Cache \
	Modules/CacheURLSession \
	Modules/CachePluginSupport \
	Modules/Sync \
	Modules/Analytics \
	Modules/AnalyticsPluginSupport \
	Modules/AnalyticsTestSupport \
	Modules/StorageAccounting \
	Modules/WorkTracking
# The library modules with a DocC catalog (Modules/<M>/<M>.docc): `make docs` builds them, `make test` too.
DOC_TARGETS = SuiteCore SuiteHTTP SuiteHTTPURLSession SuiteHTTPNIO SuitePluginKit Documents DocumentsPluginSupport Cache \
	CacheURLSession CachePluginSupport Sync \
	Analytics AnalyticsPluginSupport AnalyticsTestSupport StorageAccounting WorkTracking
# The plugin products, in one list: those a user loads (`make install` copies them), then those only tests load.
RUNTIME_PLUGINS = EventLog CTally MemoryDocuments RedisCache AnalyticsPrometheus PostgresDocuments
TEST_PLUGINS = BadABI Misbehaving CounterPlugin
PLUGIN_PRODUCTS = $(RUNTIME_PLUGINS) $(TEST_PLUGINS)

.DEFAULT_GOAL := help
PREFIX ?= $(HOME)/.local
.PHONY: help deps build plugins test run install bench lint format docs clean api-fuzz protos faults fuzz

help: ## List the targets
	@echo "Suite — make targets:"
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z]+):.*## (.*)/  make \1\t\2/' | expand -t 16

deps: ## Install the system packages Suite needs (apt), if missing
	@bash Tools/install-deps.sh

build: deps ## Build every module, the suite command and the plugins (debug); an import of an undeclared dependency fails
	@bash Tools/import-lint.sh $(SWIFT) build

plugins: deps ## Build the runtime plugins (.so) that suite loads
	@for p in $(PLUGIN_PRODUCTS); do $(SWIFT) build --product $$p || exit 1; done
	@ls -1 $(BIN_DIR)/lib*.so

test: build lint docs ## Everything CI runs: build, plugins, lint, docs, all tests (console in Chromium, Firestore client, one-module app packages)
	SUITE_BIN_DIR=$(BIN_DIR) SWIFT=$(SWIFT) bash Tools/swift-test.sh
	BIN_DIR=$(BIN_DIR) bash Tools/console-test.sh
	SUITE_BIN_DIR=$(BIN_DIR) bash Tools/firestore-client-test.sh
	SUITE_BIN_DIR=$(BIN_DIR) SWIFT=$(SWIFT) bash Tools/consumer-check.sh

run: deps ## Build the suite command alone, then serve the documents on http://127.0.0.1:8080 (embedded default; Ctrl-C stops)
	@echo "Building the suite command only (swift build --product suite; make build builds the plugins and tools too)."
	@echo "A first build runs about 3,400 steps, its dependencies included (about 6 minutes on 2 quiet cores); SwiftPM shows [done/total] as it goes."
	@$(SWIFT) build --product suite
	@$(BIN_DIR)/suite status
	@echo
	@echo "Starting suite serve with a fresh token for user 'local' (./suite --help lists every command; make install"
	@echo "puts suite in ~/.local/bin). Other terminal: ./suite docs get users/local   ./suite work start   ./suite users list"
	@$(BIN_DIR)/suite serve --dev-user local $(SERVE_ARGS)

install: build ## Install suite into $(PREFIX)/bin and its plugins into $(PREFIX)/lib/suite (PREFIX=~/.local)
	@mkdir -p $(PREFIX)/bin $(PREFIX)/lib/suite
	@install -m 755 $(BIN_DIR)/suite $(PREFIX)/bin/suite
	@for p in $(RUNTIME_PLUGINS); do install -m 755 $(BIN_DIR)/lib$$p.so $(PREFIX)/lib/suite/; done
	@echo "installed $(PREFIX)/bin/suite (plugins in $(PREFIX)/lib/suite); try: suite status"

bench: deps ## Run the benchmarks (release build): ours beside a named peer, as ratios
	$(SWIFT) build -c release --product suite-bench
	$(SWIFT) build -c release --product analytics-receiver
	$(SWIFT) build -c release --product suite
	@for p in $(PLUGIN_PRODUCTS); do $(SWIFT) build -c release --product $$p || exit 1; done
	@if [ "$(BENCH_ARGS)" != console ]; then $$($(SWIFT) build -c release --show-bin-path)/suite-bench $(BENCH_ARGS); fi
	@# The console's first page in Chromium with 100k documents, against the issue's 1 s limit.
	@if [ -z "$(BENCH_ARGS)" ] || [ "$(BENCH_ARGS)" = console ]; then \
		BIN_DIR=$$($(SWIFT) build -c release --show-bin-path) bash Tools/console-test.sh --timing-only; fi

faults: build ## Fault harnesses (bank, replicas under network faults, load), briefly; FULL=1 at full length
	SUITE_BIN_DIR=$(BIN_DIR) bash Tools/faults/run.sh $(if $(FULL),--full)

api-fuzz: build ## schemathesis (PyPI) against a live suite serve: no 5xx, every answer as /openapi.json says
	BIN_DIR=$(BIN_DIR) bash Tools/api-fuzz.sh

fuzz: build ## libFuzzer + address sanitizer on every parser of outside input, FUZZ_SECONDS each (60); then the query differential fuzzer
	SWIFT=$(SWIFT) bash Tools/fuzz/fuzz.sh
	$(SWIFT) build --build-tests
	SUITE_BIN_DIR=$(BIN_DIR) SUITE_QUERY_FUZZ_SECONDS=$${FUZZ_SECONDS:-60} $(SWIFT) test --skip-build --disable-xctest \
		--filter QueryDifferentialTests

protos: ## Regenerate the Firestore protocol's Swift from Modules/FirestoreProtocol/Protos (protoc; committed code)
	bash Tools/protos.sh

lint: ## Fail on formatting errors (swift format, .swift-format) and on Linux-only code in library modules
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)
	python3 Tools/portability-lint/portability-lint.py --self-test
	python3 Tools/portability-lint/portability-lint.py $(PORTABLE_MODULES)
	bash Tools/import-lint.sh

docs: ## Build each library module's DocC documentation; a broken ``Symbol`` link or any DocC warning fails
	$(SWIFT) package generate-documentation --warnings-as-errors $(foreach t,$(DOC_TARGETS),--target $(t))
	@echo "archives in .build/plugins/Swift-DocC/outputs/ (one <Module>.doccarchive per module)"

format: ## Reformat the sources in place
	$(SWIFT) format --in-place --recursive $(FORMAT_PATHS)

clean: ## Remove build products
	rm -rf .build
