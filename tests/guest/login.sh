# shellcheck shell=bash
# tests/guest/login.sh: login and I/O cases, sourced by suite.sh after
# lib.sh.  The kernel's ib_srp initiator logs in to our target over RDMA/CM
# on the same soft-RoCE port (rxe loops back), and fio with verify, sg3-utils
# and a file system check the data path.

SRP_PORT=5000
SRP_DEST=${RXE_ADDR%/*}:$SRP_PORT
SRP_HOST=/sys/class/infiniband_srp/srp-$RXE_DEV-1
LUN_SIZE=256M

# node_guid: rxe0's node GUID as 16 hex digits (our default service GUID).
node_guid() {
	local g
	read -r g <"/sys/class/infiniband/$RXE_DEV/node_guid" || return 1
	echo "${g//:/}"
}

# gid_prefix: the subnet prefix of rxe0's GID, 16 hex digits.
gid_prefix() {
	local g
	g=$(port_gid) || return 1
	echo "${g:0:16}"
}

# initiator_id: the initiator port ID ib_srp sends with
# initiator_ext=$(gid_prefix): prefix + node GUID, i.e. the port's GID.
initiator_id() { echo "$(gid_prefix)$(node_guid)"; }

# tgt_dir: configfs directory of the portal group ($TGT_DIR if set: a case
# that removes rxe0 names it while the GID cannot be read).
tgt_dir() { echo "${TGT_DIR:-$CFS_SRPT/0x$(port_gid)/tpgt_1}"; }

# rd_backstore [NAME [SIZE [EXTRA]]]: configfs directory of a ramdisk backstore
# (default rd_login, $LUN_SIZE); created through configfs if missing, in an
# HBA of its own as targetcli does (its clearconfig removes each storage
# object's HBA with it), and kept between cases; EXTRA is appended to its
# control string (",rd_nullio=1").
rd_backstore() {
	local name=${1:-rd_login} size=${2:-$LUN_SIZE} extra=${3:-} d i=77
	for d in "$CFS_TARGET"/core/rd_mcp_*/"$name"; do
		[[ -d $d ]] && {
			echo "$d"
			return 0
		}
	done
	while [[ -e $CFS_TARGET/core/rd_mcp_$i ]]; do ((i++)); done
	d=$CFS_TARGET/core/rd_mcp_$i/$name
	mkdir -p "$d" || return 1
	echo "rd_pages=$((${size%M} * 256))$extra" >"$d/control" || return 1
	echo 1 >"$d/enable" || return 1
	echo "$d"
}

