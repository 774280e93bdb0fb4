#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-trixie.sh - the Debian packages on Debian 13: tests/host/deb.sh for
# trixie (apt install in a trixie build root, dkms builds for 6.12+deb13
# and, once trixie-backports' 7.x headers come, for those; each installed
# module and the plugin run in a VM of that kernel).
exec bash "$(dirname "$0")/deb.sh" trixie
