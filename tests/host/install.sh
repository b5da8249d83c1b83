#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test: "make install" and DKMS for every kernel from scripts/kernels
# that has its headers on the host.
# After "make install" modinfo must name the copy under updates/; after
# "make uninstall" it must not.  Then dkms add/build/install for each kernel,
# modinfo again, and dkms remove.  Leaves the system as it found it.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
rc=0
say() { echo "install-test: $*"; }
bad() { echo "install-test: FAIL: $*"; rc=1; }

# Name the module file modinfo resolves for KVER.
modfile() { modinfo -k "$1" -F filename ib_srpt 2>/dev/null || true; }

# The kernels whose headers are on this host: a kernel of another Debian
# release is built in its chroot (scripts/chroot) and installed on a host
# of that release, not on this one.
kernels=()
for k in $(scripts/kernels); do
	[ -f "/lib/modules/$k/build/Makefile" ] && kernels+=("$k")
done
for k in "${kernels[@]}"; do
	make -s KVER="$k" install >/dev/null
	f=$(modfile "$k")
	case $f in
	/lib/modules/"$k"/updates/ib_srpt.ko*) say "$k: make install -> $f" ;;
	*) bad "$k: after make install modinfo names '$f'" ;;
	esac
	make -s KVER="$k" uninstall >/dev/null
	f=$(modfile "$k")
	case $f in
	*/updates/*) bad "$k: after make uninstall modinfo still names '$f'" ;;
	*) say "$k: make uninstall -> ${f:-no ib_srpt}" ;;
	esac
done

make -s dkms-remove >/dev/null 2>&1 || true
make -s dkms-add
for k in "${kernels[@]}"; do
	if ! dkms build -m ib_srpt -v "$VERSION" -k "$k" >/tmp/dkms-build.log 2>&1; then
		bad "$k: dkms build failed"
		cat /tmp/dkms-build.log
		continue
	fi
	if ! dkms install -m ib_srpt -v "$VERSION" -k "$k" >/tmp/dkms-install.log 2>&1; then
		bad "$k: dkms install failed"
		cat /tmp/dkms-install.log
		continue
	fi
	f=$(modfile "$k")
	case $f in
	/lib/modules/"$k"/updates/*ib_srpt.ko*) say "$k: dkms install -> $f" ;;
	*) bad "$k: after dkms install modinfo names '$f'" ;;
	esac
done
dkms status -m ib_srpt
make -s dkms-remove >/dev/null 2>&1
for k in "${kernels[@]}"; do
	case $(modfile "$k") in
	*/updates/*) bad "$k: ib_srpt still installed after dkms remove" ;;
	esac
done
[ $rc = 0 ] && say "PASS"
exit $rc
