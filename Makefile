# Set-up and entry points on a fresh Debian 12 machine (run as root).
#   make demo   install what is missing, build, find the dining philosophers' deadlock
#   make test   install what is missing, build, run the whole test suite
#   make check  build, run the quick tests (unit, model, one example per strategy)
#   make install PREFIX=DIR   build, then install the tools into DIR (default /usr/local)

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:/usr/lib/llvm-22/bin:$(PATH)
APT_PACKAGES := $(shell grep -v '^\#' .ci/apt-packages)
BIN := target/release
EXAMPLES_BUILD := target/examples

.PHONY: deps build demo test check bench clean-examples install
PREFIX ?= /usr/local
# The executables `make install` puts in PREFIX/bin (reach-c++ is a link to reach-cc).
TOOLS := reach-native reach-cc reach-cxx reach-instrument reach-rustc cargo-reach
DOCS := README.md ARCHITECTURE.md BENCHMARKS.md

deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do dpkg -s "$$p" >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup) first"; exit 2; }
	# The Rust examples' crates (parking_lot, crossbeam, lock_api): the tests
	# build them offline.
	cargo fetch --manifest-path rust-examples/Cargo.toml

build: deps
	cargo build --release --workspace
	ln -sf reach-cc $(BIN)/reach-c++

demo: build
	mkdir -p $(EXAMPLES_BUILD)
	$(BIN)/reach-cc -O1 -g c-examples/dining_philosophers.c -o $(EXAMPLES_BUILD)/dining_philosophers
	@echo "+ reach-native $(EXAMPLES_BUILD)/dining_philosophers"
	@$(BIN)/reach-native --schedule-out $(EXAMPLES_BUILD)/dining.schedule $(EXAMPLES_BUILD)/dining_philosophers; \
	status=$$?; \
	if [ $$status -ne 1 ]; then echo "expected a deadlock (exit status 1), got $$status"; exit 1; fi; \
	echo "+ reach-native --replay $(EXAMPLES_BUILD)/dining.schedule $(EXAMPLES_BUILD)/dining_philosophers"; \
	$(BIN)/reach-native --quiet --replay $(EXAMPLES_BUILD)/dining.schedule $(EXAMPLES_BUILD)/dining_philosophers >/dev/null; \
	status=$$?; \
	if [ $$status -ne 1 ]; then echo "replay did not reproduce the deadlock"; exit 1; fi; \
	echo "replay reproduced the deadlock"

# One cargo run builds the tools and every test binary, so that the
# driver's library and its unit-test build compile side by side.
test: deps
	cargo build --release --workspace --all-targets
	ln -sf reach-cc $(BIN)/reach-c++
	scripts/test.sh

check: build
	scripts/test.sh --check

bench: build
	scripts/bench.sh

clean-examples:
	rm -rf $(EXAMPLES_BUILD)

# Each tool finds its siblings from its own path (bin/ beside it, lib/ and
# include/ beside bin/), so PREFIX/bin on PATH is all they need.
install: build
	@for t in $(TOOLS) libreach_runtime.so; do \
	  test -e $(BIN)/$$t || { echo "$(BIN)/$$t is missing: build the workspace first"; exit 2; }; \
	done
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/doc/reach-native
	install -m 755 $(addprefix $(BIN)/,$(TOOLS)) $(DESTDIR)$(PREFIX)/bin/
	ln -sf reach-cc $(DESTDIR)$(PREFIX)/bin/reach-c++
	install -m 644 $(BIN)/libreach_runtime.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/reach.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(DOCS) $(DESTDIR)$(PREFIX)/share/doc/reach-native/
	cp -R docs/. $(DESTDIR)$(PREFIX)/share/doc/reach-native/docs/
