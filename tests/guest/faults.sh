# shellcheck shell=bash
# tests/guest/faults.sh: task management, teardown and fault cases, sourced
# by suite.sh after lib.sh and login.sh.  What an operator or a failing
# initiator does to a target with sessions and I/O in flight: resets under
# load, logins and logouts under dm-multipath, RDMA device removal, portal
# group / ACL / LUN removal, unload, and many login cycles.

# poll_until SECS CMD...: run CMD every 0.2 s until it succeeds or SECS
# pass; the status is CMD's last one.
poll_until() {
	local secs=$1 end
	shift
	end=$((SECONDS + secs))
	until "$@"; do
		((SECONDS < end)) || return 1
		nap 0.2
	done
}

channels_are() { [[ $(channel_count) == "$1" ]]; }
cmds_over() { [[ $(counter cmds) -gt $1 ]]; }
over_credit_over() { [[ $(counter over_credit) -gt $1 ]]; }
exited() { ! kill -0 "$1" 2>/dev/null; }
dmesg_has() { dmesg_here | grep -q "$1"; }
# dmesg_count PATTERN: lines of the case's kernel log with PATTERN.
dmesg_count() { dmesg_here | grep -c "$1"; }
# dmesg_more PATTERN N: more than N such lines.
dmesg_more() { (($(dmesg_count "$1") > $2)); }
# dmesg_secs FROM TO: seconds (kernel log time) from the last line with
# FROM to the last line with TO after it, e.g. 0.031.
dmesg_secs() {
	dmesg_here | awk -v a="$1" -v b="$2" '
		{ t = substr($0, 2, index($0, "]") - 2) + 0 }
		index($0, a) { ta = t; tb = "" }
		index($0, b) && ta != "" { tb = t }
		END { if (ta == "" || tb == "") print "none"; else printf "%.3f\n", tb - ta }'
}

# fast_reconnect: let ib_srp retry a lost connection every second.
fast_reconnect() {
	local p
	for p in /sys/class/srp_remote_ports/*/reconnect_delay; do
		[[ -e $p ]] && echo 1 >"$p"
	done
	return 0
}

# acl_dir: configfs directory of the kernel initiator's ACL.
acl_dir() { echo "$(tgt_dir)/acls/0x$(initiator_id)"; }

# acl_map / acl_unmap: map LUN 0 into the initiator's ACL, or remove the
# mapping and the ACL.
acl_map() {
	local a
	a=$(acl_dir)
	mkdir -p "$a/lun_0" && ln -s "$(tgt_dir)/lun/lun_0" "$a/lun_0/lun0"
}
acl_unmap() {
	local a
	a=$(acl_dir)
	rm -f "$a/lun_0/lun0" && rmdir "$a/lun_0" "$a"
}

# verify_loop DEV NAME PIDFILE: fio verify runs on DEV until the process in
# PIDFILE ends; prints the number of runs; fails on the first error.
verify_loop() {
	local dev=$1 name=$2 pid n=0
	read -r pid <"$3"
	while kill -0 "$pid" 2>/dev/null; do
		fio_verify "$dev" "$name" --direct=1 --rw=randwrite --bs=4k \
			--size=8M --iodepth=16 >&2 || return 1
		n=$((n + 1))
	done
	echo "$n"
}

# case_tmf_reset_load: 60 s (SRPT_RESET_SECS) of LUN resets (sg_reset -d)
# alternating every second with bus resets (sg_reset -b; ib_srp has no bus
# reset, so the SCSI layer escalates to a host reset: ib_srp reconnects
# every channel) while fio verifies data on the same disk.  Every LUN reset
# must succeed (the target answers "function complete"), no verify error,
# and the disk works afterwards.
case_tmf_reset_load() {
	local d pidf=/tmp/resets.pid runs lr hr secs=${SRPT_RESET_SECS:-60} want
	# At least one of each kind of reset per 6 s (10 in the full 60 s).
	want=$((secs / 6 > 2 ? secs / 6 : 2))
	check srp_target_up
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk"
	fast_reconnect
	(
		end=$((SECONDS + secs)) i=0
		while ((SECONDS < end)); do
			if ((i % 2 == 0)); then
				sg_reset -d "$d" && echo "lun_reset ok" || echo "lun_reset failed"
			else
				sg_reset -b "$d" && echo "bus_reset ok" || echo "bus_reset failed"
			fi
			i=$((i + 1))
			nap 1
		done
	) >"$RESULTS/resets.txt" 2>&1 &
	echo $! >"$pidf"
	runs=$(verify_loop "$d" reset_bg "$pidf") || fail "fio verify failed during resets"
	wait
	lr=$(grep -c 'lun_reset ok' "$RESULTS/resets.txt")
	hr=$(grep -c 'bus_reset ok' "$RESULTS/resets.txt")
	log "fio verify runs: $runs; LUN resets ok: $lr; bus/host resets ok: $hr"
	grep -v ' ok$' "$RESULTS/resets.txt" | head -n 5
	[[ $runs -ge 2 ]] || fail "only $runs fio runs completed during the resets"
	[[ $lr -ge $want ]] || fail "only $lr LUN resets succeeded (want $want)"
	grep -q 'lun_reset failed' "$RESULTS/resets.txt" && fail "a LUN reset failed"
	[[ $hr -ge $want ]] || fail "only $hr bus/host resets succeeded (want $want)"
	check poll_until 30 sg_turs "$d"
	check fio_verify "$d" after_resets --direct=1 --rw=randwrite --bs=64k \
		--size=16M --iodepth=8
	channels
	check srp_target_down
}

# mpath_wwid DEV: the multipath WWID of DEV.
mpath_dev() {
	local m
	for m in /sys/block/dm-*; do
		[[ -e $m/dm/uuid && $(<"$m/dm/uuid") == mpath-* ]] && {
			echo "/dev/${m##*/}"
			return 0
		}
	done
	return 1
}

# path_count: number of SCSI disks of ib_srp.
path_count() {
	local h b n=0
	for h in $(srp_hosts); do
		for b in "$h"/device/target*/*/block/*; do
			[[ -e $b ]] && n=$((n + 1))
		done
	done
	echo "$n"
}
paths_are() { [[ $(path_count) == "$1" ]]; }

# login_path EXT: log in as initiator extension EXT (a path of its own);
# /tmp/path-EXT remembers the SCSI host it created.
login_path() {
	local guid before h
	guid=$(node_guid) || return 1
	before=" $(srp_hosts | tr '\n' ' ') "
	sysfs_write "$SRP_HOST/add_target" \
		"id_ext=$guid,ioc_guid=$guid,dest=$SRP_DEST,initiator_ext=$1,ch_count=1" ||
		return 1
	for h in $(srp_hosts); do
		[[ $before == *" $h "* ]] && continue
		echo "$h" >"/tmp/path-$1"
		return 0
	done
	echo "login as $1 created no SCSI host" >&2
	return 1
}

# logout_path EXT: delete the SRP remote port of initiator extension EXT.
logout_path() {
	local h p
	read -r h <"/tmp/path-$1" || return 1
	for p in "$h"/device/port-*; do
		[[ -e $p ]] || continue
		echo 1 >"/sys/class/srp_remote_ports/${p##*/}/delete"
		return 0
	done
	echo "no remote port under $h" >&2
	return 1
}