# srp_target_up [ACL_NAME] [ATTR=VALUE...]: load ours with the RDMA/CM port,
# create target, ramdisk LUN and the ACL (default: the local initiator, in
# targetcli's ib.<port ID> form), set TPG attributes, enable.  Through
# configfs, which costs no targetcli start (seconds under TCG); with
# SRP_TARGETCLI=1 through targetcli, as a user would.
srp_target_up() {
	local acl=${1:-} a t rd
	[[ -n $acl ]] || acl=ib.$(initiator_id)
	shift || true
	srp_target_down # leftovers of a failed case
	# A case that failed half-way may have left the in-tree driver loaded.
	if srpt_loaded && [[ $SRPT_INTREE != 1 ]] && ! srpt_is_ours; then
		rmmod ib_srpt || return 1
	fi
	srpt_loaded || load_srpt rdma_cm_port=$SRP_PORT || return 1
	modprobe ib_srp || return 1
	if [[ ${SRP_TARGETCLI:-0} == 1 ]]; then
		{
			[[ -n $(compgen -G "$CFS_TARGET/core/rd_mcp_*/rd_login") ]] ||
				echo "/backstores/ramdisk create rd_login $LUN_SIZE"
			echo "/srpt create ib.$(port_gid)"
			echo "/srpt/ib.$(port_gid)/luns create /backstores/ramdisk/rd_login"
			echo "/srpt/ib.$(port_gid)/acls create $acl"
		} | tcli_batch || return 1
	else
		rd=$(rd_backstore) || return 1
		t=$(tgt_dir)
		[[ $acl == ib.* ]] && acl=0x${acl#ib.}
		mkdir -p "$t/lun/lun_0" "$t/acls/$acl/lun_0" || return 1
		ln -s "$rd" "$t/lun/lun_0/rd_login" || return 1
		ln -s "$t/lun/lun_0" "$t/acls/$acl/lun_0/lun0" || return 1
	fi
	if [[ $(<"$CFS_SRPT/discovery_auth/rdma_cm_port") != "$SRP_PORT" ]]; then
		sysfs_write "$CFS_SRPT/discovery_auth/rdma_cm_port" "$SRP_PORT" ||
			return 1
	fi
	for a in "$@"; do
		sysfs_write "$(tgt_dir)/attrib/${a%%=*}" "${a#*=}" || return 1
	done
	[[ $(<"$(tgt_dir)/enable") == 1 ]] || sysfs_write "$(tgt_dir)/enable" 1
}

# srp_target_down: log out every SRP initiator port and remove our target
# (the ramdisk backstore stays for the next case).
srp_target_down() {
	srp_logout_all
	srpt_teardown
}

# srp_login [OPTION=VALUE...]: add_target to our target through RDMA/CM.
srp_login() {
	local guid opts
	guid=$(node_guid) || return 1
	opts="id_ext=$guid,ioc_guid=$guid,dest=$SRP_DEST,initiator_ext=$(gid_prefix)"
	[[ $# -gt 0 ]] && opts+=",$(
		IFS=,
		echo "$*"
	)"
	sysfs_write "$SRP_HOST/add_target" "$opts"
}

# srp_hosts: the SCSI hosts of ib_srp.
srp_hosts() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[[ -e $h/proc_name && $(<"$h/proc_name") == ib_srp ]] && echo "$h"
	done
	return 0
}

# srp_logout_all: delete every SRP remote port and wait until ib_srp's SCSI
# hosts are gone (ib_srp forgets a target only then: logging in again
# before that is refused as "Already connected").
srp_logout_all() {
	local p i
	for p in /sys/class/srp_remote_ports/*/delete; do
		[[ -e $p ]] && echo 1 >"$p"
	done
	for ((i = 0; i < 200; i++)); do
		[[ -z $(srp_hosts) ]] && return 0
		nap 0.1
	done
	echo "SRP hosts still present: $(srp_hosts)" >&2
	return 1
}

# srp_reload_initiator [PARAM=VALUE...]: log every SRP port out and load
# ib_srp again with these module parameters (none: its defaults).
srp_reload_initiator() {
	srp_logout_all || return 1
	modprobe -r ib_srp || return 1
	modprobe ib_srp "$@"
}

# srp_disk_glob GLOB: wait for a disk of the kernel initiator whose SCSI
# device (H:C:T:LUN) matches GLOB; print /dev/sdX.
srp_disk_glob() {
	local h b i
	for ((i = 0; i < 200; i++)); do
		for h in /sys/class/scsi_host/host*; do
			[[ $(<"$h/proc_name") == ib_srp ]] || continue
			# shellcheck disable=SC2231 # $1 is a glob on purpose
			for b in "$h"/device/target*/$1/block/*; do
				b=/dev/${b##*/}
				[[ -b $b ]] && {
					echo "$b"
					return 0
				}
			done
		done
		nap 0.1
	done
	echo "no SRP disk $1 appeared" >&2
	return 1
}

# srp_disk: wait for the disk of the logged-in target; print /dev/sdX.
srp_disk() { srp_disk_glob '*'; }

# srp_lun_disk LUN: the same for the target's LUN number LUN.
srp_lun_disk() { srp_disk_glob "*:*:*:$1"; }

# channels: the target's channel list for the portal group.
channels() { cat "$(tgt_dir)/channels"; }

