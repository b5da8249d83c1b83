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

run_mad_cases() {
	run_case mad_agent case_mad_agent
	run_case srp_dm case_srp_dm
}