# mpath_reload [ARGS]: let multipath(8) create or rebuild the map from the
# paths present.
mpath_reload() {
	multipath "$@" >>"$RESULTS/multipath.log" 2>&1
}

# udev_start / udev_stop: multipath(8) only uses disks udev has seen, and
# the guest runs no udev: start systemd-udevd for the case, for block
# devices only.
udev_start() {
	/lib/systemd/systemd-udevd --daemon || return 1
	udevadm trigger --subsystem-match=block --action=add &&
		udevadm settle -t 60
}
udev_stop() { udevadm control --exit; }

# mpath_maps: the names of the multipath maps.
mpath_maps() {
	dmsetup ls --target multipath 2>/dev/null | awk '$2 ~ /^\(/ { print $1 }'
}

# dm_openers: the processes that have a device-mapper node open, each
# with its task_report (why a map could not be removed).
dm_openers() {
	local fd p f
	for fd in /proc/[0-9]*/fd/*; do
		f=$(readlink "$fd" 2>/dev/null)
		[[ $f == /dev/dm-* || $f == /dev/mapper/* ]] || continue
		p=${fd#/proc/} p=${p%%/*}
		echo "$f is open in:"
		task_report "$p"
	done
}

# mpath_cleanup: stop multipathd, remove the maps and stop udev (also
# when the case fails).  The maps queue I/O while they have no path
# (no_path_retry queue); they are first told to fail it instead, so that
# no reader stays blocked on a map whose paths go away with the logout
# (once, 'dmsetup remove_all' left a map open here, and the target
# teardown after it hung).  A map that stays is reported with its openers.
mpath_cleanup() {
	local m
	multipathd shutdown >/dev/null 2>&1
	for m in $(mpath_maps); do
		dmsetup message "$m" 0 fail_if_no_path >/dev/null 2>&1
	done
	multipath -F >/dev/null 2>&1 || dmsetup remove_all
	if [[ -n $(mpath_maps) ]]; then
		log "multipath maps left after cleanup: $(mpath_maps | tr '\n' ' ')"
		dm_openers
	fi
	udev_stop 2>/dev/null
	return 0
}

# case_mpath_relogin: two paths (two initiator extensions) to one LUN under
# dm-multipath with no_path_retry queue; for 60 s one path after the other
# logs out and in again while fio verifies data through the map.
case_mpath_relogin() {
	local m pidf=/tmp/mpath.pid runs ext exts=(1111000000000001 2222000000000002)
	local rd
	# A unit serial number, as targetcli gives every backstore: the WWID
	# multipath groups paths by.
	rd=$(rd_backstore) || fail "no backstore"
	grep -q ': [0-9a-f]' "$rd/wwn/vpd_unit_serial" ||
		check sysfs_write "$rd/wwn/vpd_unit_serial" 5e4f0b1c-0d6a-4c4e-9d3a-1b2c3d4e5f60
	check srp_target_up "${RXE_ADDR%/*}"
	trap mpath_cleanup EXIT
	check modprobe -a dm_multipath dm_round_robin
	mkdir -p /etc/multipath
	cat >/etc/multipath.conf <<-'EOF'
		defaults {
			user_friendly_names no
			find_multipaths no
			no_path_retry queue
			path_checker tur
			detect_prio no
			detect_checker no
		}
		overrides {
			no_path_retry queue
			prio const
			path_grouping_policy multibus
		}
		blacklist {
			devnode "^(ram|loop|fd|md|dm-|sr|scd|st|vd)"
		}
	EOF
	check udev_start
	# Without multipathd, multipath(8) turns queue_if_no_path off.
	check multipathd -s
	for ext in "${exts[@]}"; do
		check login_path "$ext"
	done
	check poll_until 30 paths_are 2
	check udevadm settle -t 60
	sg_vpd -p di "$(srp_disk)"
	check mpath_reload -v3
	check poll_until 30 mpath_dev
	m=$(mpath_dev) || fail "multipath created no map: $(tail -n 5 "$RESULTS/multipath.log")"
	multipath -ll | tee "$RESULTS/multipath-ll.txt"
	grep -q "features='1 queue_if_no_path'" "$RESULTS/multipath-ll.txt" ||
		fail "the map does not queue without paths (no_path_retry queue)"
	(
		end=$((SECONDS + 60)) i=0
		while ((SECONDS < end)); do
			ext=${exts[i % 2]}
			logout_path "$ext" || exit 1
			poll_until 30 paths_are 1 || exit 1
			mpath_reload -r || exit 1
			login_path "$ext" || exit 1
			poll_until 30 paths_are 2 || exit 1
			udevadm settle -t 60 || exit 1
			mpath_reload -r || exit 1
			echo "cycle $i ok"
			i=$((i + 1))
		done
	) >"$RESULTS/mpath-cycles.txt" 2>&1 &
	echo $! >"$pidf"
	runs=$(verify_loop "$m" mpath_bg "$pidf") || fail "fio verify through multipath failed"
	wait "$(<"$pidf")" || fail "path cycling failed: $(tail -n 3 "$RESULTS/mpath-cycles.txt")"
	log "fio verify runs: $runs; path cycles: $(grep -c ok "$RESULTS/mpath-cycles.txt")"
	# Each path logged out and in at least once (a cycle takes 10-20 s
	# under TCG: udev and multipath(8) are slow there).
	[[ $(grep -c ok "$RESULTS/mpath-cycles.txt") -ge 2 ]] ||
		fail "fewer than 2 logout/login cycles in 60 s"
	check fio_verify "$m" mpath_after --direct=1 --rw=randwrite --bs=64k \
		--size=16M --iodepth=8
	mpath_cleanup
	check srp_target_down
}

# initiator_unregistered: ib_srp without memory registration, for the cases
# that delete the RDMA device under I/O (the caller restores the defaults
# with srp_reload_initiator).  When its device goes away with registrations
# in flight, ib_srp frees its requests (scsi_remove_host()) before it polls
# their LOCAL_INV/REG_MR completions off the send CQ, and calls into freed
# memory: a GPF in srp_remove_work -> srp_free_ch_ib -> ib_process_cq_direct
# under page poisoning (and in srp_reconnect_work).  These cases are about
# the target: with never_register the initiator uses the PD's global rkey
# and posts no registrations.
initiator_unregistered() {
	srp_reload_initiator never_register=1
}

# case_link_delete_io: the RDMA device goes away under I/O (rdma link
# delete): ib_srp loses its disk, the target releases every channel, and
# after the link comes back a new login works.
case_link_delete_io() {
	local d fpid p
	check initiator_unregistered
	trap 'srp_reload_initiator >/dev/null 2>&1' EXIT
	check srp_target_up
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk"
	# The target's configfs objects outlive the device; its GID does not.
	# shellcheck disable=SC2034 # read by tgt_dir
	TGT_DIR=$(tgt_dir)
	fio --name=linkdel --filename="$d" --direct=1 --rw=randrw --bs=16k \
		--iodepth=32 --time_based --runtime=120 --ioengine=libaio \
		--output="$RESULTS/fio-linkdel.txt" >/dev/null 2>&1 &
	fpid=$!
	check poll_until 30 cmds_over 500
	# ib_srp's own reconnect attempts while its device is going away can
	# run its CQ with freed work requests (a GPF in srp_create_ch_ib ->
	# ib_process_cq_direct seen under page poisoning, in the initiator):
	# this case is about the target, so the initiator does not reconnect.
	for p in /sys/class/srp_remote_ports/*/reconnect_delay; do
		[[ -e $p ]] && check sysfs_write "$p" off
	done
	check rxe_del
	check poll_until 60 channels_are 0
	# ib_srp, a client of the same device, may disconnect first.
	[[ $(dmesg_here | grep -c 'channel released') -ge 2 ]] ||
		fail "the channels were not released"
	dmesg_here | grep -q "$RXE_DEV: removed" || fail "device removal not logged"
	check poll_until 60 exited "$fpid"
	wait "$fpid" && fail "fio did not see the path fail"
	check rxe_add
	unset TGT_DIR
	check poll_until 30 test -e "$SRP_HOST/add_target"
	check srp_logout_all
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk after the link came back"
	check fio_verify "$d" after_relink --direct=1 --rw=randwrite --bs=4k \
		--size=16M --iodepth=16
	check srp_target_down
}

