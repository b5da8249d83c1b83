# shellcheck shell=bash
# tests/guest/lib.sh: helpers for scripts that run inside the test guest
# (started by scripts/vm, which sets KVER, RESULTS and PROJECT).
#
# Case protocol (KTAP, Documentation/dev-tools/ktap.rst):
#   ktap_begin               prints the version line, "KTAP version 1"
#   run_case NAME FUNCTION   runs FUNCTION in a subshell with its output in
#                            $RESULTS/cases/NAME.log and prints one result
#                            line, "ok N NAME" or "not ok N NAME # reason"
#                            (directive TIMEOUT or ERROR where it applies)
#   Inside FUNCTION:
#     fail MSG               records MSG as the reason and ends the case
#     pass                   ends the case successfully (optional: returning
#                            0 from FUNCTION passes too)
#     check CMD...           runs CMD, fails the case if it fails
#     check_not CMD...       runs CMD, fails the case if it succeeds
#   A case also fails when FUNCTION returns non-zero, when it runs longer than
#   CASE_TIMEOUT seconds, or when a kernel splat (see dmesg_splats) appeared
#   in the kernel log while it ran.
#   summary                  prints "N passed, N failed" as the last line and
#                            returns non-zero if anything failed.
#
# Environment knobs:
#   SRPT_KO       path of the module under test
#                 (default $PROJECT/build/$KVER/ib_srpt.ko)
#   SRPT_INTREE=1 test the distribution's in-tree ib_srpt instead (modprobe);
#                 used to validate the rig itself
#   CASE_TIMEOUT  per-case limit in seconds (default 120)
#   CASES_AFTER_OOPS  cases that still run after the kernel oopsed or a
#                 timed-out case left a task that cannot be killed (default
#                 "dmesg"); the others are reported as failed without running
#                 since they would likely hang on locks the dead task held
#   STUCK_GRACE   seconds a timed-out case's tasks get to die after kill -9
#                 (default 60); then the suite goes on without them, with
#                 the stacks of all blocked tasks in the kernel log (sysrq w)
#   SUITE_SKIP    space- or comma-separated case names not to run; each is
#                 reported "ok N NAME # SKIP" and counts as neither passed
#                 nor failed
#   SUITE_CASES   space- or comma-separated case names: run only these
#                 (and "setup" and "dmesg", which every run needs); the others
#                 print nothing. Unset or empty: every case.

: "${KVER:=$(uname -r)}"
: "${RESULTS:=/tmp/results}"
: "${PROJECT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${SRPT_KO:=$PROJECT/build/$KVER/ib_srpt.ko}"
: "${SRPT_INTREE:=0}"
: "${CASE_TIMEOUT:=120}"
: "${CASES_AFTER_OOPS:=dmesg}"
: "${STUCK_GRACE:=60}"
export KVER RESULTS PROJECT SRPT_KO SRPT_INTREE

CASES_DIR=$RESULTS/cases

N_PASSED=0
N_FAILED=0
KTAP_N=0 # result lines printed
CASE_NAME=""
OOPSED_IN="" # name of the case during which the kernel oopsed
STUCK_IN=""  # name of the case whose task could not be killed

# Fixed identity of the soft-RoCE test port: the dummy netdev's MAC fixes the
# port GID (link-local, EUI-64 from the MAC) and so the target names.
RXE_DEV=rxe0
RXE_NETDEV=dummy0
RXE_MAC=02:00:00:00:00:01
RXE_ADDR=10.99.0.1/24 # only on the dummy device; nothing leaves the guest

CFS_TARGET=/sys/kernel/config/target
CFS_SRPT=$CFS_TARGET/srpt

# log MSG: timestamped line (builtins only: every fork costs under TCG).
log() {
	local t=$EPOCHREALTIME
	printf '[%(%T)T.%.3s] %s\n' "${t%.*}" "${t#*.}" "$*"
}

# kmsg MSG: write a marker line into the kernel log.
kmsg() { echo "guest-test: $*" >/dev/kmsg; }

# ------------------------------------------------------------------ cases --

# case_begin NAME: start a case (run_case calls it; scripts that do not use
# run_case may call it directly).
case_begin() {
	CASE_NAME=$1
	mkdir -p "$CASES_DIR"
	rm -f "$CASES_DIR/$CASE_NAME.reason"
	kmsg "case $CASE_NAME begin"
	log "case $CASE_NAME begin"
}

# fail MSG: record the reason for the current case and end it.
fail() {
	local msg="$*"
	log "fail: $msg"
	# Keep the first reason: it is the root cause.
	[[ -s $CASES_DIR/$CASE_NAME.reason ]] || echo "$msg" >"$CASES_DIR/$CASE_NAME.reason"
	exit 1
}

