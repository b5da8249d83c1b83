# shellcheck shell=bash
# tests/guest/mad.sh: device-management MAD agent cases, sourced by suite.sh
# (uses its fresh and lib.sh's helpers).
#
#   mad_agent  the agent registers on rxe0 at load, advertises
#              IsDeviceManagementSupported in the port's cap_mask, follows
#              the device through rdma link delete/add, and unregisters
#              cleanly at rmmod
#   srp_dm     build/client/srp-dm sends device-management Gets through
#              libibumad from rxe0's GSI QP to rxe0 itself and reads back the
#              IOC profile and service entry the module advertises, and
#              the MAD status of refused queries (empty or bad slot, bad
#              modifier, unknown attribute; the MAD layer's own answer
#              once ib_srpt is unloaded)
#   srp_dm_login  (with login.sh) srp-dm, pointed at rxe0's RoCE GIDs,
#              prints the add_target line of our target (srpt_service_guid,
#              the RDMA/CM port the ID string names, the GID's address);
#              that line, echoed to ib_srp's add_target, logs in (disk,
#              fio verify); the port follows configfs writes (0: the IB/CM
#              line and a refusal to log in; another port); --login logs
#              in over IPv4, IPv6 and link-local IPv6; its errors (already
#              logged in, ib_srp not loaded).  Over the IPv4 GID srp-dm
#              asks from a UD QP of its own (ib_mad cannot pair those
#              answers), over the IPv6 ones through ib_umad

SRP_DM=$PROJECT/build/client/srp-dm
MAD_GUID=0002c90300001234 # srpt_service_guid for these cases
MAD_REQ_SIZE=16384        # srp_max_req_size for these cases
DEVICE_MGMT_SUP=$((1 << 19))

# cap_mask_dm: 1 if rxe0 port 1 advertises IsDeviceManagementSupported.
cap_mask_dm() {
	local m
	read -r m <"/sys/class/infiniband/$RXE_DEV/ports/1/cap_mask" || return 2
	log "rxe0 port 1 cap_mask $m" >&2
	((m & DEVICE_MGMT_SUP)) && echo 1 || echo 0
}

# mad_line TEXT: the case's kernel log has an ib_srpt line with TEXT.
mad_line() {
	dmesg_here | grep -F 'ib_srpt' | grep -qF "$RXE_DEV port 1: $1"
}

case_mad_agent() {
	local n
	fresh
	[[ $(cap_mask_dm) == 0 ]] || fail "cap_mask has DeviceManagement before load"
	load_srpt || fail "load failed"
	mad_line "device-management MAD agent registered" ||
		fail "no 'MAD agent registered' line for $RXE_DEV"
	[[ $(cap_mask_dm) == 1 ]] || fail "cap_mask lacks DeviceManagement after load"

	# Device removal unregisters; a new device registers again.
	check rxe_del
	n=$(dmesg_here | grep -cF "$RXE_DEV port 1: device-management MAD agent unregistered")
	((n == 1)) || fail "$n 'unregistered' lines after rdma link delete"
	check rxe_add
	n=$(dmesg_here | grep -cF "$RXE_DEV port 1: device-management MAD agent registered")
	((n == 2)) || fail "$n 'registered' lines after rdma link add"
	[[ $(cap_mask_dm) == 1 ]] || fail "cap_mask lacks DeviceManagement on the new device"

	check rmmod ib_srpt
	n=$(dmesg_here | grep -cF "$RXE_DEV port 1: device-management MAD agent unregistered")
	((n == 2)) || fail "$n 'unregistered' lines after rmmod"
	[[ $(cap_mask_dm) == 0 ]] || fail "cap_mask keeps DeviceManagement after rmmod"
	dmesg_here | grep -F ib_srpt | grep -iE 'registering.*failed|no answer' &&
		fail "MAD agent error in the kernel log"
	return 0
}

