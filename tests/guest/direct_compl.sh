# shellcheck shell=bash
# tests/guest/direct_compl.sh: LIO's direct completion (7.3), sourced by
# suite.sh after lib.sh, login.sh and observe.sh.
#
#   direct_compl  on a kernel whose LIO lets a fabric complete commands in
#                 the backend's own context, our target says it supports it
#                 (param/direct_complete_supported 1) and its default
#                 (param/default_complete_type) is what the direct_compl
#                 module parameter asks for: 1 (direct) with
#                 direct_compl=1, 2 (queued) with 0.  Loaded with
#                 direct_compl=1, four LUNs take fio verify through
#                 ib_srp, direct: iblock on null_blk completing from a
#                 timer (hard interrupt, irqmode=2) with complete_type 0
#                 (the fabric's default), and with complete_type 1
#                 null_blk's irqmode=1 (a soft interrupt on several CPUs,
#                 the submitting context on one), fileio on tmpfs and the
#                 ramdisk (both in the submitting context, our receive
#                 path).  The srpt_rsp trace events must show responses
#                 posted in hard interrupt context for the timer LUN, and
#                 none once its complete_type is 2 (queued).  A splat
#                 (lockdep, sleeping in atomic context, KASAN) fails the
#                 case as any other.  On other kernels the case checks that
#                 the attributes are absent and that direct_compl=1 is
#                 refused at load with a message naming it.

DC_TMP=/tmp/dc-tmpfs
DC_NULLB=/sys/kernel/config/nullb
DC_IB_HARD=$CFS_TARGET/core/iblock_79/dc_hard
DC_IB_SOFT=$CFS_TARGET/core/iblock_80/dc_soft
DC_FD=$CFS_TARGET/core/fileio_79/dc_fd

# dc_nullb NAME IRQMODE: a 64 MiB memory-backed null_blk device made
# through null_blk's configfs; prints its node (/dev/NAME since 6.10,
# /dev/nullbN before).
dc_nullb() {
	local d=$DC_NULLB/$1
	mkdir "$d" || return 1
	echo 64 >"$d/size" && echo 1 >"$d/memory_backed" &&
		echo "$2" >"$d/irqmode" && echo 1 >"$d/power" || return 1
	if [[ -b /dev/$1 ]]; then
		echo "/dev/$1"
	else
		echo "/dev/nullb$(<"$d/index")"
	fi
}

# dc_backstores_up: the iblock backstores on null_blk and the fileio one.
dc_backstores_up() {
	local hard soft
	dc_backstores_down >/dev/null 2>&1
	modprobe null_blk nr_devices=0 || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	[[ -d $DC_NULLB ]] || { echo "no $DC_NULLB" >&2; return 1; }
	hard=$(dc_nullb dc_hard 2) || return 1
	soft=$(dc_nullb dc_soft 1) || return 1
	udevadm settle 2>/dev/null
	[[ -b $hard && -b $soft ]] || { echo "no $hard or $soft" >&2; return 1; }
	mkdir -p "$DC_TMP" && mount -t tmpfs -o size=80m dc "$DC_TMP" || return 1
	truncate -s 64M "$DC_TMP/fd.img" || return 1
	mkdir -p "$DC_IB_HARD" "$DC_IB_SOFT" "$DC_FD" || return 1
	sysfs_write "$DC_IB_HARD/control" "udev_path=$hard" || return 1
	sysfs_write "$DC_IB_SOFT/control" "udev_path=$soft" || return 1
	sysfs_write "$DC_FD/control" \
		"fd_dev_name=$DC_TMP/fd.img,fd_dev_size=67108864" || return 1
	for d in "$DC_IB_HARD" "$DC_IB_SOFT" "$DC_FD"; do
		sysfs_write "$d/enable" 1 || return 1
	done
}

# dc_backstores_down: after srp_target_down.
dc_backstores_down() {
	local d
	for d in "$DC_IB_HARD" "$DC_IB_SOFT" "$DC_FD"; do
		[[ ! -d $d ]] || rmdir "$d" "${d%/*}"
	done
	for d in dc_hard dc_soft; do
		[[ -d $DC_NULLB/$d ]] || continue
		echo 0 >"$DC_NULLB/$d/power"
		rmdir "$DC_NULLB/$d"
	done
	! grep -q '^null_blk ' /proc/modules || modprobe -r null_blk
	! mountpoint -q "$DC_TMP" || umount "$DC_TMP"
}

# dc_contexts: from the trace buffer, how many srpt_rsp events were posted
# in each context, as "hardirq=N softirq=N task=N" (the third flag
# character of the trace line: h or H hard interrupt, s soft interrupt).
dc_contexts() {
	awk '/ srpt_rsp: / {
		for (i = 1; i < NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) {
				c = substr($(i + 1), 3, 1)
				break
			}
		if (c == "h" || c == "H")
			h++
		else if (c == "s")
			s++
		else
			t++
	} END { printf "hardirq=%d softirq=%d task=%d\n", h, s, t }' "$TRACEFS/trace"
}

