#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/insn/test-report.sh [INSN-REPORT]: insn-report on a synthetic run
# directory (no guest, no QEMU): three passes (ours, intree, ours) of two
# jobs, their kallsyms dumps and windows, and a host.json; checks the
# report's figures and its exit statuses on broken inputs.
#
# INSN-REPORT defaults to build/insn/insn-report of the repository; with
# KEEP=DIR, the run directory is left in DIR (which must not exist).
# Exit status: 0 if all checks pass, 1 otherwise.

set -u
BIN=${1:-$(dirname "$0")/../../build/insn/insn-report}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
FAIL=0

fail() { echo "test-report: FAIL: $*" >&2; FAIL=1; }

# kallsyms PASS IB_SRPT_BASE: a small /proc/kallsyms dump.
kallsyms() {
	cat <<EOF
ffffffff81000000 T _stext
ffffffff81001000 T __pfx_do_syscall_64
ffffffff81001010 T do_syscall_64
ffffffff81002000 t blk_mq_submit_bio
ffffffff81003000 D jiffies
ffffffff81004000 W memcpy
${2}2000 t srpt_queue_response	[ib_srpt]
${2}2800 t srpt_recv_done	[ib_srpt]
ffffffffc0010000 t rxe_requester	[rdma_rxe]
ffffffffc0011000 t rxe_responder	[rdma_rxe]
ffffffffc0020000 T target_execute_cmd	[target_core_mod]
ffffffffc0030000 t p9_client_rpc	[9pnet]
EOF
}

# window SEQ IB_SRPT_BASE SCALE: a window's blocks and their header.
window() {
	local s=$3
	printf '%s %s %s\n' \
		401000 5 $((1000 * s)) \
		ffffffff81001010 7 $((3001 * s)) \
		ffffffff81002010 11 $((997 * s)) \
		ffffffff81004020 3 $((2503 * s)) \
		"$2"2010 9 $((1200 * s)) \
		"$2"2820 4 $((650 * s)) \
		ffffffffc0010040 13 $((801 * s)) \
		ffffffffc0011000 6 $((333 * s)) \
		ffffffffc0020008 8 $((407 * s)) \
		ffffffffc0400000 2 $((5 * s)) |
	awk -v seq="$1" '{ n += $2 * $3; t++; l[t] = $0 }
		END { printf "# insncount window %d: %d tbs, %d insns\n", seq, t, n
		      for (i = 1; i <= t; i++) print l[i] }'
}

