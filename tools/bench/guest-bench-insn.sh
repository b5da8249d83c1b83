#!/bin/bash
# tools/bench/guest-bench-insn.sh: guest side of scripts/bench --insn, the
# deterministic benchmark.  Runs inside a one-vCPU VM (scripts/vm sets
# KVER, RESULTS, PROJECT) whose QEMU has the TCG plugin
# tools/insn/insncount.so loaded: the plugin counts the guest instructions
# executed between a start and a stop mark, and tools/insn/insnmark.so,
# preloaded into fio, executes the marks around exactly fio's I/O loop (the
# first io_submit up to the N-th completion of a job of --number_ios=N).
#
# Passes (INSN_PASSES, default "ours intree ours"): each loads that ib_srpt
# (guest-bench.sh's load_driver: ours from $SRPT_KO, the in-tree one by path),
# logs ib_srp in with ch_count=1 over RDMA/CM on rxe0 (LIO ramdisk LUN),
# dumps /proc/kallsyms for the host to map the counts to functions, runs
# every job once unmeasured (warm-up, INSN_WARMUP I/Os each) and then once
# measured, one fio process per job.  Our module twice gives the A/A
# spread of the instrument.
#
# Inside a window nothing but fio's I/O runs: fio and the mark library are
# copied to tmpfs, fio writes its JSON to tmpfs (copied to $RESULTS after the
# pass), this script only waits, and the disk has merging off (nomerges=2)
# and no I/O scheduler.  fio's buffers are in huge pages (iomem=shmhuge) so
# that a 64k or 128k buffer is one physically contiguous piece, not pages
# that merge into a varying number of segments; transparent huge pages
# (and khugepaged) are off.
#
# Writes $RESULTS/insn.jsonl, one JSON object a line, in this order:
#   {"kind":"meta",...}
#   {"kind":"syms","pass":"ours-1","driver":"ours","file":"insn/ours-1.kallsyms",
#    "srcversion":..,"taint":..}   (of the loaded ib_srpt)
#   {"kind":"window","seq":K,"pass":..,"driver":..,"job":..,"ios":N,...}
# where window K is the plugin's $OUT/windows/win-000K.tbs; and fio's
# output to $RESULTS/insn/.  tools/insn/insn-report makes the tables.
#
# Knobs (environment, set by scripts/bench --insn):
#   INSN_JOBS     "JOB:N ..." (job names of guest-bench.sh's job_args; N I/Os)
#   INSN_PASSES   drivers in order (ours, intree)
#   INSN_WARMUP   I/Os per job in the unmeasured warm-up (default 2000)
#   INSN_MARK_SO  the mark library (default $PROJECT/build/insn/insnmark.so)
#   INSN_BACKSTORES  backstores (guest-bench.sh's use_backstore: "rd",
#                 "nullio", "rd-direct", "nullio-direct"; default "rd
#                 nullio")
#   INSN_SLABS    slab settings (guest-bench.sh's set_slab: "default",
#                 "tuned"; default "tuned")
# Every slab setting and backstore is a configuration "BACKSTORE-SLAB"
# with all the passes; the records name it ("config"), and pass labels
# start with it (rd-tuned-ours-1).
#
# Exit status: 0 if every driver loaded, every login worked and every job
# ran its N I/Os inside a window; 1 otherwise.
set -uo pipefail

BENCH_LIB_ONLY=1 BENCH_MEM_LOGINS=0
# shellcheck source=tools/bench/guest-bench.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/guest-bench.sh"

: "${INSN_JOBS:=4k-randread-qd1:2000 4k-randread-qd32:2000 4k-randwrite-qd32:2000 64k-randrw-qd16:1000 128k-read-qd8:1000 128k-write-qd8:1000}"
: "${INSN_PASSES:=ours intree ours}"
: "${INSN_WARMUP:=2000}"
: "${INSN_MARK_SO:=$PROJECT/build/insn/insnmark.so}"
: "${INSN_BACKSTORES:=rd nullio}"
: "${INSN_SLABS:=tuned}"

RAW=$RESULTS/insn.jsonl
OUTD=$RESULTS/insn
TMPD=/tmp/insn
CASE_NAME=bench-insn