# case_link_delete_held: the RDMA device goes away while a write of its
# channel is held in the backend (the slow LUN, suspended): on a channel
# with its own receive ring, on an SRQ channel, and on a channel whose
# release already waits for the held write (portal group disabled first).
# The target's part of "rdma link delete" must not wait for the backend:
# the channel detaches from the device ("channel detached", the device
# "removed") while the write is still held, and is released once the
# backend gives the write back.  Then the device returns and a login and
# I/O work again.
case_link_delete_held() {
	local mode d dpid lpid p removed released detached waits t
	check initiator_unregistered
	# The RDMA core removes a device's clients in the reverse order of
	# their registration, and ib_srp, on the same device here, holds the
	# removal in SCSI error handling of its held write: ib_srpt is loaded
	# after ib_srp, so that its part of the removal comes first.
	fresh
	trap 'slow_lun_release >/dev/null 2>&1; srp_reload_initiator >/dev/null 2>&1' EXIT
	for mode in own srq closed; do
		log "--- $mode"
		removed=$(dmesg_count "ib_srpt: $RXE_DEV: removed")
		released=$(dmesg_count 'channel released')
		detached=$(dmesg_count 'request(s) in the backend: channel detached')
		waits=$(dmesg_count 'release waits for 1 request')
		check slow_lun_up "" "use_srq=$([[ $mode == srq ]] && echo 1 || echo 0)"
		check sysfs_write "$(tgt_dir)/attrib/cmd_report_secs" 1
		check srp_login ch_count=1
		check srp_disk >/dev/null
		d=$(lun1_disk) || fail "no disk for LUN 1"
		# shellcheck disable=SC2034 # read by tgt_dir
		TGT_DIR=$(tgt_dir)
		for p in /sys/class/srp_remote_ports/*/reconnect_delay; do
			[[ -e $p ]] && check sysfs_write "$p" off
		done
		check slow_lun_hold
		dd if=/dev/zero of="$d" bs=4k count=1 oflag=direct status=none &
		dpid=$!
		check poll_until 30 stuck_over 0
		if [[ $mode == closed ]]; then
			check sysfs_write "$TGT_DIR/enable" 0
			check poll_until 30 dmesg_more 'release waits for 1 request' "$waits"
		fi
		rdma link delete "$RXE_DEV" &
		lpid=$!
		poll_until 60 dmesg_more "ib_srpt: $RXE_DEV: removed" "$removed" ||
			fail "device removal waits for the backend"
		[[ $(dmesg_count 'RDMA device removed with 1 request(s) in the backend: channel detached') == $((detached + 1)) ]] ||
			fail "no 'channel detached' message"
		# The removal goes on as soon as the channel left the list.
		t=$(dmesg_secs 'request(s) in the backend: channel detached' "ib_srpt: $RXE_DEV: removed")
		log "device removed $t s after the channel detached"
		[[ $t == 0.* || $t == 1.* ]] || fail "device removed $t s after the channel detached"
		dmesg_more 'channel released' "$released" &&
			fail "channel released while the backend still holds its write"
		check slow_lun_release
		check poll_until 60 dmesg_more 'channel released' "$released"
		check poll_until 90 exited "$lpid"
		wait "$lpid" || fail "rdma link delete failed"
		check poll_until 90 exited "$dpid"
		wait "$dpid" && fail "the held write succeeded though its device went away"
		check rxe_add
		unset TGT_DIR
		check poll_until 30 test -e "$SRP_HOST/add_target"
		check srp_logout_all
		check sysfs_write "$(tgt_dir)/enable" 1
		check srp_login ch_count=1
		d=$(lun1_disk) || fail "no disk for LUN 1 after the device came back"
		check sg_turs "$d"
		check srp_target_down
		check slow_lun_down
	done
}

# extra_ports N: ACLs for N more initiator ports of the local initiator
# (initiator_ext 0xde1e0001...), each with LUN 0 mapped.
extra_ports() {
	local guid t i acl
	guid=$(node_guid) || return 1
	t=$(tgt_dir)
	for ((i = 1; i <= $1; i++)); do
		acl=$t/acls/0x$(printf '%016x' $((0xde1e0000 + i)))$guid
		mkdir -p "$acl/lun_0" && ln -s "$t/lun/lun_0" "$acl/lun_0/lun0" ||
			return 1
	done
}

# login_extra_ports N: log those N ports in, two channels each.
login_extra_ports() {
	local guid i
	guid=$(node_guid) || return 1
	for ((i = 1; i <= $1; i++)); do
		sysfs_write "$SRP_HOST/add_target" \
			"id_ext=$guid,ioc_guid=$guid,dest=$SRP_DEST,initiator_ext=$(printf '%016x' $((0xde1e0000 + i))),ch_count=2" ||
			return 1
	done
}

# case_link_delete_channels: eight channels (four initiator ports with two
# channels each, I/O on one of them) when the RDMA device goes away: they
# all release at once while the device is being removed, and the device's
# memory must outlive the last of them (a use-after-free shows as a KASAN
# report on the debug kernel, or as a poisoned pointer with --memdebug).
case_link_delete_channels() {
	local d fpid round
	check initiator_unregistered
	trap 'srp_reload_initiator >/dev/null 2>&1' EXIT
	for round in 1 2; do
		log "--- round $round"
		check srp_target_up
		check extra_ports 3
		check srp_login ch_count=2
		d=$(srp_disk) || fail "no disk"
		check login_extra_ports 3
		check poll_until 60 channels_are 8
		# shellcheck disable=SC2034 # read by tgt_dir
		TGT_DIR=$(tgt_dir)
		fio --name=linkdel8 --filename="$d" --direct=1 --rw=randrw \
			--bs=64k --iodepth=16 --time_based --runtime=60 \
			--ioengine=libaio >/dev/null 2>&1 &
		fpid=$!
		check poll_until 30 cmds_over 100
		check rxe_del
		check poll_until 60 channels_are 0
		[[ $(dmesg_here | grep -c 'channel released') -ge $((8 * round)) ]] ||
			fail "not every channel was released"
		check poll_until 60 exited "$fpid"
		wait "$fpid" && fail "fio did not see the path fail"
		check rxe_add
		unset TGT_DIR
		check poll_until 30 test -e "$SRP_HOST/add_target"
		check srp_target_down
	done
	[[ $(dmesg_here | grep -c "$RXE_DEV: removed") == 2 ]] ||
		fail "device removals not logged"
}

# rejects REASON: how many logins discovery_auth/logins counts as refused
# with REASON (e.g. 0x10006).
rejects() {
	local l
	read -r l <"$CFS_SRPT/discovery_auth/logins" || return 1
	field_of "$l" "$1"
}

# case_channel_limits: a portal group's max_initiator_channels lets ib_srp
# open only that many of its channels, max_channels caps all initiators
# together; the others are refused with SRP_LOGIN_REJ 0x10006 and counted
# in discovery_auth/logins, and I/O works on the channels that were let in.
case_channel_limits() {
	local t r0 r1 d
	check srp_target_up "" max_initiator_channels=1
	t=$(tgt_dir)
	r0=$(rejects 0x10006)
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk"
	check poll_until 30 channels_are 1
	check sg_turs "$d"
	r1=$(rejects 0x10006)
	((r1 > r0)) || fail "no 0x10006 refusal counted ($r0 -> $r1)"
	dmesg_here | grep -q 'refused (reason 0x10006): channel limit of the portal group reached' ||
		fail "no 0x10006 refusal logged"
	check srp_logout_all
	check poll_until 30 channels_are 0

	check sysfs_write "$t/attrib/max_initiator_channels" 0
	check sysfs_write "$t/attrib/max_channels" 2
	check extra_ports 1
	check srp_login ch_count=2
	check poll_until 30 channels_are 2
	r0=$(rejects 0x10006)
	login_extra_ports 1 && fail "a third channel was let in"
	r1=$(rejects 0x10006)
	((r1 > r0)) || fail "no 0x10006 refusal counted for max_channels"
	check channels_are 2
	d=$(srp_disk) || fail "no disk"
	check fio_verify "$d" limits --direct=1 --rw=randwrite --bs=4k \
		--size=4M --iodepth=8
	check srp_target_down
}

# case_data_limits: max_cmd_data refuses a larger command with CHECK
# CONDITION (INVALID FIELD IN INFORMATION UNIT) before LIO, one of that
# size runs; max_channel_data makes commands beyond it wait (counted as
# data_full) while fio verify stays clean, with no I/O error; bad values of
# both are refused.
case_data_limits() {
	local t d out
	check srp_target_up "" max_cmd_data=262144 max_channel_data=1048576
	t=$(tgt_dir)
	for out in 4095 33554433 x; do
		check_not sysfs_write "$t/attrib/max_cmd_data" "$out"
	done
	for out in 1048575 1073741825 -1; do
		check_not sysfs_write "$t/attrib/max_channel_data" "$out"
	done
	[[ $(<"$t/attrib/max_cmd_data") == 262144 && $(<"$t/attrib/max_channel_data") == 1048576 ]] ||
		fail "a refused write changed an attribute"
	# 1 MiB transfers, 128 pages in one command (sg_raw's buffer is not
	# physically contiguous).
	check srp_login ch_count=1 max_sect=2048 sg_tablesize=128
	d=$(srp_disk) || fail "no disk"
	# READ(16) of 512 blocks (256 KiB): at the limit; 513 blocks: above it.
	check sg_raw -r 262144 -o /dev/null "$d" 88 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00
	out=$(sg_raw -r 262656 -o /dev/null "$d" 88 00 00 00 00 00 00 00 00 00 00 00 02 01 00 00 2>&1)
	echo "$out"
	grep -qi 'invalid field in .*information unit' <<<"$out" ||
		fail "a 262656-byte READ(16) was not refused: $(grep -m1 -i 'status' <<<"$out")"
	dmesg_here | grep -q 'transfer length larger than the target accepts' ||
		fail "no log line for the refused command"
	# Sixteen 256 KiB commands at once, 1 MiB of buffers allowed.  The
	# block layer merges adjacent requests up to max_sectors_kb (1 MiB
	# here), which the target would refuse: no request above 256 KiB.
	check sysfs_write "/sys/block/${d#/dev/}/queue/max_sectors_kb" 256
	check fio_verify "$d" data_limits --direct=1 --rw=randrw --bs=256k \
		--size=16M --iodepth=16
	[[ $(counter data_full) -gt 0 ]] || fail "no command waited for data buffers (data_full 0)"
	check poll_until 10 counter_is data_held 0
	channels
	check srp_target_down
}

# counter_is NAME VALUE: the counter NAME of all channels adds up to VALUE.
counter_is() { [[ $(counter "$1") == "$2" ]]; }

# pr_out FILE DEV SA: PERSISTENT RESERVE OUT service action SA with the
# 24-byte parameter list in FILE, through the kernel initiator; prints
# sg_raw's report.
pr_out() {
	sg_raw -s 24 -i "$1" "$2" 5f "$3" 00 00 00 00 00 00 18 00 2>&1
}

# case_pr_spec_i_pt: PERSISTENT RESERVE OUT REGISTER with SPEC_I_PT, whose
# refusal by LIO leaks a reference on the initiator's LUN mapping (removing
# the mapping then waits for ever, in D state), is answered INVALID FIELD
# IN PARAMETER LIST by the target; a plain REGISTER and its removal work;
# the mapping can be removed afterwards.
case_pr_spec_i_pt() {
	local d out f=/tmp/pr-param rpid
	check srp_target_up
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	# Reservation key 0, service action key 0x1234, SPEC_I_PT (byte 20,
	# bit 3), no TransportIDs.
	printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x12\x34\0\0\0\0\x08\0\0\0' >"$f"
	out=$(pr_out "$f" "$d" 00)
	echo "$out"
	grep -qi 'invalid field in parameter list' <<<"$out" ||
		fail "SPEC_I_PT REGISTER not refused: $(grep -i -m1 'status\|sense' <<<"$out")"
	dmesg_here | grep -q 'PERSISTENT RESERVE OUT with SPEC_I_PT refused' ||
		fail "no log line for the refused SPEC_I_PT"
	# A plain REGISTER of key 0x1234, then its removal (service action key 0).
	printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x12\x34\0\0\0\0\0\0\0\0' >"$f"
	out=$(pr_out "$f" "$d" 00) || fail "REGISTER failed: $out"
	printf '\0\0\0\0\0\0\x12\x34\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >"$f"
	out=$(pr_out "$f" "$d" 00) || fail "unregistering failed: $out"
	check srp_logout_all
	# The mapping goes: with a leaked reference this would never return.
	rm "$(acl_dir)/lun_0/lun0" &
	rpid=$!
	poll_until 30 exited "$rpid" || fail "removing the LUN mapping hangs"
	wait "$rpid" || fail "removing the LUN mapping failed"
	check srp_target_down
}

# case_post_failure: the send queue refuses every post (fault injection in
# debugfs, ib_srpt/fail_post_send) while fio runs: each channel is closed
# at its first failed post (no retry loop, no soft lockup), ib_srp keeps
# reconnecting; once posts work again the initiator is back and fio verify
# is clean.
case_post_failure() {
	local d f=/sys/kernel/debug/ib_srpt/fail_post_send fpid
	check srp_target_up
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	fast_reconnect
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug ||
		fail "no debugfs"
	[[ -w $f ]] || fail "$f missing"
	fio --name=postfail --filename="$d" --direct=1 --rw=randrw --bs=4k \
		--iodepth=16 --time_based --runtime=15 --ioengine=libaio \
		>/dev/null 2>&1 &
	fpid=$!
	check poll_until 30 cmds_over 100
	check sysfs_write "$f" 1000000
	check poll_until 30 dmesg_has 'closing channel: posting to the send queue failed'
	check sysfs_write "$f" 0
	check poll_until 60 channels_are 1
	check poll_until 60 exited "$fpid"
	wait "$fpid"
	check poll_until 30 sg_turs "$d"
	check fio_verify "$d" after_postfail --direct=1 --rw=randwrite --bs=4k \
		--size=8M --iodepth=16
	check srp_target_down
}

# case_qp_shrink: a device that refuses a QP as large as srp_sq_size asks
# for (the debugfs knob ib_srpt/max_qp_wr_cap stands in for one: Soft-RoCE
# takes any size; a real HCA refuses once rdma_rw's entries are added) gives
# the channel a smaller send queue, shown in the channel's sq_size and
# logged, and I/O works on it.  The QP the channel got holds what the
# channel uses and no more: sq_size entries, one for the drain request and
# one for the keepalive probe (ib_srp's descriptor tables fit in sq_size:
# nothing extra), not the entries rdma_rw would add per context, which the
# channel counts in sq_size already; its sq_depth is that, or Soft-RoCE's
# rounding of it (the next power of two, less one).
case_qp_shrink() {
	local d sq depth need round f=/sys/kernel/debug/ib_srpt/max_qp_wr_cap
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug ||
		fail "no debugfs"
	trap 'echo 0 >/sys/kernel/debug/ib_srpt/max_qp_wr_cap' EXIT
	check srp_target_up "" srp_sq_size=2000
	[[ -w $f ]] || fail "$f missing"
	check sysfs_write "$f" 1500
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	channels
	sq=$(channels | sed -n 's/.* sq_size=\([0-9]*\).*/\1/p' | head -n1)
	[[ -n $sq ]] && ((sq >= 16 && sq < 2000)) ||
		fail "the channel's send queue is '$sq', not below 2000"
	dmesg_here | grep -q "send queue of 2000 entries refused by the device, the channel has $sq" ||
		fail "no log line for the smaller send queue"
	depth=$(channels | sed -n 's/.* sq_depth=\([0-9]*\).*/\1/p' | head -n1)
	need=$((sq + 2))
	for ((round = 1; round <= need; round *= 2)); do :; done
	((depth == need || depth == round - 1)) ||
		fail "the QP has $depth send entries for $sq + 2 (expected $need or $((round - 1)))"
	log "send queue: sq_size $sq, QP depth $depth"
	check fio_verify "$d" qp_shrink --direct=1 --rw=randrw --bs=64k \
		--size=8M --iodepth=32
	check sysfs_write "$f" 0
	check srp_target_down
}

