#!/bin/bash
# tools/bench/guest-bench.sh: guest side of scripts/bench.  Runs inside
# the VM (scripts/vm sets KVER, RESULTS, PROJECT) and measures OUR ib_srpt
# ($SRPT_KO) against the kernel's IN-TREE ib_srpt in the same boot, on the
# same rxe0, the same ramdisk backstore (LIO rd_mcp) and the same fio jobs,
# interleaving the drivers in short segments (a few jobs at one ch_count:
# ours then in-tree, then in-tree then ours, ...) so that the two runs of a
# job are seconds apart and drift of the shared host cancels out.  The kernel's ib_srp logs in over RDMA/CM
# exactly as tests/guest/login.sh does.
#
# Writes raw measurements, one JSON object a line, to $RESULTS/raw.jsonl
# (scripts/bench turns them into medians, a table, JSON and a chart) and
# fio's JSON output to $RESULTS/fio/.  Record kinds:
#   {"kind":"fio","driver":"ours|intree","round":R,"ch":C,"job":NAME,
#    "iops":..,"bw_bytes":..,"p50_us":..,"p99_us":..,"cpu_us_per_io":..,...}
#   {"kind":"rdma","test":"ib_write_bw|ib_read_bw","mib_s":..|null,"error":..}
#   {"kind":"mem","driver":..,"channels":N,"slab_kib":..,...}
#   {"kind":"perf","driver":..,"round":R,"ch":C,"jobs":[..],"period_ns":..,
#    "samples":N,"target_samples":N}   (with BENCH_PERF; see perf_stop)
#
# Knobs (environment, set by scripts/bench with scripts/vm --env):
#   BENCH_ROUNDS   rounds: each driver runs every job once per round
#                  (default 3)
#   BENCH_GROUP    jobs per segment (default 4): in a round, every group of
#                  BENCH_GROUP jobs at every ch_count is a segment, which
#                  the drivers run back to back; the order of the drivers
#                  reverses from one segment to the next (A B, B A, A B,
#                  ...) and from one round to the next, so a segment
#                  mostly starts with the driver the previous one ended
#                  with (no reload)
#   BENCH_JOBS     fio job names to run (default 4k-randread-qd32
#                  4k-randwrite-qd32 64k-randrw-qd16 128k-read-qd8; all:
#                  see job_args; "none": no fio matrix); BENCH_CHS ib_srp
#                  ch_count values (default "1")
#   BENCH_RUNTIME  seconds measured per job (default 3), BENCH_RAMP seconds
#                  of ramp before (default 1)
#   BENCH_MEM_LOGINS  logins (ch_count=2 each) for the memory figure
#                  (default 4, i.e. 8 channels; 0 skips it)
#   BENCH_RDMA=0   skip the perftest upper bound
#   BENCH_PERF     drivers to profile ("ours", "intree" or both; default
#                  none): perf record -a -g over each of their fio runs,
#                  reports in $RESULTS/perf/ (profiling costs CPU under TCG:
#                  never compare profiled runs with unprofiled ones)
#   BENCH_PERF_FREQ  sampling frequency (default 499 Hz)
#   BENCH_VARIANTS extra runs of our module with other parameters, each
#                  LABEL:NAME=VAL[,NAME=VAL...]; measured as driver
#                  "ours-LABEL" after "ours" in every segment (experiments:
#                  scripts/bench's table shows only ours and in-tree)
#   BENCH_AA=1     also run our module a second time in every segment, as
#                  driver "ours-aa" (reloaded, same parameters): the A/A
#                  spread of the timings (default 0)
#   BENCH_BACKSTORES  LUN backstores, measured one after the other (default
#                  "rd"): "rd" is LIO rd_mcp with data, "nullio" rd_mcp
#                  with rd_nullio=1 (no data copied, READs return the
#                  buffer as it is); rd-direct, nullio-direct: the same
#                  with complete_type 1 (7.3 and later); rd-queued,
#                  nullio-queued: complete_type 2
#   BENCH_SLABS    slab settings, each backstore measured under each
#                  (default "default"): "default" is SLUB's min_partial
#                  per cache as booted, "tuned" 10000 for every cache (see
#                  set_slab)
#   BENCH_STORM    drivers of the login-storm job, in order (default none;
#                  e.g. "ours intree ours"), after the fio matrix: see storm
#   BENCH_STORM_PORTS, BENCH_STORM_CH  initiator ports (distinct
#                  initiator_ext, one add_target each) and ch_count of each
#                  (default 16 and 4; ib_srp caps ch_count at the CPUs)
#
# Exit status: 0 if every driver loaded, every login worked and fio reported
# no error; 1 otherwise (the first error ends the run).  Timings are never
# judged here.
#
# No 'set -e': lib.sh's helpers are written for explicit checks (|| die).
set -uo pipefail

# The guest library of the test suite.
GUEST_DIR=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../../tests/guest
# shellcheck source=tests/guest/lib.sh
. "$GUEST_DIR/lib.sh"
# shellcheck source=tests/guest/login.sh
. "$GUEST_DIR/login.sh"

: "${BENCH_ROUNDS:=3}"
: "${BENCH_GROUP:=4}"
: "${BENCH_JOBS:=4k-randread-qd32 4k-randwrite-qd32 64k-randrw-qd16 128k-read-qd8}"
: "${BENCH_CHS:=1}"
: "${BENCH_RUNTIME:=3}"
: "${BENCH_RAMP:=1}"
: "${BENCH_MEM_LOGINS:=4}"
: "${BENCH_RDMA:=1}"
: "${BENCH_PERF:=}"
: "${BENCH_PERF_FREQ:=499}"
: "${BENCH_VARIANTS:=}"
: "${BENCH_AA:=0}"
: "${BENCH_BACKSTORES:=rd}"
: "${BENCH_SLABS:=default}"
: "${BENCH_STORM:=}"
: "${BENCH_STORM_PORTS:=16}"
: "${BENCH_STORM_CH:=4}"
[[ $BENCH_JOBS != none ]] || BENCH_JOBS=""

RAW=$RESULTS/raw.jsonl
INTREE_KO=$(compgen -G "/lib/modules/$KVER/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko*" | head -n1)
CASE_NAME=bench

die() {
	log "bench failed: $*"
	echo "BENCH-ERROR: $*"
	exit 1
}

# record JSON: append one record to raw.jsonl.
record() { echo "$1" >>"$RAW"; }

# ------------------------------------------------------------- drivers --

# driver_ko DRIVER: the module file of "ours" (or a variant) or "intree".
driver_ko() {
	if [[ $1 == ours* ]]; then echo "$SRPT_KO"; else echo "$INTREE_KO"; fi
}

# variant_params DRIVER: the extra module parameters of "ours-LABEL" from
# BENCH_VARIANTS, space separated (nothing for "ours").
variant_params() {
	local v
	for v in $BENCH_VARIANTS; do
		[[ $1 == "ours-${v%%:*}" ]] && echo "${v#*:}" | tr ',' ' '
	done
}

