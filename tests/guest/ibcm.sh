# shellcheck shell=bash
# tests/guest/ibcm.sh: logins over IB/CM on RoCE, sourced by suite.sh after
# lib.sh, login.sh, faults.sh (poll_until, dmesg_has, channels_are) and
# observe.sh.  Everything else logs in over RDMA/CM, where the CM moves the
# target's QP; over IB/CM the target moves it itself (srpt_ch_qp_init, _rtr,
# _rts), which these cases exercise.
#
# The initiator is the test-only kernel module srp_ibcm_init
# (tests/kmod/srp_ibcm_init, built by 'make testmod KVER=...' into
# build/$KVER/kmod/, loaded by path): it sends a CM REQ with a T10
# SRP_LOGIN_REQ to the target's service ID over a RoCE path record built
# from rxe0's GID (loopback), moves its own QP, and runs SRP requests on
# command.  Commands go to /sys/kernel/debug/srp_ibcm_init/control (one per
# write, which returns when the command is done), results come back as
# "<session>.<key>=<value>" lines of .../status.

IBCM_KO=${IBCM_KO:-$PROJECT/build/$KVER/kmod/srp_ibcm_init/srp_ibcm_init.ko}
IBCM_DIR=/sys/kernel/debug/srp_ibcm_init
# Initiator port ID extensions of the module's sessions (the second half of
# each ID is rxe0's node GUID): IBCM_EXT and IBCM_EXT2 get ACLs,
# IBCM_EXT_DENIED never does.
IBCM_EXT=1bc0000000000001
IBCM_EXT2=1bc0000000000002
IBCM_EXT_DENIED=1bc00000000000de
# The second soft-RoCE device of ibcm_two_devices.
IBCM_DEV2=rxe1
IBCM_NETDEV2=dummy1
IBCM_MAC2=02:00:00:00:00:02
# Results of a good "io" command (see sic_io() in the module).
IBCM_IO_KEYS=(tur read_capacity write_direct read_direct write_indirect
	indirect_order read_indirect write_imm read_imm)

# ibcm_ini EXT: the initiator port ID with extension EXT, 32 hex digits.
ibcm_ini() { echo "$1$(node_guid)"; }

# ibcm_sid: the target's service ID (srpt_service_guid).
ibcm_sid() {
	local g
	read -r g </sys/module/ib_srpt/parameters/srpt_service_guid || return 1
	echo "$g"
}

# ibcm_load: (re)load the initiator module and mount debugfs.
ibcm_load() {
	if [[ ! -f $IBCM_KO ]]; then
		echo "$IBCM_KO not found (make testmod KVER=$KVER)" >&2
		return 1
	fi
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs debugfs /sys/kernel/debug || return 1
	ibcm_unload || return 1
	insmod_ko "$IBCM_KO"
}

# ibcm_unload: remove the initiator module if it is loaded.
ibcm_unload() {
	[[ -d /sys/module/srp_ibcm_init ]] || return 0
	log "rmmod srp_ibcm_init"
	rmmod srp_ibcm_init
}

# ibcm_cmd VERB ARGS...: one command; its status is the write's.
ibcm_cmd() {
	log "ibcm: $*"
	(echo "$*" >"$IBCM_DIR/control") 2>&1
}

# ibcm_get SESSION KEY: print a result of the module's status file.
ibcm_get() {
	local line
	while IFS= read -r line; do
		if [[ $line == "$1.$2="* ]]; then
			echo "${line#*=}"
			return 0
		fi
	done <"$IBCM_DIR/status"
	return 1
}

# ibcm_is SESSION KEY VALUE: fail the case unless the result is VALUE.
ibcm_is() {
	local v
	v=$(ibcm_get "$1" "$2")
	[[ $v == "$3" ]] || fail "session $1: $2 is '$v', expected '$3'"
}

# ibcm_status: the module's status, for the case log.
ibcm_status() { cat "$IBCM_DIR/status"; }

# ibcm_login SESSION EXT [KEY=VALUE...]: log in on rxe0 port 1 (dev= among
# the arguments overrides) as initiator EXT to the target's service ID.
ibcm_login() {
	local s=$1 ext=$2 sid
	shift 2
	sid=$(ibcm_sid) || return 1
	ibcm_cmd login "name=$s" "dev=$RXE_DEV" port=1 "service_id=$sid" \
		"initiator=$(ibcm_ini "$ext")" "$@"
}

