#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test: scripts/check-layers catches a layer violation in a header.
#
#   tests/host/layers.sh [KVER]    (default: the newest kernel built)
#
# In a copy of the tree (sources, scripts and the objects of an existing
# build/KVER, so nothing is built but the headers' object) it plants, one
# at a time, an #include of a higher layer's header in a lower one, and an
# inline function in a low header that calls a function of a higher
# layer; check-layers must fail on each plant, naming it (the untouched
# tree passes it in every build step of scripts/test-all).
set -euo pipefail
cd "$(dirname "$0")/../.."
kver=${1:-}
if [ -z "$kver" ]; then
	for k in $(scripts/kernels); do
		[ ! -f "build/$k/src/srpt_main.o" ] || kver=$k
	done
fi
if [ -z "$kver" ] || [ ! -f "build/$kver/src/srpt_main.o" ]; then
	echo "layers-test: no build: run 'make KVER=...' first" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0

# fresh: a copy of the tree with the objects of build/$kver
fresh() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/build/$kver/src"
	cp -r src include scripts Kbuild Makefile dkms.conf "$tmp/t/"
	cp "build/$kver/src/"*.o "$tmp/t/build/$kver/src/"
}

# expect NAME PATTERN: check-layers fails with a line matching PATTERN
expect() {
	local out
	if out=$("$tmp/t/scripts/check-layers" "$kver" 2>&1); then
		echo "layers-test: FAIL: $1 not caught"
		rc=1
	elif ! grep -qE "$2" <<<"$out"; then
		echo "layers-test: FAIL: $1: check-layers failed without naming it:"
		printf '    %s\n' "${out//$'\n'/$'\n'    }"
		rc=1
	else
		echo "layers-test: PASS: $1: $(grep -E "$2" <<<"$out" | head -n1)"
	fi
}

fresh
# srpt_ring.h (I/O, receive buffers) includes the send queue's header.
sed -i 's/^#include "srpt_device.h"$/&\n#include "srpt_sq.h"/' \
	"$tmp/t/src/srpt_ring.h"
expect "upward #include" 'src/srpt_ring.h includes src/srpt_sq.h'

# srpt_data.h gets an inline body that kicks the send queue (srpt_sq.c).
fresh
sed -i 's@^#endif /\* SRPT_DATA_H \*/$@void srpt_sq_kick(struct srpt_channel *ch);\
\
static inline void srpt_planted(struct srpt_channel *ch)\
{\
	srpt_sq_kick(ch);\
}\
\
&@' "$tmp/t/src/srpt_data.h"
expect "upward call of an inline body" \
	'srpt_data.h: inline srpt_planted\(\) uses srpt_sq_kick of srpt_sq.c'

exit $rc
