// SPDX-License-Identifier: GPL-2.0-only
/*
 * insncount.so: a QEMU TCG plugin (plugin API v1, QEMU 7.2) that counts the
 * guest instructions executed between a start and a stop mark, per
 * translation block, for scripts/bench --insn.
 *
 * Every translated block (TB) gets an inline counter (one add per
 * execution, no helper call) in a record keyed by the TB's guest virtual
 * address and instruction count; a TB translated again (after a flush, or
 * a module reloaded at the same address) finds its record again.  The
 * marks are a 7-byte NOP that no compiler emits,
 *
 *	nopl 0x5352540N(%rax)		0f 1f 80 0N 54 52 53
 *
 * (N = 1 start, 2 stop), executed by the guest (tools/insn/insnmark.c,
 * preloaded into fio).  At translation the plugin looks for it in every
 * instruction and gives it an execution callback.  A start mark snapshots
 * every counter; a stop mark writes the difference of every counter that
 * moved to OUT/win-NNNN.tbs (NNNN counts windows from 1):
 *
 *	# insncount window N: T tbs, I insns
 *	<vaddr hex> <insns in the TB> <executions>
 *	...
 *
 * The host (tools/insn/insn-report) maps the addresses to kernel modules
 * and functions with the guest's /proc/kallsyms.  A TB is counted whole when
 * it starts: an exception in its middle (a page fault) counts the rest of
 * it too.  The counters are plain adds: with more than one vCPU they race,
 * so the plugin refuses to run on an SMP guest.
 *
 * Arguments: out=DIR (required; must exist).
 *
 * Only the few plugin API v1 declarations used here are spelled out below
 * (QEMU 7.2's include/qemu/qemu-plugin.h, which Debian does not ship);
 * QEMU checks qemu_plugin_version against the API it implements.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU plugin API v1 (the subset used) ---- */

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv);

/* ---- the mark ---- */

#define MARK_LEN 7
static const uint8_t mark_prefix[3] = { 0x0f, 0x1f, 0x80 };
static const uint8_t mark_magic[3] = { 0x54, 0x52, 0x53 };	/* "TRS" */
enum { MARK_START = 1, MARK_STOP = 2 };

/* ---- per-TB records ---- */

struct tbrec {
	uint64_t count;		/* executions since boot (the inline op) */
	uint64_t base;		/* count at the start mark */
	uint64_t vaddr;
	uint32_t ninsns;
};

/*
 * Records live in chunks that never move (the inline ops hold their
 * addresses); an open-addressing table of record numbers finds them.
 */
#define CHUNK_SHIFT 16
#define CHUNK_SIZE (1u << CHUNK_SHIFT)
#define MAX_CHUNKS 1024		/* 64 Mi records */

static struct tbrec *chunks[MAX_CHUNKS];
static uint32_t nrecs;
static uint32_t *table;		/* record number + 1; 0: empty */
static uint32_t table_size;	/* a power of two */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static char *outdir;
static bool in_window;
static unsigned int windows;
static uint64_t marks_ignored;

static inline struct tbrec *rec(uint32_t i)
{
	return &chunks[i >> CHUNK_SHIFT][i & (CHUNK_SIZE - 1)];
}

static inline uint32_t hash(uint64_t vaddr, uint32_t ninsns)
{
	uint64_t h = (vaddr ^ ((uint64_t)ninsns << 52)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32);
}

static void die(const char *msg)
{
	fprintf(stderr, "insncount: %s\n", msg);
	abort();
}

static void table_insert(uint32_t i)
{
	struct tbrec *r = rec(i);
	uint32_t mask = table_size - 1, h = hash(r->vaddr, r->ninsns) & mask;

	while (table[h])
		h = (h + 1) & mask;
	table[h] = i + 1;
}

static void table_grow(void)
{
	uint32_t i;

	free(table);
	table_size = table_size ? table_size * 2 : 1u << 20;
	table = calloc(table_size, sizeof(*table));
	if (!table)
		die("out of memory");
	for (i = 0; i < nrecs; i++)
		table_insert(i);
}

/* lookup: the record of (vaddr, ninsns), created if new; lock held. */
static struct tbrec *lookup(uint64_t vaddr, uint32_t ninsns)
{
	uint32_t mask, h, i;
	struct tbrec *r;

