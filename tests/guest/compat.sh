# shellcheck shell=bash
# tests/guest/compat.sh: drop-in cases, sourced by suite.sh after lib.sh,
# login.sh and faults.sh.  Ours must take every configfs name, attribute
# value and layout that the kernel's in-tree ib_srpt takes, with the same
# meaning:
#   compat_configfs   the same configfs operations against both modules in
#                     this boot, the two transcripts compared line by line;
#                     every difference must be listed in COMPAT_INTENDED
#   compat_saveconfig a targetcli saveconfig file written with the in-tree
#                     driver restores with ours (and a login works), and one
#                     written with ours restores with the in-tree driver
#   compat_script     a configfs script written for the in-tree driver
#                     (portal group named after the port, initiator port ID
#                     without 0x) exports a LUN that ib_srp logs into and
#                     runs fio verify on, with ours (and, as a check of the
#                     script, with the in-tree driver)

INTREE_KO=$(compgen -G "/lib/modules/$KVER/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko*" | head -n 1)

# load_intree: the in-tree ib_srpt, by path (an installed copy of ours in
# updates/ must not stand in for it), after its dependencies.
load_intree() {
	[[ -n $INTREE_KO ]] || {
		echo "no in-tree ib_srpt under /lib/modules/$KVER/kernel" >&2
		return 1
	}
	insmod_ko "$INTREE_KO"
}

# load_impl IMPL: load "ours" or "intree".
load_impl() {
	if [[ $1 == ours ]]; then load_srpt; else load_intree; fi
}

# unload_impl: remove whichever ib_srpt is loaded, with its configfs tree.
unload_impl() {
	srpt_loaded || return 0
	srpt_teardown && rmmod ib_srpt
}

# ------------------------------------------------------- configfs diff --

# op KEY CMD...: run CMD; one transcript line with its exit status.
op() {
	local key=$1
	shift
	"$@" 2>/dev/null
	echo "$key -> $?"
}

