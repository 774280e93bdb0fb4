# Pinned Debian 12 (bookworm) kernels the module is built and tested against.
# One place only: scripts/*, the Makefile and the tests read these names.
# To move to a newer ABI, change the two lines below and run `make check`.
#
# KREL_<line> is the kernel release (uname -r); KBUILD_<line> names the
# linux-kbuild package the headers need beside them.
KREL_6_1   := 6.1.0-57-amd64
KBUILD_6_1 := linux-kbuild-6.1
KREL_6_12   := 6.12.117+deb12-amd64
KBUILD_6_12 := linux-kbuild-6.12.117+deb12

# Kernels built from source by scripts/build-kernel, booted as
# `scripts/vm --kernel <variant>`: Debian 12's own linux-source-6.1 at a
# pinned version, configured as tinyconfig + the tests/kernel/*.config
# fragments KCONF_<variant> names (in order). KREL_<variant> is the release
# that gives (source version + the fragments' CONFIG_LOCALVERSION);
# build-kernel checks it. A variant is a line like 6.1 and 6.12 everywhere
# else (scripts/vm, tests/run-all, the Makefile, tests/modules).
# KAPPEND_<line> is added to the kernel command line scripts/vm boots it
# with: pci=noacpi routes PCI interrupts by the BIOS's $PIR table, not by
# ACPI's _PRT, which the debug kernel's AML interpreter is too slow to run
# under TCG within ACPI's 30 s loop limit (AE_AML_LOOP_TIMEOUT, 30 s lost).
KSRC_PKG      := linux-source-6.1
KSRC_VERSION  := 6.1.192-3
KREL_debug    := 6.1.192-htbx-debug
KCONF_debug   := base debug
KAPPEND_debug := pci=noacpi
KREL_hz100    := 6.1.192-htbx-hz100
KCONF_hz100   := base hz100
KAPPEND_hz100 := pci=noacpi
