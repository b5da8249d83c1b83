# shellcheck shell=bash
# tests/guest/memory.sh: the target's memory against its own initiators,
# sourced by suite.sh after lib.sh, login.sh and faults.sh (poll_until,
# counter_is, acl_dir).
#
# memory_flood: an initiator in the ACL (the conformance client's --flood
# mode) logs in many channels and keeps 4 large WRITEs (32 MiB on 16
# channels, then 3 MiB on 32) outstanding on each,
# far more data than the guest has memory, while the kernel initiator runs
# fio verify on LUN 0. The target must bound the data buffers it holds
# (max_channel_data, max_initiator_data_mb, max_tpg_data_mb, max_data_mb):
# the attacker gets some GOODs and TASK SET FULL for the rest, no OOM,
# fio stays clean, everything held is given back at logout; what the
# channels keep of finished commands' buffers for their next ones stays
# within the module's idle bound (a quarter of max_data_mb: 32 channels
# of 3 MiB WRITEs would keep some 5 MiB each without it); a connection
# request that offers no RDMA READ depth is refused.
# nullio_no_stale: a READ from an rd_mcp LUN made with rd_nullio=1 (which
# fills nothing) returns zeros, never the data of an earlier command.

DEBUGFS_DATA=/sys/kernel/debug/ib_srpt/data
# The flood runs, CHANNELS:MiB each (the attacker registers CHANNELS x
# MiB of its own: 512 MiB and 96 MiB of the guest's 2 GiB), and their
# length in seconds.
: "${MEMORY_FLOOD_RUNS:=16:32 32:3}"
: "${MEMORY_FLOOD_SECS:=20}"

# mem_avail: MemAvailable of /proc/meminfo in KiB.
mem_avail() {
	local k v _
	while read -r k v _; do
		[[ $k == MemAvailable: ]] && {
			echo "$v"
			return 0
		}
	done </proc/meminfo
	return 1
}

# data_val NAME: held, peak or limit (bytes) of debugfs ib_srpt/data
# ("held=N peak=N limit=N").
data_val() {
	local line
	{ read -r line <"$DEBUGFS_DATA"; } 2>/dev/null || return 1
	field_of "$line" "$1"
}
data_held_zero() { [[ $(data_val held) == 0 ]]; }

# value_of FILE: the first line of FILE, or "none" if it cannot be read
# (a module without that parameter or attribute).
value_of() {
	local v
	{ read -r v <"$1"; } 2>/dev/null || v=none
	echo "$v"
}