# field_of LINE NAME: the value of NAME=<value> in a line of such fields (a
# channel line, discovery_auth/logins, the debugfs counters).
field_of() {
	[[ " $1 " =~ \ $2=([^ ]+)\  ]] || return 1
	echo "${BASH_REMATCH[1]}"
}

# channel_count: number of channels the target lists.
channel_count() { channels | grep -c . || true; }

# counter NAME: sum of a counter over all channels.
counter() {
	channels | grep -o "$1=[0-9]*" | awk -F= '{ s += $2 } END { print s + 0 }'
}

# wait_channels N: wait until the target lists N channels.
wait_channels() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(channel_count) == "$1" ]] && return 0
		nap 0.1
	done
	echo "target lists $(channel_count) channels, expected $1" >&2
	return 1
}

# fio_verify DEV NAME ARGS...: a fio write job with verification; fails on
# any error.
fio_verify() {
	local dev=$1 name=$2
	shift 2
	log "fio $name $*"
	fio --name="$name" --filename="$dev" --ioengine=libaio --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_dump=1 "$@" \
		--output-format=terse --terse-version=3 >"$RESULTS/fio-$name.txt" 2>&1 ||
		{
			cat "$RESULTS/fio-$name.txt"
			return 1
		}
	# terse v3 field 5 is the error count of the job (warnings may come
	# before the terse line).
	local errs
	errs=$(awk -F';' '/^3;/ { print $5; exit }' "$RESULTS/fio-$name.txt")
	[[ $errs == 0 ]] || {
		echo "fio $name: $errs errors"
		return 1
	}
}

case_login_ch1() {
	local d
	SRP_TARGETCLI=1 check srp_target_up
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk after login"
	check wait_channels 1
	channels
	check sg_inq "$d"
	sg_inq "$d" | grep -q 'LIO-ORG' || fail "INQUIRY does not name LIO-ORG"
	check sg_turs "$d"
	sg_readcap "$d" | tee "$RESULTS/readcap.txt"
	grep -q 'Number of logical blocks=524288' "$RESULTS/readcap.txt" ||
		fail "READ CAPACITY does not report 256 MiB of 512-byte blocks"
	dmesg_here | grep -q 'login from .* accepted' || fail "no login message"
	check srp_target_down
	check wait_channels 0
}

case_login_ch4() {
	local d
	check srp_target_up
	check srp_login ch_count=4
	d=$(srp_disk) || fail "no disk after login"
	check wait_channels 4
	channels
	# The first channel is SINGLE, the others MULTI: all four stay.
	[[ $(dmesg_here | grep -c 'other channels maintained') -ge 3 ]] ||
		fail "MULTI logins did not report maintained channels"
	check sg_turs "$d"
	check fio_verify "$d" ch4 --direct=1 --rw=randwrite --bs=4k --size=16M \
		--iodepth=32 --numjobs=1
	check srp_target_down
}

case_fio_verify() {
	local d imm0 imm1 st0 st1 writes merges
	check srp_target_up
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk"
	imm0=$(counter imm_cmds)
	read -r -a st0 <"/sys/block/${d#/dev/}/stat"
	check fio_verify "$d" randwrite4k --direct=1 --rw=randwrite --bs=4k \
		--size=32M --iodepth=16
	imm1=$(counter imm_cmds)
	read -r -a st1 <"/sys/block/${d#/dev/}/stat"
	# 4 KiB writes fit the default 8 KiB of immediate data.  The block
	# layer merges some neighbours (fields 5 and 6: write requests and
	# merges); a request too large for immediate data took at least two
	# merges, so at least requests - merges of them used it.
	writes=$((st1[4] - st0[4])) merges=$((st1[5] - st0[5]))
	log "immediate-data commands: $imm0 -> $imm1; $writes write requests, $merges merges"
	[[ $writes -ge 4096 && $((imm1 - imm0)) -ge $((writes - merges)) ]] ||
		fail "4k writes did not use immediate data ($imm0 -> $imm1, $writes writes, $merges merges)"
	# Every length of immediate data, on receive buffers that held
	# other lengths before (each keeps the list of its last one).
	check fio_verify "$d" imm_mixed --direct=1 --rw=randwrite \
		--bsrange=512-8k --size=8M --iodepth=16
	check fio_verify "$d" mixed --direct=1 --rw=randwrite --bsrange=512-1M \
		--size=32M --iodepth=8
	check fio_verify "$d" seq1m --direct=1 --rw=write --bs=1M --size=64M \
		--iodepth=4
	check fio_verify "$d" seq4m --direct=1 --rw=write --bs=4M --size=64M \
		--iodepth=2
	check fio_verify "$d" buffered --direct=0 --rw=write --bs=64k \
		--size=32M --end_fsync=1
	channels
	[[ $(counter malformed) == 0 ]] || fail "malformed IUs counted"
	[[ $(counter rdma_errors) == 0 ]] || fail "RDMA errors counted"
	check srp_target_down
}