D=${KEEP:-$T/run}
mkdir -p "$D/insn" "$D/windows"
kallsyms ours-1 ffffffffc010 >"$D/insn/ours-1.kallsyms"
kallsyms intree-1 ffffffffc014 >"$D/insn/intree-1.kallsyms"
kallsyms ours-2 ffffffffc018 >"$D/insn/ours-2.kallsyms"
{
	echo '{"kind":"meta","kver":"6.1.0-test","ours_ko":"/results/ib_srpt.ko","intree_ko":"/lib/modules/6.1.0-test/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko","jobs":[{"job":"randread-4k","ios":1000},{"job":"write-64k","ios":997}],"passes":["ours","intree","ours"],"warmup_ios":200,"guest_cpus":1,"ch":1,"fio":"fio-3.33","disk":"nomerges=2, scheduler none, add_random 0","iomem":"shmhuge","backstore":"LIO rd_mcp ramdisk, 64M"}'
	seq=0
	for p in ours-1:ours:ffffffffc010:10 intree-1:intree:ffffffffc014:12 ours-2:ours:ffffffffc018:10; do
		IFS=: read -r pass drv base scale <<<"$p"
		if [[ $drv == ours ]]; then sv=0123456789ABCDEF0123456 taint=OE; else sv="" taint=""; fi
		echo "{\"kind\":\"syms\",\"pass\":\"$pass\",\"driver\":\"$drv\",\"file\":\"insn/$pass.kallsyms\",\"srcversion\":\"$sv\",\"taint\":\"$taint\"}"
		for j in randread-4k:1000 write-64k:997; do
			seq=$((seq + 1))
			# The second ours pass runs a little longer: an A/A spread.
			s=$((scale * ${j#*:} / 100))
			[[ $pass == ours-2 ]] && s=$((s + seq))
			window $seq $base $s >"$D/windows/$(printf win-%04d.tbs $seq)"
			echo "{\"kind\":\"window\",\"seq\":$seq,\"pass\":\"$pass\",\"driver\":\"$drv\",\"job\":\"${j%%:*}\",\"ios\":${j#*:},\"fio_ios\":${j#*:},\"error\":0,\"fio\":\"$pass-${j%%:*}.json\"}"
		done
	done
} >"$D/insn.jsonl"
echo '{"date":"2026-12-02T05:00:00+00:00","host":"builder","commit":"e8ca7e6","icount":null,"wall_s":812,"qemu_s":640.123456789,"guest_boot_s":3.5}' >"$D/host.json"

# run NAME WANT-STATUS [ARGS...]: insn-report's status and stderr.
run() {
	local name=$1 want=$2 rc
	shift 2
	"$BIN" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[[ $rc == "$want" ]] || fail "$name: exit status $rc, want $want ($(head -c 300 "$T/err"))"
}

# expect FILE REGEX: FILE has a line matching REGEX.
expect() { grep -Eq -- "$2" "$1" || fail "$(basename "$1") has no line like '$2'"; }

run "good run" 0 "$D"
cmp -s "$T/out" "$D/insn.txt" || fail "stdout is not insn.txt"
expect "$D/insn.txt" '^ib_srpt instruction counts: ours \(e8ca7e6\) vs the in-tree ib_srpt, kernel 6\.1\.0-test, 2026-12-02T05:00:00\+00:00$'
expect "$D/insn.txt" '^passes in order: ours-1, intree-1, ours-2; '
expect "$D/insn.txt" '^randread-4k +1000 \| +7540 +8827 +0\.854 \| +1374 +1608 +0\.854 \| +334 +391 \| +4\.88%$'
expect "$D/insn.txt" '^A/A \(our module in 2 passes .*: whole guest max 5\.882%, mean 5\.380%; inside ib_srpt max 5\.882%$'
expect "$D/insn.txt" '^ +1107\.0 +1296\.0 +-189\.0 +54\.0  ib_srpt:srpt_queue_response$'
expect "$D/insn.txt" '^Run time: 812 s in all .*; QEMU ran 640\.123 s$'
jq -e '
	(.passes | map(.pass)) == ["ours-1", "intree-1", "ours-2"] and
	(.jobs | map(.job)) == ["randread-4k", "write-64k"] and
	.jobs[0].per_pass["ours-1"].insns == 7356000 and
	.jobs[0].per_pass["ours-1"].total == 7356 and
	.jobs[0].per_pass["ours-1"].modules == {"[kernel]": 1, "[user]": 500,
		"ib_srpt": 1340, "rdma_rxe": 1241.1, "target_core_mod": 325.6,
		"vmlinux": 3948.3} and
	.jobs[0].aa == {"passes": 2, "total_pct": 4.87805, "ib_srpt_pct": 4.87805} and
	.meta.qemu_s == 640.123 and .meta.icount == null and
	(.meta | keys_unsorted) == ["kind", "kver", "ours_ko", "intree_ko", "jobs",
		"passes", "warmup_ios", "guest_cpus", "ch", "fio", "disk", "iomem",
		"backstore", "date", "host", "commit", "icount", "wall_s", "qemu_s",
		"guest_boot_s"]' "$D/insn.json" >/dev/null ||
	fail "insn.json: unexpected figures"

run "no DIR" 2
run "two DIRs" 2 "$D" "$D"
run "--help" 0 --help
expect "$T/out" '^usage: insn-report DIR'
run "missing DIR" 1 "$T/nonexistent"

cp -r "$D" "$T/bad"
sed -i '3s/}$//' "$T/bad/insn.jsonl"
run "bad JSON" 1 "$T/bad"
expect "$T/err" '^insn-report: bad JSON'

rm -rf "$T/bad" && cp -r "$D" "$T/bad"
rm "$T/bad/windows/win-0006.tbs"
run "missing window" 1 "$T/bad"
expect "$T/err" '^insn-report: 6 windows recorded by the guest, 5 written by the plugin$'

rm -rf "$T/bad" && cp -r "$D" "$T/bad"
sed -i '1s/ insns$/1 insns/' "$T/bad/windows/win-0002.tbs"
run "window sum" 1 "$T/bad"
expect "$T/err" '^insn-report: .*/win-0002.tbs: the blocks add up to [0-9]+ instructions, the header says [0-9]+$'

# --lines: a module object with debug information (two functions of a C
# file), a pass's symbols placing them in ib_srpt, one window of 1000 I/Os
# that runs all of work() once per I/O, other() twice and a block that
# starts inside an instruction (code patched at load time) once.
L=$T/lines
mkdir -p "$L/insn" "$L/windows"
printf '%s\n' 'int work(int *p, int n)' '{' '	int s = 0;' '' \
	'	for (int i = 0; i < n; i++)' '		s += p[i] * 3;' '	return s;' '}' '' \
	'long other(long a, long b)' '{' '	return a * b + 7;' '}' >"$L/lines.c"
if ! gcc -O2 -g -c -o "$L/lines.o" "$L/lines.c"; then
	fail "--lines: cannot compile the test object"
else
	# insns FUNCTION: the offsets of FUNCTION's instructions, one a line.
	insns() {
		local a base="" on=0 line
		while IFS= read -r line; do
			if [[ $line =~ ^([0-9a-f]+)\ \<$1\>:$ ]]; then
				on=1 base=$((16#${BASH_REMATCH[1]}))
			elif ((on)) && [[ -z $line ]]; then
				break
			elif ((on)) && [[ $line =~ ^\ +([0-9a-f]+): ]]; then
				a=$((16#${BASH_REMATCH[1]}))
				echo $((a - base))
			fi
		done < <(objdump -d --no-show-raw-insn "$L/lines.o")
	}
	nw=$(insns work | wc -l) no=$(insns other | wc -l)
	# The second instruction's offset: above 1 when the first instruction
	# is longer than a byte, and then offset 1 starts no instruction.
	mid=$(insns work | sed -n 2p)
	{
		echo "ffffffff81000000 T _stext"
		printf 'ffffffffc0102000 t work\t[ib_srpt]\n'
		printf 'ffffffffc0102800 t other\t[ib_srpt]\n'
		printf 'ffffffffc0110000 t rxe_requester\t[rdma_rxe]\n'
	} >"$L/insn/ours-1.kallsyms"
	{
		echo '{"kind":"meta","kver":"6.1.0-test"}'
		echo '{"kind":"syms","pass":"ours-1","driver":"ours","file":"insn/ours-1.kallsyms"}'
		echo '{"kind":"window","seq":1,"pass":"ours-1","driver":"ours","job":"randread-4k","ios":1000}'
	} >"$L/insn.jsonl"
	{
		echo "# insncount window 1: 4 tbs"
		echo "ffffffffc0102000 $nw 1000"
		echo "ffffffffc0102800 $no 2000"
		echo "ffffffffc0110000 50 1000"
		((mid > 1)) && echo "ffffffffc0102001 1 1000"
	} >"$L/windows/win-0001.tbs"
	extra=$((mid > 1 ? 1 : 0))
	run "--lines" 0 --lines "$L/lines.o" --top 100 "$L"
	expect "$T/out" "^== ours-1 randread-4k, 1000 I/Os: $((nw + 2 * no + extra))\\.0 instructions per I/O inside ib_srpt"
	((extra)) && expect "$T/out" "\\(1\\.0 in blocks that start inside an instruction of "
	expect "$T/out" "per function: work $((nw + extra))\\.0 other $((2 * no))\\.0\$"
	expect "$T/out" "^ +[0-9.]+  work  lines\\.c:6\$"
	expect "$T/out" "^ +[0-9.]+  other  lines\\.c:1[23]\$"
	sum=$(awk '/  (work|other)  lines\.c:/ { s += $1 } END { print s }' "$T/out")
	[[ $sum == $((nw + 2 * no)) ]] || fail "--lines: the lines add up to $sum, not $((nw + 2 * no))"
	run "--lines, no such pass" 1 --lines "$L/lines.o" --pass nope "$L"
	expect "$T/err" "^insn-report: no symbols for pass 'nope'"
	run "--lines, not an object" 1 --lines "$L/lines.c" "$L"
	expect "$T/err" "^insn-report: objdump found no functions in "
fi

[[ $FAIL == 0 ]] && echo "test-report: all checks passed"
exit $FAIL
