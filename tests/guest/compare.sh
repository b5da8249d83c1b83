#!/bin/bash
# tests/guest/compare.sh: runs the conformance catalogue (and a short fuzz
# run) case by case against our ib_srpt.ko and then against the kernel's
# in-tree ib_srpt (loaded by path from /lib/modules/$KVER/kernel/, so that an
# installed copy of ours in updates/ cannot stand in for it), both set up
# with targetcli the same way. Runs inside the test VM (started by
# scripts/conformance-compare).
#
# Every case is its own client process with a time limit (CMP_CASE_LIMIT,
# default 150 s). Results: $RESULTS/compare/{ours,intree}/NAME.json (the
# client's report), plus NAME.hang.json / NAME.crash.json when the client
# did not finish in time or the kernel splatted during the case. After a
# hang, an oops, or a failed case after which the target no longer answers
# a TEST UNIT READY, the remaining cases of that driver are not run.
# $RESULTS/compare/current names the case in progress, so that the host can
# tell which case took the guest down.

GUEST_DIR=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=tests/guest/lib.sh
. "$GUEST_DIR/lib.sh"
# shellcheck source=tests/guest/login.sh
. "$GUEST_DIR/login.sh"

OUT=$RESULTS/compare
: "${CMP_CASE_LIMIT:=150}"
: "${CMP_FUZZ_ITERATIONS:=500}"
: "${CMP_CASES:=}" # globs (comma-separated) to run only some cases

INTREE_KO=$(compgen -G "/lib/modules/$KVER/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko*" | head -n 1)

# json_str TEXT: TEXT as a JSON string.
json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	# JSON allows no control character in a string: each becomes a space.
	s=${s//[[:cntrl:]]/ }
	printf '"%s"' "$s"
}

# entry FILE NAME STATUS TEXT: a one-result report written by this script.
entry() {
	printf '{"tool": "compare.sh", "results": [{"name": %s, "status": %s, "expected": "", "got": %s, "reason": ""}]}\n' \
		"$(json_str "$2")" "$(json_str "$3")" "$(json_str "$4")" >"$1"
}

# cmp_load IMPL: load ours (insmod by path, rdma_cm_port parameter) or the
# in-tree driver (insmod by path); rdma_cm_port is set through configfs for
# both by cmp_config.
cmp_load() {
	local ko
	if [[ $1 == ours ]]; then ko=$SRPT_KO; else ko=$INTREE_KO; fi
	modinfo "$ko" | grep -E '^(filename|version|vermagic|srcversion)' || true
	insmod_ko "$ko"
}

# cmp_config: ramdisk LUN 0, target named after rxe0's GID, an ACL for the
# client's initiator port ID (CLIENT_EXT + port GUID), RDMA/CM port 5000.
cmp_config() {
	{
		[[ -n $(compgen -G "$CFS_TARGET/core/rd_mcp_*/rd_cmp") ]] ||
			echo "/backstores/ramdisk create rd_cmp 64M"
		echo "/srpt create ib.$(port_gid)"
		echo "/srpt/ib.$(port_gid)/luns create /backstores/ramdisk/rd_cmp"
		echo "/srpt/ib.$(port_gid)/acls create ib.$CLIENT_EXT$(node_guid)"
	} | tcli_batch || return 1
	sysfs_write "$CFS_SRPT/discovery_auth/rdma_cm_port" "$SRP_PORT" || return 1
	[[ $(<"$(tgt_dir)/enable") == 1 ]] || sysfs_write "$(tgt_dir)/enable" 1
}

DEAD="" # the case after which the target under test stopped working

