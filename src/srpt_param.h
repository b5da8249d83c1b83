/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: module parameters, the limits of the parameters and portal
 * group attributes, the module-wide data bound and the fault injection
 * (srpt_param.c).
 */
#ifndef SRPT_PARAM_H
#define SRPT_PARAM_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/sizes.h>

/* Limits of the module parameters and TPG attributes (see docs/). */
/*
 * Every value the in-tree ib_srpt of 6.1 and 6.12 accepts is accepted with
 * the same meaning (docs/configuration.md has the side-by-side table).
 */
#define SRPT_MIN_REQ_SIZE	64
#define SRPT_MAX_REQ_SIZE	SZ_1M
#define SRPT_DEF_REQ_SIZE	8276	/* 80 + 4 + 8 KiB immediate data */
#define SRPT_MIN_SRQ_SIZE	4
#define SRPT_MAX_SRQ_SIZE	65536
#define SRPT_DEF_SRQ_SIZE	4095

#define SRPT_MIN_RDMA_SIZE	SZ_4K
#define SRPT_MAX_RDMA_SIZE	SZ_16M
#define SRPT_DEF_RDMA_SIZE	SZ_64K
#define SRPT_MIN_RSP_SIZE	40	/* SRP_RSP header and 4 bytes */
#define SRPT_MAX_RSP_SIZE	4096
#define SRPT_DEF_RSP_SIZE	256
/* srp_sq_size takes 4..65535; a channel gets at least SRPT_MIN_SQ_SIZE. */
#define SRPT_MIN_SQ_ATTR	4
#define SRPT_MIN_SQ_SIZE	16
#define SRPT_MAX_SQ_SIZE	65535
#define SRPT_DEF_CMD_REPORT_SECS 60
#define SRPT_MAX_CMD_REPORT_SECS 86400
#define SRPT_DEF_KEEPALIVE_SECS	30
#define SRPT_MAX_KEEPALIVE_SECS	3600
/*
 * RNR retries of a channel's sends (rnr_retry): 7 means for ever, the
 * initiator's REQ then decides (ib_srp asks for 7).
 */
#define SRPT_DEF_RNR_RETRY	6
#define SRPT_MAX_RNR_RETRY	7
/* Seconds a keepalive probe may stay unacknowledged, at least. */
#define SRPT_KEEPALIVE_MIN_WAIT	10
#define SRPT_DEF_SQ_SIZE	1024
/* Channel limits of a portal group (0: none); a channel costs ~2 MiB. */
#define SRPT_DEF_MAX_CHANNELS	1024
#define SRPT_DEF_MAX_INI_CHANNELS 128
#define SRPT_MAX_CHANNELS_ATTR	65535
/*
 * Data of one command, and data buffers one channel holds at a time (a
 * channel's bound is at least the per-command one).
 */
#define SRPT_MIN_CMD_DATA	SZ_4K
#define SRPT_DEF_CHANNEL_DATA	SZ_128M
#define SRPT_MIN_CHANNEL_DATA	SZ_1M
#define SRPT_MAX_CHANNEL_DATA	SZ_1G
/*
 * Data buffers of all channels of one initiator (node ACL) in a portal
 * group, of a portal group and of the module, in MiB: at least one largest
 * command; the defaults follow the machine's memory (srpt_default_data_mb()).
 */
#define SRPT_MIN_SHARED_DATA_MB	(SRPT_MAX_CMD_DATA >> 20)
#define SRPT_MAX_SHARED_DATA_MB	SZ_4M	/* MiB: 4 TiB */
#define SRPT_MAX_CMD_DATA	SZ_32M		/* largest transfer of one command */

extern unsigned int srpt_max_req_size;
extern unsigned int srpt_srq_size;
u64 srpt_comp_vector_mask(void);
u64 srpt_service_guid(void);
void srpt_set_default_service_guid(u64 guid);
u16 srpt_get_rdma_cm_port(void);
int srpt_set_rdma_cm_port(u16 port);
extern atomic_t srpt_fail_post_send;
extern u32 srpt_max_qp_wr_cap;
extern u32 srpt_login_delay_ms;
extern bool srpt_keep_dma_maps;
extern bool srpt_direct_compl;
void srpt_logins_busy_inc(void);
void srpt_logins_busy_dec(void);
extern atomic_long_t srpt_data_held;
extern unsigned long srpt_data_limit_bytes;

/*
 * What idle channels keep (their kept pages and pools) is bounded module
 * wide too: all channels together keep at most the data bound
 * (max_data_mb) divided by this, shared equally among the channels that are
 * not releasing (srpt_ch_share_locked()); a releasing channel keeps
 * nothing.
 */
#define SRPT_IDLE_SHARE		4

/**
 * srpt_data_limit() - the bound on the data buffers of all channels
 *
 * Return: bytes (max_data_mb, or its default when it is 0).
 */
static inline unsigned long srpt_data_limit(void)
{
	return READ_ONCE(srpt_data_limit_bytes);
}

u32 srpt_default_data_mb(void);
extern long srpt_data_held_peak;

/**
 * srpt_data_peak() - note how much data buffers all channels hold
 * @held: bytes, just charged
 *
 * Racy on purpose: the peak is an observation for operators and tests
 * (debugfs ib_srpt/data), not a bound.
 */
static inline void srpt_data_peak(long held)
{
	if (unlikely(held > READ_ONCE(srpt_data_held_peak)))
		WRITE_ONCE(srpt_data_held_peak, held);
}

bool srpt_fault_post_send_take(void);

/**
 * srpt_fault_post_send() - should this send queue post fail?
 *
 * Return: true (and one injected failure fewer) while the debugfs counter
 * is set; one load when it is not.
 */
static inline bool srpt_fault_post_send(void)
{
	return unlikely(atomic_read(&srpt_fail_post_send)) &&
	       srpt_fault_post_send_take();
}

void srpt_param_defaults(void);
void srpt_param_init(void);
void srpt_param_exit(void);

#endif /* SRPT_PARAM_H */
