# SPDX-License-Identifier: GPL-2.0
#
# sch_htbx - user entry points. A thin front end: the module is built by
# Kbuild, the tc plugin by tc/Makefile, the guest tools by tools/Makefile,
# the unit tests by tests/unit/Makefile.
#
# The inner loop (seconds to a minute):
#   make -C tests/unit check	userspace unit tests of the core (no root, no kernel)
#   tests/run-all -k 6.12 -s leaves  one VM suite on one kernel line (after make lines)
#
#   make			module for the running kernel (/lib/modules/$(uname -r)/build)
#				+ tc plugin + tools; fetches nothing
#   make KVER=<release>		module for one kernel (cache or /lib/modules/<release>/build)
#   make KERNELDIR=<dir>	module for one header tree
#   make install		build and install for the running kernel (modules_install
#				+ depmod) and q_htbx.so; honours DESTDIR, KVER, KERNELDIR
#   make lines			module for every kernel line of lines/versions.mk (fetched
#				into the cache) and the built ones, once built + plugin + tools
#   make built-kernels		build the debug and kcsan kernels from source (cached)
#   make check			style, unit tests, plugin tests, VM suites on every kernel
#				line (builds the debug and kcsan kernels first, once)
#   make demo			boot a VM, shape three flows with htbx and htb, print a table
#   make style			checkpatch, kernel-doc and sparse over the kernel-side sources,
#				0 warnings each (scripts/style; make check runs it)
#   make fuzz-long		htbx-fuzz, 100000 operations per kernel line (HTBX_FUZZ_SEED=N)
#   make dkms-install		sources into /usr/src/sch_htbx-$(VERSION) and dkms add
#   make deb			Debian packages sch-htbx-dkms and tc-htbx into build/deb/
#   make clean / distclean	build output / also the kernel cache
#
# Quiet unless V=1.

include lines/versions.mk

TOP		:= $(CURDIR)
HTBX_CACHE	?= $(shell $(TOP)/lines/cachedir)
export HTBX_CACHE
VERSION		:= $(shell git -C $(TOP) describe --always --dirty 2>/dev/null || echo 0.1)
PREFIX		?= /usr
DESTDIR		?=
DEPMOD		?= depmod
# The Debian lines of versions.mk (KBUILD_<key>; "6_12" is line 6.12).
LINES		?= $(sort $(subst _,.,$(patsubst KBUILD_%,%,$(filter KBUILD_%,$(.VARIABLES)))))

ifeq ($(V),1)
Q :=
MAKEFLAGS_SUB :=
else
Q := @
MAKEFLAGS_SUB := -s
endif

cache_tree = $(HTBX_CACHE)/kernels/$(1)/root/usr/src/linux-headers-$(1)

# Kernels built from source (lines/build-kernel): every KCONF_<variant> of
# versions.mk; `make` covers those already built.
BUILT_LINES	:= $(patsubst KCONF_%,%,$(filter KCONF_%,$(.VARIABLES)))
BUILT_KRELS	 = $(foreach v,$(BUILT_LINES),$(if $(wildcard $(HTBX_CACHE)/kernels/$(KREL_$(v))/.complete),$(KREL_$(v))))

# Which kernel tree "make" builds for: build/<release>/sch_htbx.ko. The
# running kernel's unless KERNELDIR or KVER names another.
KVER_RUNNING	:= $(shell uname -r)
ifneq ($(KERNELDIR),)
KTREES := $(KERNELDIR)
else ifneq ($(KVER),)
KTREES := $(if $(wildcard $(call cache_tree,$(KVER))),$(call cache_tree,$(KVER)),/lib/modules/$(KVER)/build)
else
KTREES := /lib/modules/$(KVER_RUNNING)/build
endif

# What "make lines" builds for: every Debian line (fetched) and the built
# kernels already in the cache.
LINE_KRELS  = $(foreach l,$(LINES),$(KREL_$(subst .,_,$(l)))) $(BUILT_KRELS)
LINE_TREES  = $(foreach r,$(LINE_KRELS),$(call cache_tree,$(r)))

# Files the module is built from, the one list of them: linked into
# build/<release>/ so that two kernels can be built side by side from one
# checkout; a directory stands for every file in it. The scripts that
# check, copy or expect them (scripts/checkpatch, scripts/style,
# scripts/dkms-install, tests/host/build.sh and deb.sh) read it: `make -s
# print-module-srcs`, or file by file `make -s print-module-files`.
MODULE_SRCS := Kbuild sch_htbx_main.c sch_htbx.h htbx_opts.h htbx_core.c htbx_core.h htbx_share.c htbx_share.h \
	       htbx_mq.c htbx_mq.h htbx_htb.c htbx_htb.h \
	       psched_clock.h compat include
