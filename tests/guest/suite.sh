#!/bin/bash
# tests/guest/suite.sh: guest-side test suite for ib_srpt.ko: module
# load/parameters, configfs and targetcli objects, rxe hot-unplug, the
# device-management MAD agent (tests/guest/mad.sh), rmmod, and
# (tests/guest/login.sh, when present) logins and I/O from the kernel's
# ib_srp initiator.
#
# Runs inside the test VM (scripts/vm sets KVER, RESULTS, PROJECT). Each case
# is a function run by run_case (tests/guest/lib.sh) and starts from a clean
# state: no ib_srpt loaded, rxe0 present.
#
# Knobs: SRPT_INTREE=1 runs the cases against the kernel's own ib_srpt (to
# validate the rig); SUITE_LOGIN=0 skips the login/I/O cases.

GUEST_DIR=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=tests/guest/lib.sh
. "$GUEST_DIR/lib.sh"
: "${SUITE_LOGIN:=1}"
if [[ $SUITE_LOGIN == 1 && -f $GUEST_DIR/login.sh ]]; then
	# shellcheck source=tests/guest/login.sh
	. "$GUEST_DIR/login.sh"
	# shellcheck source=tests/guest/faults.sh
	. "$GUEST_DIR/faults.sh"
	# shellcheck source=tests/guest/sendq.sh
	. "$GUEST_DIR/sendq.sh"
	# shellcheck source=tests/guest/observe.sh
	. "$GUEST_DIR/observe.sh"
	# shellcheck source=tests/guest/compat.sh
	. "$GUEST_DIR/compat.sh"
	# shellcheck source=tests/guest/direct_compl.sh
	. "$GUEST_DIR/direct_compl.sh"
fi
# shellcheck source=tests/guest/mad.sh
. "$GUEST_DIR/mad.sh"

# An initiator port ID for ACLs: initiator_ext (16 hex) + GUID (16 hex).
ACL_ID=00000000000000010002c90300abcdef

# Parameters every build of the module must expose.
REQUIRED_PARAMS=(srp_max_req_size srpt_srq_size srpt_service_guid rdma_cm_port)
if [[ $SRPT_INTREE == 1 ]]; then
	# The in-tree driver has rdma_cm_port in configfs, not as a parameter.
	REQUIRED_PARAMS=(srp_max_req_size srpt_srq_size srpt_service_guid)
fi

# fresh: start state of every case: module unloaded, no srpt configfs state.
fresh() {
	if srpt_loaded; then
		srpt_teardown || fail "cannot tear down srpt configfs state"
		rmmod ib_srpt || fail "rmmod ib_srpt failed at case start"
	fi
	[[ -d /sys/class/infiniband/$RXE_DEV ]] || rxe_add || fail "rxe0 missing"
}

# target_dir: configfs directory of the target for rxe0's port GID.
target_dir() { echo "$CFS_SRPT/0x$(port_gid)"; }

# mk_target [NAME]: create target NAME (default: GID form for rxe0) and its
# tpgt_1 through configfs.
mk_target() {
	local t=$CFS_SRPT/${1:-0x$(port_gid)}
	mkdir -p "$CFS_SRPT" 2>/dev/null
	check mkdir "$t"
	check mkdir "$t/tpgt_1"
}

# ib_srpt_errors: ib_srpt lines in the case's kernel log that report an error,
# not counting the taint notices any out-of-tree unsigned module causes.
ib_srpt_errors() {
	dmesg_here | grep -E 'ib_srpt|srpt' |
		grep -viE 'module verification failed|taints kernel|guest-test:' |
		grep -iE 'error|fail|invalid|cannot|unable|bad ' || true
}

# ---------------------------------------------------------------- cases --

case_setup() {
	check start_dbus
	check setup_rxe
	# Where LIO writes persistent reservation and ALUA state (its db_root,
	# readable once target_core_mod is loaded, and the one targetcli's
	# rtslib switches it to when it runs before any device exists):
	# without it every PR OUT REGISTER fails after it has registered.
	local db d
	db=$(<"$CFS_TARGET/dbroot") || fail "cannot read $CFS_TARGET/dbroot"
	for d in "$db" /etc/rtslib-fb-target; do
		check mkdir -p "$d/pr" "$d/alua"
	done
	log "rxe0 GID $(port_gid), GUID $(port_guid)"
	if [[ $SRPT_INTREE != 1 ]]; then
		[[ -f $SRPT_KO ]] || fail "$SRPT_KO not found (run 'make KVER=$KVER')"
		modinfo "$SRPT_KO" || fail "modinfo $SRPT_KO failed"
		local vermagic
		vermagic=$(modinfo -F vermagic "$SRPT_KO")
		[[ $vermagic == "$KVER "* ]] || fail "module built for '${vermagic%% *}', not $KVER"
	fi
	check_not srpt_loaded
}