# case_live_teardown: with an initiator logged in and I/O running, disable
# the portal group, delete the ACL and delete the LUN; the sessions close
# (and ib_srp reconnects once allowed again); rmmod is refused while
# configfs objects exist and succeeds after they are gone.
case_live_teardown() {
	local d t fpid
	check srp_target_up
	t=$(tgt_dir)
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk"
	fast_reconnect

	log "--- portal group disable"
	fio --name=bg1 --filename="$d" --direct=1 --rw=randread --bs=4k \
		--iodepth=16 --time_based --runtime=5 --ioengine=libaio >/dev/null 2>&1 &
	fpid=$!
	check poll_until 30 cmds_over 200
	check sysfs_write "$t/enable" 0
	check channels_are 0
	dmesg_here | grep -q 'closing channel: portal group disabled' ||
		fail "no channel closed by the disable"
	check sysfs_write "$t/enable" 1
	check poll_until 60 channels_are 2
	wait "$fpid"
	check poll_until 30 sg_turs "$d"
	check fio_verify "$d" after_enable --direct=1 --rw=randwrite --bs=4k \
		--size=8M --iodepth=16

	log "--- ACL delete"
	check acl_unmap
	check poll_until 30 channels_are 0
	dmesg_here | grep -q 'session closed by LIO' ||
		fail "LIO did not close the session of the deleted ACL"
	check poll_until 30 dmesg_has 'initiator not in the ACL'
	check acl_map
	check poll_until 60 channels_are 2
	check poll_until 30 sg_turs "$d"
	check fio_verify "$d" after_acl --direct=1 --rw=randwrite --bs=4k \
		--size=8M --iodepth=16

	log "--- LUN delete"
	check rm "$(acl_dir)/lun_0/lun0"
	check rmdir "$(acl_dir)/lun_0"
	check find "$t/lun/lun_0" -maxdepth 1 -type l -delete
	check rmdir "$t/lun/lun_0"
	# LIO answers for an unmapped LUN 0 with its virtual LUN 0: the
	# initiator now sees "no device" (peripheral qualifier 1 or 3).
	sg_inq "$d" | tee "$RESULTS/inq-deleted-lun.txt"
	grep -Eq 'PQual=[13]' "$RESULTS/inq-deleted-lun.txt" ||
		fail "INQUIRY still shows a device after the LUN was deleted"
	check channels_are 2

	log "--- unload"
	check_not rmmod ib_srpt
	check srp_logout_all
	check srpt_teardown
	check rmmod ib_srpt
}

