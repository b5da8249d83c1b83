# shellcheck shell=bash
# tests/guest/observe.sh: what an operator sees, sourced by suite.sh after
# lib.sh, login.sh and faults.sh: targetcli's session list, the
# per-channel counters, the tracepoints and the stuck-request report.

TRACEFS=/sys/kernel/tracing

# trace_on / trace_off: the ib_srpt events, with an empty buffer.
trace_on() {
	mountpoint -q "$TRACEFS" || mount -t tracefs tracefs "$TRACEFS" || return 1
	echo 0 >"$TRACEFS/tracing_on" &&
		echo >"$TRACEFS/trace" &&
		echo 1 >"$TRACEFS/events/ib_srpt/enable" &&
		echo 1 >"$TRACEFS/tracing_on"
}
trace_off() {
	echo 0 >"$TRACEFS/events/ib_srpt/enable"
	cat "$TRACEFS/trace" >"$RESULTS/trace-$CASE_NAME.txt"
}

# case_sessions_stats: targetcli's "sessions" lists the logged-in initiator
# with one connection per channel, the counters move with fio, and the ACL
# says "No active" after the logout.
case_sessions_stats() {
	local d out c0 c1 i0 i1 o0 o1
	SRP_TARGETCLI=1 check srp_target_up
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk"
	check wait_channels 2
	out=$(targetcli sessions detail 2>&1)
	echo "$out"
	grep -q "alias: ${RXE_ADDR%/*}.*session-state: LOGGED_IN" <<<"$out" ||
		fail "targetcli sessions does not list the initiator"
	[[ $(grep -c 'connection-state: LOGGED_IN' <<<"$out") == 2 ]] ||
		fail "targetcli sessions does not show both channels"
	grep -q "name: $(initiator_id | sed 's/^/0x/')" <<<"$out" ||
		grep -q "name: ib.$(initiator_id)" <<<"$out" ||
		fail "targetcli sessions detail does not name the ACL"
	grep -q 'mapped-lun: 0 backstore: ramdisk/rd_login' <<<"$out" ||
		fail "targetcli sessions detail does not show the mapped LUN"

	c0=$(counter cmds) i0=$(counter bytes_in) o0=$(counter bytes_out)
	check fio_verify "$d" stats --direct=1 --rw=write --bs=64k --size=16M \
		--iodepth=4
	c1=$(counter cmds) i1=$(counter bytes_in) o1=$(counter bytes_out)
	log "cmds $c0 -> $c1, bytes_in $i0 -> $i1, bytes_out $o0 -> $o1"
	# 16 MiB written in 64 KiB commands, then read back for the verify.
	[[ $((c1 - c0)) -ge 512 ]] || fail "cmds moved by $((c1 - c0)), expected >= 512"
	[[ $((i1 - i0)) -ge 16777216 ]] || fail "bytes_in moved by $((i1 - i0))"
	[[ $((o1 - o0)) -ge 16777216 ]] || fail "bytes_out moved by $((o1 - o0))"
	channels | grep -q ' id=[0-9]* state=live ' || fail "channels lacks id/state"

	check srp_logout_all
	check wait_channels 0
	out=$(targetcli sessions 2>&1)
	echo "$out"
	grep -q 'no open sessions' <<<"$out" || fail "a session is listed after the logout"
	grep -q '^No active SRP session' "$(tgt_dir)/acls/0x$(initiator_id)/info" ||
		fail "ACL info after logout: $(cat "$(tgt_dir)/acls/0x$(initiator_id)/info")"
	check srp_target_down
}