case_load_default() {
	local p v errs
	fresh
	load_srpt || fail "loading with default parameters failed"
	srpt_loaded || fail "/sys/module/ib_srpt missing after load"
	for p in "${REQUIRED_PARAMS[@]}"; do
		[[ -e /sys/module/ib_srpt/parameters/$p ]] || fail "parameter $p missing in /sys/module/ib_srpt/parameters"
	done
	for p in /sys/module/ib_srpt/parameters/*; do
		v=$(cat "$p") || fail "cannot read $p"
		[[ -n $v ]] || fail "$p reads empty"
		log "${p##*/} = $v"
	done
	errs=$(ib_srpt_errors)
	[[ -z $errs ]] || fail "error in dmesg after load: $(head -n 1 <<<"$errs")"
	check rmmod ib_srpt
}

# param_is NAME EXPECTED: the module parameter's value equals EXPECTED,
# compared as numbers (so 0x.. and decimal spellings both match).
param_is() {
	local f=/sys/module/ib_srpt/parameters/$1 v
	v=$(cat "$f" 2>/dev/null) || fail "cannot read $f"
	log "$1 = $v (want $2)"
	[[ $v =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]] || fail "$1 reads '$v', not a number"
	(($(printf '%d' "$v") == $(printf '%d' "$2"))) || fail "$1 reads '$v', expected $2"
}

case_load_params() {
	fresh
	load_srpt srp_max_req_size=16384 srpt_srq_size=1024 \
		srpt_service_guid=0x0002c90300001234 rdma_cm_port=5000 ||
		fail "loading with explicit parameters failed"
	param_is srp_max_req_size 16384
	param_is srpt_srq_size 1024
	param_is srpt_service_guid 0x0002c90300001234
	param_is rdma_cm_port 5000
	check rmmod ib_srpt
}

