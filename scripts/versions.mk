# Pinned Debian 12 (bookworm) kernels the module is built and tested against.
# One place only: scripts/*, the Makefile and the tests read these names.
# To move to a newer ABI, change the two lines below and run `make check`.
#
# KREL_<line> is the kernel release (uname -r); KPKG_<line> names the
# linux-kbuild package the headers need beside them.
KREL_6_1   := 6.1.0-57-amd64
KBUILD_6_1 := linux-kbuild-6.1
KREL_6_12   := 6.12.117+deb12-amd64
KBUILD_6_12 := linux-kbuild-6.12.117+deb12