	if (table_size) {
		mask = table_size - 1;
		for (h = hash(vaddr, ninsns) & mask; table[h]; h = (h + 1) & mask) {
			r = rec(table[h] - 1);
			if (r->vaddr == vaddr && r->ninsns == ninsns)
				return r;
		}
	}
	/* New record; keep the table at most half full. */
	if ((uint64_t)(nrecs + 1) * 2 > table_size)
		table_grow();
	i = nrecs;
	if ((i >> CHUNK_SHIFT) >= MAX_CHUNKS)
		die("too many translation blocks");
	if (!chunks[i >> CHUNK_SHIFT]) {
		chunks[i >> CHUNK_SHIFT] = calloc(CHUNK_SIZE, sizeof(struct tbrec));
		if (!chunks[i >> CHUNK_SHIFT])
			die("out of memory");
	}
	r = rec(i);
	r->vaddr = vaddr;
	r->ninsns = ninsns;
	/* Counted from 0: a record born in a window counts from its start. */
	r->count = 0;
	r->base = 0;
	nrecs++;
	table_insert(i);
	return r;
}

/* ---- windows ---- */

static void window_start(void)
{
	uint32_t i;

	for (i = 0; i < nrecs; i++)
		rec(i)->base = rec(i)->count;
	in_window = true;
}

static void window_stop(void)
{
	uint64_t insns = 0, tbs = 0, d;
	char *path, *tmp, msg[256];
	struct tbrec *r;
	uint32_t i;
	FILE *f;

	in_window = false;
	windows++;
	if (asprintf(&path, "%s/win-%04u.tbs", outdir, windows) < 0 ||
	    asprintf(&tmp, "%s.tmp", path) < 0)
		die("out of memory");
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "insncount: cannot write %s\n", tmp);
		abort();
	}
	for (i = 0; i < nrecs; i++) {
		r = rec(i);
		d = r->count - r->base;
		if (!d)
			continue;
		insns += d * r->ninsns;
		tbs++;
	}
	fprintf(f, "# insncount window %u: %" PRIu64 " tbs, %" PRIu64 " insns\n",
		windows, tbs, insns);
	for (i = 0; i < nrecs; i++) {
		r = rec(i);
		d = r->count - r->base;
		if (d)
			fprintf(f, "%" PRIx64 " %u %" PRIu64 "\n", r->vaddr,
				r->ninsns, d);
	}
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "insncount: cannot write %s\n", path);
		abort();
	}
	snprintf(msg, sizeof(msg), "insncount: window %u: %" PRIu64 " insns in %" PRIu64 " tbs\n",
		 windows, insns, tbs);
	qemu_plugin_outs(msg);
	free(path);
	free(tmp);
}

static void mark_exec(unsigned int vcpu_index, void *userdata)
{
	uintptr_t code = (uintptr_t)userdata;

	(void)vcpu_index;
	pthread_mutex_lock(&lock);
	if (code == MARK_START && !in_window)
		window_start();
	else if (code == MARK_STOP && in_window)
		window_stop();
	else
		marks_ignored++;	/* a stop without a start, or two starts */
	pthread_mutex_unlock(&lock);
}

/* ---- translation ---- */

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct qemu_plugin_insn *insn;
	const uint8_t *p;
	struct tbrec *r;

	(void)id;
	pthread_mutex_lock(&lock);
	r = lookup(qemu_plugin_tb_vaddr(tb), (uint32_t)n);
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &r->count, 1);
	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		if (qemu_plugin_insn_size(insn) != MARK_LEN)
			continue;
		p = qemu_plugin_insn_data(insn);
		if (memcmp(p, mark_prefix, 3) || memcmp(p + 4, mark_magic, 3) ||
		    (p[3] != MARK_START && p[3] != MARK_STOP))
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
						       QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)p[3]);
	}
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	char msg[256];

	(void)id;
	(void)userdata;
	snprintf(msg, sizeof(msg),
		 "insncount: %u windows, %u translation blocks, %" PRIu64 " marks ignored%s\n",
		 windows, nrecs, marks_ignored, in_window ? ", a window still open" : "");
	qemu_plugin_outs(msg);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			outdir = strdup(argv[i] + 4);
		} else {
			fprintf(stderr, "insncount: unknown argument '%s' (want out=DIR)\n",
				argv[i]);
			return -1;
		}
	}
	if (!outdir || !*outdir) {
		fprintf(stderr, "insncount: out=DIR missing\n");
		return -1;
	}
	if (info->system_emulation && info->system.max_vcpus > 1) {
		fprintf(stderr, "insncount: %d vCPUs possible: run with -smp 1 (the counters are not atomic)\n",
			info->system.max_vcpus);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