# Contexts keep their data pages DMA-mapped across commands and build
# their own RDMA requests over them; keep_dma_maps=0 puts every command
# through rdma_rw again.  Both must move the data right, and the count of
# mappings shows which path ran.
case_kept_dma() {
	local d maps cmds imm p=/sys/module/ib_srpt/parameters/keep_dma_maps
	# The case runs in a subshell of its own: this restores the default
	# however it ends.
	trap "echo 1 >$p" EXIT
	[[ $(<"$p") == Y ]] || fail "keep_dma_maps is '$(<"$p")', expected Y"
	check srp_target_up
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	check fio_verify "$d" kept_rw --direct=1 --rw=randrw --bs=64k \
		--size=16M --iodepth=8
	check fio_verify "$d" kept_mixed --direct=1 --rw=randrw \
		--bsrange=4k-256k --size=8M --iodepth=4
	maps=$(counter dma_maps) cmds=$(counter cmds) imm=$(counter imm_cmds)
	log "kept mappings: $maps for $((cmds - imm)) commands without immediate data"
	((maps > 0)) || fail "no data buffer was mapped to be kept"
	# Each context maps its pages once, and again only when a command
	# needs more of them: far fewer mappings than commands.
	((maps * 4 <= cmds - imm)) ||
		fail "$maps mappings for $((cmds - imm)) commands: not kept across commands"
	check srp_logout_all
	check wait_channels 0
	echo 0 >"$p" || fail "keep_dma_maps=0 refused"
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk after the second login"
	check fio_verify "$d" rw_mapped --direct=1 --rw=randrw --bs=64k \
		--size=8M --iodepth=8
	[[ $(counter dma_maps) == 0 ]] ||
		fail "keep_dma_maps=0, yet $(counter dma_maps) buffers were mapped to be kept"
	(($(counter cmds) > 128)) || fail "the second run made only $(counter cmds) commands"
	check srp_target_down
}

case_filesystem() {
	local d mnt=/tmp/srpfs sums
	check srp_target_up
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk"
	check mkfs.ext4 -q -F "$d"
	mkdir -p "$mnt"
	check mount "$d" "$mnt"
	check cp -a "$PROJECT/src" "$PROJECT/include" "$PROJECT/tests" "$mnt/"
	check dd if=/dev/urandom of="$mnt/random.bin" bs=1M count=16 status=none
	sums=$(cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 md5sum)
	check umount "$mnt"
	check fsck.ext4 -f -n "$d"
	check mount "$d" "$mnt"
	[[ $(cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 md5sum) == "$sums" ]] ||
		fail "file checksums differ after remount"
	check umount "$mnt"
	check srp_target_down
}

case_relogin() {
	local i d
	check srp_target_up
	for ((i = 1; i <= 20; i++)); do
		srp_login ch_count=1 || fail "login $i failed"
		d=$(srp_disk) || fail "no disk after login $i"
		sg_turs "$d" || fail "TEST UNIT READY failed after login $i"
		srp_logout_all || fail "logout $i failed"
		wait_channels 0 || fail "channel not released after logout $i"
	done
	check srp_target_down
}

