# shellcheck shell=bash
# tests/guest/sendq.sh: send queue cases, sourced by suite.sh after lib.sh,
# login.sh and faults.sh.  The conformance client (build/client/
# srp-conformance, its sendq.* cases) stops posting receive buffers: the
# target's SENDs to it then meet RNR NAKs (the client asks for RNR retry
# count 7, for ever, as ib_srp does; the target's QP retries the portal
# group's rnr_retry times, 6 by default: about 4 s with the client's RNR
# timer of 655 ms, but Soft-RoCE before 5.19 retries at once, not after
# the timer), every later send of the channel waits behind them and, with
# srp_sq_size=16 (the minimum of a channel), the send queue is full.

# SENDQ_CHANNELS: the channels attribute of the portal group under test
# (set by each case; read with builtins, a fork costs ~50 ms under TCG).
SENDQ_CHANNELS=""

# sendq_field LINE NAME: sets SENDQ_VAL to the value of NAME=<n> in LINE.
sendq_field() {
	SENDQ_VAL=""
	[[ " $1 " =~ \ $2=(-?[0-9]+)\  ]] || return 1
	SENDQ_VAL=${BASH_REMATCH[1]}
}

# sendq_line GLOB: sets SENDQ_LINE to the first channel line matching GLOB.
sendq_line() {
	local l
	SENDQ_LINE=""
	while IFS= read -r l; do
		# shellcheck disable=SC2053 # a glob on purpose
		[[ $l == $1 ]] && {
			SENDQ_LINE=$l
			return 0
		}
	done <"$SENDQ_CHANNELS"
	return 1
}

# sendq_id_field ID NAME: SENDQ_VAL from the line of channel ID.
sendq_id_field() {
	sendq_line "* id=$1 *" && sendq_field "$SENDQ_LINE" "$2"
}

# sendq_gone ID: channel ID is no longer listed (released).
sendq_gone() { ! sendq_line "* id=$1 *"; }

# sendq_acl_ids ACL_DIR: sets SENDQ_IDS to the ids of the channels of the
# node ACL (its info attribute, "CID: <id> ..."); false if there are none.
# (The channels attribute names an RDMA/CM channel by its address, the
# same for every initiator in the guest.)
sendq_acl_ids() {
	local l
	SENDQ_IDS=""
	while IFS= read -r l; do
		[[ $l =~ ^CID:\ ([0-9]+) ]] && SENDQ_IDS+="${SENDQ_IDS:+ }${BASH_REMATCH[1]}"
	done <"$1/info"
	[[ -n $SENDQ_IDS ]]
}

# sendq_acl_none ACL_DIR: the node ACL has no channel.
sendq_acl_none() { ! sendq_acl_ids "$1"; }

# sendq_settled ID: the sq_full of channel ID is the same twice, 0.5 s
# apart (SENDQ_VAL: the value).
sendq_settled() {
	local v
	sendq_id_field "$1" sq_full || return 1
	v=$SENDQ_VAL
	nap 0.5
	sendq_id_field "$1" sq_full && [[ $SENDQ_VAL == "$v" ]]
}

