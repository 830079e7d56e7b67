# imgcache — build, test, demo, docs. `make test` sets up a fresh Debian machine by itself.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
PREFIX ?= /usr/local
SWIFT ?= swift
DOCS_DATE := 2026-01-01

# Debian packages the build, the tests and the demo need.
DEB_PACKAGES := pkg-config curl libsqlite3-dev libssl-dev libcurl4-openssl-dev openssl python3 \
  nginx-light imagemagick webp libheif-examples libavif-bin libjxl-tools

.PHONY: all deps build release test test-only format lint docs check-docs demo install clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release -Xswiftc -static-stdlib

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory lint
	@if [ -f man/imgcache.1 ]; then $(MAKE) --no-print-directory check-docs; fi

lint:
	git ls-files -z '*.swift' | xargs -0 $(SWIFT) format lint --strict --parallel

format:
	git ls-files -z '*.swift' | xargs -0 $(SWIFT) format format --parallel --in-place

clean:
	rm -rf .build
