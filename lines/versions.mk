# The Debian kernels the module is built and tested against, one line each.
# One place only: lines/*, scripts/*, the Makefile and the tests read these names.
# To move a line to a newer ABI, change its KREL/KBUILD and run `make check`.
#
# A line's name is its key with "." for "_" (KREL_6_12 -> 6.12).
# KREL_<line> is the kernel release (uname -r); KBUILD_<line> names the
# linux-kbuild package the headers need beside them; SUITE_<line> the
# Debian suite both come from (default bookworm, the host's own; others
# through lines/apt-suite). A line of another suite builds the module in
# a build root of that suite (lines/kmake: its gcc, binutils, pahole and
# glibc), as that suite's DKMS would. SUITES_<line>, if set, is the only
# VM suites the line runs (tests/run-all): trixie's 6.12.117 is the source
# of the 6.12 line built by trixie's toolchain, so it runs the module suite
# (load, configure, traffic, unload) and its package test (deb-trixie),
# and the rest on the 6.12 line only.
KREL_6_1      := 6.1.0-57-amd64
KBUILD_6_1    := linux-kbuild-6.1
KREL_6_12     := 6.12.117+deb12-amd64
KBUILD_6_12   := linux-kbuild-6.12.117+deb12
# Debian 13 (trixie), stable
KREL_trixie   := 6.12.117+deb13-amd64
KBUILD_trixie := linux-kbuild-6.12.117+deb13
SUITE_trixie  := trixie
SUITES_trixie := module
# trixie-backports, the newest 7.x (7.x packaging: linux-binary/modules/base)
KREL_7_3      := 7.3.4+deb13-amd64
KBUILD_7_3    := linux-kbuild-7.3.4+deb13
SUITE_7_3     := trixie-backports
# Debian 11 (bullseye), oldstable LTS boxes
KREL_5_10     := 5.10.0-46-amd64
KBUILD_5_10   := linux-kbuild-5.10
SUITE_5_10    := bullseye
# Debian unstable (sid), the newest 7.x there (gcc-16, binutils 2.46)
KREL_sid      := 7.2.13+deb14-amd64
KBUILD_sid    := linux-kbuild-7.2.13+deb14
SUITE_sid     := sid
# bookworm's PREEMPT_RT flavour of 6.12 (the same headers' -rt build)
KREL_rt       := 6.12.117+deb12-rt-amd64
KBUILD_rt     := linux-kbuild-6.12.117+deb12

# The lines where rates are judged (the rate suites' figures come from
# htbx_core.c and the guest clock, the same on every kernel): bookworm's
# 6.12 and the newest 7.x. suite-leaves runs its counter and drop checks
# on every line, its rate windows only here.
RATE_LINES    := 6.12 7.3

# The lines whose suites asking for no clock in their vm-args boot with
# the host's: TCG's guest clock follows the host's time, so it runs late
# and jumps as a loaded host makes it (kcsan's multi-threaded TCG needs
# it, and rt and 7.3 keep the qdisc's timers under it). On every other
# line their boot (tests/run-all's @group) runs under --icount with two
# vCPUs, where the guest's idle time costs nothing and its figures
# repeat.
WALLCLOCK_LINES := 7.3 rt kcsan

# Kernels built from source by lines/build-kernel, booted as
# `lines/vm --kernel <variant>`: Debian 12's own linux-source-6.1 at a
# pinned version, configured as tinyconfig + the tests/kernel/*.config
# fragments KCONF_<variant> names (in order). KREL_<variant> is the release
# that gives (source version + the fragments' CONFIG_LOCALVERSION);
# build-kernel checks it. A variant is a line like 6.1 and 6.12 everywhere
# else (lines/vm, tests/run-all, the Makefile, tests/modules).
# KAPPEND_<line> is added to the kernel command line lines/vm boots it
# with: pci=noacpi routes PCI interrupts by the BIOS's $PIR table, not by
# ACPI's _PRT, which the debug kernel's AML interpreter is too slow to run
# under TCG within ACPI's 30 s loop limit (AE_AML_LOOP_TIMEOUT, 30 s lost).
# kcsan boots with panic_on_warn=0: KCSAN panics at its first report
# otherwise, whoever's race it is, and lines/vm judges the reports itself
# (a WARN still fails the boot by its log line).
# ACCEL_<line> is the accelerator lines/vm boots it on (default:
# single-threaded TCG): kcsan's tcg is multi-threaded TCG, its two vCPUs
# on the host's two cores at once, where races between TX queues happen.
KSRC_PKG      := linux-source-6.1
KSRC_VERSION  := 6.1.192-3
KREL_debug    := 6.1.192-htbx-debug
KCONF_debug   := base debug
KAPPEND_debug := pci=noacpi
KREL_kcsan    := 6.1.192-htbx-kcsan
KCONF_kcsan   := base kcsan
KAPPEND_kcsan := pci=noacpi panic_on_warn=0
ACCEL_kcsan   := tcg