# load_driver DRIVER: load ours or the in-tree ib_srpt by path (never by
# name: the host's /lib/modules/$KVER/updates may hold a copy of ours) and
# check that the loaded module is that file (srcversion).  Ours gets its
# RDMA/CM port as a parameter; the in-tree one through configfs
# (srp_target_up writes discovery_auth/rdma_cm_port).
load_driver() {
	local drv=$1 ko
	ko=$(driver_ko "$drv")
	[[ -n $ko && -f $ko ]] || { echo "no module file for $drv ($ko)" >&2; return 1; }
	srpt_loaded && { unload_srpt || return 1; }
	if [[ $drv == ours* ]]; then
		# shellcheck disable=SC2046 # word splitting wanted
		insmod_ko "$ko" rdma_cm_port="$SRP_PORT" $(variant_params "$drv") || return 1
	else
		insmod_ko "$ko" || return 1
	fi
	loaded_is "$drv" "$ko" || return 1
	modprobe ib_srp || return 1
	# srp_target_up (login.sh) replaces a loaded ib_srpt that is not ours
	# by ours unless SRPT_INTREE=1; check again that it did not.
	if [[ $drv == intree ]]; then
		SRPT_INTREE=1 srp_target_up "" || return 1
	else
		srp_target_up "" || return 1
	fi
	loaded_is "$drv" "$ko"
}

# loaded_is DRIVER KO: the loaded ib_srpt is KO (srcversion) and the
# DRIVER's kind: ours is out of tree (taint O) and has a srcversion; the
# in-tree one is neither.
loaded_is() {
	local drv=$1 ko=$2 want have="" taint
	want=$(modinfo -F srcversion "$ko")
	[[ -r /sys/module/ib_srpt/srcversion ]] && read -r have </sys/module/ib_srpt/srcversion
	[[ $want == "$have" ]] || { echo "loaded ib_srpt srcversion '$have', expected '$want' ($ko)" >&2; return 1; }
	read -r taint </sys/module/ib_srpt/taint || { echo "ib_srpt is not loaded" >&2; return 1; }
	if [[ $drv == ours* && $taint != *O* ]] || [[ $drv == intree && $taint == *O* ]]; then
		echo "loaded ib_srpt has taint '$taint': not the $drv module" >&2
		return 1
	fi
}

# unload_driver: log out, tear the target down, remove ib_srpt.
unload_driver() {
	srp_target_down || return 1
	rmmod ib_srpt
}

# srp_channels: logged-in channels as the initiator counts them (the sum of
# ch_count of ib_srp's SCSI hosts); works for both drivers (the in-tree one
# has no channel list in configfs).
srp_channels() {
	local h n=0 c
	for h in $(srp_hosts); do
		c=0
		[[ -r $h/ch_count ]] && read -r c <"$h/ch_count"
		n=$((n + c))
	done
	echo "$n"
}

# srp_login_retry OPTION...: srp_login (login.sh), retried for a few
# seconds: ib_srp drops a removed target from its list only after its SCSI
# host is gone from sysfs (what srp_logout_all waits for), and refuses a new
# login to the same target meanwhile with EEXIST ("Already connected").
srp_login_retry() {
	local i
	for ((i = 0; i < 20; i++)); do
		srp_login "$@" && return 0
		nap 0.5
	done
	return 1
}

# ----------------------------------------------------------------- fio --

# job_args NAME: fio arguments of a job of the matrix.
job_args() {
	case $1 in
	4k-randread-qd1) echo --rw=randread --bs=4k --iodepth=1 ;;
	4k-randread-qd32) echo --rw=randread --bs=4k --iodepth=32 ;;
	4k-randwrite-qd1) echo --rw=randwrite --bs=4k --iodepth=1 ;;
	4k-randwrite-qd32) echo --rw=randwrite --bs=4k --iodepth=32 ;;
	64k-randrw-qd16) echo --rw=randrw --rwmixread=50 --bs=64k --iodepth=16 ;;
	128k-read-qd8) echo --rw=read --bs=128k --iodepth=8 ;;
	128k-write-qd8) echo --rw=write --bs=128k --iodepth=8 ;;
	1m-read-qd4) echo --rw=read --bs=1M --iodepth=4 ;;
	1m-write-qd4) echo --rw=write --bs=1M --iodepth=4 ;;
	*) return 1 ;;
	esac
}

# SNAP: a helper fio runs before and after each job (exec_prerun and
# exec_postrun): it saves the /proc/stat CPU line with the context switch
# count (ctxt) appended and the disk's /sys/block/DEV/stat, for the CPU
# time and the context switches per I/O of that job.
SNAP=/tmp/bench-snap
SNAP_DIR=/tmp/bench-snaps
# Soft-RoCE port counters recorded per job (field "rxe" of each result):
# retransmissions, sequence errors and RNR NAKs explain a slow run.
RXE_COUNTERS="sent_pkts completer_retry_err rcvd_seq_err duplicate_request out_of_seq_request rcvd_rnr_err send_rnr_err retry_exceeded_err"

# write_snap_helper: create $SNAP.
write_snap_helper() {
	mkdir -p "$SNAP_DIR" || return 1
	cat >"$SNAP" <<-EOF_SNAP || return 1
		#!/bin/sh
		# $SNAP NAME DEV: CPU line and disk counters into $SNAP_DIR/NAME
		{ echo "\$(head -n 1 /proc/stat) \$(sed -n 's/^ctxt //p' /proc/stat)"; read -r l <"/sys/block/\$2/stat"; echo "\$l"
		  cd /sys/class/infiniband/$RXE_DEV/ports/1/hw_counters 2>/dev/null && cat $RXE_COUNTERS | tr '\\n' ' '; echo; } >"$SNAP_DIR/\$1"
	EOF_SNAP
	chmod 755 "$SNAP"
}

# snap_delta JOB: "BUSY IOS CTXT RXE..." between the pre and post snapshots
# of JOB: busy jiffies of all CPUs (user nice system irq softirq steal),
# I/Os the disk completed (reads + writes), context switches of all CPUs
# and the Soft-RoCE counters.
snap_delta() {
	local -a c0 c1 d0 d1 r0 r1
	local i out
	{ read -ra c0 && read -ra d0 && read -ra r0; } <"$SNAP_DIR/pre-$1" || return 1
	{ read -ra c1 && read -ra d1 && read -ra r1; } <"$SNAP_DIR/post-$1" || return 1
	out="$(((c1[1] + c1[2] + c1[3] + c1[6] + c1[7] + c1[8]) - \
		(c0[1] + c0[2] + c0[3] + c0[6] + c0[7] + c0[8]))) \
$(((d1[0] + d1[4]) - (d0[0] + d0[4]))) $((c1[11] - c0[11]))"
	for i in "${!r1[@]}"; do out+=" $((r1[i] - ${r0[i]:-0}))"; done
	echo "$out"
}