# pass: end the current case successfully.
pass() {
	log "pass"
	exit 0
}

# check CMD...: run CMD (output into the case log), fail unless it succeeds.
check() {
	log "+ $*"
	"$@" || fail "command failed (status $?): $*"
}

# check_not CMD...: run CMD, fail if it succeeds.
check_not() {
	log "+ ! $*"
	if "$@"; then
		fail "command unexpectedly succeeded: $*"
	fi
	return 0
}

# nap SECONDS: sleep without forking /bin/sleep (a fork+exec costs ~50 ms
# under TCG): wait for input that never comes on a FIFO opened read-write
# (it has a writer, so no EOF; nobody writes, so no data).  Subshells
# inherit the descriptor.
nap() {
	if [[ -z ${NAP_FD:-} ]]; then
		local f=${TMPDIR:-/tmp}/nap.$BASHPID
		if mkfifo "$f" && exec {NAP_FD}<>"$f"; then
			rm -f "$f"
		else
			sleep "$1"
			return 0
		fi
	fi
	read -rt "$1" -u "$NAP_FD" || :
}

# kernel_died: has a task died in an oops (taint flag D, bit 7)?
kernel_died() {
	local taint=0
	read -r taint </proc/sys/kernel/tainted
	((taint & 128))
}

# case_tasks PID: PID and its descendants, one per line, parents first.
case_tasks() {
	local p
	echo "$1"
	for p in $(pgrep -P "$1"); do case_tasks "$p"; done
}

# task_report PID: state, wait channel, command line and kernel stack of
# PID (nothing if it is gone).
task_report() {
	[[ -r /proc/$1/stat ]] || return 0
	echo "pid $1 state $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" \
		"wchan $(cat "/proc/$1/wchan" 2>/dev/null):" \
		"$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
	sed 's/^/    /' "/proc/$1/stack" 2>/dev/null
}

# dump_case_tasks PID: task_report of PID and every descendant, so a case
# that timed out shows where it was stuck (a killable or interruptible
# sleep is not reported by the kernel's hung-task detector).
dump_case_tasks() {
	local p
	echo "--- tasks of the case when it timed out:"
	for p in $(case_tasks "$1"); do task_report "$p"; done
}

# run_case NAME FUNCTION [ARGS...]
run_case() {
	local name=$1 fn=$2 rc reason splats pid wd t0 done_pid
	shift 2
	if [[ -n ${SUITE_CASES:-} && $name != setup && $name != dmesg &&
		" ${SUITE_CASES//,/ } " != *" $name "* ]]; then
		return 0
	fi
	mkdir -p "$CASES_DIR"
	if [[ " ${SUITE_SKIP//,/ } " == *" $name "* ]]; then
		ktap_result ok "$name" "SKIP left out of this run (SUITE_SKIP)"
		return 0
	fi
	reason=""
	[[ -n $OOPSED_IN ]] && reason="the kernel oopsed in case $OOPSED_IN"
	[[ -n $STUCK_IN ]] && reason="a task of case $STUCK_IN is stuck in the kernel"
	if [[ -n $reason && " $CASES_AFTER_OOPS " != *" $name "* ]]; then
		N_FAILED=$((N_FAILED + 1))
		ktap_result "not ok" "$name" "ERROR not run, $reason"
		return 1
	fi
	t0=$SECONDS
	# The case runs in a subshell so that 'fail' can end it with 'exit'.
	(
		case_begin "$name"
		"$fn" "$@"
	) >"$CASES_DIR/$name.log" 2>&1 </dev/null &
	pid=$!
	# Per-case watchdog.
	(
		trap 'kill "$s" 2>/dev/null; exit 0' TERM
		sleep "$CASE_TIMEOUT" &
		s=$!
		wait "$s"
		echo "case timed out after ${CASE_TIMEOUT}s" >>"$CASES_DIR/$name.reason"
		dump_case_tasks "$pid" >>"$CASES_DIR/$name.log" 2>&1
		pkill -9 -P "$pid"
		kill -9 "$pid"
		# A task in an uninterruptible sleep does not die: give up on it
		# after STUCK_GRACE seconds, with every blocked task's stack in
		# the kernel log, so that the suite ends instead of waiting on
		# it until the guest's own limit.
		sleep "$STUCK_GRACE" &
		s=$!
		wait "$s"
		echo w >/proc/sysrq-trigger
	) >/dev/null 2>&1 &
	wd=$!
	wait -n -p done_pid "$pid" "$wd"
	rc=$?
	if [[ $done_pid == "$wd" ]]; then
		STUCK_IN=$name
		rc=1
		{
			echo "--- still there ${STUCK_GRACE}s after kill -9:"
			dump_case_tasks "$pid"
		} >>"$CASES_DIR/$name.log" 2>&1
		echo "case timed out after ${CASE_TIMEOUT}s and a task of it cannot be killed" >"$CASES_DIR/$name.reason"
	fi
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	kmsg "case $name end"
	[[ -z $OOPSED_IN ]] && kernel_died && OOPSED_IN=$name
	# Kernel splats logged while the case ran fail it.
	splats=$(dmesg_case "$name" | dmesg_splats)
	if [[ -n $splats ]]; then
		{
			echo "--- kernel splat during the case:"
			dmesg_case "$name"
		} >>"$CASES_DIR/$name.log"
		[[ -s $CASES_DIR/$name.reason ]] || echo "kernel splat: $(head -n 1 <<<"$splats")" >"$CASES_DIR/$name.reason"
		rc=1
	fi
	if [[ $rc == 0 && ! -s $CASES_DIR/$name.reason ]]; then
		N_PASSED=$((N_PASSED + 1))
		ktap_result ok "$name"
		ktap_time "$name" "$t0"
		return 0
	fi
	reason=""
	[[ -s $CASES_DIR/$name.reason ]] && read -r reason <"$CASES_DIR/$name.reason"
	[[ -n $reason ]] || reason="exit status $rc; last output: $(tail -n 1 "$CASES_DIR/$name.log")"
	N_FAILED=$((N_FAILED + 1))
	[[ $reason == "case timed out after"* ]] && reason="TIMEOUT $reason"
	ktap_result "not ok" "$name" "$reason"
	ktap_time "$name" "$t0"
	return 1
}