# case_info_during_logout: the ACL's info attribute (what targetcli's
# "sessions" reads) is read again and again while the initiator's channels
# log out and are released; every read names the initiator's own address
# for each channel listed, never state freed by the release.
case_info_during_logout() {
	local info out lpid n=0 addr=${RXE_ADDR%/*} line
	check srp_target_up
	check srp_login ch_count=2
	check srp_disk
	check wait_channels 2
	info=$(tgt_dir)/acls/0x$(initiator_id)/info
	srp_logout_all &
	lpid=$!
	while :; do
		read -r -d '' out <"$info"
		n=$((n + 1))
		while read -r line; do
			[[ $line == Address* ]] || continue
			[[ $line == "Address $addr RDMA_CM qp 0x"* ]] ||
				fail "read $n: '$line' (expected address $addr)"
		done <<<"$out"
		[[ $out == "No active SRP session"* ]] && break
		((n < 100000)) || fail "the channels never went away"
	done
	wait "$lpid" || fail "logout failed"
	log "info read $n times during the logout"
	check srp_target_down
}

# case_tracepoints: the ib_srpt trace events fire for a login, commands and
# their responses, a LUN reset and its response, a bad login, and the
# channel state changes of a logout.
case_tracepoints() {
	local d t ev
	check srp_target_up
	check trace_on
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	check sg_turs "$d"
	check dd if="$d" of=/dev/null bs=4k count=4 iflag=direct status=none
	check sg_reset -d "$d"
	check srp_logout_all
	check wait_channels 0
	# A refused login (initiator not in the ACL) is traced with its reason.
	check_not sysfs_write "$SRP_HOST/add_target" \
		"id_ext=$(node_guid),ioc_guid=$(node_guid),dest=$SRP_DEST,initiator_ext=0000000000000bad"
	trace_off
	# The login counters saw both the accepted and the refused login.
	cat "$CFS_SRPT/discovery_auth/logins"
	grep -Eq 'accepted=[1-9][0-9]* rejected=[1-9][0-9]* 0x10000=[1-9]' \
		"$CFS_SRPT/discovery_auth/logins" ||
		fail "discovery_auth/logins did not count the logins"
	t=$RESULTS/trace-$CASE_NAME.txt
	grep -c 'srpt_' "$t" | sed 's/^/trace lines: /'
	for ev in 'srpt_login: .* accepted' 'srpt_ch_state: .* connecting -> live' \
		'srpt_cmd: .* opcode=0x00 ' 'srpt_cmd: .* opcode=0x28 len=4096 dir=in' \
		'srpt_rsp: .* SRP_RSP status=0x00' 'srpt_tmf: .* function=0x08' \
		'srpt_tmf_rsp: .* response=0x00' 'srpt_ch_state: .* live -> disconnecting' \
		'srpt_ch_state: .* disconnecting -> releasing' \
		'srpt_login: .* rejected reason=0x10000'; do
		grep -Eq "$ev" "$t" || fail "no trace event matching '$ev'"
	done
	check srp_target_down
}

# case_stuck_report: a command held in the backend longer than the portal
# group's cmd_report_secs is reported once with its tag, LUN and opcode,
# counted as stuck, and completes when the backend lets it go.
case_stuck_report() {
	local d dpid
	check slow_lun_up
	check sysfs_write "$(tgt_dir)/attrib/cmd_report_secs" 2
	check srp_login ch_count=1
	check srp_disk >/dev/null
	d=$(lun1_disk) || fail "no disk for LUN 1"
	check slow_lun_hold
	dd if=/dev/zero of="$d" bs=4k count=1 oflag=direct status=none &
	dpid=$!
	check poll_until 30 stuck_over 0
	check dmesg_has 'request stuck: tag 0x[0-9a-f]* (LUN 1, opcode 0x2a), in the backend for'
	check slow_lun_release
	wait "$dpid" || fail "the held write failed after the resume"
	[[ $(counter stuck) == 1 ]] || fail "stuck counted $(counter stuck) times, expected once"
	channels
	check srp_target_down
	check slow_lun_down
}

# case_comp_vectors: channels spread over the completion vectors, and the
# comp_vector_mask parameter restricts them (rxe has one vector per CPU).
case_comp_vectors() {
	local p=/sys/module/ib_srpt/parameters/comp_vector_mask nvec
	check srp_target_up
	nvec=$(grep -c ^processor /proc/cpuinfo)
	[[ $nvec -ge 2 ]] || fail "the guest needs 2 CPUs for this case"
	check srp_login ch_count=2
	check wait_channels 2
	channels
	[[ $(channels | grep -o 'vector=[0-9]*' | sort -u | wc -l) == 2 ]] ||
		fail "two channels share one completion vector"
	check srp_logout_all
	check wait_channels 0
	check sysfs_write "$p" 0x2
	[[ $(<"$p") == 0x2 ]] || fail "comp_vector_mask reads $(<"$p")"
	check srp_login ch_count=2
	check wait_channels 2
	channels
	[[ $(channels | grep -c 'vector=1 ') == 2 ]] ||
		fail "comp_vector_mask=0x2 did not put both channels on vector 1"
	check_not sysfs_write "$p" bogus
	dmesg_has "comp_vector_mask: 'bogus' is not a 64-bit number" ||
		fail "no message for a bad comp_vector_mask"
	check sysfs_write "$p" 0
	check srp_target_down
}

run_observe_cases() {
	run_case sessions_stats case_sessions_stats
	run_case info_during_logout case_info_during_logout
	run_case tracepoints case_tracepoints
	run_case stuck_report case_stuck_report
	run_case comp_vectors case_comp_vectors
}
