#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test of the Debian package (make deb) on a fresh Debian 12 system: a
# throw-away bookworm chroot (mmdebstrap minbase, from the host's Debian
# mirror, with an apt configuration of its own) under /var/tmp, removed at
# the end.  In it, with dkms and the headers and images of the two bookworm
# kernels of scripts/kernels:
#   - apt-get install ./ib-srpt-dkms_*.deb builds and installs the module
#     for both: modinfo -k names the DKMS copy under updates/, of the
#     package's version;
#   - the headers of another supported kernel installed afterwards (the
#     PREEMPT_RT flavour of the 6.1 ABI) get it built too (the dkms hook);
#   - apt-get purge leaves none of the package's files, no DKMS tree and no
#     built module, and modinfo names the in-tree driver again.
# lintian on the .deb (on the host) must report no error.
#
# The images' in-tree ib_srpt.ko is what modinfo must name before the
# package and after the purge.  To keep the test cheap, dpkg in the chroot
# unpacks only their InfiniBand and target modules (path-exclude; depmod
# indexes what is there) and does not sync each file (force-unsafe-io),
# and a stub package meets their initramfs dependency: the chroot boots
# nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
rc=0
say() { echo "deb-test: $*"; }
bad() { echo "deb-test: FAIL: $*"; rc=1; }
die() { echo "deb-test: FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root"
for t in mmdebstrap lintian dpkg-buildpackage dh_dkms unshare; do
	command -v "$t" >/dev/null || die "$t missing (scripts/setup installs it)"
done

# The bookworm kernels: the generic ones get images and headers before the
# package; the first PREEMPT_RT one gets headers after it.
kernels=() late=""
while read -r k rel; do
	[ "$rel" = bookworm ] || continue
	case $k in
	*-rt-amd64) [ -n "$late" ] || late=$k ;;
	*) kernels+=("$k") ;;
	esac
done < <(scripts/kernels --table)
[ ${#kernels[@]} -ge 1 ] && [ -n "$late" ] ||
	die "scripts/kernels names no bookworm kernel (apt-get update first)"
say "kernels ${kernels[*]}, then $late"

tmp=$(mktemp -d /var/tmp/ib_srpt-deb.XXXXXX)
root=$tmp/root
cleanup() {
	# Everything was mounted in mount namespaces that are gone by now;
	# whatever is still mounted below $tmp is unmounted before removal.
	findmnt -rn -o TARGET | grep "^$tmp/" | sort -r | xargs -r umount -l || true
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

make -s deb >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; die "make deb failed"; }
version=$(scripts/mkdeb --version)
deb=build/deb/ib-srpt-dkms_${version}_all.deb
[ -f "$deb" ] || die "make deb made no $deb"
say "built $deb"

# lintian fails on an error tag (its default --fail-on); its tags are shown.
# (As root it also says that root is not recommended: not shown.)
if lintian "$deb" >"$tmp/lintian.out" 2>"$tmp/lintian.err"; then
	say "lintian: no error"
else
	bad "lintian reports errors"
	sed 's/^/deb-test: lintian: /' "$tmp/lintian.err"
fi
sed 's/^/deb-test: lintian: /' "$tmp/lintian.out"

# bookworm's suites on the host's mirror (scripts/chroot sources).
mapfile -t sources < <(scripts/chroot sources bookworm) ||
	die "the host's apt sources name no Debian and security mirror"
[ ${#sources[@]} -gt 0 ] || die "no apt sources for bookworm"

# in_root CMD...: CMD in the chroot, with /dev and /proc mounted in a mount
# namespace of its own, so that nothing stays mounted after it.
in_root() {
	unshare -m -- /bin/sh -ec '
		root=$1
		shift
		mount --make-rprivate /
		mount --rbind /dev "$root/dev"
		mount -t proc proc "$root/proc"
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' sh "$root" "$@"
}

# The stub that stands in for an initramfs generator.
mkdir -p "$tmp/stub/DEBIAN"
cat >"$tmp/stub/DEBIAN/control" <<EOF
Package: ib-srpt-test-no-initramfs
Version: 1
Architecture: all
Maintainer: ib_srpt tests <root@localhost>
Provides: linux-initramfs-tool
Description: no initramfs: tests/host/deb.sh's chroot boots no kernel
EOF
dpkg-deb -b "$tmp/stub" "$tmp/stub.deb" >/dev/null

pkgs=dkms
for k in "${kernels[@]}"; do
	pkgs+=",linux-headers-$k,linux-image-$k-unsigned"
done
start=$SECONDS
# mmdebstrap too runs in a mount namespace of its own.  The stub is given
# by its path, which dpkg in the chroot sees at the same place.
if ! unshare -m -- /bin/sh -ec 'mount --make-rprivate / && exec "$@"' sh \
	mmdebstrap --variant=minbase --mode=root \
	--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
	--skip=cleanup/apt/lists --dpkgopt=force-unsafe-io \
	--dpkgopt='path-exclude=/lib/modules/*/kernel/*' \
	--dpkgopt='path-include=/lib/modules/*/kernel/drivers/infiniband/*' \
	--dpkgopt='path-include=/lib/modules/*/kernel/drivers/target/*' \
	--setup-hook='mkdir -p "$1'"$tmp"'" && cp '"$tmp"'/stub.deb "$1'"$tmp"'/"' \
	--include="$tmp/stub.deb" --include="$pkgs" \
	bookworm "$root" "${sources[@]}" >"$tmp/mmdebstrap.log" 2>&1; then
	tail -n 30 "$tmp/mmdebstrap.log"
	die "mmdebstrap failed"
fi
say "bookworm chroot with dkms, headers and images ($((SECONDS - start)) s)"

# modfile KVER: the ib_srpt module modinfo resolves for KVER, if any.
modfile() { in_root modinfo -k "$1" -n ib_srpt 2>/dev/null || true; }
intree=kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko
for k in "${kernels[@]}"; do
	f=$(modfile "$k")
	case $f in
	/lib/modules/"$k"/$intree*) ;;
	*) die "$k: before the package modinfo names '$f', not the in-tree driver" ;;
	esac
done

# dkms_copy KVER: the DKMS-built module of this version must be the one
# modinfo names.
dkms_copy() {
	local k=$1 f v
	f=$(modfile "$k")
	case $f in
	/lib/modules/"$k"/updates/dkms/ib_srpt.ko*) ;;
	*) bad "$k: modinfo names '$f', not the DKMS copy"; return ;;
	esac
	v=$(in_root modinfo -k "$k" -F version ib_srpt 2>/dev/null || true)
	if [ "$v" = "$version" ]; then
		say "$k: $f ($v)"
	else
		bad "$k: $f has version '$v', not $version"
	fi
}