# ktap_begin: the KTAP version line, before the first result.
ktap_begin() { echo "KTAP version 1"; }

# ktap_result RESULT NAME [DIAGNOSTIC]: one KTAP result line, numbered in
# the order the cases ran ("ok" or "not ok"; the diagnostic after a "#").
ktap_result() {
	KTAP_N=$((KTAP_N + 1))
	echo "$1 $KTAP_N $2${3:+ # $3}"
}

# ktap_time NAME START: a KTAP diagnostic line with the guest seconds case
# NAME took since START (a $SECONDS value), for finding where the suite's
# time goes.
ktap_time() { echo "# $1: $((SECONDS - $2)) s"; }

# summary: the totals as the last line; status 1 if anything failed.  (No
# KTAP plan line: which cases run is only known once they ran, and KTAP
# lets the plan be left out then.)
summary() {
	echo "$N_PASSED passed, $N_FAILED failed"
	[[ $N_FAILED == 0 ]]
}

# ------------------------------------------------------------------ dmesg --

# dmesg_case NAME: the kernel log since case NAME began (or since the last
# "case NAME begin" marker if it ran more than once).
# Read backwards up to the marker: linear in the log's size (appending every
# line to an awk string was quadratic, minutes after a long fuzz run).
dmesg_case() {
	dmesg | tac | awk -v b="guest-test: case $1 begin" 'index($0, b) { exit } { print }' | tac
}

# dmesg_here: the kernel log since the current case began.
dmesg_here() { dmesg_case "$CASE_NAME"; }

# dmesg_splats: filter stdin (kernel log lines), print the lines that belong to
# a kernel splat. Only splat formats are matched, so e.g. a module message
# containing the word "warning" does not count.
dmesg_splats() {
	local ts='^(\[ *[0-9]+\.[0-9]+\] )?'
	grep -E \
		-e "${ts}WARNING: CPU: " \
		-e "${ts}WARNING: at " \
		-e "${ts}WARNING: (possible|suspicious|bad unlock|inconsistent|lock held|held lock|nested lock|Nested lock|chain_key)" \
		-e "${ts}-+\[ cut here \]-+\$" \
		-e "${ts}(kernel )?BUG[: ]" \
		-e "${ts}Oops" \
		-e "${ts}general protection fault" \
		-e "${ts}KASAN" -e 'BUG: KASAN' \
		-e "${ts}UBSAN" \
		-e 'possible recursive locking' \
		-e 'circular locking' \
		-e "${ts}INFO: lockdep" \
		-e 'DEBUG_LOCKS_WARN_ON' \
		-e "${ts}INFO: task .* blocked for more than" \
		-e 'hung_task: ' \
		-e "${ts} *Call Trace:" \
		-e "${ts}Kernel panic" \
		-e "${ts}(list_add|list_del) corruption" \
		-e 'kmemleak: .* new suspected memory leaks' \
		-e 'rcu: INFO: rcu_.*(stall|detected)'
}