# case_sendq_check_condition: the client stalls its channel (no receive
# buffer left, one credit kept), then sends a TEST UNIT READY to an
# unmapped LUN: LIO answers it itself (target_submit_prep() sends the
# CHECK CONDITION and ignores what queue_status returns) while the send
# queue is full.  The response must come once the client posts receives
# again, and the client's channel, its ACL and the module must then go
# away: a lost response keeps its command, and the channel's release
# waits for it for ever.
case_sendq_check_condition() {
	local acl t out cpid rc max=0 pid id rnr="" bad=()
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	modprobe -a rdma_ucm ib_uverbs || fail "rdma_ucm/ib_uverbs"
	acl=0x$CLIENT_EXT$(node_guid)
	# No keepalive and RNR retries for ever (7, as the client asks): the
	# stall must last until the client ends it.
	check srp_target_up "$acl" srp_sq_size=16 keepalive_secs=0 rnr_retry=7
	t=$(tgt_dir)
	SENDQ_CHANNELS=$t/channels
	out=$RESULTS/sendq-check-condition.txt
	conf_client --verbose --initiator-ext "$CLIENT_EXT" --lun 0 \
		--cases sendq.stalled_receiver_check_condition >"$out" 2>&1 &
	cpid=$!
	# The largest sq_full of the client's channels while it runs: the case
	# means something only if the send queue did fill.
	while kill -0 "$cpid" 2>/dev/null; do
		if sendq_acl_ids "$t/acls/$acl"; then
			for id in $SENDQ_IDS; do
				sendq_id_field "$id" sq_full && ((SENDQ_VAL > max)) &&
					max=$SENDQ_VAL
				sendq_id_field "$id" rnr_retry && ((SENDQ_VAL > 0)) &&
					rnr=$SENDQ_VAL
			done
		fi
		nap 0.2
	done
	wait "$cpid"
	rc=$?
	grep -E '^(PASS|FAIL|SKIP)|stalled:' "$out"
	log "largest sq_full of the client's channel: $max"
	# Every check runs, each bounded; the case fails with all that failed.
	[[ $rc == 0 ]] || bad+=("client: $(grep -m1 '^FAIL' "$out" || tail -n1 "$out")")
	((max > 0)) || bad+=("the send queue never filled (sq_full 0)")
	[[ $rnr == 7 ]] ||
		bad+=("the channel's QP has RNR retry '$rnr', expected the portal group's rnr_retry 7")
	poll_until 20 sendq_acl_none "$t/acls/$acl" ||
		bad+=("the client's channel $SENDQ_IDS is not released: $(dmesg_here | grep -m1 'release waits' || echo "no log line")")
	# The ACL goes (LIO waits for the session's commands first).
	(rm "$t/acls/$acl/lun_0/lun0" && rmdir "$t/acls/$acl/lun_0" "$t/acls/$acl") &
	pid=$!
	if ! poll_until 20 exited "$pid"; then
		bad+=("removing the client's ACL hangs")
	elif ! wait "$pid"; then
		bad+=("removing the client's ACL failed")
	else
		(srpt_teardown && rmmod ib_srpt) &
		pid=$!
		if ! poll_until 30 exited "$pid"; then
			bad+=("the teardown or rmmod hangs")
		elif ! wait "$pid"; then
			bad+=("the teardown or rmmod failed")
		fi
	fi
	dmesg_has 'release waits' && bad+=("a release waited for requests")
	((${#bad[@]} == 0)) || fail "$(IFS=';'; echo "${bad[*]}")"
}

# case_sendq_stalled_receiver: with srp_sq_size=16 and keepalive_secs=2,
# the client stalls its channel (no receive buffer left, every credit
# spent, the send queue full) while ib_srp runs fio verify on LUN 0.  The
# target ends the stalled channel within the bound docs/configuration.md
# gives for keepalive_secs (K + max(K, 10) + 2 * min(K, cmd_report_secs /
# 4): 16 s here), without a DREQ or error from the client; the stalled
# channel's sq_full counts each waiting response once (no retry loop), the
# counters stop moving once it is gone, and fio verify stays clean.
case_sendq_stalled_receiver() {
	local t rd acl d out fio cpid fpid rc id a b gone ms bound=16
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	modprobe -a rdma_ucm ib_uverbs || fail "rdma_ucm/ib_uverbs"
	check srp_target_up "" srp_sq_size=16 keepalive_secs=2
	t=$(tgt_dir)
	SENDQ_CHANNELS=$t/channels
	# LUN 0 for ib_srp, LUN 1 for the client.
	rd=$(rd_backstore rd_conf 64M) || fail "no backstore for LUN 1"
	acl=0x$CLIENT_EXT$(node_guid)
	check mkdir -p "$t/lun/lun_1" "$t/acls/$acl/lun_1"
	check ln -s "$rd" "$t/lun/lun_1/rd_conf"
	check ln -s "$t/lun/lun_1" "$t/acls/$acl/lun_1/lun1"
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	out=$RESULTS/sendq-stalled.txt fio=$RESULTS/sendq-fio.txt
	conf_client --verbose --initiator-ext "$CLIENT_EXT" --lun 1 --no-write \
		--cases sendq.stalled_receiver_ends_channel >"$out" 2>&1 &
	cpid=$!
	trap 'kill "$cpid" 2>/dev/null' EXIT
	fio_while "$cpid" "$d" >"$fio" 2>&1 &
	fpid=$!
	poll_until 60 grep -q 'stalled:' "$out" ||
		fail "the client did not stall its channel: $(tail -n1 "$out")"
	sendq_acl_ids "$t/acls/$acl" || fail "no channel of the client listed"
	id=$SENDQ_IDS
	[[ $id != *" "* ]] || fail "the client has several channels: $id"
	sendq_line "* id=$id *"
	log "stalled channel: $SENDQ_LINE"
	# Each response that waits for the send queue counts once: once the
	# last commands are in, sq_full stops moving.
	sendq_id_field "$id" sq_full && a=$SENDQ_VAL
	if poll_until 5 sendq_settled "$id"; then
		b=$SENDQ_VAL
	else
		b="still moving: $SENDQ_VAL"
	fi
	log "sq_full of the stalled channel: $a, then $b"
	poll_until $((bound + 10)) sendq_gone "$id" || {
		sendq_id_field "$id" sq_full
		fail "the stalled channel is still there $((bound + 10)) s after the stall (sq_full $a, then $b, now $SENDQ_VAL)"
	}
	[[ $b =~ ^[0-9]+$ ]] || fail "sq_full of the stalled channel kept moving ($a, then $b)"
	((b > 0)) || fail "the send queue never filled (sq_full 0)"
	wait "$cpid"
	rc=$?
	trap - EXIT
	wait "$fpid" || fail "fio verify on LUN 0 failed: $(tail -n3 "$fio")"
	tail -n1 "$fio"
	# The client has logged out and fio is done: nothing counts any more
	# (ib_srp's channel counts legitimately while fio runs).
	poll_until 10 sendq_acl_none "$t/acls/$acl" ||
		fail "channels of the client left: $SENDQ_IDS"
	a=$(counter sq_full)
	nap 1
	b=$(counter sq_full)
	[[ $a == "$b" ]] || fail "sq_full still moving after the stalled channel is gone ($a, 1 s later $b)"
	grep -E '^(PASS|FAIL|SKIP)|stalled:|DREQ' "$out"
	[[ $rc == 0 ]] || fail "client: $(grep -m1 '^FAIL' "$out" || tail -n1 "$out")"
	gone=$(grep -o 'DREQ [0-9]* ms' "$out")
	ms=${gone//[!0-9]/}
	[[ -n $ms ]] || fail "the client did not report the DREQ's time"
	log "the target ended the stalled channel $ms ms after the stall (bound $bound s)"
	# The bound, and 2 s for the release and the DREQ under TCG.
	((ms <= (bound + 2) * 1000)) ||
		fail "the DREQ came $ms ms after the stall, the bound is $bound s"
	dmesg_has 'closing channel: initiator unreachable (keepalive timed out)' ||
		dmesg_has 'closing channel: RDMA transfer error' ||
		fail "no log line for the closed channel"
	channels
	check srp_target_down
}

# case_sendq_writes: ib_srp writes 64 KiB blocks (beyond immediate data:
# the target fetches them with RDMA READs) at queue depth 64 into a
# channel of srp_sq_size=16, then reads them back (fio verify).  The send
# queue fills; the READs and responses that find it full must wait on the
# channel's list, each counted once in sq_full, and be posted by the send
# completions that make room.  Handing them back to LIO (-ENOMEM from
# write_pending) makes LIO's queue-full work retry them at once, again and
# again, counting each retry: sq_full would then exceed the commands many
# times over.
case_sendq_writes() {
	local d cmds full
	check srp_target_up "" srp_sq_size=16
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	check fio_verify "$d" sendq_writes --direct=1 --rw=randwrite --bs=64k \
		--size=32M --iodepth=64
	cmds=$(counter cmds) full=$(counter sq_full)
	log "commands: $cmds; sq_full: $full"
	channels
	((full > 0)) || fail "the send queue never filled (sq_full 0)"
	# A write waits at most twice (its READs, its response), a read once.
	((full <= 2 * cmds)) ||
		fail "sq_full $full for $cmds commands: waits were retried, not queued"
	check srp_target_down
}

run_sendq_cases() {
	CASE_TIMEOUT=180 run_case sendq_check_condition case_sendq_check_condition
	run_case sendq_stalled_receiver case_sendq_stalled_receiver
	run_case sendq_writes case_sendq_writes
}
