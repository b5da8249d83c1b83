# shellcheck shell=bash
# tests/guest/hostile.sh: adversarial SCSI commands, sourced by suite.sh
# after lib.sh, login.sh and faults.sh.  Commands LIO emulates with a
# parameter list or an allocation length (SET TARGET PORT GROUPS, MODE
# SELECT, PERSISTENT RESERVE OUT, UNMAP, EXTENDED COPY, INQUIRY, ...), with
# data lengths around the page and 32 KiB boundaries, length fields that
# contradict the buffer and buffers in the wrong direction: from the
# kernel's ib_srp through sg_raw (hostile_sg_raw), and from the conformance
# client's hostile.* cases and SCSI fuzz mode on three backstore types
# (hostile_client). fio verify runs on LUN 0 meanwhile; a splat, a command
# that gets no SCSI status and a malformed response fail a case.

# Data lengths of the sg_raw commands (capped by what SG_IO takes for the
# disk: larger transfers are refused before they reach the target).
HOSTILE_LENGTHS=(0 1 511 4095 4096 4097 8193 32767 32768 32769 36864 65536 1048576)
HOSTILE_ZEROS=/tmp/hostile-zeros
: "${SRPT_HOSTILE_FUZZ_ITERATIONS:=150}"

# Commands for sg_raw: name|direction|CDB|offset and width of the length
# field|"state" if the parameter list changes the device's state (its
# length is 0 when sent with a data-in buffer: the target's own buffer
# holds whatever memory it was).
HOSTILE_SG_CMDS=(
	"set_target_port_groups|out|a4 0a 00 00 00 00 00 00 00 00 00 00|6|4|state"
	"mode_select_10|out|55 10 00 00 00 00 00 00 00 00|7|2|"
	"mode_select_6|out|15 10 00 00 00 00|4|1|"
	"persistent_reserve_out|out|5f 00 00 00 00 00 00 00 00 00|5|4|state"
	"unmap|out|42 00 00 00 00 00 00 00 00 00|7|2|state"
	"extended_copy|out|83 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00|10|4|state"
	"inquiry|in|12 00 00 00 00 00|3|2|"
	"inquiry_vpd_83|in|12 01 83 00 00 00|3|2|"
	"mode_sense_10|in|5a 00 3f 00 00 00 00 00 00 00|7|2|"
	"report_luns|in|a0 00 00 00 00 00 00 00 00 00 00 00|6|4|"
	"report_target_port_groups|in|a3 0a 00 00 00 00 00 00 00 00 00 00|6|4|"
	"persistent_reserve_in|in|5e 00 00 00 00 00 00 00 00 00|7|2|"
	"receive_copy_results|in|84 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00|10|4|"
	"request_sense|in|03 00 00 00 00 00|4|1|"
)

# hostile_cdb "HEX BYTES" OFF WIDTH VALUE: the CDB with VALUE (clamped to
# the field) big-endian in bytes OFF..OFF+WIDTH-1.
hostile_cdb() {
	local -a b
	read -ra b <<<"$1"
	local off=$2 w=$3 v=$4 i k max
	if ((w < 8)); then
		max=$(((1 << (8 * w)) - 1))
		((v > max)) && v=$max
	fi
	for ((i = w - 1; i >= 0; i--)); do
		k=$((off + i))
		printf -v "b[$k]" '%02x' $((v & 255))
		v=$((v >> 8))
	done
	echo "${b[*]}"
}