# alive IMPL: does the target still answer a login and TEST UNIT READY?
alive() {
	local pid i
	conf_client --initiator-ext "$CLIENT_EXT" --cases scsi.test_unit_ready \
		>"$OUT/$1/.alive.txt" 2>&1 &
	pid=$!
	for ((i = 0; i < 120; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		nap 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid" 2>/dev/null
		return 1
	fi
	wait "$pid"
}

# cmp_case IMPL NAME CLIENT-ARGS...: one case (or the fuzz run, NAME fuzz).
cmp_case() {
	local impl=$1 name=$2 pid i rc splats dir=$OUT/$1
	shift 2
	echo "$impl $name" >"$OUT/current"
	kmsg "case cmp-$impl-$name begin"
	conf_client "$@" --json "$dir/$name.json" >"$dir/$name.txt" 2>&1 &
	pid=$!
	for ((i = 0; i < CMP_CASE_LIMIT * 2; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		nap 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid" 2>/dev/null
		entry "$dir/$name.hang.json" "$name" hang \
			"the client did not finish within $CMP_CASE_LIMIT s"
		DEAD=$name
		rc=hang
	else
		wait "$pid"
		rc=$?
		[[ -s $dir/$name.json ]] ||
			entry "$dir/$name.json" "$name" fail \
				"no report (client exit $rc): $(tail -n 1 "$dir/$name.txt")"
	fi
	splats=$(dmesg_case "cmp-$impl-$name" | dmesg_splats)
	if [[ -n $splats ]]; then
		entry "$dir/$name.crash.json" "$name" crash \
			"kernel: $(head -n 1 <<<"$splats")"
		dmesg_case "cmp-$impl-$name" >"$dir/$name.dmesg"
		kernel_died && DEAD=$name
	fi
	echo "$impl $name: $(grep -E '^(PASS|FAIL|SKIP)' "$dir/$name.txt" | head -n 1 | cut -c1-200) [$rc]"
	if [[ -z $DEAD && $rc != 0 ]] && ! alive "$impl"; then
		echo "$impl: the target no longer answers after $name"
		DEAD=$name
	fi
}

# cmp_run IMPL: the whole catalogue against one driver.
cmp_run() {
	local impl=$1 names name t
	mkdir -p "$OUT/$impl"
	DEAD=""
	fresh_state
	if ! cmp_load "$impl" >"$OUT/$impl/.setup.txt" 2>&1 ||
		! cmp_config >>"$OUT/$impl/.setup.txt" 2>&1; then
		cat "$OUT/$impl/.setup.txt"
		entry "$OUT/$impl/setup.json" setup fail "set-up failed: $(tail -n 1 "$OUT/$impl/.setup.txt")"
		return 1
	fi
	t=$(tgt_dir)
	# No process substitution: the guest has no /dev/fd.
	mapfile -t names <<<"$("$CLIENT" --list | grep -E '^[a-z]+\.[a-z0-9_]+$')"
	for name in "${names[@]}"; do
		if [[ -n $CMP_CASES ]]; then
			local g take=0
			for g in ${CMP_CASES//,/ }; do
				# shellcheck disable=SC2053 # glob match wanted
				[[ $name == $g ]] && take=1
			done
			[[ $take == 1 ]] || continue
		fi
		[[ -z $DEAD ]] || break
		case $name in
		acl.tpg_disabled*) continue ;; # below, with the group disabled
		acl.denied*)
			cmp_case "$impl" "$name" --initiator-ext "$CLIENT_EXT_DENIED" \
				--acl-denied --cases "$name" ;;
		*)
			cmp_case "$impl" "$name" --initiator-ext "$CLIENT_EXT" \
				--cases "$name" ;;
		esac
	done
	for name in "${names[@]}"; do
		[[ -z $DEAD && $name == acl.tpg_disabled* ]] || continue
		if [[ -n $CMP_CASES && $CMP_CASES != *acl* ]]; then continue; fi
		sysfs_write "$t/enable" 0 >/dev/null
		cmp_case "$impl" "$name" --initiator-ext "$CLIENT_EXT" \
			--tpg-disabled --cases "$name"
		sysfs_write "$t/enable" 1 >/dev/null
	done
	# The fuzz run last: it is the most likely to take the target down.
	if [[ -z $DEAD && ( -z $CMP_CASES || $CMP_CASES == *fuzz* ) ]]; then
		cmp_case "$impl" fuzz --initiator-ext "$CLIENT_EXT" --fuzz \
			--seed 20261130 --iterations "$CMP_FUZZ_ITERATIONS"
		sed -i 's/"name": "fuzz[.a-z_0-9]*"/"name": "fuzz"/' "$OUT/$impl/fuzz.json" 2>/dev/null
	fi
	rm -f "$OUT/current"
	[[ -z $DEAD ]] || echo "$impl: cases after $DEAD not run"
}

# fresh_state: no ib_srpt loaded, no srpt configfs state.
fresh_state() {
	if srpt_loaded; then
		srpt_teardown
		rmmod ib_srpt
	fi
}

rc=0
start_dbus || exit 1
setup_rxe || exit 1
modprobe -a rdma_ucm ib_uverbs || exit 1
mkdir -p "$OUT"
log "ours: $SRPT_KO; in-tree: $INTREE_KO"
cmp_run ours || rc=1
[[ -z $DEAD ]] || rc=1
# Our driver must be gone before the in-tree one loads (same name).
fresh_state
if srpt_loaded; then
	echo "cannot unload our ib_srpt; the in-tree run is skipped"
	exit 1
fi
cmp_run intree
dmesg >"$OUT/dmesg-end.txt"
exit "$rc"
