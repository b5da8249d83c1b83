# SPDX-License-Identifier: GPL-2.0-only
#
# Out-of-tree SRP target driver ib_srpt.ko.
#
#   make [KVER=<release>|KDIR=<build dir>] [W=1] [C=1]   build the module
#   make install / uninstall          into /lib/modules/$KVER/updates + depmod
#   make dkms-install / dkms-remove   register with DKMS for every kernel
#   make deb                          a Debian package of the DKMS sources:
#                                     build/deb/ib-srpt-dkms_<version>_all.deb
#   make style                        checkpatch --strict on our sources
#                                     (and tests/kmod/)
#   make unit                         unit tests and the C++ SRP test client
#   make bench [KVER=<release>] [BENCH_ARGS=...]  ours vs in-tree (scripts/bench)
#   make bench-insn [KVER=...] [BENCH_ARGS=...]  the same in guest instructions
#                                     per I/O (scripts/bench --insn)
#   make debug-kernel                 the module for scripts/debug-kernel's
#                                     kernel (built first if not cached)
#   make layers-obj [KVER=...] SRPT_LAYERS=aux|obj  for scripts/check-layers
#   make testmod [KVER=...] [W=1] [C=1]  test-only modules (tests/kmod/)
#                                     into build/$KVER/kmod/, never installed
#   make clean
#
# Objects for each kernel go to build/$KVER/, so builds for several kernels
# can sit side by side.

PROJECT  := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VERSION  := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(PROJECT)/dkms.conf)

ifdef KDIR
KVER     ?= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
else
KVER     ?= $(shell uname -r)
KDIR     := /lib/modules/$(KVER)/build
# A kernel whose headers the host does not have, but a chroot of its own
# Debian release does (scripts/chroot, made by scripts/setup), is built
# there, with that release's compiler and kbuild tools.
ifeq ($(wildcard $(KDIR)/Makefile),)
CHROOT   := $(shell $(PROJECT)/scripts/chroot find $(KVER) 2>/dev/null)
endif
endif
# How Kbuild is run: on the host, or in the kernel's chroot.
IN_CHROOT := $(if $(CHROOT),$(PROJECT)/scripts/chroot run $(KVER))
# C=1 on a kernel whose kbuild wants a newer sparse than its Debian
# release has: the sparse of scripts/sparse, kept on (nothing for other
# kernels; SPARSE-MISSING when it is not built, see check-kdir).  Kbuild
# still says the checker is "not available": it misses its test script,
# and the CHECK lines show sparse running.
ifneq ($(filter-out 0,$(C)),)
SPARSE_ARGS := $(shell $(PROJECT)/scripts/sparse kbuild-args $(KDIR) \
		"$(CHROOT)" $(C) || echo SPARSE-MISSING)
endif