# wr PATH VALUE: write VALUE (one write) to PATH under the fabric
# directory; the exit status and the value read back.
wr() {
	local f=$CFS_SRPT/$1 rc v=""
	{ echo "$2" >"$f"; } 2>/dev/null
	rc=$?
	read -r v <"$f" 2>/dev/null
	local p=${1//$COMPAT_GID/GID}
	echo "write ${p//$COMPAT_GUID/GUID} '$2' -> $rc, reads '$v'"
}

# dump TAG: the fabric directory tree: every directory, file and link
# (port names replaced by GID/GUID so that the lines do not depend on the
# port), with the value of the attributes both drivers have.
dump() {
	local p rel v
	# A pipe, not process substitution: the guest has no /dev/fd.
	find "$CFS_SRPT" -mindepth 1 | sort | while read -r p; do
		rel=${p#"$CFS_SRPT"/}
		rel=${rel//$COMPAT_GID/GID}
		rel=${rel//$COMPAT_GUID/GUID}
		if [[ -L $p ]]; then
			echo "$1 link $rel"
		elif [[ -d $p ]]; then
			echo "$1 dir $rel"
		elif [[ $rel == */attrib/* || $rel == */enable ||
			$rel == discovery_auth/rdma_cm_port || $rel == */version ]]; then
			v=""
			read -r v <"$p" 2>/dev/null
			echo "$1 file $rel = '$v'"
		else
			echo "$1 file $rel"
		fi
	done
}

# attr_writes GROUP: in-range, boundary and malformed values of the in-tree
# driver's four attributes, written to portal group GROUP (a path under the
# fabric directory).  Each attribute starts with a valid value: the in-tree
# driver keeps them per RDMA port, ours per portal group, so that what was
# written before to another group does not show.
attr_writes() {
	local a=$1/attrib v
	for v in 65536 4095 4096 65535 65536 0x10000 16777216 16777217 abc -1; do
		wr "$a/srp_max_rdma_size" "$v"
	done
	for v in 256 39 40 63 64 256 1024 1025 4096 4097 x; do
		wr "$a/srp_max_rsp_size" "$v"
	done
	for v in 4096 3 4 15 16 2048 4096 16384 16385 65535 65536 0; do
		wr "$a/srp_sq_size" "$v"
	done
	for v in 0 1 0 2 -1 0x1 0 yes; do
		wr "$a/use_srq" "$v"
	done
}

# compat_ops: the configfs operations whose transcript is compared.  The
# same in both runs; every result goes into the transcript.
compat_ops() {
	local g=0x$COMPAT_GID u=$COMPAT_GUID t n rd=$1
	local tg=$CFS_SRPT/$g
	mkdir -p "$CFS_SRPT" 2>/dev/null
	op "mkdir wwn GID" mkdir "$tg"
	op "mkdir wwn GUID" mkdir "$CFS_SRPT/$u"
	for n in 0x00000000000000000000000000000001 0000:0000:0000:0001 foo \
		"$COMPAT_GID"; do
		op "mkdir wwn ${n//$COMPAT_GID/GID-without-0x}" mkdir "$CFS_SRPT/$n"
		rmdir "$CFS_SRPT/$n" 2>/dev/null
	done
	for n in tpgt_1 "$g" tpgt_2 tpgt_0 tpgt_x foo; do
		op "mkdir tpg GID/${n//$COMPAT_GID/GID}" mkdir "$tg/$n"
	done
	op "mkdir tpg GUID/GUID" mkdir "$CFS_SRPT/$u/$u"
	dump created
	# Every group gets the same writes: the in-tree driver keeps the
	# attributes per RDMA port (all these groups share one set), ours per
	# group, and after the same writes both read the same everywhere.
	for t in tpgt_1 "$g" tpgt_2 tpgt_0 tpgt_x foo; do
		attr_writes "$g/$t"
	done
	attr_writes "$u/$u"
	# Initiator names in every form either driver documents, and some
	# that neither takes.
	for n in 0x0123456789abcdef0123456789abcdef \
		0123456789abcdef0123456789abcdef 0X0123456789ABCDEF0123456789ABCDEF \
		0x0123456789abcdef 0123456789abcdef 0x0123 "$u" 2:c903:f:2b64 \
		0002:c903:000f:2b64x \
		1:2:3:4 192.0.2.7 01.2.3.4 fe80::1 2001:db8::ffff:1.2.3.4 \
		fe80::1%lo fe80::1%2 fe80::2%nosuchif 2001:db8::1%lo bogus 0x123 \
		1.2.3.256 fe80:::1 1234:5678:9abc 0x0123456789abcdef0123456789abcdef01; do
		op "mkdir acl ${n//$COMPAT_GUID/GUID}" mkdir "$tg/tpgt_1/acls/$n"
	done
	op "mkdir lun" mkdir "$tg/tpgt_1/lun/lun_0"
	op "link lun" ln -s "$rd" "$tg/tpgt_1/lun/lun_0/rd_compat"
	op "mkdir mapped lun" mkdir "$tg/tpgt_1/acls/192.0.2.7/lun_0"
	op "link mapped lun" ln -s "$tg/tpgt_1/lun/lun_0" \
		"$tg/tpgt_1/acls/192.0.2.7/lun_0/lun0"
	for n in 1 0 2 1; do
		wr "$g/tpgt_1/enable" "$n"
	done
	for n in 5000 0x1389 70000 abc 0; do
		wr discovery_auth/rdma_cm_port "$n"
	done
	dump configured
	# Removal, deepest first, as a script would.
	op "rm mapped link" rm "$tg/tpgt_1/acls/192.0.2.7/lun_0/lun0"
	op "rmdir mapped lun" rmdir "$tg/tpgt_1/acls/192.0.2.7/lun_0"
	for n in "$tg"/tpgt_1/acls/*; do
		t=${n##*/}
		op "rmdir acl ${t//$COMPAT_GUID/GUID}" rmdir "$n"
	done
	op "rm lun link" rm "$tg/tpgt_1/lun/lun_0/rd_compat"
	op "rmdir lun" rmdir "$tg/tpgt_1/lun/lun_0"
	op "rmdir wwn with groups" rmdir "$tg"
	for t in "$tg"/* "$CFS_SRPT/$u"/*; do
		[[ -f $t/enable ]] || continue
		n=${t#"$CFS_SRPT"/}
		n=${n//$COMPAT_GID/GID}
		op "rmdir tpg ${n//$COMPAT_GUID/GUID}" rmdir "$t"
	done
	op "rmdir wwn GID" rmdir "$tg"
	op "rmdir wwn GUID" rmdir "$CFS_SRPT/$u"
	dump removed
}

# What ours does differently on purpose (it takes more, or keeps more
# apart).  Each entry is a pattern (bash glob) for a line of the in-tree
# transcript, "|", and one for the line ours writes instead; "-" for no
# line on that side.
COMPAT_INTENDED=(
	# srp_sq_size defaults to 1024 (memory per channel); a value saved
	# from the in-tree driver (4096) restores and is used.
	"created file */attrib/srp_sq_size = '4096'|created file */attrib/srp_sq_size = '1024'"
	# srp_max_rdma_size: ours also takes 4096..65535 (in-tree: 65536..16 MiB).
	"write */srp_max_rdma_size '4096' -> 1, reads '65536'|write */srp_max_rdma_size '4096' -> 0, reads '4096'"
	"write */srp_max_rdma_size '65535' -> 1, reads '65536'|write */srp_max_rdma_size '65535' -> 0, reads '65535'"
	# srp_max_rsp_size: ours also takes 1025..4096 (in-tree: 40..1024).
	"write */srp_max_rsp_size '1025' -> 1, reads '1024'|write */srp_max_rsp_size '1025' -> 0, reads '1025'"
	"write */srp_max_rsp_size '4096' -> 1, reads '1024'|write */srp_max_rsp_size '4096' -> 0, reads '4096'"
	"write */srp_max_rsp_size '4097' -> 1, reads '1024'|write */srp_max_rsp_size '4097' -> 1, reads '4096'"
	"write */srp_max_rsp_size 'x' -> 1, reads '1024'|write */srp_max_rsp_size 'x' -> 1, reads '4096'"
	"configured file */attrib/srp_max_rsp_size = '1024'|configured file */attrib/srp_max_rsp_size = '4096'"
	# ACL names that can never match a login of the in-tree driver (it
	# compares the session name with the ACL name as a string): a GUID
	# with trailing text, a port ID of more than 32 digits.  Ours
	# refuses them.
	# The target port's GID without "0x" names the port for ours too.
	"mkdir wwn GID-without-0x -> 1|mkdir wwn GID-without-0x -> 0"
	"mkdir acl 0002:c903:000f:2b64x -> 0|mkdir acl 0002:c903:000f:2b64x -> 1"
	"mkdir acl 0x0123456789abcdef0123456789abcdef01 -> 0|mkdir acl 0x0123456789abcdef0123456789abcdef01 -> 1"
	"configured *GID/tpgt_1/acls/0002:c903:000f:2b64x*|-"
	"configured *GID/tpgt_1/acls/0x0123456789abcdef0123456789abcdef01*|-"
	"rmdir acl 0002:c903:000f:2b64x -> 0|-"
	"rmdir acl 0x0123456789abcdef0123456789abcdef01 -> 0|-"
)
# compat_per_port_enable: add the intended differences of a kernel whose
# LIO has no enable attribute of its own (5.10; LIO's attribute is
# target_fabric_tpg_base_enable_store() in target_core_mod, loaded by now).
# There the in-tree driver's enable is one flag per RDMA port, read back
# the same from every portal group of the port; ours is per portal group
# (logins go to an enabled group of the port, as with the in-tree driver).
# compat_ops enables tpgt_1 of the GID port alone.
compat_per_port_enable() {
	local t
	grep -q ' target_fabric_tpg_base_enable_store' /proc/kallsyms && return 0
	for t in 0xGID/0xGID 0xGID/tpgt_2 0xGID/tpgt_0 0xGID/tpgt_x 0xGID/foo GUID/GUID; do
		COMPAT_INTENDED+=("configured file $t/enable = '1'|configured file $t/enable = '0'")
	done
}

# compat_filter SIDE: stdin with each line that an intended difference
# covers replaced by the entry's number (or dropped, where the other side
# has no line), so that the two transcripts can be compared with diff.
compat_filter() {
	local side=$1 line e i pat other
	while IFS= read -r line; do
		for i in "${!COMPAT_INTENDED[@]}"; do
			e=${COMPAT_INTENDED[i]}
			if [[ $side == intree ]]; then
				pat=${e%%|*} other=${e#*|}
			else
				pat=${e#*|} other=${e%%|*}
			fi
			# shellcheck disable=SC2053 # the entries are patterns
			[[ $pat != - && $line == $pat ]] || continue
			line="intended difference $i"
			[[ $other == - ]] && line=""
			break
		done
		[[ -n $line ]] && echo "$line"
	done
	return 0
}

# compat_only_ours LINE: a line of our dump that the in-tree driver cannot
# have: our own attributes.
compat_only_ours() {
	[[ $1 == *' file '*/attrib/cmd_report_secs* ||
		$1 == *' file '*/attrib/keepalive_secs* ||
		$1 == *' file '*/attrib/rnr_retry* ||
		$1 == *' file '*/attrib/max_channels* ||
		$1 == *' file '*/attrib/max_initiator_channels* ||
		$1 == *' file '*/attrib/max_cmd_data* ||
		$1 == *' file '*/attrib/max_channel_data* ||
		$1 == *' file '*/attrib/max_initiator_data_mb* ||
		$1 == *' file '*/attrib/max_tpg_data_mb* ||
		$1 == *' file '*/channels || $1 == *' file '*/login_info ||
		$1 == *' file discovery_auth/logins' ||
		$1 == *' file '*/acls/*/info ||
		$1 == *' file '*/acls/*/auth/authenticate_target ]]
}

# compat_builtins: mkdir, rmdir, ln and rm as bash's loadable builtins
# (package bash-builtins), where they exist: compat_ops runs some 500 of
# them, and under TCG a fork and exec each is most of the case's time.
compat_builtins() {
	local b
	for b in mkdir rmdir ln rm; do
		[[ -f /usr/lib/bash/$b ]] && enable -f "/usr/lib/bash/$b" "$b" 2>/dev/null
	done
	return 0
}

case_compat_configfs() {
	local impl rd diffs
	compat_builtins
	COMPAT_GID=$(port_gid) COMPAT_GUID=$(port_guid)
	[[ -n $COMPAT_GID && -n $COMPAT_GUID ]] || fail "no rxe0 GID/GUID"
	rd=$(rd_backstore rd_compat 16M) || fail "no ramdisk backstore"
	unload_impl || fail "cannot unload ib_srpt"
	for impl in intree ours; do
		check load_impl "$impl"
		compat_ops "$rd" >"$RESULTS/compat-$impl.raw"
		check unload_impl
	done
	compat_per_port_enable
	# Our extra attributes (values and names) go; the version string of
	# the target port is ours alone (the in-tree one is empty).
	while IFS= read -r line; do
		compat_only_ours "$line" || echo "$line"
	done <"$RESULTS/compat-ours.raw" | sed -e "s/\(\/version = \)'.*'/\1'<version>'/" |
		compat_filter ours >"$RESULTS/compat-ours.txt"
	sed -e "s/\(\/version = \)'.*'/\1'<version>'/" "$RESULTS/compat-intree.raw" |
		compat_filter intree >"$RESULTS/compat-intree.txt"
	log "transcript: $(wc -l <"$RESULTS/compat-intree.txt") lines"
	grep -q '^configured dir 0xGID/tpgt_1/acls/192.0.2.7$' "$RESULTS/compat-intree.txt" ||
		fail "the transcript lacks the configured tree"
	diffs=$(diff "$RESULTS/compat-intree.txt" "$RESULTS/compat-ours.txt")
	[[ -z $diffs ]] || {
		echo "$diffs"
		fail "ours differs from the in-tree driver: $(grep -m1 '^[<>]' <<<"$diffs")"
	}
	grep -c 'intended difference' "$RESULTS/compat-ours.txt"
}

# ------------------------------------------------------- saved configs --

# restore_errors FILE: what targetcli restoreconfig printed that is an
# error other than about an attribute in $RESTORE_MISSING (attributes the
# loaded driver does not have).
restore_errors() {
	local e
	tcli_errors <"$1" | grep -v 'recoverable errors' | while IFS= read -r e; do
		[[ -n ${RESTORE_MISSING:-} && $e =~ $RESTORE_MISSING ]] && continue
		echo "$e"
	done
}

# saved_login: after a restore, the RDMA/CM listener and a login with a
# TEST UNIT READY and a short fio verify on the restored LUN.
saved_login() {
	local d
	sysfs_write "$CFS_SRPT/discovery_auth/rdma_cm_port" "$SRP_PORT" || return 1
	srp_login ch_count=1 || return 1
	d=$(srp_disk) || return 1
	sg_turs "$d" || return 1
	fio_verify "$d" "compat_$1" --direct=1 --rw=randwrite --bs=4k \
		--size=4M --iodepth=8
}

# clearconfig: targetcli clearconfig; on failure the configfs objects it
# left are logged.
clearconfig() {
	targetcli clearconfig confirm=True && return 0
	find "$CFS_TARGET/core" -mindepth 1 -maxdepth 2 -type d
	find "$CFS_TARGET/core" -mindepth 3 -maxdepth 6 -path '*/pr/*' -name 'res_*' -exec grep -H . {} + 2>/dev/null | head -n 20
	return 1
}

# case_compat_saveconfig: targetcli saveconfig with the in-tree driver
# loaded, restoreconfig with ours (attributes included), a login; then the
# other way round, where the in-tree driver lacks our own attributes (their
# errors are the only ones allowed).
case_compat_saveconfig() {
	local out=$RESULTS/compat-restore.txt a
	local cfg_in=/tmp/compat-intree.json cfg_ours=/tmp/compat-ours.json
	check unload_impl
	check load_intree
	SRP_TARGETCLI=1 check srp_target_up
	check tcli "/srpt/ib.$(port_gid)" set attribute srp_sq_size=1024 \
		srp_max_rsp_size=512
	check targetcli saveconfig "$cfg_in"
	check srp_target_down
	check clearconfig
	check unload_impl

	check load_srpt
	targetcli restoreconfig "$cfg_in" >"$out" 2>&1 || fail "restoreconfig with ours failed: $(tail -n1 "$out")"
	cat "$out"
	a=$(restore_errors "$out")
	[[ -z $a ]] || fail "restoring the in-tree driver's configuration: $a"
	a=$(tgt_dir)/attrib
	[[ $(<"$a/srp_sq_size") == 1024 && $(<"$a/srp_max_rsp_size") == 512 ]] ||
		fail "attributes not restored: srp_sq_size $(<"$a/srp_sq_size"), srp_max_rsp_size $(<"$a/srp_max_rsp_size")"
	check saved_login from_intree
	check sysfs_write "$a/keepalive_secs" 15
	check targetcli saveconfig "$cfg_ours"
	check srp_target_down
	check clearconfig
	check unload_impl

	check load_intree
	targetcli restoreconfig "$cfg_ours" >"$out" 2>&1
	cat "$out"
	a=$(RESTORE_MISSING='cmd_report_secs|keepalive_secs|rnr_retry|max_channels|max_initiator_channels|max_cmd_data|max_channel_data|max_initiator_data_mb|max_tpg_data_mb' \
		restore_errors "$out")
	[[ -z $a ]] || fail "restoring our configuration with the in-tree driver: $a"
	[[ -d $(tgt_dir)/lun/lun_0 ]] || fail "the in-tree driver restored no LUN"
	check saved_login from_ours
	check srp_target_down
	check clearconfig
	check unload_impl
}

# ------------------------------------------------ an in-tree-era script --

# script_up: what a configfs script written for the in-tree driver does:
# the portal group is named like the port, the initiator's ACL is its port
# ID without 0x; prints the portal group's directory.
script_up() {
	local g t acl rd
	g=0x$(port_gid) || return 1
	t=$CFS_SRPT/$g/$g
	acl=$t/acls/$(initiator_id)
	rd=$(rd_backstore) || return 1
	mkdir -p "$t" || return 1
	mkdir "$t/lun/lun_0" && ln -s "$rd" "$t/lun/lun_0/rd_login" || return 1
	mkdir -p "$acl/lun_0" && ln -s "$t/lun/lun_0" "$acl/lun_0/lun0" || return 1
	echo "$SRP_PORT" >"$CFS_SRPT/discovery_auth/rdma_cm_port" || return 1
	echo 1 >"$t/enable" || return 1
	echo "$t"
}

# script_down TPG: the script's removal, deepest first.
script_down() {
	local t=$1 acl
	acl=$t/acls/$(initiator_id)
	echo 0 >"$t/enable" &&
		rm "$acl/lun_0/lun0" && rmdir "$acl/lun_0" "$acl" &&
		rm "$t/lun/lun_0/rd_login" && rmdir "$t/lun/lun_0" "$t" "${t%/*}"
}

# case_compat_script: that script with ours (and with the in-tree driver,
# to show that the script is right): ib_srp logs in, fio verify runs,
# logout, removal, and the module unloads.
case_compat_script() {
	local impl t d
	for impl in ours intree; do
		log "--- $impl"
		check unload_impl
		check load_impl "$impl"
		modprobe ib_srp || fail "modprobe ib_srp"
		t=$(script_up) || fail "$impl: the script's set-up failed"
		check srp_login ch_count=2
		d=$(srp_disk) || fail "$impl: no disk"
		check fio_verify "$d" "script_$impl" --direct=1 --rw=randwrite \
			--bs=16k --size=16M --iodepth=16
		check srp_logout_all
		script_down "$t" || fail "$impl: the script's removal failed"
		[[ -z $(compgen -G "$CFS_SRPT/0x*") ]] || fail "$impl: target left behind"
		check unload_impl
	done
}

run_compat_cases() {
	[[ -n $INTREE_KO ]] || {
		run_case compat_intree_module false
		return
	}
	run_case compat_configfs case_compat_configfs
	CASE_TIMEOUT=300 run_case compat_saveconfig case_compat_saveconfig
	CASE_TIMEOUT=300 run_case compat_script case_compat_script
}