case_srp_dm() {
	local out
	[[ -x $SRP_DM ]] || fail "$SRP_DM not built (make unit, needs libibumad-dev)"
	fresh
	check modprobe ib_umad
	load_srpt srpt_service_guid=0x$MAD_GUID srp_max_req_size=$MAD_REQ_SIZE ||
		fail "load failed"
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 2>&1)
	local rc=$?
	echo "$out"
	((rc == 0)) || fail "srp-dm exit $rc: $(tail -n 1 <<<"$out")"
	grep -qx "controller: slot 1 present" <<<"$out" || fail "slot 1 not present"
	grep -qx "ioc\[1\].io_class: 0x0100" <<<"$out" || fail "I/O class is not SRP's"
	grep -qx "ioc\[1\].guid: 0x$MAD_GUID" <<<"$out" || fail "IOC GUID is not srpt_service_guid"
	grep -qx "ioc\[1\].send_size: $MAD_REQ_SIZE" <<<"$out" ||
		fail "send size is not srp_max_req_size ($MAD_REQ_SIZE)"
	grep -qx "service\[0\].id_ext: $MAD_GUID" <<<"$out" ||
		fail "service entry id_ext is not $MAD_GUID"
	grep -qx "service\[0\].id: 0x$MAD_GUID" <<<"$out" || fail "service ID is not $MAD_GUID"
	# RDMA transfer size: the default until a target port exists for the
	# port, then its group's srp_max_rdma_size, capped by max_cmd_data.
	grep -qx "ioc\[1\].rdma_size: 65536" <<<"$out" ||
		fail "RDMA size without a target port is not 65536"
	mk_target
	local a
	a=$(target_dir)/tpgt_1/attrib
	check sysfs_write "$a/srp_max_rdma_size" 1048576
	dm_rdma_size 1048576
	if [[ $SRPT_INTREE != 1 ]]; then
		check sysfs_write "$a/max_cmd_data" 524288
		dm_rdma_size 524288
	fi
	check srpt_teardown

	# The refusals, end to end: "ATTR,MOD expected-status".
	local q
	for q in "0x11,2 0x0100" "0x11,16 0x0100" "0x11,0 0x001c" "0x11,17 0x001c" \
		"0x12,0x10100 0x001c" "0x12,0x20000 0x0100" "0x10,1 0x001c" \
		"0x13,0 0x000c" "0x01,0 0x0000"; do
		dm_status "${q% *}" "${q#* }"
	done
	check rmmod ib_srpt

	# Without the agent the MAD layer itself refuses the Get.
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 2>&1) &&
		fail "srp-dm succeeded without ib_srpt loaded"
	echo "$out"
	dm_status 0x10,0 0x000c
	return 0
}

# dm_rdma_size BYTES: srp-dm reads BYTES as the controller's RDMA
# transfer size.
dm_rdma_size() {
	local out
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 2>&1) ||
		fail "srp-dm failed: $(tail -n 1 <<<"$out")"
	grep -qx "ioc\[1\].rdma_size: $1" <<<"$out" ||
		fail "RDMA size is not $1: $(grep -F rdma_size <<<"$out")"
}

# dm_status ATTR,MOD STATUS: a Get of ATTR with modifier MOD is answered
# with STATUS (0xNNNN).
dm_status() {
	local out
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 --query "$1" 2>&1) ||
		fail "srp-dm --query $1: $out"
	log "query $1: ${out##*$'\n'}"
	[[ $out == *"status: $2 "* ]] || fail "query $1 answered '${out##*$'\n'}', want $2"
}

# ------------------------------------------------------- srp_dm_login --

DM_CM_PORT2=5002            # the RDMA/CM port the case sets through configfs
DM_IP6=fd00:99::1           # a global IPv6 address the case adds to dummy0

# v4_gid ADDR: the sysfs form of the RoCE v2 GID of IPv4 address ADDR.
v4_gid() {
	local IFS=. o
	read -ra o <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' \
		"${o[0]}" "${o[1]}" "${o[2]}" "${o[3]}"
}

# wait_gid GID: rxe0 port 1's GID table holds GID (sysfs form); the table
# follows the netdev's addresses asynchronously.
wait_gid() {
	local f g i
	for ((i = 0; i < 50; i++)); do
		for f in "/sys/class/infiniband/$RXE_DEV/ports/1/gids/"*; do
			read -r g <"$f" 2>/dev/null && [[ $g == "$1" ]] && return 0
		done
		nap 0.1
	done
	echo "GID $1 not in $RXE_DEV's GID table" >&2
	return 1
}

# dm_lines ARGS...: srp-dm -c (only the add_target lines) with ARGS; the
# case fails if srp-dm does.
dm_lines() {
	local out rc
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 -c "$@" 2>"$RESULTS/srp-dm.err")
	rc=$?
	cat "$RESULTS/srp-dm.err" >&2
	((rc == 0)) || fail "srp-dm -c $*: exit $rc: $(tail -n 1 "$RESULTS/srp-dm.err")"
	echo "$out"
}

