// SPDX-License-Identifier: GPL-2.0-only
/*
 * insnmark.so: preloaded into fio in the guest (LD_PRELOAD) by
 * tools/bench/guest-bench-insn.sh, it executes the start and stop marks of
 * tools/insn/insncount.c around exactly fio's I/O loop: the start mark as
 * the job's first io_submit() begins, the stop mark when io_getevents() has
 * returned the INSN_MARK_IOS-th completion (fio --number_ios issues exactly
 * that many).  So neither fio's start-up nor its teardown is counted, and
 * no process is started inside the window.
 *
 * Environment: INSN_MARK_IOS=N (without it the library does nothing);
 * INSN_MARK_LOG=FILE: after the stop mark, one line "pid submitted
 * completed" is appended to FILE (outside the window), for the guest
 * script's check.  If the job ends before N completions (io_destroy), the
 * stop mark comes then and the line shows the shortfall.
 *
 * fio calls libaio's io_submit, io_getevents and io_destroy through the
 * dynamic linker: these definitions come first and call libaio's.
 *
 * shmat() too: with iomem=shmhuge fio's I/O buffers are a System V segment
 * in huge pages, which the kernel would fault in (and clear: 2 MiB each) at
 * the first I/O into them, inside the window.  The wrapper touches every
 * page of the segment as it is attached, long before the first io_submit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

typedef struct io_context *io_context_t;
struct iocb;
struct io_event;

/* The marks: nopl 0x53525401(%rax) and nopl 0x53525402(%rax). */
#define MARK_START() asm volatile(".byte 0x0f, 0x1f, 0x80, 0x01, 0x54, 0x52, 0x53" ::: "memory")
#define MARK_STOP() asm volatile(".byte 0x0f, 0x1f, 0x80, 0x02, 0x54, 0x52, 0x53" ::: "memory")

static int (*real_submit)(io_context_t, long, struct iocb **);
static int (*real_getevents)(io_context_t, long, long, struct io_event *,
			     struct timespec *);
static int (*real_destroy)(io_context_t);
static void *(*real_shmat)(int, const void *, int);

static long want = -1;		/* INSN_MARK_IOS; 0: inactive */
static long submitted, completed;
static int state;		/* 0 before, 1 in the window, 2 after */

static void init(void)
{
	const char *s = getenv("INSN_MARK_IOS");

	want = s ? atol(s) : 0;
	if (want < 0)
		want = 0;
}

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "insnmark: no %s after the preload\n", name);
		abort();
	}
	return f;
}

static void stop(void)
{
	const char *log;
	FILE *f;

	MARK_STOP();
	state = 2;
	log = getenv("INSN_MARK_LOG");
	if (log && *log) {
		f = fopen(log, "a");
		if (f) {
			fprintf(f, "%ld %ld %ld\n", (long)getpid(), submitted,
				completed);
			fclose(f);
		}
	}
}

int io_submit(io_context_t ctx, long nr, struct iocb **iocbs)
{
	int r;

	if (!real_submit)
		real_submit = next("io_submit");
	if (want < 0)
		init();
	if (want > 0 && state == 0) {
		state = 1;
		MARK_START();
	}
	r = real_submit(ctx, nr, iocbs);
	if (state == 1 && r > 0)
		submitted += r;
	return r;
}

int io_getevents(io_context_t ctx, long min_nr, long nr,
		 struct io_event *events, struct timespec *timeout)
{
	int r;

	if (!real_getevents)
		real_getevents = next("io_getevents");
	r = real_getevents(ctx, min_nr, nr, events, timeout);
	if (state == 1 && r > 0) {
		completed += r;
		if (completed >= want)
			stop();
	}
	return r;
}

int io_destroy(io_context_t ctx)
{
	if (!real_destroy)
		real_destroy = next("io_destroy");
	if (state == 1)
		stop();
	return real_destroy(ctx);
}

void *shmat(int shmid, const void *addr, int flags)
{
	struct shmid_ds ds;
	volatile char *c;
	void *p;
	size_t o;

	if (!real_shmat)
		real_shmat = next("shmat");
	p = real_shmat(shmid, addr, flags);
	if (want < 0)
		init();
	if (want <= 0 || p == (void *)-1 || (flags & SHM_RDONLY) ||
	    shmctl(shmid, IPC_STAT, &ds))
		return p;
	/* Fault every page in; the contents are fio's to fill later. */
	c = p;
	for (o = 0; o < ds.shm_segsz; o += 4096)
		c[o] = c[o];
	return p;
}