case_direct_compl() {
	local tport t acl lun bs d ctx pids=() rc=0
	local -a bss disks
	# complete_type per LUN: the timer LUN takes the fabric's default.
	local -a types=(1 0 1 1)
	fresh
	check srp_target_up
	t=$(tgt_dir)
	tport=${t%/*}
	if [[ ! -e $tport/param/direct_complete_supported ]]; then
		log "SKIP: this kernel's LIO has no direct completion"
		[[ ! -e $(rd_backstore)/attrib/complete_type ]] ||
			fail "backstores have complete_type but the fabric has no direct_complete_supported"
		check srp_target_down
		check rmmod ib_srpt
		kmsg "direct_compl=1 without direct completion"
		if load_srpt direct_compl=1; then
			rmmod ib_srpt
			fail "direct_compl=1 was accepted by a kernel without direct completion"
		fi
		dmesg_here | sed -n '/guest-test: direct_compl=1 without/,$p' |
			grep -q 'ib_srpt: direct_compl: ' ||
			fail "no ib_srpt message naming direct_compl after the refused load"
		return 0
	fi
	[[ $(<"$tport/param/direct_complete_supported") == 1 ]] ||
		fail "direct_complete_supported is $(<"$tport/param/direct_complete_supported"), not 1"
	# The default follows the parameter, whichever value it has.
	d=$(</sys/module/ib_srpt/parameters/direct_compl)
	log "direct_compl = $d, default_complete_type = $(<"$tport/param/default_complete_type")"
	[[ $(<"$tport/param/default_complete_type") == "$([[ $d == Y ]] && echo 1 || echo 2)" ]] ||
		fail "default_complete_type is $(<"$tport/param/default_complete_type") with direct_compl=$d"
	check srp_target_down
	check rmmod ib_srpt
	check load_srpt rdma_cm_port="$SRP_PORT" direct_compl=1
	check srp_target_up
	[[ $(<"$tport/param/default_complete_type") == 1 ]] ||
		fail "default_complete_type is $(<"$tport/param/default_complete_type") with direct_compl=1, not 1 (direct)"
	trap 'srp_target_down; sysfs_write "$(rd_backstore)/attrib/complete_type" 0; dc_backstores_down; rmmod ib_srpt' EXIT
	check dc_backstores_up
	acl=$t/acls/0x$(initiator_id)
	bss=("$(rd_backstore)" "$DC_IB_HARD" "$DC_IB_SOFT" "$DC_FD")
	for lun in 1 2 3; do
		bs=${bss[lun]}
		mkdir -p "$t/lun/lun_$lun" "$acl/lun_$lun" || fail "cannot create LUN $lun"
		check ln -s "$bs" "$t/lun/lun_$lun/${bs##*/}"
		check ln -s "$t/lun/lun_$lun" "$acl/lun_$lun/lun$lun"
	done
	for lun in 0 1 2 3; do
		bs=${bss[lun]}
		check sysfs_write "$bs/attrib/complete_type" "${types[lun]}"
		[[ $(<"$bs/attrib/complete_type") == "${types[lun]}" ]] ||
			fail "${bs##*/}: complete_type reads $(<"$bs/attrib/complete_type")"
	done
	check srp_login ch_count=2
	for lun in 0 1 2 3; do
		disks[lun]=$(srp_lun_disk "$lun") || fail "no disk for LUN $lun"
	done
	log "disks: ${disks[*]}"
	echo 8192 >"$TRACEFS/buffer_size_kb"
	# One LUN at a time, with the contexts the responses were posted in.
	for lun in 1 2 3 0; do
		check trace_on
		check fio_verify "${disks[lun]}" "dc-lun$lun" --direct=1 \
			--rw=randwrite --bsrange=512-128k --size=16M --iodepth=16
		echo 0 >"$TRACEFS/events/ib_srpt/enable"
		ctx=$(dc_contexts)
		log "LUN $lun (${bss[lun]##*/}): responses posted in $ctx"
		if ((lun == 1)); then
			[[ $ctx != hardirq=0\ * ]] ||
				fail "no response posted in hard interrupt context on the null_blk timer LUN (complete_type 0, the default, direct_compl=1): $ctx"
		fi
	done
	# Queued on request: the timer LUN's responses leave the interrupt.
	check sysfs_write "${bss[1]}/attrib/complete_type" 2
	check trace_on
	check fio_verify "${disks[1]}" dc-lun1-queued --direct=1 \
		--rw=randwrite --bsrange=512-128k --size=4M --iodepth=16
	echo 0 >"$TRACEFS/events/ib_srpt/enable"
	ctx=$(dc_contexts)
	log "LUN 1 (${bss[1]##*/}, complete_type 2): responses posted in $ctx"
	[[ $ctx == hardirq=0\ * ]] ||
		fail "responses posted in hard interrupt context with complete_type 2 (queued): $ctx"
	trace_off
	# All four at once.
	for lun in 0 1 2 3; do
		fio_verify "${disks[lun]}" "dc-all$lun" --direct=1 --rw=randwrite \
			--bsrange=4k-64k --size=8M --iodepth=8 &
		pids+=($!)
	done
	for d in "${pids[@]}"; do
		wait "$d" || rc=1
	done
	[[ $rc == 0 ]] || fail "fio verify failed on one of the LUNs at once"
	channels
	[[ $(counter rdma_errors) == 0 ]] || fail "RDMA errors counted"
	check srp_target_down
	check sysfs_write "$(rd_backstore)/attrib/complete_type" 0
	check dc_backstores_down
	check rmmod ib_srpt
	trap - EXIT
}

run_direct_compl_cases() {
	CASE_TIMEOUT=$((CASE_TIMEOUT > 900 ? CASE_TIMEOUT : 900)) run_case direct_compl case_direct_compl
}