# dmesg_check [--all]: fail the current case if the kernel log since the case
# began (or the whole log with --all) contains a splat; print it.
dmesg_check() {
	local splats
	if [[ ${1:-} == --all ]]; then
		splats=$(dmesg | dmesg_splats)
	else
		splats=$(dmesg_here | dmesg_splats)
	fi
	if [[ -n $splats ]]; then
		echo "kernel splat lines:"
		echo "$splats"
		fail "kernel splat: $(head -n 1 <<<"$splats")"
	fi
	log "dmesg: no splat"
}

# ---------------------------------------------------------------- helpers --

# start_dbus: a system bus for targetcli-fb (it asks D-Bus for tcmu handlers).
start_dbus() {
	[[ -S /run/dbus/system_bus_socket ]] && return 0
	mkdir -p /run/dbus
	dbus-daemon --system --fork || return 1
	local i
	for ((i = 0; i < 50; i++)); do
		[[ -S /run/dbus/system_bus_socket ]] && return 0
		nap 0.1
	done
	echo "dbus-daemon did not create its socket" >&2
	return 1
}

# setup_rxe: dummy0 with a fixed MAC, soft-RoCE device rxe0 on top of it,
# configfs, the target core, and the SCSI disk drivers an initiator needs
# (there is no udev to load them). Idempotent.
setup_rxe() {
	if ! ip link show "$RXE_NETDEV" >/dev/null 2>&1; then
		modprobe dummy numdummies=0 || return 1
		ip link add "$RXE_NETDEV" type dummy || return 1
		ip link set "$RXE_NETDEV" address "$RXE_MAC" || return 1
		if [[ -n ${RXE_MTU:-} ]]; then
			ip link set "$RXE_NETDEV" mtu "$RXE_MTU" || return 1
		fi
		ip addr add "$RXE_ADDR" dev "$RXE_NETDEV" || return 1
		ip link set "$RXE_NETDEV" up || return 1
	fi
	log "modprobe rdma_rxe"
	modprobe rdma_rxe || return 1
	log "rdma link add"
	rxe_add || return 1
	log "modprobe target_core_mod"
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return 1
	# The ramdisk backstore is part of target_core_mod.
	modprobe -a target_core_mod sd_mod sg || return 1
}

# rxe_add: create rxe0 on dummy0 (if missing) and wait for an active port.
rxe_add() {
	if [[ ! -d /sys/class/infiniband/$RXE_DEV ]]; then
		rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV" || return 1
	fi
	local i state gid
	for ((i = 0; i < 100; i++)); do
		state="" gid=""
		read -r state <"/sys/class/infiniband/$RXE_DEV/ports/1/state" 2>/dev/null
		read -r gid <"/sys/class/infiniband/$RXE_DEV/ports/1/gids/0" 2>/dev/null
		if [[ $state == *ACTIVE* && -n $gid && $gid != 0000:0000:0000:0000:0000:0000:0000:0000 ]]; then
			return 0
		fi
		nap 0.1
	done
	echo "$RXE_DEV port 1 did not become active" >&2
	return 1
}

# rxe_del: remove rxe0 and wait for it to disappear.
rxe_del() {
	rdma link delete "$RXE_DEV" || return 1
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -d /sys/class/infiniband/$RXE_DEV ]] || return 0
		nap 0.1
	done
	echo "$RXE_DEV still present after rdma link delete" >&2
	return 1
}

# port_gid: GID 0 of rxe0's port 1 as 32 hex digits, e.g.
# fe80000000000000000000fffe000001.
port_gid() {
	local g
	read -r g <"/sys/class/infiniband/$RXE_DEV/ports/1/gids/0" || return 1
	echo "${g//:/}"
}