# run_jobs DRIVER ROUND CH DEV JOB...: one fio run with the jobs one after
# the other (stonewall: a fio start costs seconds under TCG); appends one
# record per job.  CPU per I/O is the guest's busy time (initiator, target
# and fio together; the initiator side is the same for both drivers) over
# the I/Os the disk completed, both from just before a job (ramp included)
# to just after it.
run_jobs() {
	local drv=$1 round=$2 ch=$3 dev=$4 job a out jobfile rc snaps="{}" d recs bad
	shift 4
	out=$RESULTS/fio/$CUR_BS-$CUR_SLAB-$drv-r$round-ch$ch-$1.json
	jobfile=$RESULTS/fio/$CUR_BS-$CUR_SLAB-$drv-r$round-ch$ch-$1.fio
	rm -f "$SNAP_DIR"/*
	{
		echo "[global]"
		echo "filename=$dev"
		echo "ioengine=libaio"
		echo "direct=1"
		echo "size=$LUN_SIZE"
		echo "time_based"
		echo "runtime=$BENCH_RUNTIME"
		echo "ramp_time=$BENCH_RAMP"
		echo "unified_rw_reporting=1"
		# Percentiles of the whole latency, submission to completion: on
		# one vCPU an I/O can run to its end inside io_submit(), where
		# the completion latency (clat) leaves out all of it.
		echo "lat_percentiles=1"
		for job; do
			echo
			echo "[$job]"
			echo "stonewall"
			for a in $(job_args "$job"); do echo "${a#--}"; done
			echo "exec_prerun=$SNAP pre-$job ${dev#/dev/}"
			echo "exec_postrun=$SNAP post-$job ${dev#/dev/}"
		done
	} >"$jobfile"
	log "fio: $drv, $CUR_BS/$CUR_SLAB, round $round, ch_count=$ch: $*"
	perf_start "$drv" "$round" "$ch" "$@"
	(cd /tmp && fio --output-format=json --output="$out" "$jobfile")
	rc=$?
	perf_stop
	[[ $rc == 0 ]] || {
		tail -n 20 "$out"
		die "fio ($drv, ch_count=$ch, round $round) exited with $rc"
	}
	for job; do
		d=$(snap_delta "$job") || die "no CPU/disk snapshots for $job"
		snaps=$(jq -c --arg j "$job" --arg d "$d" '. + {($j): ($d | split(" ") | map(tonumber))}' <<<"$snaps")
	done
	recs=$(jq -c --arg drv "$drv" --argjson round "$round" --argjson ch "$ch" \
		--arg bs "$CUR_BS" --arg slab "$CUR_SLAB" \
		--argjson snaps "$snaps" --arg names "$RXE_COUNTERS" '
		.jobs[] | . as $j | $j.mixed as $m | ($snaps[$j.jobname] // [null, null, null]) as [$busy, $ios, $ctxt] |
		($snaps[$j.jobname] // [] | .[3:]) as $rxe | {
			kind: "fio", driver: $drv, round: $round, ch: $ch, job: $j.jobname,
			backstore: $bs, slab: $slab,
			error: $j.error, iops: $m.iops, bw_bytes: $m.bw_bytes,
			p50_us: ($m.lat_ns.percentile["50.000000"] / 1000),
			p99_us: ($m.lat_ns.percentile["99.000000"] / 1000),
			ios: $m.total_ios, usr_cpu: $j.usr_cpu, sys_cpu: $j.sys_cpu,
			cpu_jiffies: $busy, disk_ios: $ios,
			rxe: (($names | split(" ")) as $nm |
				[range(0; $rxe | length) as $k | {($nm[$k]): $rxe[$k]}] | add),
			cpu_us_per_io: (if $ios != null and $ios > 0 then $busy * 10000 / $ios else null end),
			ctxsw_per_io: (if $ios != null and $ios > 0 then $ctxt / $ios else null end)
		}' "$out") || die "cannot parse $out"
	echo "$recs" >>"$RAW"
	jq -r '"\(.driver) r\(.round) ch\(.ch) \(.job): \(.iops | floor) IOPS, \(.bw_bytes / 1048576 * 10 | floor / 10) MiB/s, p50 \(.p50_us | floor) us, p99 \(.p99_us | floor) us, \(.cpu_us_per_io | floor) us CPU/IO, \((.ctxsw_per_io // 0) * 100 | floor / 100) switches/IO, error \(.error)"' <<<"$recs" |
		while read -r line; do log "$line"; done
	[[ $(jq -s length <<<"$recs") == "$#" ]] || die "fio ($drv, ch_count=$ch, round $round): $(jq -s length <<<"$recs") results for $# jobs"
	bad=$(jq -r 'select(.error != 0) | "\(.job): error \(.error)"' <<<"$recs")
	[[ -z $bad ]] || die "fio ($drv, ch_count=$ch, round $round) reported errors: $bad"
}

# ------------------------------------------------------------- profile --

PERF_PID="" PERF_NAME="" PERF_REC=""

# perf_start DRIVER ROUND CH JOB...: if BENCH_PERF names DRIVER, start perf
# record over all CPUs (cpu-clock: TCG has no PMU) in the background;
# perf_stop ends it and writes the reports.  The data stays in the guest's
# /tmp.  perf needs many seconds under TCG to get going (it reads every
# process's maps): it starts with its events disabled and this waits until
# perf has acknowledged "enable" on its control FIFO, so the profile covers
# fio.
perf_start() {
	local ctl ack a=""
	PERF_PID="" PERF_NAME="" PERF_REC=""
	[[ " $BENCH_PERF " == *" $1 "* ]] || return 0
	command -v perf >/dev/null || { log "perf: not found, no profile"; return 0; }
	PERF_NAME=$1-r$2-ch$3-$4
	PERF_REC=$(jq -nc --arg drv "$1" --argjson round "$2" --argjson ch "$3" \
		--arg jobs "${*:4}" --argjson period $((1000000000 / BENCH_PERF_FREQ)) \
		'{kind: "perf", driver: $drv, round: $round, ch: $ch,
		  jobs: ($jobs | split(" ")), period_ns: $period}')
	mkdir -p "$RESULTS/perf"
	echo 0 >/proc/sys/kernel/kptr_restrict
	rm -f /tmp/perf-ctl /tmp/perf-ack
	mkfifo /tmp/perf-ctl /tmp/perf-ack || return 0
	perf record -e cpu-clock -c $((1000000000 / BENCH_PERF_FREQ)) -a -g -B -N \
		-D -1 --control=fifo:/tmp/perf-ctl,/tmp/perf-ack \
		-o "/tmp/perf-$PERF_NAME.data" >"$RESULTS/perf/$PERF_NAME.record.log" 2>&1 &
	PERF_PID=$!
	exec {ctl}>/tmp/perf-ctl {ack}</tmp/perf-ack
	echo enable >&"$ctl"
	read -r -t 300 a <&"$ack"
	exec {ctl}>&- {ack}<&-
	log "perf: recording $PERF_NAME (control answer '$a')"
}

# perf_stop: stop the profile perf_start began (if any) and write, in
# $RESULTS/perf/: NAME.self.txt (self time by symbol), NAME.children.txt
# (inclusive time by symbol) and NAME.comm.txt (time by task and object);
# and append a "perf" record to raw.jsonl with the number of samples and of
# target samples.  A target sample is one whose kernel call chain runs
# through the target's own completion work: ib_cq_poll_work (both drivers
# poll their CQs from ib_comp_wq; ib_srp polls from softirq and directly,
# the MAD layer is idle during fio) or LIO's completion work
# (target_complete_ok_work, target_complete_failure_work).  Softirq work
# that interrupted it (rxe's packet receive, ib_srp's completions) is not
# counted.  scripts/bench turns the count into target CPU time per I/O.
perf_stop() {
	local d r=$RESULTS/perf/$PERF_NAME n t
	[[ -n $PERF_PID ]] || return 0
	kill -INT "$PERF_PID" 2>/dev/null
	wait "$PERF_PID"
	PERF_PID=""
	d=/tmp/perf-$PERF_NAME.data
	set -- -i "$d" --stdio --kallsyms=/proc/kallsyms -g none
	perf report "$@" --no-children --sort sym --percent-limit 0.2 >"$r.self.txt" 2>/dev/null
	perf report "$@" --children --sort sym --percent-limit 1 >"$r.children.txt" 2>/dev/null
	perf report "$@" --no-children --sort comm,dso --percent-limit 0.5 >"$r.comm.txt" 2>/dev/null
	perf report "$@" --no-children --sort cpu >"$r.cpu.txt" 2>/dev/null
	n=$(perf script -i "$d" --kallsyms=/proc/kallsyms -F comm,ip,sym 2>/dev/null |
		awk -v RS= '{ n++ }
			/ib_cq_poll_work|target_complete_(ok|failure)_work/ &&
			!/handle_softirqs|__do_softirq/ { t++ }
			END { print n + 0, t + 0 }')
	t=${n#* } n=${n%% *}
	record "$(jq -c --argjson n "${n:-0}" --argjson t "${t:-0}" \
		'. + {samples: $n, target_samples: $t}' <<<"$PERF_REC")"
	rm -f "$d"
	log "perf: profile of $PERF_NAME in $r.*.txt; $t of $n samples in the target's completion work"
}

# ---------------------------------------------------------- RDMA bound --

# rdma_bw TEST PORT [OPTION...]: perftest TEST (ib_write_bw/ib_read_bw) over
# RDMA/CM in loopback on rxe0 (server and client on 10.99.0.1), 1000
# messages of 64 KiB, with extra perftest OPTIONs on both sides.
rdma_bw() {
	local t=$1 port=$2 spid i ok=0 bw="" err=""
	local srv=$RESULTS/perftest-$t-server.txt cli=$RESULTS/perftest-$t-client.txt
	shift 2
	: >"$cli"
	timeout 60 "$t" -R -d "$RXE_DEV" -F -n 1000 -p "$port" "$@" >"$srv" 2>&1 &
	spid=$!
	for ((i = 0; i < 10; i++)); do
		nap 1
		if timeout 60 "$t" -R -d "$RXE_DEV" -F -n 1000 -p "$port" "$@" \
			"${RXE_ADDR%/*}" >>"$cli" 2>&1; then
			ok=1
			break
		fi
		kill -0 "$spid" 2>/dev/null || break
	done
	wait "$spid"
	# The result line: "65536  <iterations>  <peak>  <average MiB/s>  <Mpps>".
	[[ $ok == 1 ]] && bw=$(awk '$1 == 65536 && NF >= 5 { print $4 }' "$cli" | tail -n1)
	if [[ -z $bw ]]; then
		err=$(grep -aiE 'error|fail|unable|couldn|not supported|not available' "$cli" "$srv" | head -n1)
		[[ -n $err ]] || err="no result line (see $(basename "$cli"))"
		log "$t: no result: $err"
		record "$(jq -cn --arg t "$t" --arg e "$err" '{kind: "rdma", test: $t, mib_s: null, error: $e}')"
		return 0
	fi
	log "$t $*: $bw MiB/s (64 KiB messages)"
	record "$(jq -cn --arg t "$t" --arg o "-R -n 1000 $*" --argjson bw "$bw" \
		'{kind: "rdma", test: $t, options: $o, size: 65536, mib_s: $bw, error: null}')"
}

# -------------------------------------------------------------- memory --

# mem_snapshot FILE: drop caches, settle, save /proc/meminfo and the slab
# caches' bytes (num_objs * objsize, from /proc/slabinfo when readable).
mem_snapshot() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	nap 2
	cat /proc/meminfo >"$1.meminfo"
	if [[ -r /proc/slabinfo ]]; then
		awk 'NR > 2 { print $1, $3 * $4 }' /proc/slabinfo >"$1.slab"
	else
		: >"$1.slab"
	fi
}

# mem_delta BEFORE AFTER: JSON of the differences in KiB: Slab, SUnreclaim,
# used memory (MemTotal - MemFree), non-slab kernel pages (used minus slab,
# page cache, buffers, anonymous pages) and the slab caches that grew most.
mem_delta() {
	local b=$1 a=$2
	{
		awk '{ v[$1] = $2 } END {
			used = v["MemTotal:"] - v["MemFree:"]
			print "used", used; print "slab", v["Slab:"]
			print "sunreclaim", v["SUnreclaim:"]
			print "other", v["Cached:"] + v["Buffers:"] + v["AnonPages:"]
		}' "$b.meminfo" | sed 's/^/b /'
		awk '{ v[$1] = $2 } END {
			used = v["MemTotal:"] - v["MemFree:"]
			print "used", used; print "slab", v["Slab:"]
			print "sunreclaim", v["SUnreclaim:"]
			print "other", v["Cached:"] + v["Buffers:"] + v["AnonPages:"]
		}' "$a.meminfo" | sed 's/^/a /'
		awk 'FNR == NR { b[$1] = $2; next } { d = $2 - b[$1]; if (d > 0) print "c", $1, d / 1024 }' \
			"$b.slab" "$a.slab" | sort -k3,3nr | head -n 6
		awk 'FNR == NR { s += $2; next } { t += $2 } END { print "slabinfo", (t - s) / 1024 }' \
			"$b.slab" "$a.slab"
	} | jq -Rn '[inputs | split(" ")] as $l |
		($l | map(select(.[0] == "b")) | map({(.[1]): (.[2] | tonumber)}) | add) as $b |
		($l | map(select(.[0] == "a")) | map({(.[1]): (.[2] | tonumber)}) | add) as $a |
		{ used_kib: ($a.used - $b.used), slab_kib: ($a.slab - $b.slab),
		  sunreclaim_kib: ($a.sunreclaim - $b.sunreclaim),
		  pages_kib: (($a.used - $b.used) - ($a.slab - $b.slab) - ($a.other - $b.other)),
		  slabinfo_kib: ($l | map(select(.[0] == "slabinfo"))[0][1] | tonumber),
		  top_slab_caches_kib: ($l | map(select(.[0] == "c")) | map({cache: .[1], kib: (.[2] | tonumber)})) }'
}

# mem_bench DRIVER: kernel memory before and after BENCH_MEM_LOGINS logins
# of ch_count=2 each (ib_srp caps ch_count at the guest's 2 CPUs; distinct
# initiator_ext values make distinct initiator ports, each with an ACL),
# and again after logging out.
mem_bench() {
	local drv=$1 n=$BENCH_MEM_LOGINS i ext guid t acl want got d1 d2 snap=/tmp/mem-$1
	((n > 0)) || return 0
	guid=$(node_guid) || return 1
	t=$(tgt_dir)
	for ((i = 1; i <= n; i++)); do
		ext=$(printf '%016x' $((0x5eed0000 + i)))
		acl=$t/acls/0x$ext$guid
		mkdir -p "$acl/lun_0" || return 1
		ln -s "$t/lun/lun_0" "$acl/lun_0/lun0" || return 1
	done
	mem_snapshot "$snap-0"
	for ((i = 1; i <= n; i++)); do
		ext=$(printf '%016x' $((0x5eed0000 + i)))
		sysfs_write "$SRP_HOST/add_target" \
			"id_ext=$guid,ioc_guid=$guid,dest=$SRP_DEST,initiator_ext=$ext,ch_count=2" ||
			{ echo "memory login $i failed" >&2; return 1; }
	done
	want=$((2 * n))
	for ((i = 0; i < 100; i++)); do
		got=$(srp_channels)
		((got >= want)) && break
		nap 0.2
	done
	log "$drv: $got channels logged in for the memory figure"
	((got > 0)) || { echo "no channel after the memory logins" >&2; return 1; }
	srp_disk >/dev/null || return 1
	nap 2 # let the SCSI scans finish
	mem_snapshot "$snap-1"
	srp_logout_all || return 1
	mem_snapshot "$snap-2"
	d1=$(mem_delta "$snap-0" "$snap-1") || return 1
	d2=$(mem_delta "$snap-0" "$snap-2") || return 1
	record "$(jq -cn --arg drv "$drv" --argjson ch "$got" --argjson n "$n" \
		--argjson d "$d1" --argjson left "$d2" '{kind: "mem", driver: $drv,
		channels: $ch, logins: $n} + $d + {after_logout: $left}')"
	log "$drv: memory for $got channels: $(jq -c . <<<"$d1")"
	for ((i = 1; i <= n; i++)); do
		ext=$(printf '%016x' $((0x5eed0000 + i)))
		acl=$t/acls/0x$ext$guid
		rm -f "$acl/lun_0/lun0"
		rmdir "$acl/lun_0" "$acl"
	done
	return 0
}

# ----------------------------------------------- backstore and slab --

CUR_BS="" CUR_SLAB=""
SLAB_SAVED=/tmp/bench-min_partial

# drop_driver: log out and unload the current driver (if any).
drop_driver() {
	[[ -n $CUR_DRV ]] || return 0
	srp_logout_all || die "$CUR_DRV: logout failed"
	unload_driver || die "$CUR_DRV: unload failed"
	CUR_DRV="" CUR_CH=""
}

# use_backstore rd|nullio[-direct|-queued]: make the LUN's backstore
# (login.sh's rd_login, which srp_target_up maps) LIO rd_mcp with data, or
# with rd_nullio=1; -direct sets its complete_type to 1 (direct
# completion), -queued to 2 (LIO's completion work, for every fabric).
# The driver is unloaded first (its LUN links the backstore); the next
# use_driver loads it again.
use_backstore() {
	local bs=$1 d extra="" ct=""
	[[ $CUR_BS == "$bs" ]] && return 0
	drop_driver
	case $bs in
	rd | rd-direct | rd-queued) ;;
	nullio | nullio-direct | nullio-queued) extra=",rd_nullio=1" ;;
	*) die "unknown backstore $bs" ;;
	esac
	case $bs in
	*-direct) ct=1 ;;
	*-queued) ct=2 ;;
	esac
	for d in "$CFS_TARGET"/core/rd_mcp_*/rd_login; do
		[[ -d $d ]] || continue
		{ rmdir "$d" && rmdir "${d%/*}"; } || die "cannot remove the backstore $d"
	done
	d=$(rd_backstore rd_login "$LUN_SIZE" "$extra") || die "cannot create the $bs backstore"
	# -direct: LIO completes in the backend's context (7.3's complete_type
	# 1) where the fabric supports it: ours; the in-tree driver queues.
	# -queued: LIO's completion work item for every fabric (2).
	if [[ -n $ct ]]; then
		[[ -e $d/attrib/complete_type ]] || die "$bs: this LIO has no complete_type (7.3 and later)"
		echo "$ct" >"$d/attrib/complete_type" || die "$bs: cannot set complete_type $ct"
	fi
	log "backstore $bs: $d ($(grep -a -o 'nullio: [0-9]*' "$d/info" 2>/dev/null))"
	CUR_BS=$bs
}