# ibcm_acl EXT [TPG_DIR]: an ACL for initiator EXT with LUN 0 mapped.
ibcm_acl() {
	local t=${2:-$(tgt_dir)} acl
	acl=$t/acls/0x$(ibcm_ini "$1")
	mkdir -p "$acl/lun_0" && ln -s "$t/lun/lun_0" "$acl/lun_0/lun0"
}

# ibcm_chan EXT [TPG_DIR]: the target's channel line of initiator EXT.
ibcm_chan() {
	local t=${2:-$(tgt_dir)}
	grep "^0x$(ibcm_ini "$1") " "$t/channels"
}

# ibcm_chan_field EXT FIELD [TPG_DIR]: one field=value of that line.
ibcm_chan_field() {
	local line f
	line=$(ibcm_chan "$1" "${3:-}") || return 1
	for f in $line; do
		[[ $f == "$2="* ]] && {
			echo "${f#*=}"
			return 0
		}
	done
	return 1
}

# ibcm_chan_live EXT [TPG_DIR] / ibcm_chan_gone EXT [TPG_DIR]
ibcm_chan_live() { [[ $(ibcm_chan_field "$1" state "${2:-}") == live ]]; }
ibcm_chan_gone() { ! ibcm_chan "$1" "${2:-}" >/dev/null; }

# ibcm_accepted SESSION: the login was accepted and the module moved its
# QP through INIT, RTR and RTS and sent the RTU.
ibcm_accepted() {
	local k
	ibcm_is "$1" login accepted
	ibcm_is "$1" rsp_tag match
	for k in qp_init qp_rtr qp_rts rtu; do
		ibcm_is "$1" "$k" 0
	done
}

# ibcm_io_ok SESSION: every step of the last "io" command succeeded: data
# written and read back identical over direct and indirect descriptors and
# immediate data.
ibcm_io_ok() {
	local k v
	for k in "${IBCM_IO_KEYS[@]}"; do
		v=$(ibcm_get "$1" "$k")
		[[ $v == ok ]] && continue
		ibcm_diag
		fail "session $1: $k is '$v', expected 'ok'"
	done
}