# json_num JSON NAME: the number NAME of a flat JSON object.
json_num() {
	[[ $1 =~ \"$2\":([0-9.]+) ]] || return 1
	echo "${BASH_REMATCH[1]}"
}

# mem_watch FILE CHANNELS: until killed, every second: the lowest
# MemAvailable (KiB), the most data_held and the most data_kept (bytes,
# each summed over the lines of the channels attribute CHANNELS) seen so
# far, as "MIN MAX MAXKEPT" in FILE.
# Builtins only (a fork costs ~50 ms under TCG).
mem_watch() {
	local out=$1 chf=$2 min=-1 max=0 maxkept=0 k v _ line f sum kept
	while :; do
		while read -r k v _; do
			if [[ $k == MemAvailable: ]]; then
				((min < 0 || v < min)) && min=$v
				break
			fi
		done </proc/meminfo
		sum=0 kept=0
		while read -r line; do
			f=${line##* data_held=}
			[[ $f != "$line" ]] && sum=$((sum + ${f%% *}))
			f=${line##* data_kept=}
			[[ $f != "$line" ]] && kept=$((kept + ${f%% *}))
		done <"$chf"
		((sum > max)) && max=$sum
		((kept > maxkept)) && maxkept=$kept
		printf '%s %s %s\n' "$min" "$max" "$maxkept" >"$out"
		nap 1
	done
}

# no_oom: fail if the kernel ran out of memory during the case.
no_oom() {
	local oom
	oom=$(dmesg_here | grep -E 'Out of memory|oom-kill|invoked oom-killer' || true)
	[[ -z $oom ]] || {
		echo "$oom"
		fail "out of memory: $(head -n 1 <<<"$oom")"
	}
}

# flood_attack CHANNELS NAME ARGS...: the client's --flood CHANNELS (its
# initiator port has the ACL of LUN 1) in the background, fio verify on the
# kernel initiator's disk until it ends; sets FLOOD_JSON to its result.
flood_attack() {
	local n=$1 name=$2 cpid rc
	shift 2
	log "attack $name: --flood $n $*"
	conf_client --initiator-ext "$CLIENT_EXT" --lun 1 --flood "$n" "$@" \
		>"$RESULTS/$name.json" 2>"$RESULTS/$name.txt" &
	cpid=$!
	fio_while "$cpid" "$CONF_DISK" || {
		kill "$cpid" 2>/dev/null
		fail "fio verify on LUN 0 failed during $name"
	}
	wait "$cpid"
	rc=$?
	cat "$RESULTS/$name.txt"
	[[ $rc == 0 ]] || fail "$name: client exit status $rc: $(tail -n 1 "$RESULTS/$name.txt")"
	FLOOD_JSON=""
	read -r FLOOD_JSON <"$RESULTS/$name.json"
	[[ $FLOOD_JSON == "{"*"}" ]] || fail "$name: no JSON line from the client"
	log "$name: $FLOOD_JSON"
}

case_memory_flood() {
	local t chf wf spid run n mb ini_mb limit peak before after min maxheld
	local good tsf busy other lost closed chans t0 maxkept idle
	[[ -x $CLIENT ]] || fail "$CLIENT not built (make unit)"
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug ||
		fail "no debugfs"
	conf_target_up || fail "target set-up or kernel initiator login failed"
	t=$(tgt_dir) chf=$(tgt_dir)/channels wf=$RESULTS/memory-watch.txt
	ini_mb=$(value_of "$t/attrib/max_initiator_data_mb")
	log "guest: $(grep -E '^(MemTotal|MemAvailable):' /proc/meminfo | tr -s ' ' | paste -sd ' ')"
	log "bounds: max_data_mb=$(value_of /sys/module/ib_srpt/parameters/max_data_mb)" \
		"max_tpg_data_mb=$(value_of "$t/attrib/max_tpg_data_mb")" \
		"max_initiator_data_mb=$ini_mb" \
		"max_channel_data=$(value_of "$t/attrib/max_channel_data")" \
		"max_cmd_data=$(value_of "$t/attrib/max_cmd_data")"
	log "debugfs ib_srpt/data: $(value_of "$DEBUGFS_DATA")"
	for run in $MEMORY_FLOOD_RUNS; do
		n=${run%%:*} mb=${run#*:}
		t0=$SECONDS before=$(mem_avail)
		mem_watch "$wf" "$chf" &
		spid=$!
		# A failed case leaves no sampler behind.
		trap 'kill "$spid" 2>/dev/null' EXIT
		flood_attack "$n" "flood$n" --flood-len $((mb << 20)) \
			--flood-secs "$MEMORY_FLOOD_SECS"
		kill "$spid"
		wait "$spid" 2>/dev/null
		trap - EXIT
		min="" maxheld="" maxkept=""
		read -r min maxheld maxkept <"$wf"
		log "flood$n: $((SECONDS - t0)) s; MemAvailable before $before KiB, lowest $min KiB during;" \
			"data_held of all channels at most $maxheld bytes, data_kept at most $maxkept bytes (sampled each second)"
		log "debugfs ib_srpt/data: $(value_of "$DEBUGFS_DATA")"
		no_oom
		check sg_turs "$CONF_DISK"
		chans=$(json_num "$FLOOD_JSON" channels) good=$(json_num "$FLOOD_JSON" good)
		tsf=$(json_num "$FLOOD_JSON" task_set_full) busy=$(json_num "$FLOOD_JSON" busy)
		other=$(json_num "$FLOOD_JSON" other) lost=$(json_num "$FLOOD_JSON" lost)
		closed=$(json_num "$FLOOD_JSON" closed_channels)
		log "flood$n: $chans channels, $good GOOD, $tsf TASK SET FULL, $busy BUSY, $other other, $lost unanswered, $closed closed by the target"
		[[ $chans == "$n" ]] || fail "flood$n: $chans of $n logins accepted"
		[[ $lost == 0 ]] || fail "flood$n: $lost WRITEs got no response"
		((good > 0)) || fail "flood$n: no WRITE of the attacker completed (GOOD 0)"
		((tsf > 0)) || fail "flood$n: no TASK SET FULL: nothing bounded the attacker's data buffers"
		# The kernel initiator's fio holds at most 8 x 4 KiB of it.
		[[ $ini_mb == none ]] ||
			((maxheld <= (ini_mb << 20) + (1 << 20))) ||
			fail "flood$n: the channels held $maxheld bytes, more than max_initiator_data_mb $ini_mb MiB"
		idle=$(data_val idle_limit) || fail "no idle_limit in $DEBUGFS_DATA"
		((maxkept <= idle)) ||
			fail "flood$n: the channels kept $maxkept bytes of idle buffers, more than idle_limit $idle"
		((maxkept > 0)) || fail "flood$n: no channel kept any pages (data_kept 0 throughout)"
	done
	# Everything the attacker's commands held is back once it logged out
	# (fio on LUN 0 ended with the attack).
	check poll_until 15 channels_are 2
	check poll_until 15 counter_is data_held 0
	channels
	[[ -r $DEBUGFS_DATA ]] || fail "no $DEBUGFS_DATA"
	poll_until 15 data_held_zero || fail "debugfs ib_srpt/data: $(value_of "$DEBUGFS_DATA") after the attacker logged out"
	peak=$(data_val peak) limit=$(data_val limit)
	after=$(mem_avail)
	log "module data buffers: peak $peak bytes, limit $limit bytes; MemAvailable after $after KiB"
	((peak <= limit)) || fail "data buffers peaked at $peak bytes, over the limit of $limit"
	((peak > 0)) || fail "debugfs ib_srpt/data counted no data buffers at all"
	# No RDMA READ depth offered: the login is refused.
	conf_client --initiator-ext "$CLIENT_EXT" --lun 1 --flood 1 --flood-rr0 \
		--flood-secs 0 >"$RESULTS/flood-rr0.json" 2>"$RESULTS/flood-rr0.txt" ||
		fail "flood-rr0: client exit status $?: $(tail -n 1 "$RESULTS/flood-rr0.txt")"
	cat "$RESULTS/flood-rr0.txt"
	read -r FLOOD_JSON <"$RESULTS/flood-rr0.json"
	log "flood-rr0: $FLOOD_JSON"
	[[ $(json_num "$FLOOD_JSON" rejected_logins) == 1 && $(json_num "$FLOOD_JSON" channels) == 0 ]] ||
		fail "a login with responder resources 0 was not refused: $FLOOD_JSON"
	dmesg_has 'no RDMA READ depth' || fail "no log line for the refused login"
	no_oom
	check sg_turs "$CONF_DISK"
	check srp_target_down
}

# rd_nullio_backstore NAME SIZE: configfs directory of an rd_mcp backstore
# made with rd_nullio=1 (no pages: READs complete without data, writes are
# dropped); created if missing, like rd_backstore.
rd_nullio_backstore() { rd_backstore "$1" "$2" ,rd_nullio=1; }

# stale_chunks PATTERN DATA: how many 64-byte chunks of file DATA are
# 64-byte chunks (at any offset) of file PATTERN.
stale_chunks() {
	python3 - "$1" "$2" <<'EOF'
import sys
p = open(sys.argv[1], 'rb').read()
d = open(sys.argv[2], 'rb').read()
seen = {p[i:i + 64] for i in range(len(p) - 63)}
print(sum(d[i:i + 64] in seen for i in range(0, len(d) - 63, 64)))
EOF
}

case_nullio_no_stale() {
	local t a rd d0 d1 round pat=/tmp/nullio-pattern.bin
	local back=/tmp/nullio-back.bin got=/tmp/nullio-got.bin
	check srp_target_up
	t=$(tgt_dir) a=$(acl_dir)
	rd=$(rd_nullio_backstore rd_nullio 64M) || fail "cannot create the rd_nullio=1 backstore"
	grep . "$rd/info" 2>/dev/null
	check mkdir -p "$t/lun/lun_1" "$a/lun_1"
	check ln -s "$rd" "$t/lun/lun_1/rd_nullio"
	check ln -s "$t/lun/lun_1" "$a/lun_1/lun1"
	check srp_login ch_count=1
	check wait_channels 1
	d0=$(srp_lun_disk 0) || fail "no disk for LUN 0"
	d1=$(srp_lun_disk 1) || fail "no disk for LUN 1"
	log "LUN 0: $d0, LUN 1 (rd_nullio=1): $d1"
	for round in 1 2 3 4; do
		check dd if=/dev/urandom of="$pat" bs=64k count=1 status=none
		check dd if="$pat" of="$d0" bs=64k count=1 oflag=direct status=none
		check dd if="$d0" of="$back" bs=64k count=1 iflag=direct status=none
		cmp -s "$pat" "$back" || fail "round $round: LUN 0 did not read back what was written"
		check dd if="$d1" of="$got" bs=64k count=1 iflag=direct status=none
		[[ $(stat -c %s "$got") == 65536 ]] || fail "round $round: short read from LUN 1"
		if ! cmp -s -n 65536 "$got" /dev/zero; then
			log "round $round: LUN 1 returned $(cmp -l "$got" /dev/zero 2>/dev/null | wc -l) non-zero bytes," \
				"$(stale_chunks "$pat" "$got") of its 1024 64-byte chunks from the pattern written to LUN 0"
			fail "round $round: the READ of the nullio LUN returned data that is not zeros"
		fi
		log "round $round: LUN 1 read 64 KiB of zeros"
	done
	channels
	check srp_target_down
}

run_memory_cases() {
	CASE_TIMEOUT=300 run_case memory_flood case_memory_flood
	run_case nullio_no_stale case_nullio_no_stale
}