BUILD    := $(PROJECT)/build/$(KVER)
MODULE   := $(BUILD)/ib_srpt.ko
SOURCES  := $(wildcard $(PROJECT)/src/*.c $(PROJECT)/src/*.h $(PROJECT)/include/*.h)
KSOURCES := $(filter-out %_test.c,$(SOURCES))
# Test-only kernel modules (make testmod): held to the same style.
TSOURCES := $(wildcard $(PROJECT)/tests/kmod/*/*.c)
INSTALLED_KDIRS := $(wildcard /lib/modules/*/build)

CHECKPATCH := $(PROJECT)/build/tools/checkpatch/scripts/checkpatch.pl

.PHONY: all modules check-kdir clean install uninstall dkms-add dkms-install \
	dkms-remove style unit man bench debug-kernel

all: modules

check-kdir:
	@if [ -z "$(CHROOT)" ] && [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "ib_srpt: no kernel build directory at '$(KDIR)'." >&2; \
		echo "  Install the headers (e.g. linux-headers-$(KVER)) or pick one of:" >&2; \
		for d in $(INSTALLED_KDIRS); do \
			k=$${d%/build}; echo "    make KVER=$${k##*/}" >&2; done; \
		echo "  (scripts/setup --kernel KVER installs a supported kernel's headers)" >&2; \
		exit 1; \
	fi
	@[ "$(SPARSE_ARGS)" != SPARSE-MISSING ]

# Mirror the sources as symlinks into build/$KVER; Kbuild then writes its
# objects there and never into src/.
modules: check-kdir
	@mkdir -p $(BUILD)
	@cp -rsf $(PROJECT)/src $(PROJECT)/include $(PROJECT)/Kbuild \
		$(PROJECT)/dkms.conf $(BUILD)/
	$(IN_CHROOT) $(MAKE) -C $(KDIR) M=$(BUILD) $(SPARSE_ARGS) modules

clean:
	rm -rf $(BUILD)

install: modules
	$(MAKE) -C $(KDIR) M=$(BUILD) INSTALL_MOD_DIR=updates \
		CONFIG_MODULE_SIG_ALL= modules_install
	depmod -a $(KVER)

uninstall:
	rm -f /lib/modules/$(KVER)/updates/ib_srpt.ko \
		/lib/modules/$(KVER)/updates/ib_srpt.ko.xz \
		/lib/modules/$(KVER)/updates/ib_srpt.ko.zst \
		/lib/modules/$(KVER)/updates/ib_srpt.ko.gz
	depmod -a $(KVER)

# DKMS wants the sources under /usr/src/<name>-<version>.
DKMS_SRC := /usr/src/ib_srpt-$(VERSION)

# Copy the sources to /usr/src and register them (once per version).
dkms-add:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r $(PROJECT)/src $(PROJECT)/include $(PROJECT)/Kbuild \
		$(PROJECT)/Makefile $(PROJECT)/dkms.conf $(DKMS_SRC)/
	dkms status -m ib_srpt -v $(VERSION) | grep -q . || \
		dkms add -m ib_srpt -v $(VERSION)

dkms-install: dkms-add
	dkms build -m ib_srpt -v $(VERSION) -k $(KVER)
	dkms install -m ib_srpt -v $(VERSION) -k $(KVER)

dkms-remove:
	-dkms remove -m ib_srpt -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# The Debian package ib-srpt-dkms (debian/), built by dpkg-buildpackage in
# a copy of the tree under build/deb/src (scripts/mkdeb), with its version
# from git.
.PHONY: deb tools unit
deb:
	$(PROJECT)/scripts/mkdeb $(PROJECT)/build/deb

$(CHECKPATCH):
	$(PROJECT)/scripts/get-kernel-scripts $(PROJECT)/build/tools/checkpatch

style: $(CHECKPATCH)
	perl $(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES \
		-f $(KSOURCES) $(TSOURCES)

# The SRP tools (tools/: srp-conformance, srp-dm), built into build/client,
# without running their tests: what the guest suite needs.
tools:
	@if [ -f $(PROJECT)/build/client/CMakeCache.txt ] && \
	    ! grep -qx 'CMAKE_HOME_DIRECTORY:INTERNAL=$(PROJECT)/tools' \
		$(PROJECT)/build/client/CMakeCache.txt; then \
		echo "build/client was configured elsewhere: removed"; \
		rm -rf $(PROJECT)/build/client; \
	fi
	cmake -S $(PROJECT)/tools -B $(PROJECT)/build/client
	cmake --build $(PROJECT)/build/client -j2

# Unit tests: the pure SRP code (tests/unit), the SRP tools (tools/:
# srp-conformance with its library and tests, srp-dm), built into
# build/client, and the benchmark's insn-report on a synthetic run.  A
# build/client configured from another source directory (the client lived
# in tests/client) is started afresh.
unit: tools
	cmake -S $(PROJECT)/tests/unit -B $(PROJECT)/build/unit
	cmake --build $(PROJECT)/build/unit -j2
	ctest --test-dir $(PROJECT)/build/unit --output-on-failure
	ctest --test-dir $(PROJECT)/build/client --output-on-failure
	$(MAKE) -C $(PROJECT)/tools/insn check

# Section-9 man pages of the kernel-doc comments in src/*.c, in
# build/man/man9 (man -l build/man/man9/<function>.9); fails on any
# kernel-doc warning.
man:
	$(PROJECT)/scripts/mkman $(PROJECT)/build/man

# Benchmark against the in-tree ib_srpt in a QEMU guest (scripts/bench, as
# root; not part of the tests). KVER only when given on the command line:
# scripts/bench defaults to the newest kernel of scripts/kernels.
bench:
	$(PROJECT)/scripts/bench $(if $(filter command line,$(origin KVER)),--kver $(KVER)) $(BENCH_ARGS)

# The deterministic benchmark (docs/benchmark.md): guest instructions per
# I/O of both drivers, counted by a QEMU TCG plugin (tools/insn).
.PHONY: bench-insn
bench-insn:
	$(PROJECT)/scripts/bench --insn $(if $(filter command line,$(origin KVER)),--kver $(KVER)) $(BENCH_ARGS)

# The module for the debug kernel of scripts/debug-kernel (KASAN, lockdep,
# ...), which is built and cached outside the tree on first use (about
# 15 min); tests/guest/run --debug-kernel does this itself.
debug-kernel:
	dk=$$($(PROJECT)/scripts/debug-kernel | tail -n 1) && \
		$(MAKE) -C $(PROJECT) KDIR=$$dk/build

# The object of the headers' inline functions for scripts/check-layers:
# build/$KVER/layers/srpt_headers.o from the srpt_headers.c the script
# writes, compiled with the module's flags (SRPT_LAYERS=aux lists the
# functions, SRPT_LAYERS=obj compiles them; see Kbuild).
.PHONY: layers-obj
layers-obj: check-kdir
	@mkdir -p $(BUILD)/layers
	@cp -rsf $(PROJECT)/src $(PROJECT)/include $(PROJECT)/Kbuild \
		$(PROJECT)/dkms.conf $(BUILD)/
	$(IN_CHROOT) $(MAKE) -C $(KDIR) M=$(BUILD) SRPT_LAYERS=$(SRPT_LAYERS) \
		layers/srpt_headers.o

# Test-only kernel modules (tests/kmod/): built like ib_srpt.ko, into
# build/$KVER/kmod/<name>/, never installed; the guest suite loads them by
# path.  srp_ibcm_init is the IB/CM SRP initiator of tests/guest/ibcm.sh.
.PHONY: testmod
testmod: check-kdir
	$(MAKE) -C $(PROJECT)/tests/kmod/srp_ibcm_init KDIR=$(KDIR) \
		KVER=$(KVER) BUILD=$(BUILD)/kmod/srp_ibcm_init \
		IN_CHROOT="$(IN_CHROOT)" CHROOT="$(CHROOT)" \
		SPARSE_ARGS="$(SPARSE_ARGS)"