# ibcm_diag: the QPs (states, PSNs) and soft-RoCE counters, for the log of
# a failed transfer.
ibcm_diag() {
	local d f
	log "--- QPs and soft-RoCE counters"
	rdma resource show qp
	for d in /sys/class/infiniband/rxe*/ports/1/hw_counters; do
		for f in "$d"/*; do
			echo "${f#/sys/class/infiniband/} $(<"$f")"
		done
	done
}

# ibcm_clean SESSION: no stale or unexpected IU and no receive error.
ibcm_clean() {
	ibcm_is "$1" stale_rsps 0
	ibcm_is "$1" other_ius 0
	ibcm_is "$1" t_logouts 0
	ibcm_is "$1" recv_errors 0
}

# ibcm_trace_on / ibcm_trace_off: the srpt_qp_state event, empty buffer;
# off saves the trace to $RESULTS/trace-$CASE_NAME.txt.
ibcm_trace_on() {
	local t=${TRACEFS:-/sys/kernel/tracing}
	mountpoint -q "$t" || mount -t tracefs tracefs "$t" || return 1
	echo 0 >"$t/tracing_on" &&
		echo >"$t/trace" &&
		echo 1 >"$t/events/ib_srpt/srpt_qp_state/enable" &&
		echo 1 >"$t/tracing_on"
}
ibcm_trace_off() {
	local t=${TRACEFS:-/sys/kernel/tracing}
	echo 0 >"$t/events/ib_srpt/srpt_qp_state/enable"
	cat "$t/trace" >"$RESULTS/trace-$CASE_NAME.txt"
}

# ibcm_qp_moves CH QP: the srpt_qp_state events of channel CH (whose QP
# must be QP) in the saved trace, as "STATE:ret ..." in their order.
ibcm_qp_moves() {
	grep -o "srpt_qp_state: ch=$1 qp=0x[0-9a-f]* state=[A-Z]* ret=-\?[0-9]*" \
		"$RESULTS/trace-$CASE_NAME.txt" |
		awk -v qp="qp=$2" '{ if ($3 != qp) { print "wrong-" $3; next }
			sub("state=", "", $4); sub("ret=", "", $5)
			printf "%s%s:%s", n++ ? " " : "", $4, $5 } END { print "" }'
}

# ibcm_dev2_up / ibcm_dev2_down: a second soft-RoCE device on its own dummy
# netdev with its own MAC (so its own port GID).
ibcm_dev2_up() {
	if ! ip link show "$IBCM_NETDEV2" >/dev/null 2>&1; then
		ip link add "$IBCM_NETDEV2" type dummy &&
			ip link set "$IBCM_NETDEV2" address "$IBCM_MAC2" &&
			ip link set "$IBCM_NETDEV2" up || return 1
	fi
	RXE_DEV=$IBCM_DEV2 RXE_NETDEV=$IBCM_NETDEV2 rxe_add
}
ibcm_dev2_down() {
	if [[ -d /sys/class/infiniband/$IBCM_DEV2 ]]; then
		RXE_DEV=$IBCM_DEV2 rxe_del || return 1
	fi
	if ip link show "$IBCM_NETDEV2" >/dev/null 2>&1; then
		ip link del "$IBCM_NETDEV2" || return 1
	fi
}

# ibcm_pds: protection domains the initiator module holds (rdma restrack).
ibcm_pds() { rdma resource show pd | grep -c '\[srp_ibcm_init\]' || true; }

# ibcm_up: target (ACL for the kernel initiator) with an ACL for IBCM_EXT
# too, and the module loaded; the target's portal group attributes are the
# arguments.
ibcm_up() {
	srp_target_up "" "$@" || return 1
	ibcm_acl "$IBCM_EXT" || return 1
	ibcm_load
}

# ibcm_down: the module's sessions and the target go.
ibcm_down() {
	ibcm_unload || return 1
	srp_target_down
}

# case_ibcm_login: an IB/CM login on the port the kernel initiator uses over
# RDMA/CM: both channels are listed (cm=ib, cm=rdma) and carry I/O; the
# IB/CM channel's QP is the one the REP named and was moved by the target to
# INIT, RTR and RTS, in that order (srpt_qp_state), and to ERR at release
# after the initiator's DREQ, which leaves the RDMA/CM channel alone.  The
# RDMA/CM channel's QP was moved by the target too (INIT, RTR, RTS), and
# both QPs retry RNR NAKs as often as the portal group's rnr_retry says (5
# here, not the default 6, so that the attribute is what is seen) as the
# device reports it, though both initiators asked for 7 (for ever).
case_ibcm_login() {
	local d id qp line moves rline rid rqp
	check ibcm_up rnr_retry=5
	check ibcm_trace_on
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk for the kernel initiator"
	check wait_channels 1
	rline=$(channels | grep ' cm=rdma ') || fail "no RDMA/CM channel listed"
	rid=$(field_of "$rline" id) && rqp=$(field_of "$rline" qp) ||
		fail "no id or QP in '$rline'"
	[[ $(field_of "$rline" rnr_retry) == 5 ]] ||
		fail "the RDMA/CM channel's QP has RNR retry '$(field_of "$rline" rnr_retry)', expected 5: $rline"
	check ibcm_login a "$IBCM_EXT"
	ibcm_status
	ibcm_accepted a
	check poll_until 30 ibcm_chan_live "$IBCM_EXT"
	channels
	line=$(ibcm_chan "$IBCM_EXT")
	[[ $line == *" cm=ib "* ]] || fail "the IB/CM channel is not cm=ib: $line"
	[[ $(channels | grep -c ' cm=rdma ') == 1 ]] ||
		fail "the kernel initiator's channel is not listed with cm=rdma"
	[[ $(channel_count) == 2 ]] || fail "$(channel_count) channels, expected 2"
	id=$(ibcm_chan_field "$IBCM_EXT" id) || fail "no channel id"
	qp=$(ibcm_chan_field "$IBCM_EXT" qp) || fail "no channel QP"
	[[ $qp == "$(ibcm_get a remote_qpn)" ]] ||
		fail "channel QP $qp is not the REP's $(ibcm_get a remote_qpn)"
	[[ $(ibcm_chan_field "$IBCM_EXT" rnr_retry) == 5 ]] ||
		fail "the IB/CM channel's QP has RNR retry '$(ibcm_chan_field "$IBCM_EXT" rnr_retry)', expected 5"

	check ibcm_cmd io name=a
	ibcm_status
	ibcm_io_ok a
	check sg_turs "$d"
	check dd if="$d" of=/dev/null bs=4k count=4 iflag=direct status=none

	check ibcm_cmd dreq name=a
	ibcm_is a dreq drep
	check poll_until 30 ibcm_chan_gone "$IBCM_EXT"
	check dmesg_has "0x$(ibcm_ini "$IBCM_EXT"): closing channel: disconnected"
	check dmesg_has "0x$(ibcm_ini "$IBCM_EXT"): channel released"
	ibcm_trace_off
	moves=$(ibcm_qp_moves "$id" "$qp")
	log "QP moves of channel $id: $moves"
	[[ $moves == "INIT:0 RTR:0 RTS:0 ERR:0" ]] ||
		fail "srpt_qp_state of channel $id: '$moves', expected INIT, RTR, RTS, ERR (ret 0)"
	moves=$(ibcm_qp_moves "$rid" "$rqp")
	log "QP moves of the RDMA/CM channel $rid: $moves"
	[[ $moves == "INIT:0 RTR:0 RTS:0" ]] ||
		fail "srpt_qp_state of the RDMA/CM channel $rid: '$moves', expected INIT, RTR, RTS (ret 0)"
	# The RDMA/CM channel was not touched.
	[[ $(channels | grep -c ' state=live cm=rdma ') == 1 ]] ||
		fail "the kernel initiator's channel did not survive: $(channels)"
	check sg_turs "$d"
	ibcm_clean a
	check ibcm_cmd close name=a
	check ibcm_down
}

# login_info_has TEXT: the portal group's login_info has a line with TEXT.
login_info_has() { grep -qF -- "$1" "$(tgt_dir)/login_info"; }
login_info_lacks() { ! login_info_has "$1"; }

# case_login_info: the portal group's login_info lists one add_target line
# per way in: IB/CM with rxe0's GID and the service GUID, RDMA/CM per
# address of the port (IPv4 and a global IPv6 address added here; no
# link-local one).  Each line is used exactly as printed: the IPv4 and
# IPv6 lines (plus initiator_ext) by ib_srp, with a fio verify over each,
# and the IB/CM line by the test initiator, with its I/O.
case_login_info() {
	local t info guid gid ip6=fd00:99::1 l4 l6 lib l d n=0
	check ibcm_up
	t=$(tgt_dir)
	guid=$(ibcm_sid) || fail "no srpt_service_guid"
	guid=${guid#0x}
	gid=$(port_gid) || fail "no GID on $RXE_DEV"
	check ip -6 addr add "$ip6/64" dev "$RXE_NETDEV" nodad
	poll_until 30 login_info_has "dest=[$ip6]:$SRP_PORT" ||
		fail "login_info lists no line for $ip6: $(<"$t/login_info")"
	info=$(<"$t/login_info")
	log "login_info:"
	echo "$info"
	lib="id_ext=$guid,ioc_guid=$guid,dgid=$gid,pkey=ffff,service_id=$guid"
	l4="id_ext=$guid,ioc_guid=$guid,dest=$SRP_DEST"
	l6="id_ext=$guid,ioc_guid=$guid,dest=[$ip6]:$SRP_PORT"
	[[ $(grep -cxF -- "$lib" <<<"$info") == 1 ]] || fail "no IB/CM line '$lib'"
	[[ $(grep -cxF -- "$l4" <<<"$info") == 1 ]] || fail "no RDMA/CM line '$l4'"
	[[ $(grep -cxF -- "$l6" <<<"$info") == 1 ]] || fail "no RDMA/CM line '$l6'"
	! grep -qi 'dest=\[fe80' <<<"$info" || fail "a link-local address is listed"
	[[ $(grep -c . <<<"$info") == 3 ]] || fail "login_info has lines beyond the three ways in"

	for l in "$l4" "$l6"; do
		check sysfs_write "$SRP_HOST/add_target" "$l,initiator_ext=$(gid_prefix)"
		d=$(srp_disk) || fail "no disk after a login with '$l'"
		n=$((n + 1))
		check fio_verify "$d" "login_info_$n" --direct=1 \
			--rw=randwrite --bs=16k --size=8M --iodepth=8
		# ib_srp forgets the target after its SCSI host: the next
		# add_target waits until the target has no channel left.
		check srp_logout_all
		check wait_channels 0
	done

	# The IB/CM line as one argument list of the test initiator.
	check ibcm_cmd login name=li "dev=$RXE_DEV" port=1 \
		"initiator=$(ibcm_ini "$IBCM_EXT")" "$lib"
	ibcm_accepted li
	check ibcm_cmd io name=li lba=64
	ibcm_io_ok li
	check ibcm_cmd logout name=li
	check ip -6 addr del "$ip6/64" dev "$RXE_NETDEV"
	check poll_until 30 login_info_lacks "dest=[$ip6]"
	check ibcm_down
}


# case_ibcm_io: SCSI commands over IB/CM: data written and read back
# identical with direct and indirect descriptors and immediate data (which
# the target offers: use_srq=0), ABORT TASK and LUN RESET answered with
# "function complete", I/O after the reset, SRP_I_LOGOUT answered by the
# target's disconnect; then a use_srq=1 login, where the target offers no
# immediate data and the module does not use it.
case_ibcm_io() {
	local t c0 c1 k
	check ibcm_up
	t=$(tgt_dir)
	check ibcm_login a "$IBCM_EXT"
	ibcm_accepted a
	ibcm_is a imm 1
	check poll_until 30 ibcm_chan_live "$IBCM_EXT"
	c0=$(ibcm_chan_field "$IBCM_EXT" imm_cmds)
	check ibcm_cmd io name=a lba=64
	ibcm_status
	ibcm_io_ok a
	c1=$(ibcm_chan_field "$IBCM_EXT" imm_cmds)
	((c1 > c0)) || fail "the target counted no immediate-data command ($c0 -> $c1)"
	check ibcm_cmd tmf name=a func=0x01
	ibcm_is a tmf_0x01 0x00
	check ibcm_cmd tmf name=a func=0x08
	ibcm_is a tmf_0x08 0x00
	[[ $(ibcm_chan_field "$IBCM_EXT" tmfs) == 2 ]] ||
		fail "the target counted $(ibcm_chan_field "$IBCM_EXT" tmfs) TMFs, expected 2"
	check ibcm_cmd io name=a lba=128
	ibcm_io_ok a
	channels
	[[ $(ibcm_chan_field "$IBCM_EXT" malformed) == 0 ]] ||
		fail "the target counted malformed IUs"
	[[ $(ibcm_chan_field "$IBCM_EXT" rdma_errors) == 0 ]] ||
		fail "the target counted RDMA errors"
	check ibcm_cmd logout name=a
	ibcm_is a logout dreq
	check poll_until 30 ibcm_chan_gone "$IBCM_EXT"
	check dmesg_has "0x$(ibcm_ini "$IBCM_EXT"): closing channel: SRP_I_LOGOUT from the initiator"
	ibcm_clean a
	check ibcm_cmd close name=a

	# An SRQ channel: no immediate data offered, none used.
	check sysfs_write "$t/attrib/use_srq" 1
	check ibcm_login b "$IBCM_EXT"
	ibcm_accepted b
	ibcm_is b imm 0
	check poll_until 30 ibcm_chan_live "$IBCM_EXT"
	[[ $(ibcm_chan_field "$IBCM_EXT" srq) == 1 ]] || fail "the channel does not use the SRQ"
	check ibcm_cmd io name=b lba=256
	ibcm_status
	ibcm_is b write_imm "not offered"
	for k in tur read_capacity write_direct read_direct write_indirect \
		indirect_order read_indirect; do
		ibcm_is b "$k" ok
	done
	check ibcm_cmd dreq name=b
	check poll_until 30 ibcm_chan_gone "$IBCM_EXT"
	ibcm_clean b
	check ibcm_cmd close name=b
	check ibcm_down
}

# ibcm_refused SESSION EXT REASON WHY [KEY=VALUE...]: a login the target
# refuses with a CM REJ (consumer defined) carrying SRP_LOGIN_REJ REASON
# with the login's tag, and logs with WHY.
ibcm_refused() {
	local s=$1 ext=$2 reason=$3 why=$4
	shift 4
	check ibcm_login "$s" "$ext" "$@"
	ibcm_status | grep "^$s\."
	ibcm_is "$s" login rejected
	ibcm_is "$s" cm_rej_reason 28
	ibcm_is "$s" srp_rej_reason "$reason"
	ibcm_is "$s" rej_tag match
	ibcm_is "$s" srp_rej_buf_fmt 0x6
	check dmesg_has "login from 0x$(ibcm_ini "$ext") refused (reason $reason): $why"
	check ibcm_cmd close name="$s"
}

# case_ibcm_refusals: IB/CM logins refused for an initiator without an ACL,
# IU lengths out of range, no usable buffer format and a wrong target port
# ID, each with its SRP_LOGIN_REJ reason in the CM REJ; no channel is left,
# the refusals are counted, and a good login is accepted afterwards.
case_ibcm_refusals() {
	local max r0 r1
	check ibcm_up
	read -r max </sys/module/ib_srpt/parameters/srp_max_req_size ||
		fail "cannot read srp_max_req_size"
	r0=$(rejects 0x10002)
	ibcm_refused noacl "$IBCM_EXT_DENIED" 0x10000 "initiator not in the ACL"
	ibcm_refused iu_big "$IBCM_EXT" 0x10002 \
		"requested IT IU length out of range" it_iu_len=$((max + 1))
	ibcm_refused iu_small "$IBCM_EXT" 0x10002 \
		"requested IT IU length out of range" it_iu_len=63
	ibcm_refused fmt "$IBCM_EXT" 0x10004 \
		"no supported buffer format requested" buf_fmt=0x1
	ibcm_refused tport "$IBCM_EXT" 0x10003 "target port id mismatch" \
		id_ext=0123456789abcdef
	# The protocol checks come before the ACL: a bad IU length from an
	# initiator without an ACL gets 0x10002.
	ibcm_refused noacl_iu "$IBCM_EXT_DENIED" 0x10002 \
		"requested IT IU length out of range" it_iu_len=$((max + 1))
	r1=$(rejects 0x10002)
	((r1 - r0 == 3)) || fail "discovery_auth/logins counted $((r1 - r0)) 0x10002 refusals, expected 3"
	[[ $(channel_count) == 0 ]] || fail "a refused login left a channel: $(channels)"
	# The same initiator with good parameters.
	check ibcm_login ok "$IBCM_EXT"
	ibcm_accepted ok
	check poll_until 30 ibcm_chan_live "$IBCM_EXT"
	check ibcm_cmd dreq name=ok
	check poll_until 30 ibcm_chan_gone "$IBCM_EXT"
	check ibcm_cmd close name=ok
	check ibcm_down
}

# ibcm_dreq_seen SESSION: the target sent its DREQ (unanswered).
ibcm_dreq_seen() {
	local n
	n=$(ibcm_get "$1" dreq_received) || return 1
	((n > 0))
}

# case_ibcm_vanish: the initiator's QP goes to the error state and it stops
# answering the CM, without a DREQ; the target's keepalive (keepalive_secs
# 2) finds it unreachable and releases the channel within a bound, and its
# DREQ stays unanswered.
case_ibcm_vanish() {
	local start
	check ibcm_up keepalive_secs=2
	check ibcm_login a "$IBCM_EXT"
	ibcm_accepted a
	check poll_until 30 ibcm_chan_live "$IBCM_EXT"
	check ibcm_cmd io name=a
	ibcm_io_ok a
	check ibcm_cmd vanish name=a
	ibcm_is a vanish 0
	start=$SECONDS
	check poll_until 60 ibcm_chan_gone "$IBCM_EXT"
	log "channel released $((SECONDS - start)) s after the initiator vanished"
	check dmesg_has "0x$(ibcm_ini "$IBCM_EXT"): closing channel: initiator unreachable"
	check dmesg_has "0x$(ibcm_ini "$IBCM_EXT"): channel released"
	check poll_until 30 ibcm_dreq_seen a
	ibcm_is a drep_received 0
	ibcm_is a state vanished
	ibcm_status
	check ibcm_cmd close name=a
	check ibcm_down
}

# case_ibcm_two_devices: a second soft-RoCE device (rxe1, its own netdev
# and MAC, so its own GID): the target has a target port named after each
# port's GID, the module logs in on each device's port (to the same service
# ID), each channel is listed under its own port's portal group only, and
# both carry I/O.
case_ibcm_two_devices() {
	local gid2 t t2 rd
	trap 'ibcm_dev2_down' EXIT
	check ibcm_dev2_down # leftovers of a case that was killed
	check ibcm_dev2_up
	check ibcm_up
	t=$(tgt_dir)
	gid2=$(RXE_DEV=$IBCM_DEV2 port_gid) || fail "no GID on $IBCM_DEV2"
	log "$IBCM_DEV2 GID $gid2"
	t2=$CFS_SRPT/0x$gid2/tpgt_1
	rd=$(rd_backstore) || fail "no backstore"
	check mkdir -p "$t2/lun/lun_0"
	check ln -s "$rd" "$t2/lun/lun_0/rd_login"
	check ibcm_acl "$IBCM_EXT2" "$t2"
	check sysfs_write "$t2/enable" 1

	check ibcm_login a "$IBCM_EXT"
	check ibcm_login b "$IBCM_EXT2" "dev=$IBCM_DEV2"
	ibcm_status
	ibcm_accepted a
	ibcm_accepted b
	[[ $(ibcm_get b path) == *"sgid $(</sys/class/infiniband/$IBCM_DEV2/ports/1/gids/0) "* ]] ||
		fail "session b did not use $IBCM_DEV2's GID: $(ibcm_get b path)"
	check poll_until 30 ibcm_chan_live "$IBCM_EXT" "$t"
	check poll_until 30 ibcm_chan_live "$IBCM_EXT2" "$t2"
	log "$RXE_DEV: $(cat "$t/channels")"
	log "$IBCM_DEV2: $(cat "$t2/channels")"
	ibcm_chan_gone "$IBCM_EXT2" "$t" || fail "the $IBCM_DEV2 channel is listed on $RXE_DEV's port"
	ibcm_chan_gone "$IBCM_EXT" "$t2" || fail "the $RXE_DEV channel is listed on $IBCM_DEV2's port"
	[[ $(ibcm_chan_field "$IBCM_EXT2" cm "$t2") == ib ]] || fail "the $IBCM_DEV2 channel is not cm=ib"
	# One backstore behind both ports: different blocks.
	check ibcm_cmd io name=a lba=0
	check ibcm_cmd io name=b lba=1024
	ibcm_io_ok a
	ibcm_io_ok b
	check ibcm_cmd dreq name=a
	check ibcm_cmd dreq name=b
	check poll_until 30 ibcm_chan_gone "$IBCM_EXT" "$t"
	check poll_until 30 ibcm_chan_gone "$IBCM_EXT2" "$t2"
	ibcm_clean a
	ibcm_clean b
	check ibcm_cmd close name=a
	check ibcm_cmd close name=b
	check ibcm_down
	check ibcm_dev2_down
}

# case_ibcm_rmmod: with two IB/CM channels up, rmmod of the initiator module
# (its CM ids send DREQs, its QPs are drained): the target releases both;
# then with a channel up, the target's configfs objects are removed (the
# channel closes) and ib_srpt unloaded, the initiator sees the DREQ and
# frees its session.  No PD of the module is left, and no splat.
case_ibcm_rmmod() {
	check ibcm_up
	check ibcm_acl "$IBCM_EXT2"
	check ibcm_login a "$IBCM_EXT"
	check ibcm_login b "$IBCM_EXT2" multi=1
	ibcm_accepted a
	ibcm_accepted b
	check poll_until 30 ibcm_chan_live "$IBCM_EXT"
	check poll_until 30 ibcm_chan_live "$IBCM_EXT2"
	check ibcm_cmd io name=a
	ibcm_io_ok a
	[[ $(ibcm_pds) == 2 ]] || fail "the module holds $(ibcm_pds) PDs, expected 2"
	check ibcm_unload
	[[ $(ibcm_pds) == 0 ]] || fail "$(ibcm_pds) PDs of the module left after rmmod"
	check poll_until 30 channels_are 0
	[[ $(dmesg_here | grep -c "0x1bc000000000000[12]$(node_guid): channel released") == 2 ]] ||
		fail "the target did not release both channels"

	check ibcm_load
	check ibcm_login a "$IBCM_EXT"
	ibcm_accepted a
	check poll_until 30 ibcm_chan_live "$IBCM_EXT"
	check srpt_teardown
	check rmmod ib_srpt
	check poll_until 30 ibcm_dreq_seen a
	ibcm_is a state disconnected
	check ibcm_cmd close name=a
	check ibcm_unload
	[[ $(ibcm_pds) == 0 ]] || fail "$(ibcm_pds) PDs of the module left after rmmod"
}

run_ibcm_cases() {
	run_case ibcm_login case_ibcm_login
	run_case ibcm_io case_ibcm_io
	run_case login_info case_login_info
	run_case ibcm_refusals case_ibcm_refusals
	run_case ibcm_vanish case_ibcm_vanish
	run_case ibcm_two_devices case_ibcm_two_devices
	run_case ibcm_rmmod case_ibcm_rmmod
}