# dm_login_check WHAT: after WHAT logged in, a disk appeared (DM_DISK),
# answers TEST UNIT READY, and the target lists a channel.
dm_login_check() {
	DM_DISK=$(srp_disk) || fail "no SRP disk after $1"
	wait_channels_min 1 || fail "no channel after $1"
	sg_turs "$DM_DISK" || fail "TEST UNIT READY failed after $1"
}

# wait_channels_min N: the target lists at least N channels.
wait_channels_min() {
	local i
	for ((i = 0; i < 100; i++)); do
		(($(channel_count) >= $1)) && return 0
		nap 0.1
	done
	echo "target lists $(channel_count) channels, expected >= $1" >&2
	return 1
}

# dm_logout: log every SRP port out and wait for the channels to go.
dm_logout() {
	check srp_logout_all
	check wait_channels 0
}

case_srp_dm_login() {
	local guid ie gid4 ip4 line want out rc n
	[[ -x $SRP_DM ]] || fail "$SRP_DM not built (make unit, needs libibumad-dev)"
	fresh
	check modprobe ib_umad
	load_srpt srpt_service_guid=0x$MAD_GUID rdma_cm_port="$SRP_PORT" ||
		fail "load failed"
	check srp_target_up # keeps the module with these parameters
	read -r guid </sys/module/ib_srpt/parameters/srpt_service_guid ||
		fail "cannot read srpt_service_guid"
	guid=${guid#0x}
	[[ $guid == "$MAD_GUID" ]] || fail "srpt_service_guid is $guid, not $MAD_GUID"
	ie=$(gid_prefix) # the initiator_ext the target's ACL (initiator_id) wants
	ip4=${RXE_ADDR%/*}
	gid4=$(v4_gid "$ip4")
	check wait_gid "$gid4"

	# The line for the IPv4 GID, exactly; echoed to add_target it logs in.
	line=$(dm_lines --dgid "$gid4" --initiator-ext "$ie") || exit 1
	log "srp-dm printed: $line"
	want="id_ext=$guid,ioc_guid=$guid,dest=$ip4:$SRP_PORT,initiator_ext=$ie"
	[[ $line == "$want" ]] || fail "srp-dm printed '$line', want '$want'"
	check sysfs_write "$SRP_HOST/add_target" "$line"
	dm_login_check "the printed line"
	check fio_verify "$DM_DISK" srp_dm --direct=1 --rw=randwrite --bs=4k --size=8M \
		--iodepth=8
	dmesg_here | grep -q 'login from .* accepted' || fail "no login message"
	dm_logout

	# The full report names the port, in the ID string and decoded.
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 --dgid "$ip4" 2>&1) ||
		fail "srp-dm --dgid $ip4 failed: $(tail -n 1 <<<"$out")"
	echo "$out"
	grep -q "^ioc\[1\]\.id_string: .* rdma_cm_port=$SRP_PORT\$" <<<"$out" ||
		fail "the ID string does not end in rdma_cm_port=$SRP_PORT"
	grep -qx "ioc\[1\].rdma_cm_port: $SRP_PORT" <<<"$out" ||
		fail "srp-dm did not decode rdma_cm_port $SRP_PORT"
	grep -qx "add_target: id_ext=$guid,ioc_guid=$guid,dest=$ip4:$SRP_PORT" <<<"$out" ||
		fail "no add_target line in the report"
	# ib_mad drops answers from IPv4 RoCE v2 GIDs: srp-dm asks from a UD QP.
	grep -q '^transport: UD QP [0-9]' <<<"$out" ||
		fail "srp-dm did not use its UD QP for an IPv4 GID"

	# No listener (configfs, at run time): the IB/CM line, a note that
	# RoCE needs RDMA/CM, and --login refuses.
	check sysfs_write "$CFS_SRPT/discovery_auth/rdma_cm_port" 0
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 --dgid "$gid4" 2>&1) ||
		fail "srp-dm without a listener failed: $(tail -n 1 <<<"$out")"
	echo "$out"
	want="add_target: id_ext=$guid,ioc_guid=$guid,dgid=${gid4//:/},pkey=ffff,service_id=$guid"
	grep -qx "$want" <<<"$out" || fail "no IB/CM line '$want'"
	grep -q '^note: .*RoCE ib_srp logs in over RDMA/CM only' <<<"$out" ||
		fail "no note that RoCE needs RDMA/CM"
	grep -q 'rdma_cm_port' <<<"$(grep '^ioc\[1\]\.' <<<"$out")" &&
		fail "the ID string still names an RDMA/CM port"
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 --dgid "$gid4" --login 2>&1)
	rc=$?
	echo "$out"
	((rc == 1)) || fail "srp-dm --login without a listener: exit $rc, want 1"
	grep -q 'not logging in' <<<"$out" || fail "no refusal to log in over IB/CM"
	[[ -z $(srp_hosts) ]] || fail "an SRP host appeared without a listener"

	# Another port (configfs): the next answer names it; --login logs in.
	check sysfs_write "$CFS_SRPT/discovery_auth/rdma_cm_port" "$DM_CM_PORT2"
	line=$(dm_lines --dgid "$gid4") || exit 1
	[[ $line == "id_ext=$guid,ioc_guid=$guid,dest=$ip4:$DM_CM_PORT2" ]] ||
		fail "after rdma_cm_port=$DM_CM_PORT2 srp-dm printed '$line'"
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 --dgid "$gid4" \
		--login --initiator-ext "$ie" --opt ch_count=1 2>&1) ||
		fail "srp-dm --login failed: $(tail -n 1 <<<"$out")"
	echo "$out"
	want="login: $SRP_HOST/add_target took id_ext=$guid,ioc_guid=$guid,dest=$ip4:$DM_CM_PORT2,initiator_ext=$ie,ch_count=1"
	grep -qxF "$want" <<<"$out" || fail "no '$want'"
	dm_login_check "srp-dm --login"
	n=$(channel_count)
	((n == 1)) || fail "ch_count=1 login has $n channels"
	# Once more while logged in: ib_srp's EEXIST, in words.
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 --dgid "$gid4" \
		--login --initiator-ext "$ie" 2>&1) &&
		fail "a second srp-dm --login succeeded"
	echo "$out"
	grep -q 'add_target.*failed: File exists (ib_srp is already logged in' <<<"$out" ||
		fail "no 'File exists' error for the second login"
	dm_logout

	# IPv6: a global address (its GID) and the link-local one (srp-dm
	# without --dgid asks rxe0's GID 0 and adds the zone).
	trap 'ip -6 addr del "$DM_IP6/64" dev "$RXE_NETDEV" 2>/dev/null' EXIT
	check ip -6 addr add "$DM_IP6/64" dev "$RXE_NETDEV" nodad
	check wait_gid "fd00:0099:0000:0000:0000:0000:0000:0001"
	line=$(dm_lines --dgid "$DM_IP6" --initiator-ext "$ie" --login) || exit 1
	[[ $line == "id_ext=$guid,ioc_guid=$guid,dest=[$DM_IP6]:$DM_CM_PORT2,initiator_ext=$ie" ]] ||
		fail "for $DM_IP6 srp-dm printed '$line'"
	dm_login_check "the IPv6 login"
	dm_logout
	check ip -6 addr del "$DM_IP6/64" dev "$RXE_NETDEV"
	line=$(dm_lines --initiator-ext "$ie" --login) || exit 1
	[[ $line == "id_ext=$guid,ioc_guid=$guid,dest=[fe80::"*"%$RXE_NETDEV]:$DM_CM_PORT2,initiator_ext=$ie" ]] ||
		fail "for GID 0 srp-dm printed '$line'"
	dm_login_check "the link-local login"
	dm_logout

	# Without ib_srp: --login says so.
	check srp_target_down
	check modprobe -r ib_srp
	out=$("$SRP_DM" --device "$RXE_DEV" --timeout-ms 2000 --dgid "$gid4" --login 2>&1) &&
		fail "srp-dm --login succeeded without ib_srp"
	echo "$out"
	grep -q "cannot open $SRP_HOST/add_target: No such file or directory: ib_srp is not loaded" <<<"$out" ||
		fail "no 'ib_srp is not loaded' error"
	check srpt_teardown
	check rmmod ib_srpt
}

run_mad_cases() {
	run_case mad_agent case_mad_agent
	run_case srp_dm case_srp_dm
	# Needs login.sh's target and initiator helpers (SUITE_LOGIN=1), and
	# our module: the in-tree ib_srpt names no RDMA/CM port.
	if declare -F srp_target_up >/dev/null && [[ $SRPT_INTREE != 1 ]]; then
		CASE_TIMEOUT=360 run_case srp_dm_login case_srp_dm_login
	fi
}