# slab_kib: the kernel's slab memory in KiB.
slab_kib() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }

# case_login_cycles: 100 login/logout cycles; slab memory returns to where
# it was after the first cycle (within 2 MiB, to allow for the rest of the
# system), no LIO session is left in configfs, and rmmod succeeds.
case_login_cycles() {
	local i d s0 s1 srpt_slab
	check srp_target_up
	for ((i = 0; i <= 100; i++)); do
		srp_login ch_count=1 >/dev/null || fail "login $i failed"
		d=$(srp_disk) || fail "no disk after login $i"
		sg_turs "$d" || fail "TEST UNIT READY failed after login $i"
		srp_logout_all || fail "logout $i failed"
		poll_until 30 channels_are 0 || fail "channel not released after logout $i"
		if ((i == 0)); then
			echo 2 >/proc/sys/vm/drop_caches
			s0=$(slab_kib)
		fi
	done
	echo 2 >/proc/sys/vm/drop_caches
	s1=$(slab_kib)
	log "Slab: $s0 KiB after the first cycle, $s1 KiB after 100 more"
	[[ $((s1 - s0)) -lt 2048 ]] || fail "slab grew by $((s1 - s0)) KiB over 100 cycles"
	srpt_slab=$(grep -E '^ib_srpt' /proc/slabinfo | awk '{ print $1, $2 }')
	log "ib_srpt slab caches (name, active objects): $srpt_slab"
	check srp_target_down
	check rmmod ib_srpt
}

