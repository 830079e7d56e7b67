# imgcache — build, test, demo, docs. `make test` sets up a fresh Debian machine by itself.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
PREFIX ?= /usr/local
SWIFT ?= swift
# The release build: the Swift standard library linked in, and every module, the dependencies
# too, making a concrete generic type's metadata without a conformance scan (Package.swift).
SWIFT_RELEASE := $(SWIFT) build -c release -Xswiftc -static-stdlib \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
DOCS_DATE := 2026-01-01

# Debian packages the build, the tests and the demo need.
DEB_PACKAGES := pkg-config curl libsqlite3-dev libssl-dev libcurl4-openssl-dev libhiredis-dev libvips-dev libjpeg62-turbo-dev libyuv0 zlib1g-dev openssl \
  python3 nginx-light imagemagick webp libheif-examples libavif-bin libjxl-tools redis-server e2fsprogs prometheus \
  prometheus-node-exporter
# PyPI: the S3 server the remote-tier tests run (moto, with its server extras).
PIP_PACKAGES := moto[server]

.PHONY: all deps build release hot-symbols test format lint docs check-docs check-rules demo install clean bench deb fuzz

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@python3 -c 'import moto.server, flask_cors' 2>/dev/null || { echo "make: installing $(PIP_PACKAGES) from PyPI"; \
	  python3 -m pip install -q '$(PIP_PACKAGES)'; }
	@# OpenMetrics is checked by the reference parser (promtool reads only the 0.0.4 text format).
	@python3 -c 'import prometheus_client.openmetrics.parser' 2>/dev/null || { \
	  echo "make: installing prometheus-client from PyPI"; python3 -m pip install -q prometheus-client; }
	@# The export tests read the shards as training code does.
	@python3 -c 'import webdataset' 2>/dev/null || { \
	  echo "make: installing webdataset from PyPI"; python3 -m pip install -q webdataset; }
	@# Debian starts redis-server, prometheus and node-exporter services on install; the tests
	@# start their own on 127.0.0.1.
	@for s in redis-server prometheus prometheus-node-exporter; do \
	  if command -v systemctl >/dev/null && systemctl is-active -q $$s 2>/dev/null; then systemctl stop $$s; fi; done

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT_RELEASE)

# The command line's tests and the engine's run as two processes at once (the test binary run
# twice; `swift test` allows one run a build folder): a CLI test waits for its child process
# synchronously, holding a thread of the process's shared pool, and in one process those waits
# held up the engine tests' tasks for a minute and more (their timed checks then failed). Each
# process starts its own test servers.
test: deps
	$(SWIFT) build --build-tests
	@tests="$$($(SWIFT) build --show-bin-path)/imgcachePackageTests.xctest"; \
	  "$$tests" --testing-library swift-testing --filter '^ImgCacheCLITests\.' \
	    > .build/cli-tests.log 2>&1 & cli=$$!; \
	  "$$tests" --testing-library swift-testing --skip '^ImgCacheCLITests\.'; kit=$$?; \
	  wait $$cli; status=$$?; echo "== the command line's tests (.build/cli-tests.log) =="; \
	  cat .build/cli-tests.log; [ $$kit -eq 0 ] && [ $$status -eq 0 ]
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory check-docs
	$(MAKE) --no-print-directory check-rules

# The untrusted-input boundary fuzzed for FUZZ_SECONDS (make test runs it for 4 s); a trap or a
# hang prints the target and the input in hex and fails. FUZZ_SEED repeats a run.
FUZZ_SECONDS ?= 300
fuzz: build
	.build/debug/imgcache-fuzz $(FUZZ_SECONDS) $(FUZZ_SEED)

lint:
	git ls-files -z '*.swift' | xargs -0 $(SWIFT) format lint --strict --parallel

format:
	git ls-files -z '*.swift' | xargs -0 $(SWIFT) format format --parallel --in-place

clean:
	rm -rf .build

# man/ and completions/ come from the parser; CI fails when the committed copies drift.
docs: build
	$(SWIFT) build --product generate-manual
	mkdir -p man completions
	.build/debug/generate-manual .build/debug/imgcache --date $(DOCS_DATE) --authors 'imgcache developers' -o man
	sed -i 's/^$$/.Pp/' man/imgcache.1  # a blank line is not a paragraph break in mdoc (groff warns)
	.build/debug/imgcache --generate-completion-script bash > completions/imgcache.bash
	.build/debug/imgcache --generate-completion-script zsh > completions/_imgcache
	.build/debug/imgcache --generate-completion-script fish > completions/imgcache.fish

check-docs: docs
	@git diff --exit-code -- man completions || { echo "make: man/ or completions/ differ from the parser; run 'make docs' and commit"; exit 1; }

# The rules docs/architecture.md states (citations of docs/ resolve, each library imported in its
# one place, files under 300 lines, each @unchecked Sendable with its reason, a lock is a Mutex,
# a one-line main).
check-rules:
	python3 scripts/check-rules.py

demo: build
	bash scripts/demo.sh

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 .build/release/imgcache $(DESTDIR)$(PREFIX)/bin/imgcache
	install -m 644 man/imgcache.1 $(DESTDIR)$(PREFIX)/share/man/man1/imgcache.1
	install -m 644 completions/imgcache.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/imgcache
	install -m 644 completions/_imgcache $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_imgcache
	install -m 644 completions/imgcache.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/imgcache.fish

# A Debian package of the release build, checked by lintian (not part of make test).
DEB_TOOLS := dpkg-dev lintian binutils
deb: release
	@missing=""; for p in $(DEB_TOOLS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; fi
	bash scripts/make-deb.sh

# The functions a hit runs, placed first by the release link (link/hot-symbols.txt): after a
# change to the hit's path, on a release build.
hot-symbols: release
	bash scripts/hot-symbols.sh
	rm -f .build/release/imgcache  # the list is no input SwiftPM tracks: link again
	$(SWIFT_RELEASE) --product imgcache

# Benchmark (not part of make test): release build, real-image corpus, peers in the same run.
BENCH_PACKAGES := aria2 wget wget2 time valgrind libvips-tools python3-matplotlib desktop-base gnome-backgrounds mate-backgrounds oxygen-icon-theme
bench: deps
	@missing=""; for p in $(BENCH_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; fi
	$(SWIFT_RELEASE) --product imgcache
	$(SWIFT_RELEASE) --product imgcache-stress
	/usr/bin/python3 bench/bench.py  # Debian's python: python3-matplotlib draws the chart