case_bad_params() {
	local arg name problems=() n=0 lines
	fresh
	for arg in srp_max_req_size=10 srpt_service_guid=zzz rdma_cm_port=70000 \
		srpt_srq_size=0 keep_dma_maps=maybe direct_compl=maybe; do
		name=${arg%%=*}
		n=$((n + 1))
		kmsg "bad param attempt $n: $arg"
		if load_srpt "$arg"; then
			problems+=("$arg was accepted")
			rmmod ib_srpt || fail "rmmod after accepted $arg failed"
			continue
		fi
		srpt_loaded && problems+=("$arg: module present after failed load")
		# One line from ib_srpt naming the parameter, logged by this attempt.
		lines=$(dmesg_here | sed -n "/guest-test: bad param attempt $n:/,\$p" |
			grep -E 'ib_srpt' | grep -F "$name" || true)
		log "dmesg for $arg: ${lines:-<none>}"
		[[ -n $lines ]] || problems+=("$arg: no ib_srpt message naming $name in dmesg")
	done
	((${#problems[@]} == 0)) || fail "$(IFS=';'; echo "${problems[*]}")"
}

case_targetcli() {
	local gid t out
	fresh
	load_srpt || fail "load failed"
	gid=$(port_gid)
	t=$CFS_SRPT/0x$gid
	out=$(tcli_batch <<EOF
/backstores/ramdisk create rd0 64M
/srpt create ib.$gid
/srpt/ib.$gid/luns create /backstores/ramdisk/rd0
/srpt/ib.$gid/acls create ib.$ACL_ID
ls
EOF
	) || { echo "$out"; fail "targetcli create commands reported an error"; }
	echo "$out"
	# 'ls' shows the objects...
	grep -q "o- ib.$gid " <<<"$out" || fail "targetcli ls does not show target ib.$gid"
	grep -q "o- rd0 " <<<"$out" || fail "targetcli ls does not show ramdisk rd0"
	grep -q "o- lun0 .*ramdisk/rd0" <<<"$out" || fail "targetcli ls does not show lun0 -> rd0"
	grep -q "o- ib.$ACL_ID " <<<"$out" || fail "targetcli ls does not show ACL ib.$ACL_ID"
	# ...and configfs mirrors them.
	[[ -d $t/tpgt_1 ]] || fail "$t/tpgt_1 missing"
	[[ "$(cat "$t/tpgt_1/enable")" == 1 ]] || fail "$t/tpgt_1/enable is not 1"
	ls -l "$t/tpgt_1/lun/lun_0"
	compgen -G "$t/tpgt_1/lun/lun_0/*" >/dev/null || fail "lun_0 empty"
	find "$t/tpgt_1/lun/lun_0" -maxdepth 1 -type l -lname '*rd0*' | grep -q . ||
		fail "lun_0 has no link to rd0"
	[[ -d $t/tpgt_1/acls/0x$ACL_ID ]] || fail "ACL dir 0x$ACL_ID missing"
	[[ -d $t/tpgt_1/acls/0x$ACL_ID/lun_0 ]] || fail "mapped LUN 0 missing in ACL"
	grep . "$t"/tpgt_1/attrib/* || fail "cannot read tpgt_1/attrib"

	out=$(tcli_batch <<EOF
/srpt delete ib.$gid
/backstores/ramdisk delete rd0
ls
EOF
	) || { echo "$out"; fail "targetcli delete commands reported an error"; }
	echo "$out"
	grep -q "o- ib.$gid " <<<"$out" && fail "target still listed after delete"
	grep -q "o- rd0 " <<<"$out" && fail "rd0 still listed after delete"
	grep -qE "o- srpt .*\[Targets: 0\]" <<<"$out" || fail "targetcli ls does not show 0 srpt targets"
	[[ -e $t ]] && fail "$t still exists after delete"
	check srpt_teardown
	check rmmod ib_srpt
}

case_bad_target_name() {
	local bad=0x00000000000000000000000000000001 err name out
	fresh
	load_srpt || fail "load failed"
	mkdir -p "$CFS_SRPT" 2>/dev/null
	err=$(mkdir "$CFS_SRPT/$bad" 2>&1) && fail "mkdir $bad succeeded"
	log "mkdir $bad: $err"
	[[ $err == *"Invalid argument"* ]] || fail "mkdir $bad: expected EINVAL, got: $err"
	[[ -e $CFS_SRPT/$bad ]] && fail "$bad exists after failed mkdir"
	# Other malformed names.
	for name in foo 0x 0xfe8000000000000000000000000000 "0x$(port_gid)00" \
		zzzz:zzzz:zzzz:zzzz 0000:0000:0000:0001; do
		if mkdir "$CFS_SRPT/$name" 2>/dev/null; then
			rmdir "$CFS_SRPT/$name"
			fail "mkdir $name succeeded"
		fi
	done
	# targetcli must refuse it too.
	out=$(tcli /srpt create "ib.${bad#0x}") && fail "targetcli accepted ib.${bad#0x}: $out"
	echo "$out"
	[[ -e $CFS_SRPT/$bad ]] && fail "$bad exists after targetcli refused it"
	check srpt_teardown
	check rmmod ib_srpt
}

case_guid_target_name() {
	local guid
	fresh
	load_srpt || fail "load failed"
	guid=$(port_guid) || fail "cannot read rxe0 GUID"
	mk_target "$guid"
	[[ -d $CFS_SRPT/$guid/tpgt_1/attrib ]] || fail "tpgt_1/attrib missing under $guid"
	grep . "$CFS_SRPT/$guid"/tpgt_1/attrib/* || fail "cannot read attributes"
	check rmdir "$CFS_SRPT/$guid/tpgt_1"
	check rmdir "$CFS_SRPT/$guid"
	check srpt_teardown
	check rmmod ib_srpt
}

# attr_refused FILE VALUE / attr_accepted FILE VALUE
attr_refused() {
	local before after
	before=$(cat "$1")
	sysfs_write "$1" "$2" && fail "${1##*/}: value $2 accepted"
	after=$(cat "$1")
	[[ $before == "$after" ]] || fail "${1##*/}: changed from $before to $after by refused $2"
	return 0
}
attr_accepted() {
	sysfs_write "$1" "$2" || fail "${1##*/}: valid value $2 refused"
	[[ "$(cat "$1")" == "$2" ]] || fail "${1##*/}: wrote $2, reads $(cat "$1")"
}

case_tpg_attrib() {
	local a v
	fresh
	load_srpt || fail "load failed"
	mk_target
	a=$(target_dir)/tpgt_1/attrib
	grep . "$a"/*
	v=$(cat "$a/srp_max_rsp_size")
	attr_refused "$a/srp_max_rsp_size" 0
	attr_refused "$a/srp_max_rsp_size" 1000000000
	attr_refused "$a/srp_max_rsp_size" -1
	attr_refused "$a/srp_max_rsp_size" abc
	attr_accepted "$a/srp_max_rsp_size" 512
	attr_accepted "$a/srp_max_rsp_size" "$v"
	v=$(cat "$a/srp_sq_size")
	attr_refused "$a/srp_sq_size" 0
	attr_refused "$a/srp_sq_size" 1000000000
	attr_refused "$a/srp_sq_size" abc
	attr_accepted "$a/srp_sq_size" 1024
	attr_accepted "$a/srp_sq_size" "$v"
	v=$(cat "$a/use_srq")
	attr_refused "$a/use_srq" 2
	attr_refused "$a/use_srq" -1
	attr_refused "$a/use_srq" abc
	attr_accepted "$a/use_srq" 1
	attr_accepted "$a/use_srq" 0
	attr_accepted "$a/use_srq" "$v"
	[[ $(cat "$a/keepalive_secs") == 30 ]] || fail "keepalive_secs default is not 30"
	attr_refused "$a/keepalive_secs" 3601
	attr_refused "$a/keepalive_secs" -1
	attr_refused "$a/keepalive_secs" abc
	attr_accepted "$a/keepalive_secs" 0
	attr_accepted "$a/keepalive_secs" 30
	[[ $(cat "$a/rnr_retry") == 6 ]] || fail "rnr_retry default is not 6"
	attr_refused "$a/rnr_retry" 8
	attr_refused "$a/rnr_retry" -1
	attr_accepted "$a/rnr_retry" 7
	attr_accepted "$a/rnr_retry" 6
	check srpt_teardown
	check rmmod ib_srpt
}

case_rxe_relink() {
	local t
	fresh
	load_srpt || fail "load failed"
	t=$(target_dir)
	mk_target
	check mkdir "$t/tpgt_1/acls/0x$ACL_ID"
	check sysfs_write "$t/tpgt_1/enable" 1
	# Remove the port under the configured target.
	check rxe_del
	# The stale target must still be readable and removable; writes to it
	# may fail but must not crash (a splat fails the case).
	ls -lR "$t" >/dev/null || fail "cannot list $t after rxe0 removal"
	grep . "$t"/tpgt_1/attrib/* "$t/tpgt_1/enable" || true
	sysfs_write "$t/tpgt_1/attrib/use_srq" 1 || true
	sysfs_write "$t/tpgt_1/attrib/srp_sq_size" 1024 || true
	sysfs_write "$t/tpgt_1/enable" 0 || true
	sysfs_write "$t/tpgt_1/enable" 1 || true
	# A target for a port that does not exist cannot be created.
	check_not mkdir "$CFS_SRPT/0xfe80000000000000000000fffe000002"
	check rxe_add
	log "rxe0 back, GID $(port_gid)"
	check srpt_teardown
	[[ -e $t ]] && fail "$t still present after teardown"
	# The re-added port can carry a target again.
	mk_target
	check mkdir "$t/tpgt_1/acls/0x$ACL_ID"
	check sysfs_write "$t/tpgt_1/enable" 1
	grep . "$t"/tpgt_1/attrib/* || fail "cannot read attributes on the re-added port"
	# And a second delete/add cycle with the module loaded but no target.
	check srpt_teardown
	check rxe_del
	check rxe_add
	mk_target
	check srpt_teardown
	check rmmod ib_srpt
}

case_rmmod() {
	local out
	fresh
	load_srpt || fail "load failed"
	mk_target
	# A configured target (and the srpt fabric directory) pins the module.
	out=$(rmmod ib_srpt 2>&1) && fail "rmmod succeeded with a target configured"
	log "rmmod with a target: $out"
	srpt_loaded || fail "module gone although rmmod failed"
	check srpt_teardown
	[[ -e $CFS_SRPT ]] && fail "$CFS_SRPT still present after teardown"
	check rmmod ib_srpt
	srpt_loaded && fail "/sys/module/ib_srpt still present after rmmod"
	# Load/unload cycles.
	for _ in 1 2 3; do
		load_srpt || fail "reload failed"
		check rmmod ib_srpt
	done
	return 0
}

case_dmesg() {
	dmesg_check --all
}

ktap_begin
run_case setup case_setup
run_case load_default case_load_default
run_case load_params case_load_params
run_case bad_params case_bad_params
run_case targetcli case_targetcli
run_case bad_target_name case_bad_target_name
run_case guid_target_name case_guid_target_name
run_case tpg_attrib case_tpg_attrib
run_case rxe_relink case_rxe_relink
run_mad_cases
if declare -F run_login_cases >/dev/null; then
	run_login_cases
	run_fault_cases
	run_sendq_cases
	# shellcheck source=tests/guest/memory.sh
	. "$GUEST_DIR/memory.sh"
	run_memory_cases
	# shellcheck source=tests/guest/hostile.sh
	. "$GUEST_DIR/hostile.sh"
	[[ ${SUITE_HOSTILE:-1} == 0 ]] || run_hostile_cases
	run_observe_cases
	run_direct_compl_cases
	run_compat_cases
	# shellcheck source=tests/guest/ibcm.sh
	. "$GUEST_DIR/ibcm.sh"
	run_ibcm_cases
fi
run_case rmmod case_rmmod
run_case dmesg case_dmesg
summary