case_acl_reject() {
	check srp_target_up ib.00000000000000000000000000000001
	check_not srp_login ch_count=1
	dmesg_here | grep -q 'refused (reason 0x10000): initiator not in the ACL' ||
		fail "no ACL refusal message"
	[[ $(channel_count) == 0 ]] || fail "a channel exists after a refused login"
	check srp_target_down
}

case_iu_too_large() {
	check srp_target_up
	# ib_srp asks for 8260-byte IUs; a target limited to 4096 refuses.
	check srp_target_down
	check rmmod ib_srpt
	check load_srpt rdma_cm_port=$SRP_PORT srp_max_req_size=4096
	check srp_target_up
	check_not srp_login ch_count=1
	dmesg_here | grep -q 'refused (reason 0x10002)' ||
		fail "no 0x10002 refusal"
	# The initiator can lower its IU size and then log in.
	check srp_login ch_count=1 max_it_iu_size=4096
	d=$(srp_disk) || fail "no disk with max_it_iu_size=4096"
	check sg_turs "$d"
	check srp_target_down
	check rmmod ib_srpt
}

case_use_srq() {
	local d
	check srp_target_up "" use_srq=1
	check srp_login ch_count=2
	d=$(srp_disk) || fail "no disk with use_srq=1"
	check wait_channels 2
	channels
	[[ $(channels | grep -c ' srq=1 ') == 2 ]] || fail "channels do not use the SRQ"
	dmesg_here | grep -q 'shared receive queue of' || fail "no SRQ created"
	dmesg_here | grep -q 'immediate data off' ||
		fail "immediate data negotiated on an SRQ channel"
	check fio_verify "$d" srq4k --direct=1 --rw=randwrite --bs=4k --size=16M \
		--iodepth=32
	check fio_verify "$d" srqmix --direct=1 --rw=randwrite --bsrange=512-256k \
		--size=16M --iodepth=8
	[[ $(counter over_credit) == 0 ]] || fail "requests beyond the credit limit"
	check srp_target_down
	# The SRQ lives until the device goes; a later use_srq=0 login works.
	check srp_target_up
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk after going back to use_srq=0"
	check sg_turs "$d"
	check srp_target_down
}

case_saveconfig() {
	local d cfg=/tmp/srpt-saveconfig.json
	SRP_TARGETCLI=1 check srp_target_up
	check targetcli saveconfig "$cfg"
	check srp_target_down
	check targetcli clearconfig confirm=True
	[[ -e $CFS_SRPT/0x$(port_gid) ]] && fail "target still present after clearconfig"
	check targetcli restoreconfig "$cfg"
	[[ $(<"$(tgt_dir)/enable") == 1 ]] || fail "restored portal group not enabled"
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk after restoreconfig"
	check sg_turs "$d"
	check srp_target_down
}

# case_acl_names: node ACLs in every accepted name form (those of the
# in-tree driver included: port IDs without 0x or shorter, GUID groups of
# fewer digits, IPv4 octets with leading zeros, IPv6 with a zone) are
# created, bad names are refused with EINVAL and a message, and a login
# matches an ACL named by the initiator's IPv4 address (RDMA/CM source
# address).
case_acl_names() {
	local t acls good bad d
	check srp_target_up 10.99.0.1
	t=$(tgt_dir)
	acls=$t/acls
	for good in "$(port_guid)" 0x0123456789abcdef0123456789ABCDEF 192.0.2.7 \
		fe80::1 2001:db8::ffff:1.2.3.4 0123456789abcdef0123456789abcdef \
		0x0123 2:c903:f:2b64 01.2.3.4 fe80::1%lo fe80::1%2; do
		mkdir "$acls/$good" || fail "ACL name '$good' refused"
		rmdir "$acls/$good" || fail "cannot remove ACL '$good'"
	done
	for bad in bogus 0x123 1.2.3.256 fe80:::1 1234:5678:9abc \
		fe80::1%nosuchif 0x0123456789abcdef0123456789abcdef01; do
		if mkdir "$acls/$bad" 2>/dev/null; then
			rmdir "$acls/$bad"
			fail "ACL name '$bad' accepted"
		fi
		dmesg_here | grep -q "ACL '$bad' refused" ||
			fail "no message for the refused ACL name '$bad'"
	done
	# The only ACL is the initiator's IPv4 address: the login matches it.
	check srp_login ch_count=1
	d=$(srp_disk) || fail "no disk with an IPv4-named ACL"
	check sg_turs "$d"
	check srp_target_down
}