# port_guid: rxe0's port GUID (low 8 bytes of the GID) as
# xxxx:xxxx:xxxx:xxxx, the second target name form srpt accepts.
port_guid() {
	local g
	g=$(port_gid)
	[[ ${#g} == 32 ]] || return 1
	echo "${g:16:4}:${g:20:4}:${g:24:4}:${g:28:4}"
}

# insmod_ko KO [PARAM=VALUE...]: load a module file by path after the
# modules it depends on (modinfo), so that a copy of the same name elsewhere
# (an installed ib_srpt in updates/, the in-tree one) cannot stand in.
insmod_ko() {
	local ko=$1 deps
	shift
	[[ -f $ko ]] || { echo "insmod_ko: $ko not found" >&2; return 1; }
	deps=$(modinfo -F depends "$ko") || return 1
	# shellcheck disable=SC2086 # word splitting wanted
	[[ -z $deps ]] || modprobe -a ${deps//,/ } || return 1
	log "insmod $ko $*"
	insmod "$ko" "$@"
}

# srpt_is_ours: the loaded ib_srpt is the module under test (same
# srcversion), not the in-tree one.
srpt_is_ours() {
	local v
	read -r v </sys/module/ib_srpt/srcversion 2>/dev/null || return 1
	[[ $v == "$(modinfo -F srcversion "$SRPT_KO")" ]]
}

# load_srpt [PARAM=VALUE...]: load the module under test: ours by path with
# insmod after loading its dependencies, or the in-tree one (SRPT_INTREE=1).
# SRPT_LOAD_PARAMS (tests/guest/run --env) adds parameters to every load
# of ours, before those of the caller (e.g. keep_dma_maps=0 to run a case
# with the other data path).
load_srpt() {
	local extra=()

	if [[ $SRPT_INTREE == 1 ]]; then
		log "modprobe ib_srpt $*"
		modprobe ib_srpt "$@"
		return
	fi
	if [[ ! -f $SRPT_KO ]]; then
		echo "load_srpt: $SRPT_KO not found (run 'make KVER=$KVER')" >&2
		return 1
	fi
	# shellcheck disable=SC2206 # word splitting wanted
	[[ -z ${SRPT_LOAD_PARAMS:-} ]] || extra=($SRPT_LOAD_PARAMS)
	insmod_ko "$SRPT_KO" "${extra[@]}" "$@"
}

# srpt_loaded: is an ib_srpt module loaded?
srpt_loaded() { [[ -d /sys/module/ib_srpt ]]; }

# srpt_teardown: remove every srpt target from configfs, deepest first
# (mapped LUNs, ACLs, LUNs, TPGs, targets), then the fabric directory itself
# (it holds a reference on the module). Backstores are left alone.
srpt_teardown() {
	local t tpg d
	[[ -d $CFS_SRPT ]] || return 0
	for t in "$CFS_SRPT"/*/; do
		[[ $t == */discovery_auth/ ]] && continue # a default group
		# Portal groups have any name (tpgt_N, or the port's own name
		# as in scripts for the in-tree driver); fabric_statistics and
		# param are default groups without an enable file.
		for tpg in "$t"*/; do
			[[ -f ${tpg}enable ]] || continue
			echo 0 >"${tpg}enable" 2>/dev/null
			# Mapped LUNs (links, then dirs), ACLs, LUNs (links, then dirs).
			for d in "$tpg"acls/*/lun_*/ "$tpg"lun/lun_*/; do
				[[ -d $d ]] || continue
				find "$d" -maxdepth 1 -type l -delete || return 1
			done
			for d in "$tpg"acls/*/lun_*/ "$tpg"acls/*/ "$tpg"lun/lun_*/; do
				[[ -d $d ]] || continue
				rmdir "$d" || return 1
			done
			rmdir "$tpg" || return 1
		done
		rmdir "$t" || return 1
	done
	rmdir "$CFS_SRPT"
}

# unload_srpt: tear down srpt configfs state and remove the module.
unload_srpt() {
	srpt_loaded || return 0
	srpt_teardown || return 1
	rmmod ib_srpt
}

# tcli_errors: print the lines of targetcli output (stdin) that report an
# error; the harmless first-run notice about missing preferences is ignored.
tcli_errors() {
	grep -v 'Could not load preferences file' |
		grep -iE 'error|not valid|could not|no such|invalid|failed|unknown|missing'
}

# tcli CMD...: one targetcli command; fails if targetcli fails or prints an
# error (targetcli exits 0 on many errors).
tcli() {
	local out rc
	log "targetcli $*"
	out=$(targetcli "$@" 2>&1)
	rc=$?
	echo "$out"
	[[ $rc == 0 ]] || return "$rc"
	! tcli_errors <<<"$out" >/dev/null
}

# tcli_batch: run the targetcli commands on stdin in one targetcli process
# (each start costs several seconds under TCG). Fails if any command printed
# an error.
tcli_batch() {
	local out rc
	log "targetcli batch:"
	out=$( { cat; echo exit; } | tee /dev/stderr | targetcli 2>&1)
	rc=$?
	echo "$out"
	[[ $rc == 0 ]] || return "$rc"
	! tcli_errors <<<"$out" >/dev/null
}

# sysfs_write FILE VALUE: write VALUE to FILE with one write(2); status is
# that of the write (unlike a plain redirection in a subshell-less context).
sysfs_write() {
	local f=$1 v=$2
	log "write '$v' > $f"
	(echo "$v" >"$f") 2>&1
}