# set_slab default|tuned: SLUB's min_partial (empty slabs a cache keeps per
# node instead of giving them back to the page allocator) for every cache:
# as booted ("default", each cache's own value, saved the first time) or
# 10000 ("tuned": then the caches that one I/O fills and the next empties,
# skbs and rxe's packets, do not free and allocate, and clear, whole slabs
# as they go).  Caches created after the first call keep their own value
# under "default".
set_slab() {
	local f v n=0
	[[ $CUR_SLAB == "$1" ]] && return 0
	if [[ ! -s $SLAB_SAVED ]]; then
		for f in /sys/kernel/slab/*/min_partial; do
			[[ -r $f ]] && echo "$f $(<"$f")"
		done >"$SLAB_SAVED"
	fi
	case $1 in
	default)
		while read -r f v; do
			[[ -w $f ]] && echo "$v" >"$f" 2>/dev/null && n=$((n + 1))
		done <"$SLAB_SAVED"
		log "slab: min_partial as booted for $n caches"
		;;
	tuned)
		for f in /sys/kernel/slab/*/min_partial; do
			[[ -w $f ]] && echo 10000 >"$f" 2>/dev/null && n=$((n + 1))
		done
		log "slab: min_partial 10000 for $n caches"
		;;
	*) die "unknown slab setting $1" ;;
	esac
	CUR_SLAB=$1
}

