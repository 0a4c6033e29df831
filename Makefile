# SPU -- top-level Makefile.
#   make deps    install the Debian packages the build and tests use
#   make         build everything into build/
#   make run     the demo: an int8 GEMM on the default device, checked bit for bit
#   make test    the GoogleTest suites (unit, numerics, rtl, e2e)
#   make lint    verilator -Wall --lint-only + yosys checks on the RTL
#   make install PREFIX=/usr/local
# Each layer keeps its rules in its own fragment (host/build.mk, hw/build.mk,
# synth/build.mk, tests/build.mk); this file holds what they share.

SHELL      := /bin/bash
BUILD      ?= build
PREFIX     ?= /usr/local
CC         ?= cc
CXX        ?= c++
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

CFLAGS_COMMON := -std=c11 -Wall -Wextra -Werror -O2 -g -D_DEFAULT_SOURCE -D_GNU_SOURCE -fPIC
CXXFLAGS_COMMON := -std=c++17 -Wall -Wextra -O2 -g
INCLUDES   := -Ihost/include -Ihw/isa -I$(BUILD)/gen -Ihost/src

# The test objects bake in the checkout's and the build tree's paths
# (-DSPU_SOURCE_DIR / -DSPU_BUILD_DIR). This file holds them and is rewritten
# only when they change, so a build tree copied or moved to another checkout
# rebuilds those objects instead of running the first checkout's files.
PATHS_STAMP := $(BUILD)/gen/paths.txt
$(shell mkdir -p $(BUILD)/gen && p='$(CURDIR) $(abspath $(BUILD))' && \
  { [ "$$(cat $(PATHS_STAMP) 2>/dev/null)" = "$$p" ] || echo "$$p" > $(PATHS_STAMP); })

# Debian packages the build and the tests use; fragments may add more.
DEBS := build-essential pkg-config verilator yosys nextpnr-ice40 fpga-icestorm \
        libusb-1.0-0-dev libftdi1-dev libgtest-dev libcjson-dev zlib1g-dev clang libclang-rt-14-dev \
        python3-numpy

# Test binaries the fragments register; `make test` runs them all.
TEST_BINS :=

.PHONY: all deps run test lint clean install
all:

include host/build.mk
# every other layer's fragment: hw/build.mk, synth/build.mk, tests/<suite>/build.mk ...
include $(filter-out host/build.mk tests/build.mk,$(sort $(wildcard */build.mk */*/build.mk)))
include tests/build.mk

# --- deps: idempotent, quiet when everything is present --------------------
deps:
	@missing=$$(for p in $(DEBS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing:" $$missing; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

RUN_DEVICE ?= sim
run: deps all
	$(BUILD)/bin/spu gemm --device $(RUN_DEVICE) --m 64 --n 64 --k 512 --dtype int8 --seed 1
	$(BUILD)/bin/spu gemm --device $(RUN_DEVICE) --m 64 --n 64 --k 256 --dtype e4m3 --seed 1
	@$(MAKE) --no-print-directory run-infer

# fuzz-smoke (tests/fuzz/build.mk): the parsers under libFuzzer, fixed seed
test: deps all $(TEST_BINS) fuzz-smoke
	@tests/run_tests.sh $(TEST_BINS)

clean:
	rm -rf $(BUILD)