# The slow LUN: LUN 1, an iblock backstore on a dm-linear device over a
# RAM disk; "dmsetup suspend" holds every I/O sent to it until "dmsetup
# resume", which keeps commands in the backend for as long as a case needs.
SLOW_BS=$CFS_TARGET/core/iblock_77/srpt_slow

# slow_lun_up [ACL]: target up (srp_target_up ACL) with the slow LUN as
# LUN 1 of the ACL; SLOW_TAS=0|1 sets its emulate_tas first (LIO refuses
# the change once the device is exported).
slow_lun_up() {
	local t a
	# Leftovers of a failed case.
	srp_target_down >/dev/null 2>&1
	slow_lun_down >/dev/null 2>&1
	modprobe brd rd_nr=1 rd_size=16384 && modprobe dm_mod || return 1
	[[ -b /dev/ram0 ]] || return 1
	DM_DISABLE_UDEV=1 dmsetup create srpt_slow \
		--table "0 $(blockdev --getsz /dev/ram0) linear /dev/ram0 0" || return 1
	mkdir -p "$SLOW_BS" &&
		sysfs_write "$SLOW_BS/control" udev_path=/dev/mapper/srpt_slow &&
		sysfs_write "$SLOW_BS/enable" 1 || return 1
	if [[ -n ${SLOW_TAS:-} ]]; then
		sysfs_write "$SLOW_BS/attrib/emulate_tas" "$SLOW_TAS" || return 1
	fi
	srp_target_up "$@" || return 1
	t=$(tgt_dir)
	a=${1:-ib.$(initiator_id)}
	[[ $a == ib.* ]] && a=0x${a#ib.}
	mkdir "$t/lun/lun_1" "$t/acls/$a/lun_1" &&
		ln -s "$SLOW_BS" "$t/lun/lun_1/srpt_slow" &&
		ln -s "$t/lun/lun_1" "$t/acls/$a/lun_1/lun1"
}
slow_lun_hold() { DM_DISABLE_UDEV=1 dmsetup suspend srpt_slow; }
slow_lun_release() { DM_DISABLE_UDEV=1 dmsetup resume srpt_slow; }
# slow_lun_down: after srp_target_down.
slow_lun_down() {
	[[ ! -d $SLOW_BS ]] || rmdir "$SLOW_BS" || return 1
	[[ ! -e /dev/mapper/srpt_slow ]] || {
		DM_DISABLE_UDEV=1 dmsetup resume srpt_slow
		DM_DISABLE_UDEV=1 dmsetup remove srpt_slow
	}
}

stuck_over() { [[ $(counter stuck) -gt $1 ]]; }
tmfs_over() { [[ $(counter tmfs) -gt $1 ]]; }
cred_reqs_over() { [[ $(counter cred_reqs) -gt $1 ]]; }

# lun1_disk [HOST]: the block device of LUN 1 (of SCSI host HOST, a sysfs
# path, or of any ib_srp host).
lun1_disk() {
	local b h i hosts=("$@")
	[[ ${#hosts[@]} -gt 0 ]] || hosts=(/sys/class/scsi_host/host*)
	for ((i = 0; i < 100; i++)); do
		for h in "${hosts[@]}"; do
			for b in "$h"/device/target*/*:*:*:1/block/*; do
				[[ -e $b ]] && {
					echo "/dev/${b##*/}"
					return 0
				}
			done
		done
		nap 0.1
	done
	return 1
}

# case_cred_req_foreign_reset: initiator A's write is held in the backend
# when initiator B resets the LUN.  With TAS off, LIO aborts A's command
# without a response, so no response of A's would carry the credit back:
# the target sends A an SRP_CRED_REQ (counted as cred_reqs).
case_cred_req_foreign_reset() {
	local a_ext=3333000000000003 b_ext=4444000000000004 da db wpid rpid
	SLOW_TAS=0 check slow_lun_up "${RXE_ADDR%/*}"
	check sysfs_write "$(tgt_dir)/attrib/cmd_report_secs" 1
	check login_path "$a_ext"
	check login_path "$b_ext"
	da=$(lun1_disk "$(<"/tmp/path-$a_ext")") || fail "no LUN 1 for A"
	db=$(lun1_disk "$(<"/tmp/path-$b_ext")") || fail "no LUN 1 for B"
	# A's SCSI layer gives up on the unanswered write after 10 s: ABORT
	# TASK (for a task the target no longer has: "function complete"),
	# retry.  That must come after the credit request: a response to A's
	# ABORT TASK would carry the credit back first, and no SRP_CRED_REQ
	# would be needed (seen with 3 s on the debug kernel, where the
	# reset came 4 s after the write).
	check sysfs_write "/sys/block/${da#/dev/}/device/timeout" 10
	check slow_lun_hold
	dd if=/dev/zero of="$da" bs=4k count=1 oflag=direct status=none &
	wpid=$!
	check poll_until 30 stuck_over 0
	sg_reset -d "$db" >"$RESULTS/foreign-reset.txt" 2>&1 &
	rpid=$!
	check poll_until 30 tmfs_over 0
	check slow_lun_release
	wait "$rpid" || fail "B's LUN reset failed: $(cat "$RESULTS/foreign-reset.txt")"
	check poll_until 30 cred_reqs_over 0
	channels
	[[ $(counter aborted) -ge 1 ]] || fail "the aborted command was not counted"
	# A's command got no response: the SCSI timeout aborts and retries it.
	wait "$wpid" || fail "A's write failed after its abort and retry"
	dmesg_has 'Sending SRP abort for tag' || fail "A's command was not aborted by the initiator"
	check srp_target_down
	check slow_lun_down
}

# case_over_credit: the test client, on a channel that receives through
# the SRQ, sends its credit limit's worth of READs and four more
# (protocol.past_credit_limit) while the slow LUN holds every READ, so
# that no command's completion can give a credit back.  The target
# answers the first request beyond the limit at once with BUSY (counted
# as over_credit).  That BUSY also carries every credit of the SRQ
# buffers reposted since the login, so of the four only those that
# arrived before it are over the limit: between one and four.  After
# the LUN is resumed every READ is answered and the channel is healthy.
# The first BUSY is awaited with the LUN held: a receive path that
# stalled behind the held READs would never send it.
# --no-write: the client then learns the LUN's geometry from READ
# CAPACITY alone (emulated by LIO) instead of also saving its scratch
# area with a READ, which the held LUN would keep.
case_over_credit() {
	local cpid rc
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	trap 'slow_lun_release >/dev/null 2>&1' EXIT
	modprobe -a rdma_ucm ib_uverbs || fail "rdma_ucm/ib_uverbs"
	check slow_lun_up "0x$CLIENT_EXT$(node_guid)" use_srq=1
	check slow_lun_hold
	CONF_TIMEOUT_MS=120000 conf_client --initiator-ext "$CLIENT_EXT" --lun 1 \
		--no-write --cases protocol.past_credit_limit \
		--json "$RESULTS/over-credit.json" >"$RESULTS/over-credit.txt" 2>&1 &
	cpid=$!
	poll_until 60 over_credit_over 0 || {
		channels
		echo w >/proc/sysrq-trigger
		fail "no request beyond the credit limit was seen with the LUN held"
	}
	channels
	[[ $(counter over_credit) -le 4 ]] ||
		fail "over_credit $(counter over_credit), more than the 4 READs beyond the limit"
	check slow_lun_release
	wait "$cpid"
	rc=$?
	cat "$RESULTS/over-credit.txt"
	[[ $rc == 0 ]] || fail "client: $(grep -m1 '^FAIL' "$RESULTS/over-credit.txt" || tail -n1 "$RESULTS/over-credit.txt")"
	channels
	check srp_target_down
	check slow_lun_down
}

# case_relogin_limit: while the slow LUN holds every READ, the test client
# logs in SINGLE again and again, each channel sending a READ before the
# next login replaces it: the replaced channels cannot be freed (their
# READs are in the backend) and count against max_initiator_channels (3)
# until they are: the fourth login is let in (the live channel a SINGLE
# login replaces does not count), the fifth and sixth are refused with
# 0x10006 (login.single_relogins_held --channel-limit 3).  Once the LUN is resumed
# every channel is freed and a login works again.
relogins_refused() { (($(rejects 0x10006) >= RELOGIN_R0 + 2)); }
case_relogin_limit() {
	local cpid rc
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	trap 'slow_lun_release >/dev/null 2>&1; srp_target_down >/dev/null 2>&1; slow_lun_down >/dev/null 2>&1' EXIT
	modprobe -a rdma_ucm ib_uverbs || fail "rdma_ucm/ib_uverbs"
	check slow_lun_up "0x$CLIENT_EXT$(node_guid)" max_initiator_channels=3
	check slow_lun_hold
	RELOGIN_R0=$(rejects 0x10006)
	CONF_TIMEOUT_MS=60000 conf_client --initiator-ext "$CLIENT_EXT" --lun 1 \
		--no-write --channel-limit 3 --cases login.single_relogins_held \
		--json "$RESULTS/relogin-limit.json" >"$RESULTS/relogin-limit.txt" 2>&1 &
	cpid=$!
	# The client retries its login until the channels are freed.
	poll_until 60 relogins_refused || {
		channels
		fail "no two 0x10006 refusals with three channels releasing"
	}
	channels
	[[ $(channel_count) -le 4 ]] || fail "more than 3 channels and a replaced one"
	check slow_lun_release
	wait "$cpid"
	rc=$?
	cat "$RESULTS/relogin-limit.txt"
	[[ $rc == 0 ]] || fail "client: $(grep -m1 '^FAIL' "$RESULTS/relogin-limit.txt" || tail -n1 "$RESULTS/relogin-limit.txt")"
	check poll_until 60 channels_are 0
	check srp_target_down
	check slow_lun_down
}

# login_count NAME: in_progress (logins being set up now) or peak (the
# most at once since the module was loaded) of debugfs ib_srpt/logins.
DEBUGFS_LOGINS=/sys/kernel/debug/ib_srpt/logins
login_count() {
	local l
	read -r l <"$DEBUGFS_LOGINS" || return 1
	field_of "$l" "$1"
}
logins_setting_up() { [[ $(login_count in_progress) == "$1" ]]; }

# A second soft-RoCE device, on a dummy device of its own.
OTHER_RDMA_DEV=rxe1
OTHER_NETDEV=dummy1
OTHER_ADDR=10.98.0.1/24

# other_rxe_add / other_rxe_del: create or remove rxe1 on dummy1.
other_rxe_add() {
	RXE_DEV=$OTHER_RDMA_DEV RXE_NETDEV=$OTHER_NETDEV rxe_add
}
other_rxe_del() {
	[[ -d /sys/class/infiniband/$OTHER_RDMA_DEV ]] || return 0
	RXE_DEV=$OTHER_RDMA_DEV rxe_del
}

# case_parallel_logins: logins are set up side by side, and removing an
# RDMA device waits for no login of another device.  Every login is held
# up at the start of its set-up (debugfs ib_srpt/login_delay_ms, as on a
# slow device or under a storm of logins), and debugfs ib_srpt/logins
# counts the set-ups running at once:
#  - two clients logging in to rxe0 at once are both in set-up at the same
#    moment, and both get in;
#  - a client that gives up before the reply: its login is dropped, no
#    channel is left;
#  - logins to two devices (rxe1, rxe0) held up for a minute are in set-up
#    side by side; removing rxe0, with the kernel initiator's channels and
#    its held-up login, ends that login at once (refused) and ends while
#    the login to rxe1 is still in set-up; removing rxe1 then ends its
#    login at once too.
case_parallel_logins() {
	local f=/sys/kernel/debug/ib_srpt/login_delay_ms t ext2=3333333333333333
	local p1 p2 p3 p4 rc1 rc2 acl2
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug ||
		fail "no debugfs"
	check initiator_unregistered
	trap 'echo 0 >'"$f"' 2>/dev/null; other_rxe_del >/dev/null 2>&1;
		ip link del '"$OTHER_NETDEV"' 2>/dev/null; srp_reload_initiator >/dev/null 2>&1' EXIT
	check conf_target_up
	t=$(tgt_dir)
	TGT_DIR=$t
	acl2=$t/acls/0x$ext2$(node_guid)
	mkdir -p "$acl2/lun_1" || fail "cannot create a second client ACL"
	ln -s "$t/lun/lun_1" "$acl2/lun_1/lun1" || fail "cannot map LUN 1"
	[[ -w $f ]] || fail "$f missing"

	log "--- two logins to one device at once"
	check sysfs_write "$f" 10000
	CONF_TIMEOUT_MS=120000 conf_client --initiator-ext "$CLIENT_EXT" --lun 1 \
		--cases login.valid >"$RESULTS/parallel-1.txt" 2>&1 &
	p1=$!
	CONF_TIMEOUT_MS=120000 conf_client --initiator-ext "$ext2" --lun 1 \
		--cases login.valid >"$RESULTS/parallel-2.txt" 2>&1 &
	p2=$!
	poll_until 60 logins_setting_up 2 ||
		fail "two logins were never in set-up at once (logins: $(<"$DEBUGFS_LOGINS"))"
	log "logins: $(<"$DEBUGFS_LOGINS")"
	wait "$p1"
	rc1=$?
	wait "$p2"
	rc2=$?
	cat "$RESULTS/parallel-1.txt" "$RESULTS/parallel-2.txt"
	[[ $rc1 == 0 && $rc2 == 0 ]] || fail "a client's login failed ($rc1, $rc2)"

	log "--- a client that gives up before the reply"
	check sysfs_write "$f" 5000
	CONF_TIMEOUT_MS=1000 conf_client --initiator-ext "$CLIENT_EXT" --lun 1 \
		--cases login.valid >"$RESULTS/parallel-3.txt" 2>&1 &&
		fail "the client got in before the delay"
	check poll_until 30 logins_setting_up 0
	check poll_until 30 dmesg_has "the initiator gave up before the reply"
	check poll_until 30 channels_are 2

	log "--- logins to two devices, and removing one of them"
	check sysfs_write "$f" 60000
	if ! ip link show "$OTHER_NETDEV" >/dev/null 2>&1; then
		check ip link add "$OTHER_NETDEV" type dummy
		check ip link set "$OTHER_NETDEV" address 02:00:00:00:00:02
		check ip addr add "$OTHER_ADDR" dev "$OTHER_NETDEV"
		check ip link set "$OTHER_NETDEV" up
	fi
	check other_rxe_add
	SRP_DEST=${OTHER_ADDR%/*}:$SRP_PORT CONF_TIMEOUT_MS=120000 conf_client \
		--initiator-ext "$CLIENT_EXT" --lun 1 --cases login.valid \
		>"$RESULTS/parallel-4.txt" 2>&1 &
	p3=$!
	check poll_until 60 logins_setting_up 1
	CONF_TIMEOUT_MS=120000 conf_client --initiator-ext "$CLIENT_EXT" --lun 1 \
		--cases login.valid >"$RESULTS/parallel-5.txt" 2>&1 &
	p4=$!
	poll_until 60 logins_setting_up 2 ||
		fail "logins to two devices were never in set-up at once (logins: $(<"$DEBUGFS_LOGINS"))"
	check rxe_del
	logins_setting_up 1 ||
		fail "removing $RXE_DEV: not exactly the login on $OTHER_RDMA_DEV left in set-up (logins: $(<"$DEBUGFS_LOGINS"))"
	check poll_until 60 channels_are 0
	check poll_until 30 exited "$p4"
	wait "$p4" && fail "a login to the removed $RXE_DEV got in"
	check other_rxe_del
	check poll_until 30 logins_setting_up 0
	check poll_until 30 exited "$p3"
	wait "$p3" && fail "a login to the removed $OTHER_RDMA_DEV got in"
	cat "$RESULTS/parallel-4.txt" "$RESULTS/parallel-5.txt"
	(($(dmesg_count "refused (reason 0x10001): RDMA device being removed") >= 2)) ||
		fail "the held-up logins of the removed devices were not refused"
	check sysfs_write "$f" 0
	check ip link del "$OTHER_NETDEV"
	check rxe_add
	unset TGT_DIR
	check poll_until 30 test -e "$SRP_HOST/add_target"
	check srp_target_down
}

run_fault_cases() {
	CASE_TIMEOUT=300 run_case tmf_reset_load case_tmf_reset_load
	CASE_TIMEOUT=300 run_case mpath_relogin case_mpath_relogin
	CASE_TIMEOUT=300 run_case link_delete_io case_link_delete_io
	CASE_TIMEOUT=300 run_case link_delete_channels case_link_delete_channels
	CASE_TIMEOUT=400 run_case link_delete_held case_link_delete_held
	CASE_TIMEOUT=400 run_case parallel_logins case_parallel_logins
	CASE_TIMEOUT=300 run_case live_teardown case_live_teardown
	run_case channel_limits case_channel_limits
	run_case data_limits case_data_limits
	run_case pr_spec_i_pt case_pr_spec_i_pt
	run_case post_failure case_post_failure
	run_case qp_shrink case_qp_shrink
	CASE_TIMEOUT=400 run_case login_cycles case_login_cycles
	run_case cred_req_foreign_reset case_cred_req_foreign_reset
	run_case over_credit case_over_credit
	run_case relogin_limit case_relogin_limit
}