# ---------------------------------------------------------- login storm --

# storm_ext I: initiator_ext of storm port I.
storm_ext() { printf '%016x' $((0x57000000 + $1)); }

# storm_acls add|del: an ACL with LUN 0 for each storm port.
storm_acls() {
	local i guid t acl
	guid=$(node_guid) || return 1
	t=$(tgt_dir)
	for ((i = 1; i <= BENCH_STORM_PORTS; i++)); do
		acl=$t/acls/0x$(storm_ext "$i")$guid
		if [[ $1 == add ]]; then
			{ mkdir -p "$acl/lun_0" && ln -s "$t/lun/lun_0" "$acl/lun_0/lun0"; } || return 1
		else
			rm -f "$acl/lun_0/lun0"
			rmdir "$acl/lun_0" "$acl" 2>/dev/null
		fi
	done
	return 0
}

# rports_in STATE: number of SRP remote ports in STATE (running, blocked,
# fail-fast).
rports_in() {
	local p n=0 s
	for p in /sys/class/srp_remote_ports/*/state; do
		[[ -r $p ]] && read -r s <"$p" && [[ $s == "$1" ]] && n=$((n + 1))
	done
	echo "$n"
}

# srp_disks: the block devices of ib_srp's SCSI hosts, one a line.
srp_disks() {
	local h b
	for h in $(srp_hosts); do
		for b in "$h"/device/target*/*/block/*; do
			[[ -e $b ]] && echo "${b##*/}"
		done
	done
}