MODULE_FILES = $(sort $(foreach f,$(MODULE_SRCS),$(if $(wildcard $(f)/.),$(shell find $(f) -type f),$(f))))

.PHONY: all lines setup module line-modules headers tc tools check unit style demo install \
	install-module install-tc fuzz-long deb dkms-install dkms-uninstall clean distclean \
	kernels built-kernels built-modules help print-module-srcs print-module-files

# The plugin and the tools first: they need no kernel headers.
all: tc tools
	$(Q)$(MAKE) --no-print-directory module

lines: tc tools line-modules

kernels:
	$(Q)$(TOP)/lines/fetch-kernels $(LINES) >/dev/null

built-kernels:
	$(Q)$(TOP)/lines/build-kernel $(BUILT_LINES) >/dev/null

# The release a header tree builds for, as uname -r will print it: the
# vermagic (utsrelease.h). Debian's include/config/kernel.release holds the
# upstream version instead (6.1.192, not 6.1.0-57-amd64).
krel_of = $$(sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(1)/include/generated/utsrelease.h 2>/dev/null | grep . || cat $(1)/include/config/kernel.release)
# Header trees without a vmlinux (Debian 6.1) cannot get BTF: skip it
# instead of printing "Skipping BTF generation" on every build.
nobtf_of = $$([ -e $(1)/vmlinux ] || echo CONFIG_DEBUG_INFO_BTF_MODULES=)
# Distribution header trees carry no signing key: install unsigned rather
# than fail sign-file noisily (the kernels here do not force signatures).
nosig_of = $$([ -e $(1)/certs/signing_key.pem ] || echo CONFIG_MODULE_SIG_ALL=)

# The header tree of one kernel (KERNELDIR, KVER or the running one) must be
# there: else say which package gives it, and where the pinned ones are.
headers:
	$(Q)for kd in $(KTREES); do [ -e $$kd/Makefile ] && continue; \
		echo "sch_htbx: no kernel headers at $$kd" >&2; \
		$(if $(KERNELDIR),,echo "  install them: apt-get install linux-headers-$(or $(KVER),$(KVER_RUNNING))" >&2;) \
		echo "  or build for the pinned test kernels instead: make lines" >&2; \
		exit 1; done

# One module build per tree. The release is read from the tree itself.
module: headers
	$(call build_modules,$(KTREES))

# The module for every kernel line (make lines, make check).
line-modules: kernels
	$(call build_modules,$(LINE_TREES))

# The modules of the kernels built from source only (make check, once they are).
built-modules:
	$(call build_modules,$(foreach r,$(BUILT_KRELS),$(call cache_tree,$(r))))

# Each build's output is kept in build/<release>/build.log, and
# build.scratch marks a build that found no object of an earlier one: the
# host job "build" of make check reads those instead of building again.
define build_modules
	$(Q)set -e; for kd in $(1); do \
		rel=$(call krel_of,$$kd); \
		out=$(TOP)/build/$$rel; mkdir -p $$out; \
		for f in $(MODULE_SRCS); do ln -sfn $(TOP)/$$f $$out/$$f; done; \
		echo "  MODULE  build/$$rel/sch_htbx.ko"; \
		rm -f $$out/build.scratch; \
		ls $$out/*.o >/dev/null 2>&1 || touch $$out/build.scratch; \
		rc=0; $(TOP)/lines/kmake $$kd $(MAKEFLAGS_SUB) M=$$out HTBX_VERSION=$(VERSION) \
			$(call nobtf_of,$$kd) $(if $(V),V=$(V)) modules >$$out/build.log 2>&1 || rc=$$?; \
		cat $$out/build.log; \
		[ $$rc = 0 ] || { rm -f $$out/build.scratch; exit $$rc; }; \
	done
endef

tc:
	$(Q)$(MAKE) $(MAKEFLAGS_SUB) -C tc

tools:
	$(Q)$(MAKE) $(MAKEFLAGS_SUB) -C tools

unit:
	$(Q)$(MAKE) $(MAKEFLAGS_SUB) -C tests/unit check

# Installs missing Debian packages and fetches the pinned kernels.
setup:
	$(Q)$(TOP)/scripts/setup

style:
	$(Q)$(TOP)/scripts/style

# make check's builds: the Debian lines' modules mostly wait on the
# archive and dpkg (their suites' build roots, made on first use); the two
# kernels built from source are CPU-bound and, on a fresh machine, take
# half an hour. So the kernels build in the background at nice 10, one
# after the other in versions.mk's order (debug first: its boot is the
# longest job), while tests/run-all starts at once. Each built line's
# exit status goes to build/.built-kernels.<line> once its kernel, module
# and test modules are built, and all of theirs to build/.built-kernels
# at the end. Until then run-all starts only --icount boots (their figures
# count instructions, not the host's time), at nice 19, in the CPU the
# builds leave idle: the Debian lines' at once, a built line's once its
# own file says 0 (tests/run-all, HTBX_BUILD_PENDING). Warm, the builds
# find everything cached and end in seconds.
BUILT_ORDER	:= $(shell sed -n 's/^KCONF_\([A-Za-z0-9_]*\)[[:space:]]*:=.*/\1/p' $(TOP)/lines/versions.mk)