# tune_disk DEV: no merging, no I/O scheduler, no entropy from completions.
tune_disk() {
	local q=/sys/block/${1#/dev/}/queue
	echo 2 >"$q/nomerges" || return 1
	echo none >"$q/scheduler" || return 1
	[[ ! -w $q/add_random ]] || echo 0 >"$q/add_random"
}

# IOMEM: fio's iomem (shmhuge when huge pages could be reserved, see
# setup_mem; malloc otherwise).
IOMEM=malloc

# setup_mem: THP off; reserve 64 huge pages (128 MiB; fio's buffers of the
# biggest job, 4 x 1 MiB, take 2 or 3) and check that fio can use them.
setup_mem() {
	local t=/sys/kernel/mm/transparent_hugepage free
	[[ ! -w $t/enabled ]] || echo never >"$t/enabled"
	[[ ! -w $t/defrag ]] || echo never >"$t/defrag"
	echo 64 >/proc/sys/vm/nr_hugepages 2>/dev/null
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	if ((${free:-0} >= 8)) &&
		(cd "$TMPD" && ./fio --name=probe --filename="$TMPD/probe" --size=1M --bs=64k \
			--rw=write --iomem=shmhuge --number_ios=2 --output-format=terse) >/dev/null 2>&1; then
		IOMEM=shmhuge
	fi
	rm -f "$TMPD/probe"
	log "bench-insn: fio buffers: iomem=$IOMEM; THP $(cat "$t/enabled" 2>/dev/null)"
}

# The slab setting of each configuration (INSN_SLABS) is guest-bench.sh's
# set_slab: "tuned" lets SLUB keep up to 10000 empty slabs per cache and
# node instead of giving them back to the page allocator.  Without this
# (seen on 6.12) the caches that one I/O fills and the next empties (skbs,
# rxe's packets) free and allocate whole slabs inside the windows, each
# allocation clearing its pages (init_on_alloc): thousands of instructions
# per I/O that come and go from pass to pass, beyond the A/A bound.
# "default" leaves SLUB as booted, i.e. as a user's system runs.

# job_file FILE DEV N JOB...: a fio job file, the jobs one after the other
# (stonewall), N I/Os each.
job_file() {
	local f=$1 dev=$2 n=$3 job a
	shift 3
	{
		echo "[global]"
		echo "filename=$dev"
		echo "ioengine=libaio"
		echo "direct=1"
		echo "number_ios=$n"
		echo "randrepeat=1"
		echo "iomem=$IOMEM"
		echo "disk_util=0"
		echo "unified_rw_reporting=1"
		for job; do
			echo
			echo "[$job]"
			echo "stonewall"
			for a in $(job_args "$job"); do echo "${a#--}"; done
		done
	} >"$f"
}

# warm_up LABEL DEV: every job once, INSN_WARMUP I/Os each, no marks.
warm_up() {
	local label=$1 dev=$2 j jobs=()
	for j in $INSN_JOBS; do jobs+=("${j%%:*}"); done
	job_file "$TMPD/$label-warmup.fio" "$dev" "$INSN_WARMUP" "${jobs[@]}"
	log "$label: warm-up, $INSN_WARMUP I/Os per job"
	(cd "$TMPD" && ./fio --output-format=json --output="$TMPD/$label-warmup.json" \
		"$label-warmup.fio") >/dev/null ||
		die "$label: warm-up fio failed"
}

# measure LABEL DRIVER DEV JOB N: one window, fio's I/O loop of JOB with N
# I/Os; appends a "window" record.
SEQ=0
measure() {
	local label=$1 drv=$2 dev=$3 job=$4 n=$5 name out rc line rec
	name=$label-$job
	out=$TMPD/$name.json
	job_file "$TMPD/$name.fio" "$dev" "$n" "$job"
	rm -f "$TMPD/mark.log"
	(cd "$TMPD" && INSN_MARK_IOS=$n INSN_MARK_LOG=$TMPD/mark.log \
		LD_PRELOAD=$TMPD/insnmark.so ./fio --output-format=json \
		--output="$out" "$name.fio") >/dev/null
	rc=$?
	[[ $rc == 0 ]] || { tail -n 20 "$out"; die "fio ($name) exited with $rc"; }
	# "pid submitted completed", written after the stop mark.
	line=$(cat "$TMPD/mark.log" 2>/dev/null)
	[[ -n $line ]] || die "$name: no window (the mark library did not run)"
	[[ $(wc -l <"$TMPD/mark.log") == 1 ]] || die "$name: more than one window: $line"
	read -r _ sub comp <<<"$line"
	[[ $comp == "$n" && $sub == "$n" ]] ||
		die "$name: window with $sub submitted and $comp completed I/Os, expected $n"
	SEQ=$((SEQ + 1))
	rec=$(jq -c --argjson seq "$SEQ" --arg pass "$label" --arg drv "$drv" \
		--arg job "$job" --argjson n "$n" --arg cfg "$CUR_BS-$CUR_SLAB" '.jobs[0] as $j | {kind: "window",
		config: $cfg, seq: $seq, pass: $pass, driver: $drv, job: $job, ios: $n,
		fio_ios: $j.mixed.total_ios, error: $j.error,
		fio: ($pass + "-" + $job + ".json")}' "$out") ||
		die "cannot parse $out"
	record "$rec"
	jq -e '.error == 0 and .fio_ios == .ios' <<<"$rec" >/dev/null ||
		die "$name: fio error or I/O count: $rec"
	log "$name: window $SEQ, $n I/Os"
}

mkdir -p "$OUTD" "$TMPD" || die "cannot create $OUTD and $TMPD"
: >"$RAW"
[[ -f $SRPT_KO ]] || die "our module $SRPT_KO not found"
[[ -n $INTREE_KO ]] || die "no in-tree ib_srpt under /lib/modules/$KVER/kernel/drivers/infiniband/ulp/srpt"
[[ -f $INSN_MARK_SO ]] || die "mark library $INSN_MARK_SO not found"
for j in $INSN_JOBS; do
	[[ $j == *:* && ${j#*:} =~ ^[1-9][0-9]*$ ]] || die "INSN_JOBS: '$j' is not JOB:N"
	job_args "${j%%:*}" >/dev/null || die "unknown job ${j%%:*}"
done
for d in $INSN_PASSES; do
	[[ $d == ours || $d == intree ]] || die "INSN_PASSES: '$d' is neither ours nor intree"
done
# The copies the windows run from: tmpfs, not the 9p root.
{ cp "$(command -v fio)" "$TMPD/fio" && cp "$INSN_MARK_SO" "$TMPD/insnmark.so"; } ||
	die "cannot copy fio and the mark library to $TMPD"
echo 0 >/proc/sys/kernel/kptr_restrict
# With -icount sleep=off the guest clock jumps over the time the guest
# waits for the host idle (9p reads of module files): on a loaded host the
# hung-task detector then reports a modprobe waiting for its files (seen:
# "blocked for more than 61 seconds" in crc64_rocksoft_rehash while
# sd_mod loaded), and the run fails on that splat.
[[ ! -w /proc/sys/kernel/hung_task_timeout_secs ]] || echo 0 >/proc/sys/kernel/hung_task_timeout_secs
setup_mem
log "bench-insn: kernel $KVER, ours $SRPT_KO, in-tree $INTREE_KO, $(nproc) CPU(s)"
log "bench-insn: passes $INSN_PASSES; jobs $INSN_JOBS; warm-up $INSN_WARMUP I/Os per job"
record "$(jq -cn --arg k "$KVER" --arg o "$SRPT_KO" --arg i "$INTREE_KO" \
	--arg jobs "$INSN_JOBS" --arg passes "$INSN_PASSES" --argjson warm "$INSN_WARMUP" \
	--argjson cpus "$(nproc)" --arg lun "$LUN_SIZE" --arg fio "$(fio --version)" --arg iomem "$IOMEM" \
	--arg bss "$INSN_BACKSTORES" --arg slabs "$INSN_SLABS" '
	{kind: "meta", kver: $k, ours_ko: $o, intree_ko: $i,
	 backstores: ($bss | split(" ")), slabs: ($slabs | split(" ")),
	 configs: [($slabs | split(" "))[] as $s | ($bss | split(" "))[] | "\(.)-\($s)"],
	 jobs: ($jobs | split(" ") | map(split(":") | {job: .[0], ios: (.[1] | tonumber)})),
	 passes: ($passes | split(" ")), warmup_ios: $warm, guest_cpus: $cpus, ch: 1,
	 fio: $fio, disk: "nomerges=2, scheduler none, add_random 0", iomem: $iomem,
	 backstore: "LIO rd_mcp ramdisk, \($lun)"}')"

check_configs "$INSN_BACKSTORES" "$INSN_SLABS"

setup_rxe || die "soft-RoCE setup failed"
for sl in $INSN_SLABS; do
	for bs in $INSN_BACKSTORES; do
		use_backstore "$bs"
		set_slab "$sl"
		declare -A NPASS=()
		for drv in $INSN_PASSES; do
			NPASS[$drv]=$((${NPASS[$drv]:-0} + 1))
			label=$bs-$sl-$drv-${NPASS[$drv]}
			use_driver "$drv" 1
			tune_disk "$CUR_DEV" || die "cannot tune $CUR_DEV"
			{ cat /proc/kallsyms >"$TMPD/$label.kallsyms" && cp "$TMPD/$label.kallsyms" "$OUTD/"; } ||
				die "cannot save /proc/kallsyms"
			cp /proc/modules "$OUTD/$label.modules"
			sv="" taint=""
			[[ -r /sys/module/ib_srpt/srcversion ]] && read -r sv </sys/module/ib_srpt/srcversion
			read -r taint </sys/module/ib_srpt/taint
			record "$(jq -cn --arg p "$label" --arg d "$drv" --arg sv "$sv" --arg t "$taint" \
				--arg cfg "$bs-$sl" '{kind: "syms", config: $cfg, pass: $p, driver: $d, file: "insn/\($p).kallsyms",
				  srcversion: $sv, taint: $t}')"
			log "=== $label on $CUR_DEV"
			warm_up "$label" "$CUR_DEV"
			for j in $INSN_JOBS; do
				measure "$label" "$drv" "$CUR_DEV" "${j%%:*}" "${j#*:}"
			done
			cp "$TMPD/$label"-*.json "$TMPD/$label"-*.fio "$OUTD/" || die "cannot copy fio's output"
		done
		unset NPASS
	done
done
drop_driver
if dmesg | dmesg_splats >/dev/null; then
	dmesg | dmesg_splats | head -n 5
	die "kernel splat in the guest log"
fi
log "bench-insn: done, $SEQ windows"