# disks_ios DISK...: completed reads + writes of each disk, one a line.
# (The guest has no /dev/fd: no process substitution here.)
disks_ios() {
	local d a
	for d; do
		read -ra a <"/sys/block/$d/stat" && echo "$((a[0] + a[4]))"
	done
}

# now_ms: CLOCK_MONOTONIC in ms (/proc/uptime has only centiseconds).
# klog_ms MARK PATTERN COUNT: milliseconds from the kernel log's last line
# containing MARK (a kmsg of this script) to the COUNT-th line after it
# that matches the regular expression PATTERN; nothing when there are
# fewer.  The kernel's own timestamps: a shell polling sysfs on a loaded
# vCPU sees an event up to seconds late.
klog_ms() {
	dmesg | awk -v m="$1" -v p="$2" -v c="$3" '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
		index($0, m) { t0 = ts($0); n = 0; t = ""; next }
		t0 != "" && $0 ~ p && ++n == c { t = ts($0) }
		END { if (t != "") printf "%d\n", (t - t0) * 1000 }'
}

# The first request each storm disk completes after the enable, from the
# block layer's trace events: their timestamps are the kernel's, as the
# kernel log's are.
STORM_TRACE=/sys/kernel/tracing

# storm_trace_start: record block_rq_complete from now on, after a marker
# (keeping the oldest events when the buffer fills).
storm_trace_start() {
	local t=$STORM_TRACE
	mountpoint -q "$t" || mount -t tracefs nodev "$t" || return 1
	echo 0 >"$t/tracing_on" && echo >"$t/trace" &&
		echo 0 >"$t/options/overwrite" && echo 8192 >"$t/buffer_size_kb" &&
		echo 1 >"$t/events/block/block_rq_complete/enable" &&
		echo 1 >"$t/tracing_on" &&
		echo bench-storm-enable >"$t/trace_marker"
}

# storm_trace_io_ms DISK...: stop the trace; milliseconds from the marker
# until the last of the disks completed its first request without error
# and with data; nothing when a disk completed none.
storm_trace_io_ms() {
	local t=$STORM_TRACE d devs=""
	echo 0 >"$t/tracing_on"
	echo 0 >"$t/events/block/block_rq_complete/enable"
	for d; do devs+="$(tr : , <"/sys/block/$d/dev") "; done
	awk -v devs="$devs" '
		function ts(   k) {
			for (k = 1; k <= NF; k++)
				if ($k ~ /^[0-9]+\.[0-9]+:$/) return substr($k, 1, length($k) - 1) + 0
			return -1
		}
		BEGIN { n = split(devs, a, " "); for (k = 1; k <= n; k++) want[a[k]] = 1 }
		/bench-storm-enable/ { t0 = ts(); next }
		# "DEV RWBS (CMD) SECTOR + SECTORS ... [ERROR]": a request whose
		# command failed (SCSI requeues it) completes 0 sectors.
		t0 != "" && / block_rq_complete: / && $NF == "[0]" {
			for (k = 1; k <= NF; k++) if ($k == "block_rq_complete:") break
			dev = $(k + 1)
			for (j = k + 2; j < NF; j++) if ($j == "+") break
			if ($(j + 1) + 0 > 0 && (dev in want) && !(dev in first)) {
				first[dev] = ts()
				got++
			}
		}
		END {
			if (t0 == "" || got < n) exit
			m = 0
			for (d in first) if (first[d] - t0 > m) m = first[d] - t0
			printf "%d\n", m * 1000
		}' "$t/trace"
	echo >"$t/trace"
	echo 1 >"$t/options/overwrite"
}

now_ms() {
	local t
	read -r t _ </proc/uptime
	t=${t/./}
	echo "$((10#$t * 10))"
}