# The C++ SRP conformance client (make unit builds it) and its initiator
# port ID extensions: CLIENT_EXT has an ACL that sees only LUN 1 (the kernel
# initiator's ACL sees only LUN 0); CLIENT_EXT_DENIED has no ACL at all.
CLIENT=$PROJECT/build/client/srp-conformance
CLIENT_EXT=1111111111111111
CLIENT_EXT_DENIED=2222222222222222
# Fuzz iterations of the default suite and of the long mode (SUITE_LONG=1).
: "${SRPT_FUZZ_ITERATIONS:=1000}"
: "${SRPT_LONG_ITERATIONS:=110000}"

# conf_client ARGS...: the client against our target's RDMA/CM address,
# told the target's largest request IU (the srp_max_req_size in effect).
conf_client() {
	local guid max
	guid=$(node_guid) || return 2
	read -r max </sys/module/ib_srpt/parameters/srp_max_req_size || return 2
	"$CLIENT" --target "$SRP_DEST" --id-ext "$guid" --ioc-guid "$guid" \
		--target-max-it-iu "$max" --timeout-ms "${CONF_TIMEOUT_MS:-5000}" "$@"
}

# conf_target_up [ATTR=VALUE...]: our target (portal group attributes
# ATTR) with LUN 0 for the kernel initiator (ib_srp logged in with two
# channels) and LUN 1 (64 MiB) for the client; sets CONF_DISK to the kernel
# initiator's disk.
conf_target_up() {
	local t rd2 acl2
	modprobe -a rdma_ucm ib_uverbs || return 1
	srp_target_up "" "$@" || return 1
	t=$(tgt_dir)
	rd2=$(rd_backstore rd_conf 64M) || return 1
	acl2=$t/acls/0x$CLIENT_EXT$(node_guid)
	mkdir -p "$t/lun/lun_1" "$acl2/lun_1" || return 1
	ln -s "$rd2" "$t/lun/lun_1/rd_conf" || return 1
	ln -s "$t/lun/lun_1" "$acl2/lun_1/lun1" || return 1
	srp_login ch_count=2 || return 1
	CONF_DISK=$(srp_disk) || return 1
}

# fio_while PID DEV: fio verify on DEV (LUN 0, kernel initiator), again and
# again while process PID runs; fails at the first fio error.
fio_while() {
	local pid=$1 d=$2 n=0
	while kill -0 "$pid" 2>/dev/null; do
		fio_verify "$d" conf_bg --direct=1 --rw=randwrite --bs=4k \
			--size=8M --iodepth=8 || {
			echo "fio verify on LUN 0 failed after $n clean runs"
			return 1
		}
		n=$((n + 1))
	done
	log "fio verify runs on LUN 0 while the client ran: $n"
}