# hostile_sg DEV DIR LEN WHAT CDB...: one sg_raw with LEN bytes of data-in
# (DIR in) or of zeros as data-out (DIR out). The command must come back
# with a SCSI status: sg_raw exits 0 (GOOD) or prints "SCSI Status: ..."
# (whatever its exit status: it has none for e.g. TASK SET FULL), and
# reports no host or driver error and no timeout; else the case fails.
# Appends "STATUS WHAT" to $HOSTILE_TALLY.
hostile_sg() {
	local dev=$1 dir=$2 len=$3 what=$4 out rc status line
	shift 4
	local -a data=()
	if ((len > 0)); then
		if [[ $dir == in ]]; then
			data=(-r "$len" -o /dev/null)
		else
			data=(-s "$len" -i "$HOSTILE_ZEROS")
		fi
	fi
	out=$(sg_raw -t 30 "${data[@]}" "$dev" "$@" 2>&1)
	rc=$?
	# Parsed in bash: a sed or grep per command would cost a process
	# start each under TCG, more than the command itself.
	status=GOOD
	if [[ $rc != 0 ]]; then
		status=
		[[ $out =~ (^|$'\n')"SCSI Status:"" "*([^$'\n']*) ]] && status=${BASH_REMATCH[2]}
	fi
	echo "${status// /_} $what" >>"$HOSTILE_TALLY"
	if [[ -z $status || ${out,,} =~ host_status|driver_status|timed\ out|timeout ]]; then
		echo "sg_raw ${data[*]} $dev $*: exit status $rc"
		echo "$out"
		fail "$what: no SCSI status (sg_raw exit status $rc): $(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
	[[ $rc == 0 ]] && return 0
	while IFS= read -r line; do
		[[ ${line,,} == *"sense key"* || ${line,,} == *asc* ]] && break
		line=
	done <<<"$out"
	log "$what: $status: $line"
}

# hostile_sg_storm DEV MAXLEN: every command of HOSTILE_SG_CMDS, plus
# READ(16) and WRITE SAME(16) of the disk's last block, a variable-length
# CDB claiming more bytes than it carries and a reserved operation code,
# at each length of HOSTILE_LENGTHS up to MAXLEN with the length field
# equal to the data length (as far as it holds it); at the lengths of
# HOSTILE_MISMATCH_LENGTHS also with the field twice it plus one, half of
# it, and with the data buffer in the other direction.  (The conformance
# client's hostile.* cases try every mismatch at every length; each sg_raw
# here costs a process start under TCG.)
HOSTILE_MISMATCH_LENGTHS=" 4096 4097 32769 36864 "
hostile_sg_storm() {
	local dev=$1 maxlen=$2 e name dir cdb off w state len f other last fields
	# The report: MAINTENANCE OUT / SET TARGET PORT GROUPS, 36 KiB of zeros.
	hostile_sg "$dev" out 36864 "report: a4 0a 36 KiB" \
		a4 0a 00 00 00 00 00 00 90 00 00 00
	last=$(($(blockdev --getsz "$dev") - 1))
	for len in "${HOSTILE_LENGTHS[@]}"; do
		((len <= maxlen)) || {
			log "skipping $len bytes: more than the disk's $maxlen-byte transfers"
			continue
		}
		fields=$len
		[[ $HOSTILE_MISMATCH_LENGTHS == *" $len "* ]] &&
			fields="$len $((2 * len + 1)) $((len / 2))"
		for e in "${HOSTILE_SG_CMDS[@]}"; do
			IFS='|' read -r name dir cdb off w state <<<"$e"
			for f in $fields; do
				# shellcheck disable=SC2046 # one argument per CDB byte
				hostile_sg "$dev" "$dir" "$len" "$name $dir $len field $f" \
					$(hostile_cdb "$cdb" "$off" "$w" "$f")
			done
			[[ $fields == "$len" ]] && continue
			other=in
			[[ $dir == in ]] && other=out
			f=$len
			[[ $state == state ]] && f=0
			# shellcheck disable=SC2046
			hostile_sg "$dev" "$other" "$len" "$name $other $len field $f" \
				$(hostile_cdb "$cdb" "$off" "$w" "$f")
		done
		# READ(16) of the blocks the length holds, from LBA 0; WRITE SAME(16)
		# of the last block (LUN 1 is this case's own).
		# shellcheck disable=SC2046
		hostile_sg "$dev" in "$len" "read_16 in $len" \
			$(hostile_cdb "88 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00" 10 4 $((len / 512)))
		# shellcheck disable=SC2046
		hostile_sg "$dev" out "$len" "write_same_16 out $len" \
			$(hostile_cdb "93 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00" 2 8 "$last")
		# ADDITIONAL CDB LENGTH F8h (256 bytes) in 16 bytes of CDB (WRITE
		# SAME(32), LBA bytes all ones); a reserved operation code.
		hostile_sg "$dev" out "$len" "7Fh claiming 256 bytes in 16, out $len" \
			7f 00 00 00 00 00 00 f8 00 0d 00 00 ff ff ff ff
		hostile_sg "$dev" in "$len" "reserved opcode 60h, in $len" \
			60 00 00 00 00 00 00 00 00 00 00 00
	done
}