# storm DRIVER PASS: the login-storm job.  BENCH_STORM_PORTS initiator
# ports (distinct initiator_ext, an ACL each) log in at once (all
# add_target writes in parallel), ch_count=BENCH_STORM_CH each; fio runs on
# every disk; then the portal group is disabled, which closes every
# channel (a DREQ each), and enabled again as soon as no remote port of
# ib_srp runs: with reconnect_delay 1 every port then logs in again
# at about the same time.  Records the time from the add_target writes
# until every disk is attached (login_ms) and from the enable until
# ib_srp reports every port reconnected (relogin_ms), both from the kernel
# log's timestamps, and until every disk has completed a request again
# (io_ms, from the block layer's trace events); the same three as polled
# by this shell (login_poll_ms, relogin_poll_ms, io_poll_ms: seconds late
# on one busy vCPU).  Disk completions stand for fio's (fio runs on them
# alone).  Timings are recorded, never judged.
storm() {
	local drv=$1 pass=$2 i guid t0 t1 t2 t3 n disks=() ch fpid p login login_poll relogin io
	local -a before after
	local end
	drop_driver
	log "=== $drv (storm $pass)"
	load_driver "$drv" || die "$drv: load or target setup failed"
	CUR_DRV=$drv
	storm_acls add || die "$drv: cannot create the storm ACLs"
	guid=$(node_guid) || die "no node GUID"
	kmsg "bench storm $drv: login"
	t0=$(now_ms)
	for ((i = 1; i <= BENCH_STORM_PORTS; i++)); do
		echo "id_ext=$guid,ioc_guid=$guid,dest=$SRP_DEST,initiator_ext=$(storm_ext "$i"),ch_count=$BENCH_STORM_CH" \
			>"$SRP_HOST/add_target" &
	done
	wait
	for ((i = 0; i < 1200; i++)); do
		read -ra disks <<<"$(srp_disks | tr "\n" " ")"
		((${#disks[@]} >= BENCH_STORM_PORTS)) && break
		nap 0.05
	done
	t1=$(now_ms)
	((${#disks[@]} == BENCH_STORM_PORTS)) ||
		die "$drv storm: ${#disks[@]} disks after logging $BENCH_STORM_PORTS ports in"
	ch=$(srp_channels)
	login_poll=$((t1 - t0))
	# From the kernel log: the last disk attached.
	login=$(klog_ms "bench storm $drv: login" "Attached SCSI disk" "$BENCH_STORM_PORTS")
	log "$drv storm: $BENCH_STORM_PORTS ports, $ch channels logged in, disks in ${login:-?} ms (kernel log; polled $login_poll ms)"
	for p in /sys/class/srp_remote_ports/*; do
		echo 1 >"$p/reconnect_delay"
		echo 120 >"$p/fast_io_fail_tmo"
	done
	{
		echo "[global]"
		echo "ioengine=libaio"
		echo "direct=1"
		echo "rw=randread"
		echo "bs=4k"
		echo "iodepth=2"
		echo "size=$LUN_SIZE"
		echo "time_based"
		echo "runtime=600"
		for i in "${disks[@]}"; do printf '[%s]\nfilename=/dev/%s\n' "$i" "$i"; done
	} >"$RESULTS/fio/storm-$pass.fio"
	(cd /tmp && exec fio --output-format=json --output="$RESULTS/fio/storm-$pass.json" \
		"$RESULTS/fio/storm-$pass.fio") >/dev/null 2>&1 &
	fpid=$!
	# fio runs on every disk.
	read -ra before <<<"$(disks_ios "${disks[@]}" | tr "\n" " ")"
	for ((i = 0; i < 600; i++)); do
		nap 0.1
		read -ra after <<<"$(disks_ios "${disks[@]}" | tr "\n" " ")"
		n=0
		for p in "${!disks[@]}"; do ((after[p] > before[p])) && n=$((n + 1)); done
		((n == ${#disks[@]})) && break
	done
	((n == ${#disks[@]})) || die "$drv storm: fio did not start on every disk"
	nap 2
	kmsg "bench storm $drv: disable"
	sysfs_write "$(tgt_dir)/enable" 0 || die "$drv storm: cannot disable the portal group"
	for ((i = 0; i < 600; i++)); do
		(($(rports_in running) == 0)) && break
		nap 0.05
	done
	(($(rports_in running) == 0)) ||
		die "$drv storm: $(rports_in running) of $BENCH_STORM_PORTS remote ports still running after the disable"
	read -ra before <<<"$(disks_ios "${disks[@]}" | tr "\n" " ")"
	kmsg "bench storm $drv: enable"
	storm_trace_start || die "$drv storm: cannot trace block completions"
	t2=$(now_ms)
	sysfs_write "$(tgt_dir)/enable" 1 || die "$drv storm: cannot enable the portal group"
	t1="" t3=""
	end=$((SECONDS + 300))
	while ((SECONDS < end)); do
		if [[ -z $t1 ]] && (($(rports_in running) == BENCH_STORM_PORTS)); then
			t1=$(now_ms)
		fi
		read -ra after <<<"$(disks_ios "${disks[@]}" | tr "\n" " ")"
		n=0
		for p in "${!disks[@]}"; do ((after[p] > before[p])) && n=$((n + 1)); done
		if ((n == ${#disks[@]})); then
			t3=$(now_ms)
			[[ -n $t1 ]] || t1=$t3
			break
		fi
		nap 0.05
	done
	kill -INT "$fpid" 2>/dev/null
	wait "$fpid"
	[[ -n $t3 ]] || die "$drv storm: I/O did not resume on every disk within 300 s ($n of ${#disks[@]})"
	# From the kernel log: ib_srp's last "reconnect succeeded".
	relogin=$(klog_ms "bench storm $drv: enable" "ib_srp: reconnect succeeded" "$BENCH_STORM_PORTS")
	io=$(storm_trace_io_ms "${disks[@]}")
	log "$drv storm: all ports running again ${relogin:-?} ms after the enable (kernel log; polled $((t1 - t2)) ms), I/O on every disk after ${io:-?} ms (block trace; polled $((t3 - t2)) ms)"
	record "$(jq -cn --arg drv "$drv" --arg pass "$pass" --argjson ports "$BENCH_STORM_PORTS" \
		--argjson chreq "$BENCH_STORM_CH" --argjson ch "$ch" --arg bs "$CUR_BS" --arg slab "$CUR_SLAB" \
		--argjson login "${login:-null}" --argjson relogin "${relogin:-null}" \
		--argjson login_poll "$login_poll" --argjson relogin_poll "$((t1 - t2))" \
		--argjson io "${io:-null}" --argjson io_poll "$((t3 - t2))" \
		'{kind: "storm", driver: $drv, pass: $pass, ports: $ports, ch_count: $chreq,
		  channels: $ch, backstore: $bs, slab: $slab, login_ms: $login,
		  relogin_ms: $relogin, io_ms: $io, login_poll_ms: $login_poll,
		  relogin_poll_ms: $relogin_poll, io_poll_ms: $io_poll}')"
	srp_logout_all || die "$drv storm: logout failed"
	storm_acls del
}

# ---------------------------------------------------------------- main --

CUR_DRV="" CUR_CH="" CUR_DEV="" MEM_DONE=""

# use_driver DRIVER CH: make DRIVER the loaded ib_srpt with ib_srp logged
# in with ch_count=CH (CUR_DEV: its disk), changing only what differs from
# the current state.  The first load of each driver also takes its memory
# figure, before any login.
use_driver() {
	local drv=$1 ch=$2
	if [[ $CUR_DRV != "$drv" ]]; then
		if [[ -n $CUR_DRV ]]; then
			srp_logout_all || die "$CUR_DRV: logout failed"
			unload_driver || die "$CUR_DRV: unload failed"
		fi
		CUR_DRV="" CUR_CH=""
		log "=== $drv"
		kmsg "bench $drv"
		load_driver "$drv" || die "$drv: load or target setup failed"
		CUR_DRV=$drv
		if [[ $drv != ours-aa && " $MEM_DONE " != *" $drv "* ]]; then
			mem_bench "$drv" || die "$drv: memory logins failed"
			MEM_DONE+=" $drv"
		fi
	fi
	[[ $CUR_CH == "$ch" ]] && return 0
	if [[ -n $CUR_CH ]]; then
		srp_logout_all || die "$drv: logout failed"
	fi
	CUR_CH=""
	srp_login_retry ch_count="$ch" || die "$drv: login with ch_count=$ch failed"
	CUR_DEV=$(srp_disk) || die "$drv: no disk after login with ch_count=$ch"
	[[ $(srp_channels) == "$ch" ]] ||
		die "$drv: ib_srp has $(srp_channels) channels, expected $ch"
	CUR_CH=$ch
}

# check_configs "BACKSTORES" "SLABS": die unless every backstore is one
# use_backstore makes and every slab setting one set_slab knows.
check_configs() {
	local bs sl
	for bs in $1; do [[ $bs =~ ^(rd|nullio)(-direct|-queued)?$ ]] || die "unknown backstore $bs"; done
	for sl in $2; do [[ $sl == default || $sl == tuned ]] || die "unknown slab setting $sl"; done
}

# tools/bench/guest-bench-insn.sh sources this file for its functions only.
[[ ${BENCH_LIB_ONLY:-0} == 1 ]] && return 0

mkdir -p "$RESULTS/fio"
: >"$RAW"
[[ -f $SRPT_KO ]] || die "our module $SRPT_KO not found"
[[ -n $INTREE_KO ]] || die "no in-tree ib_srpt under /lib/modules/$KVER/kernel/drivers/infiniband/ulp/srpt"
for job in $BENCH_JOBS; do job_args "$job" >/dev/null || die "unknown job $job"; done
[[ $BENCH_GROUP =~ ^[1-9][0-9]*$ ]] || die "BENCH_GROUP must be a positive number, not '$BENCH_GROUP'"
log "bench: kernel $KVER, ours $SRPT_KO, in-tree $INTREE_KO"
log "bench: rounds $BENCH_ROUNDS, $BENCH_GROUP jobs per segment, ch_count $BENCH_CHS, ${BENCH_RAMP}+${BENCH_RUNTIME} s per job"
record "$(jq -cn --arg k "$KVER" --arg o "$SRPT_KO" --arg i "$INTREE_KO" \
	--argjson r "$BENCH_ROUNDS" --argjson grp "$BENCH_GROUP" --argjson rt "$BENCH_RUNTIME" --argjson ramp "$BENCH_RAMP" \
	--arg jobs "$BENCH_JOBS" --arg chs "$BENCH_CHS" --argjson cpus "$(nproc)" \
	--arg lun "$LUN_SIZE" --argjson mtu "${BENCH_MTU:-1500}" \
	--arg bss "$BENCH_BACKSTORES" --arg slabs "$BENCH_SLABS" --argjson aa "$BENCH_AA" \
	--arg storm "$BENCH_STORM" '
	{kind: "meta", netdev_mtu: $mtu, kver: $k, ours_ko: $o, intree_ko: $i, rounds: $r,
	 group: $grp, backstores: ($bss | split(" ")), slabs: ($slabs | split(" ")),
	 aa: ($aa == 1), storm: ($storm | split(" ") | map(select(. != ""))),
	 runtime_s: $rt, ramp_s: $ramp, jobs: ($jobs | split(" ")),
	 ch_counts: ($chs | split(" ") | map(tonumber)), guest_cpus: $cpus,
	 backstore: "LIO rd_mcp ramdisk, \($lun)"}')"
check_configs "$BENCH_BACKSTORES" "$BENCH_SLABS"

RXE_MTU=${BENCH_MTU:-}
setup_rxe || die "soft-RoCE setup failed"
log "$RXE_NETDEV mtu $(cat /sys/class/net/$RXE_NETDEV/mtu), $RXE_DEV active_mtu $(ibv_devinfo -d $RXE_DEV -v 2>/dev/null | awk '/active_mtu/ {print $2; exit}')"
write_snap_helper || die "cannot write $SNAP"
if [[ $BENCH_RDMA == 1 ]]; then
	modprobe -a rdma_ucm ib_uverbs || die "cannot load rdma_ucm/ib_uverbs"
	# ib_read_bw sleeps on completion events (-e); ib_write_bw cannot
	# ("Events feature not available on WRITE verb") and busy-polls, which
	# under TCG takes CPU from rxe and understates the link.
	rdma_bw ib_write_bw 18515
	rdma_bw ib_read_bw 18516 -e
fi
# Segments: every group of BENCH_GROUP jobs at every ch_count, each run by
# all drivers back to back, in an order that reverses from one segment to
# the next (ours, in-tree | in-tree, ours | ...) and from one round to the
# next for the same segment.  The two runs of a job are then seconds apart,
# so a slow stretch of the host (they last tens of seconds under TCG) hits
# both; each driver runs a job first in every other round; a segment starts
# with the driver the previous one ended with, so there is about one
# module swap per segment.
groups=() g="" n=0
for job in $BENCH_JOBS; do
	g+="${g:+ }$job"
	((++n % BENCH_GROUP)) || { groups+=("$g"); g=""; }
done
[[ -z $g ]] || groups+=("$g")
drivers=(ours)
[[ $BENCH_AA != 1 ]] || drivers+=(ours-aa)
for v in $BENCH_VARIANTS; do drivers+=("ours-${v%%:*}"); done
drivers+=(intree)
# Every slab setting and backstore is a matrix of its own, one after the
# other (the drivers interleave within each).
for sl in $BENCH_SLABS; do
	for bs in $BENCH_BACKSTORES; do
		[[ ${#groups[@]} -gt 0 ]] || continue
		use_backstore "$bs"
		set_slab "$sl"
		for ((r = 1; r <= BENCH_ROUNDS; r++)); do
			log "--- $bs/$sl round $r"
			seg=$((r - 1))
			for ch in $BENCH_CHS; do
				for g in "${groups[@]}"; do
					order=("${drivers[@]}")
					if ((seg++ % 2)); then
						order=()
						for ((i = ${#drivers[@]} - 1; i >= 0; i--)); do order+=("${drivers[i]}"); done
					fi
					for d in "${order[@]}"; do
						use_driver "$d" "$ch"
						# shellcheck disable=SC2086 # word splitting wanted
						run_jobs "$d" "$r" "$ch" "$CUR_DEV" $g
					done
				done
			done
		done
	done
done
# The login storm, on the last backstore (nullio if measured: the logins,
# not the data, are the point).
if [[ -n $BENCH_STORM ]]; then
	[[ -n $CUR_BS ]] || use_backstore "${BENCH_BACKSTORES##* }"
	[[ -n $CUR_SLAB ]] || set_slab "${BENCH_SLABS%% *}"
	declare -A NSTORM=()
	for d in $BENCH_STORM; do
		NSTORM[$d]=$((${NSTORM[$d]:-0} + 1))
		storm "$d" "$d-${NSTORM[$d]}"
	done
fi
drop_driver
if dmesg | dmesg_splats >/dev/null; then
	dmesg | dmesg_splats | head -n 5
	die "kernel splat in the guest log"
fi
log "bench: done"