cp "$deb" "$root/tmp/"
start=$SECONDS
if ! in_root apt-get install -y -q --no-install-recommends "/tmp/${deb##*/}" >"$tmp/install.log" 2>&1; then
	tail -n 40 "$tmp/install.log"
	die "apt-get install ./${deb##*/} failed"
fi
say "apt-get install ./${deb##*/} ($((SECONDS - start)) s)"
conf=/usr/src/ib_srpt-$version/dkms.conf
if grep -qxF "PACKAGE_VERSION=\"$version\"" "$root$conf"; then
	say "$conf: PACKAGE_VERSION $version"
else
	bad "$conf has no PACKAGE_VERSION=\"$version\""
fi
for k in "${kernels[@]}"; do
	dkms_copy "$k"
done

start=$SECONDS
if ! in_root apt-get install -y -q --no-install-recommends "linux-headers-$late" >"$tmp/late.log" 2>&1; then
	tail -n 40 "$tmp/late.log"
	die "apt-get install linux-headers-$late failed"
fi
say "headers of $late installed afterwards ($((SECONDS - start)) s)"
dkms_copy "$late"

# What must be gone after the purge: the package's files (its directories
# too, but for those it shares), the DKMS tree and the built modules.
in_root dpkg-query -L ib-srpt-dkms >"$tmp/files"
grep -qxF "$conf" "$tmp/files" || die "dpkg-query -L ib-srpt-dkms does not list $conf"
start=$SECONDS
if ! in_root apt-get purge -y -q ib-srpt-dkms >"$tmp/purge.log" 2>&1; then
	tail -n 40 "$tmp/purge.log"
	die "apt-get purge ib-srpt-dkms failed"
fi
say "apt-get purge ib-srpt-dkms ($((SECONDS - start)) s)"
left=()
while read -r f; do
	case $f in
	/. | /usr | /usr/share | /usr/share/doc | /usr/src) continue ;;
	esac
	if [ -e "$root$f" ] || [ -L "$root$f" ]; then
		left+=("$f")
	fi
done <"$tmp/files"
[ ${#left[@]} = 0 ] || bad "left after the purge: ${left[*]}"
for f in "$root"/usr/src/ib_srpt-* "$root"/var/lib/dkms/ib_srpt; do
	[ ! -e "$f" ] || bad "left after the purge: ${f#"$root"}"
done
built=$(find "$root/lib/modules" -path '*/updates/*' -name 'ib_srpt.ko*' | sed "s|^$root||")
[ -z "$built" ] || bad "built modules left after the purge: $built"
if in_root dpkg-query -W -f='${Status}\n' ib-srpt-dkms 2>/dev/null | grep -q 'ok installed\|config-files'; then
	bad "ib-srpt-dkms is still known to dpkg after the purge"
fi
for k in "${kernels[@]}"; do
	f=$(modfile "$k")
	case $f in
	/lib/modules/"$k"/$intree*) say "$k: after the purge $f" ;;
	*) bad "$k: after the purge modinfo names '$f', not the in-tree driver" ;;
	esac
done
f=$(modfile "$late")
case $f in
*/updates/*) bad "$late: after the purge modinfo names '$f'" ;;
*) say "$late: after the purge ${f:-no ib_srpt (headers only)}" ;;
esac

[ $rc = 0 ] && say "PASS"
exit $rc