# case_conformance: the client's whole catalogue in three runs (an initiator
# with an ACL; one without (acl.denied*); and, after the kernel initiator
# logged out, with the portal group disabled (acl.tpg_disabled*)) and a
# short seeded fuzz run. The first two and the fuzz run use LUN 1 while the
# kernel initiator runs fio verify on LUN 0 of the same target. The merged
# result must have every catalogue case passed: none failed, none skipped.
case_conformance() {
	local d t cpid rc merged
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	conf_target_up || fail "target set-up or kernel initiator login failed"
	d=$CONF_DISK t=$(tgt_dir)
	# The protocol.vanish_* cases wait for the target's keepalive; a short
	# period keeps them short (the kernel initiator's channels are probed
	# as often, under fio verify).
	check sysfs_write "$t/attrib/keepalive_secs" 5
	{
		conf_client --initiator-ext "$CLIENT_EXT" --lun 1 \
			--json "$RESULTS/conformance.json" || exit 1
		conf_client --initiator-ext "$CLIENT_EXT_DENIED" --acl-denied \
			--cases 'acl.*' --json "$RESULTS/conformance-acl.json" || exit 1
		conf_client --initiator-ext "$CLIENT_EXT" --lun 1 --fuzz \
			--seed 20261130 --iterations "$SRPT_FUZZ_ITERATIONS" \
			--json "$RESULTS/conformance-fuzz.json"
	} >"$RESULTS/conformance.txt" 2>&1 &
	cpid=$!
	fio_while "$cpid" "$d" || fail "fio verify on LUN 0 failed while the client ran"
	wait "$cpid"
	rc=$?
	grep -E '^(FAIL|SKIP)|passed|^fuzz' "$RESULTS/conformance.txt"
	[[ $rc == 0 ]] || fail "conformance client: $(grep -m1 '^FAIL' "$RESULTS/conformance.txt" || tail -n1 "$RESULTS/conformance.txt")"
	# Transfers that fail end their channel at once, without a keepalive
	# (off for this run): a finite transport retry count (the vanished
	# initiator's RDMA WRITEs fail) and bad rkeys.
	check sysfs_write "$t/attrib/keepalive_secs" 0
	conf_client --initiator-ext "$CLIENT_EXT" --lun 1 --retry-count 1 \
		--cases 'protocol.vanish_mid_read_finite_retry,malformed.invalid_rkey_*,malformed.va_outside_mr' \
		--json "$RESULTS/conformance-errors.json" >"$RESULTS/conformance-errors.txt" 2>&1
	rc=$?
	cat "$RESULTS/conformance-errors.txt"
	[[ $rc == 0 ]] || fail "conformance client (--retry-count 1): $(grep -m1 '^FAIL' "$RESULTS/conformance-errors.txt" || tail -n1 "$RESULTS/conformance-errors.txt")"
	check sysfs_write "$t/attrib/keepalive_secs" 5
	channels
	# Every channel of the client is gone, the vanished ones included
	# (released, LIO session removed); the kernel initiator's two channels
	# are live and were probed.
	wait_channels 2 || fail "channels left behind by the client: $(channels | grep -c "0x$CLIENT_EXT")"
	[[ $(counter keepalives) -gt 0 ]] || fail "no keepalive was sent on the kernel initiator's channels"
	log "keepalives on the kernel initiator's channels: $(counter keepalives)"
	# A disabled portal group: the kernel initiator leaves first (disabling
	# the group would close its channels and it would reconnect forever).
	check srp_logout_all
	check sysfs_write "$t/enable" 0
	conf_client --initiator-ext "$CLIENT_EXT" --tpg-disabled --cases 'acl.*' \
		--json "$RESULTS/conformance-tpg.json" >"$RESULTS/conformance-tpg.txt" 2>&1
	rc=$?
	cat "$RESULTS/conformance-tpg.txt"
	check sysfs_write "$t/enable" 1
	[[ $rc == 0 ]] || fail "conformance client (--tpg-disabled): $(grep -m1 '^FAIL' "$RESULTS/conformance-tpg.txt" || tail -n1 "$RESULTS/conformance-tpg.txt")"
	"$CLIENT" --merge "$RESULTS/conformance.json,$RESULTS/conformance-acl.json,$RESULTS/conformance-tpg.json,$RESULTS/conformance-errors.json" \
		>"$RESULTS/conformance-merged.txt" 2>&1 ||
		fail "merged catalogue: $(grep -m1 '^FAIL' "$RESULTS/conformance-merged.txt" || tail -n1 "$RESULTS/conformance-merged.txt")"
	merged=$(tail -n1 "$RESULTS/conformance-merged.txt")
	log "catalogue: $merged"
	[[ $merged == *" 0 fail, 0 hang, 0 crash, 0 skip"* ]] ||
		fail "catalogue not fully passed: $merged"
	check srp_target_down
}