# When make check started (tests/run-all's time budget counts from it).
ifndef HTBX_CHECK_START
HTBX_CHECK_START := $(shell date +%s)
endif
export HTBX_CHECK_START

check: setup
	$(Q)mkdir -p $(TOP)/build; rm -f $(TOP)/build/.built-kernels*; \
	( r=0; for v in $(BUILT_ORDER); do \
		HTBX_NICE=$${HTBX_NICE:-10} $(MAKE) --no-print-directory built-kernels BUILT_LINES=$$v && \
		$(MAKE) --no-print-directory built-modules BUILT_LINES=$$v && \
		$(MAKE) $(MAKEFLAGS_SUB) -C tests/modules KREL=$$($(TOP)/lines/kline krel $$v); l=$$?; \
		[ $$l = 0 ] || r=$$l; \
		echo $$l >$(TOP)/build/.built-kernels.$$v.tmp; \
		mv $(TOP)/build/.built-kernels.$$v.tmp $(TOP)/build/.built-kernels.$$v; \
	  done; \
	  echo $$r >$(TOP)/build/.built-kernels.tmp; \
	  mv $(TOP)/build/.built-kernels.tmp $(TOP)/build/.built-kernels; exit $$r ) & built=$$!; \
	$(MAKE) --no-print-directory lines; rc=$$?; \
	if [ $$rc = 0 ]; then \
		HTBX_BUILD_PENDING=$(TOP)/build/.built-kernels $(TOP)/tests/run-all; rc=$$?; \
	fi; \
	wait $$built; b=$$?; [ $$rc = 0 ] && [ $$b = 0 ]

# The fuzzer's long run: the fuzz suite with 100000 operations (seed 2 unless
# HTBX_FUZZ_SEED is set) on 6.1, 6.12 and debug. Its last result is in bench/README.md.
fuzz-long: setup
	$(Q)$(MAKE) --no-print-directory lines
	$(Q)HTBX_FUZZ_OPS=100000 HTBX_FUZZ_SEED=$${HTBX_FUZZ_SEED:-2} HTBX_CHECK_BUDGET=40000 HTBX_VM_TIMEOUT=3600 \
		$(TOP)/tests/run-all -s fuzz

deb:
	$(Q)$(TOP)/scripts/make-deb

demo: setup
	$(Q)$(MAKE) --no-print-directory lines
	$(Q)$(TOP)/scripts/demo

install: install-module install-tc

install-module: headers
	$(Q)set -e; for kd in $(KTREES); do \
		rel=$(call krel_of,$$kd); \
		out=$(TOP)/build/$$rel; mkdir -p $$out; \
		for f in $(MODULE_SRCS); do ln -sfn $(TOP)/$$f $$out/$$f; done; \
		$(MAKE) $(MAKEFLAGS_SUB) -C $$kd M=$$out HTBX_VERSION=$(VERSION) \
			$(call nobtf_of,$$kd) modules; \
		$(MAKE) $(MAKEFLAGS_SUB) -C $$kd M=$$out $(call nosig_of,$$kd) \
			$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install; \
		$(if $(DESTDIR),echo "  (DESTDIR set: run '$(DEPMOD) $$rel' on the target)",$(DEPMOD) $$rel); \
	done

install-tc:
	$(Q)$(MAKE) $(MAKEFLAGS_SUB) -C tc install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)

dkms-install:
	$(Q)$(TOP)/scripts/dkms-install $(VERSION)

dkms-uninstall:
	$(Q)$(TOP)/scripts/dkms-install --remove $(VERSION)

clean:
	$(Q)rm -rf build
	$(Q)$(MAKE) $(MAKEFLAGS_SUB) -C tc clean
	$(Q)$(MAKE) $(MAKEFLAGS_SUB) -C tools clean
	$(Q)$(MAKE) $(MAKEFLAGS_SUB) -C tests/unit clean

distclean: clean
	$(Q)rm -rf $(HTBX_CACHE)

print-module-srcs:
	@echo $(MODULE_SRCS)

print-module-files:
	@echo $(MODULE_FILES)

help:
	@sed -n '3,/^# Quiet/p' Makefile | sed 's/^# \{0,1\}//'
