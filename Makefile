# nginxtune build and test entry points. `make test` is what CI runs.
GO      ?= go
VERSION ?= $(shell bash scripts/version.sh)
LDFLAGS := -X main.version=$(VERSION)
# Fuzz budgets are counts of inputs, not durations: with a duration, Go 1.26's
# fuzz coordinator can report "context deadline exceeded" as a failure when
# the time runs out on a loaded machine (go.dev/issue/75804, fixed in Go
# 1.27). These counts take about 20 s, 10 s and 10 s here.
FUZZTIME ?= 150000x
FUZZTIME_TREE ?= 3000x
FUZZTIME_FIX ?= 10000x

.PHONY: web deb all build build-pprof install test unit fuzz vet bench bench-lint bench-hook deps docs clean directives mutants vsix

all: build

# CGO_ENABLED=0: a static program. With cgo, Go's net package (linked through
# pflag) takes the C library's resolver, and the dynamic loader adds about 1 ms
# (15 %) to every start, each pre-commit hook run's too (docs/lint-speed.md);
# nginxtune resolves no names through it. The Debian package is built so too.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/nginxtune ./cmd/nginxtune

# A build that writes profiles: NGINXTUNE_CPUPROFILE=FILE, NGINXTUNE_MEMPROFILE=FILE.
build-pprof:
	CGO_ENABLED=0 $(GO) build -tags pprof -ldflags "$(LDFLAGS)" -o bin/nginxtune-pprof ./cmd/nginxtune

install:
	CGO_ENABLED=0 $(GO) install -ldflags "$(LDFLAGS)" ./cmd/nginxtune

deps:
	@bash scripts/deps.sh

# The browser playground (docs/playground.md): web/ with nginxtune compiled
# to WebAssembly, into build/web/ (WEBDIR=), a static directory to serve as it is.
WEBDIR ?= build/web
web:
	rm -rf $(WEBDIR) && mkdir -p $(WEBDIR)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o $(WEBDIR)/nginxtune.wasm ./cmd/nginxtune-wasm
	cp web/index.html web/app.js web/style.css web/sw.js "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(WEBDIR)/
	@echo "$(WEBDIR): $$(du -sk $(WEBDIR) | cut -f1) KiB; nginxtune.wasm gzip'd: $$(gzip -9 -c $(WEBDIR)/nginxtune.wasm | wc -c) bytes"

# The Debian package (dpkg-deb): the binary, man pages, completions, docs;
# reproducible from a commit. DIR=dist by default.
deb:
	@VERSION=$(VERSION) bash scripts/deb.sh $(or $(DIR),dist)

# The VS Code extension (editors/vscode) as dist/nginxtune-VERSION.vsix, made
# by @vscode/vsce from npm (scripts/deps-vscode.sh installs the pinned modules).
vsix:
	@bash scripts/deps-vscode.sh
	@mkdir -p dist
	cd editors/vscode && node node_modules/@vscode/vsce/vsce package --skip-license --out ../../dist/

vet:
	$(GO) vet ./...
	$(GO) vet -tags pprof ./cmd/nginxtune
	$(GO) tool staticcheck ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	 if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	@out=$$($(GO) tool goimports -l -local github.com/nginxtune/nginxtune $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	 if [ -n "$$out" ]; then echo "imports to group (go tool goimports -w -local github.com/nginxtune/nginxtune): $$out"; exit 1; fi

unit:
	$(GO) test -race -count=1 ./...

# Short, bounded fuzz runs (the scanner, the loader, lint --fix, fmt); longer runs: make fuzz FUZZTIME=2000000x
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./parser
	$(GO) test -run '^$$' -fuzz FuzzTree -fuzztime $(FUZZTIME_TREE) ./loader
	$(GO) test -run '^$$' -fuzz FuzzLintFix -fuzztime $(FUZZTIME_FIX) ./rules
	$(GO) test -run '^$$' -fuzz FuzzFormat -fuzztime $(FUZZTIME) ./format

test: deps vet unit fuzz

# Parser and lint benchmarks (1,000 / 10,000 / 50,000 server blocks) as a table.
# The nginx benchmarks (stock against generated configs) are bench/nginx/run.sh.
bench:
	@$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./loader ./rules ./cmd/nginxtune | tee /tmp/nginxtune-bench.txt | grep -E '^(Benchmark|ok|FAIL)'
	@echo
	@bash scripts/benchtable.sh < /tmp/nginxtune-bench.txt

# nginxtune lint against real nginx -t on a 20,000-server tree, side by side
# (SERVERS=, RUNS= to change); the hook's latency on the live /etc/nginx.
bench-lint:
	@bash scripts/bench-lint.sh

bench-hook:
	@bash scripts/bench-hook.sh

clean:
	rm -rf bin build

# Regenerate the rule reference from rules.All (a test fails when it is stale).
docs:
	$(GO) run ./cmd/nginxtune rules --format markdown > docs/rules.md

# Regenerate knowledge/directives.tsv from nginx's and the modules' sources,
# fetched from Debian into .sources/ (needs root once, for the deb-src entry).
# Agreement with nginx -t on seeded mutants of the shared corpus (root, Debian's
# nginx, ../shared/corpus); docs/directives.md holds the latest table.
mutants:
	$(GO) run ./internal/cmd/mutants -corpus ../shared/corpus -n 700 -seed $(or $(SEED),1)

directives:
	bash scripts/nginx-sources.sh .sources
	$(GO) run ./knowledge/gen .sources > knowledge/directives.tsv.new
	mv knowledge/directives.tsv.new knowledge/directives.tsv
	$(GO) run ./knowledge/gen -variables .sources > knowledge/variables.tsv.new
	mv knowledge/variables.tsv.new knowledge/variables.tsv