# case_conformance_long (SUITE_LONG=1): SRPT_LONG_ITERATIONS fuzz iterations
# (95% mutated SRP_CMD IUs, 5% mutated login requests: a login costs about
# as much as 20 IUs under TCG; 110000 iterations give over 100000 IUs) on
# LUN 1 while the kernel initiator runs fio verify on LUN 0 the whole time.
case_conformance_long() {
	local d cpid rc start
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	conf_target_up || fail "target set-up or kernel initiator login failed"
	d=$CONF_DISK start=$SECONDS
	conf_client --initiator-ext "$CLIENT_EXT" --lun 1 --fuzz \
		--seed "${SRPT_LONG_SEED:-20261201}" \
		--iterations "$SRPT_LONG_ITERATIONS" --fuzz-login-percent 5 \
		--json "$RESULTS/conformance-long.json" \
		>"$RESULTS/conformance-long.txt" 2>&1 &
	cpid=$!
	fio_while "$cpid" "$d" || fail "fio verify on LUN 0 failed while the fuzzer ran"
	wait "$cpid"
	rc=$?
	cat "$RESULTS/conformance-long.txt"
	log "long fuzz: $SRPT_LONG_ITERATIONS iterations in $((SECONDS - start)) s"
	[[ $rc == 0 ]] || fail "fuzz: $(grep -m1 '^FAIL' "$RESULTS/conformance-long.txt" || tail -n1 "$RESULTS/conformance-long.txt")"
	channels
	check srp_target_down
}

# case_flow_control: on channels that receive through the SRQ with a
# 16-entry send queue, the catalogue's protocol.* and scsi.* cases while
# the kernel initiator runs fio verify at a queue depth far above that:
# the send queue fills (sq_full of the kernel initiator's channels), every
# command gets its response, nothing hangs, the data is intact.
case_flow_control() {
	local d cpid rc
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	conf_target_up use_srq=1 srp_sq_size=16 ||
		fail "target set-up or kernel initiator login failed"
	d=$CONF_DISK
	channels | grep -q ' srq=1 ' || fail "the channels do not use the SRQ"
	# The cases that move data and credits (the login, malformed-IU and
	# SCSI-level families ran in the conformance case).
	conf_client --initiator-ext "$CLIENT_EXT" --lun 1 --cases 'protocol.*,scsi.*' \
		--json "$RESULTS/flow-control.json" >"$RESULTS/flow-control.txt" 2>&1 &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		fio_verify "$d" flow_bg --direct=1 --rw=randrw --bs=4k,64k \
			--size=16M --iodepth=64 ||
			fail "fio verify on LUN 0 failed"
	done
	wait "$cpid"
	rc=$?
	grep -E '^(FAIL)|passed' "$RESULTS/flow-control.txt"
	[[ $rc == 0 ]] || fail "conformance client on SRQ channels: $(grep -m1 '^FAIL' "$RESULTS/flow-control.txt" || tail -n1 "$RESULTS/flow-control.txt")"
	channels
	[[ $(counter sq_full) -gt 0 ]] || fail "the 16-entry send queue never filled (sq_full 0)"
	check srp_target_down
}

run_login_cases() {
	run_case login_ch1 case_login_ch1
	run_case login_ch4 case_login_ch4
	run_case fio_verify case_fio_verify
	run_case kept_dma case_kept_dma
	run_case filesystem case_filesystem
	run_case relogin case_relogin
	run_case acl_reject case_acl_reject
	run_case acl_names case_acl_names
	run_case iu_too_large case_iu_too_large
	run_case use_srq case_use_srq
	run_case saveconfig case_saveconfig
	CASE_TIMEOUT=900 run_case conformance case_conformance
	CASE_TIMEOUT=900 run_case flow_control case_flow_control
	if [[ ${SUITE_LONG:-0} == 1 ]]; then
		CASE_TIMEOUT=${SRPT_LONG_TIMEOUT:-13000} run_case conformance_long case_conformance_long
	fi
}