# case_hostile_sg_raw: the target with LUN 0 (fio verify) and LUN 1 (a
# ramdisk of this case) for the kernel initiator, logged in with 1 MiB
# transfers allowed; the storm on LUN 1's disk. Every sg_raw must report a
# SCSI status, fio verify must stay clean, LUN 0 and LUN 1 must answer TEST
# UNIT READY afterwards, and the kernel must not splat.
case_hostile_sg_raw() {
	local t rd d0 d1 h q maxkb pid
	check srp_target_up
	t=$(tgt_dir)
	rd=$(rd_backstore rd_hostile 64M) || fail "no ramdisk for LUN 1"
	check srp_login ch_count=2 max_sect=2048 sg_tablesize=256
	d0=$(srp_disk) || fail "no disk for LUN 0"
	mkdir -p "$t/lun/lun_1" "$(acl_dir)/lun_1" || fail "cannot create LUN 1"
	check ln -s "$rd" "$t/lun/lun_1/rd_hostile"
	check ln -s "$t/lun/lun_1" "$(acl_dir)/lun_1/lun1"
	for h in $(srp_hosts); do echo "- - -" >"$h/scan"; done
	d1=$(lun1_disk) || fail "no disk for LUN 1 after the rescan"
	[[ $d1 != "$d0" ]] || fail "LUN 0 and LUN 1 have the same disk $d0"
	q=/sys/block/${d1#/dev/}/queue
	# SG_IO maps sg_raw's buffer page by page: no more than max_segments
	# pages, no more than max_hw_sectors_kb.
	maxkb=$(<"$q/max_hw_sectors_kb")
	(($(<"$q/max_segments") * 4 < maxkb)) && maxkb=$(($(<"$q/max_segments") * 4))
	log "LUN 0 $d0, LUN 1 $d1: max_sectors_kb $(<"$q/max_sectors_kb"), max_hw_sectors_kb $(<"$q/max_hw_sectors_kb"), max_segments $(<"$q/max_segments"): up to $maxkb KiB"
	check dd if=/dev/zero of="$HOSTILE_ZEROS" bs=1M count=2 status=none
	HOSTILE_TALLY=$RESULTS/hostile-sg-raw.txt
	: >"$HOSTILE_TALLY"
	(hostile_sg_storm "$d1" $((maxkb * 1024))) &
	pid=$!
	fio_while "$pid" "$d0" || {
		kill "$pid"
		fail "fio verify on LUN 0 failed during the sg_raw commands"
	}
	wait "$pid" || fail "an sg_raw command got no SCSI status"
	log "sg_raw statuses (count, status): $(awk '{ print $1 }' "$HOSTILE_TALLY" | sort | uniq -c | tr '\n' ' ')"
	check sg_turs "$d0"
	check sg_turs "$d1"
	check srp_target_down
}

# HOSTILE_FD / HOSTILE_IB: the fileio and iblock backstores of hostile_client.
HOSTILE_TMP=/tmp/hostile-tmpfs
HOSTILE_FD=$CFS_TARGET/core/fileio_78/hostile_fd
HOSTILE_IB=$CFS_TARGET/core/iblock_78/hostile_ib

# hostile_backstores_up: a file on a tmpfs (fileio) and a loop device over
# another file there (iblock), 64 MiB each, with thin provisioning (UNMAP)
# where the backstore takes it.
hostile_backstores_up() {
	local loop a
	hostile_backstores_down >/dev/null 2>&1
	mkdir -p "$HOSTILE_TMP" && mount -t tmpfs -o size=160m hostile "$HOSTILE_TMP" || return 1
	truncate -s 64M "$HOSTILE_TMP/fd.img" "$HOSTILE_TMP/ib.img" || return 1
	modprobe loop || return 1
	loop=$(losetup --find --show "$HOSTILE_TMP/ib.img") || return 1
	mkdir -p "$HOSTILE_FD" "$HOSTILE_IB" || return 1
	sysfs_write "$HOSTILE_FD/control" \
		"fd_dev_name=$HOSTILE_TMP/fd.img,fd_dev_size=67108864" || return 1
	sysfs_write "$HOSTILE_IB/control" "udev_path=$loop" || return 1
	for a in "$HOSTILE_FD" "$HOSTILE_IB"; do
		sysfs_write "$a/enable" 1 || return 1
		sysfs_write "$a/attrib/emulate_tpu" 1 ||
			log "${a##*/}: no UNMAP (emulate_tpu refused)"
	done
}

# hostile_backstores_down: after srp_target_down.
hostile_backstores_down() {
	local l
	for l in "$HOSTILE_FD" "$HOSTILE_IB"; do
		[[ ! -d $l ]] || rmdir "$l" "${l%/*}"
	done
	for l in $(losetup -j "$HOSTILE_TMP/ib.img" -O NAME -n 2>/dev/null); do
		losetup -d "$l"
	done
	! mountpoint -q "$HOSTILE_TMP" || umount "$HOSTILE_TMP"
}

# case_hostile_client: LUN 0 (the kernel initiator, fio verify) and, for the
# conformance client, LUN 1 (ramdisk), LUN 2 (fileio) and LUN 3 (iblock on a
# loop device); on LUN 2 and 3 a client run of the hostile.* cases (LUN 1
# had its own in the conformance case), on each a SCSI fuzz run
# (--fuzz-scsi, SRPT_HOSTILE_FUZZ_ITERATIONS).
case_hostile_client() {
	local t acl lun bs cpid rc
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	# Whatever happens, the backstores go: a saved configuration of a
	# later case must not find them.
	trap 'srp_target_down; hostile_backstores_down' EXIT
	check hostile_backstores_up
	conf_target_up || fail "target set-up or kernel initiator login failed"
	t=$(tgt_dir)
	acl=$t/acls/0x$CLIENT_EXT$(node_guid)
	for lun in 2 3; do
		bs=$HOSTILE_FD
		((lun == 3)) && bs=$HOSTILE_IB
		mkdir -p "$t/lun/lun_$lun" "$acl/lun_$lun" || fail "cannot create LUN $lun"
		check ln -s "$bs" "$t/lun/lun_$lun/${bs##*/}"
		check ln -s "$t/lun/lun_$lun" "$acl/lun_$lun/lun$lun"
	done
	{
		rc=0
		for lun in 1 2 3; do
			# LUN 1's hostile.* cases ran in the conformance case.
			((lun == 1)) ||
				conf_client --initiator-ext "$CLIENT_EXT" --lun "$lun" \
					--cases 'hostile.*' --json "$RESULTS/hostile-lun$lun.json" || rc=1
			conf_client --initiator-ext "$CLIENT_EXT" --lun "$lun" --fuzz-scsi \
				--seed $((20261201 + lun)) --iterations "$SRPT_HOSTILE_FUZZ_ITERATIONS" \
				--json "$RESULTS/hostile-fuzz-lun$lun.json" || rc=1
		done
		exit $rc
	} >"$RESULTS/hostile-client.txt" 2>&1 &
	cpid=$!
	fio_while "$cpid" "$CONF_DISK" || {
		kill "$cpid"
		fail "fio verify on LUN 0 failed while the client ran"
	}
	wait "$cpid"
	rc=$?
	grep -E '^(FAIL|SKIP)|passed|^fuzz' "$RESULTS/hostile-client.txt"
	[[ $rc == 0 ]] || fail "conformance client: $(grep -m1 '^FAIL' "$RESULTS/hostile-client.txt" || tail -n1 "$RESULTS/hostile-client.txt")"
	check sg_turs "$CONF_DISK"
	check srp_target_down
	check hostile_backstores_down
}

run_hostile_cases() {
	CASE_TIMEOUT=900 run_case hostile_sg_raw case_hostile_sg_raw
	CASE_TIMEOUT=${SRPT_HOSTILE_TIMEOUT:-3600} run_case hostile_client case_hostile_client
}
