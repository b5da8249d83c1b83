/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: has a channel let go of its RDMA device?  Read by every I/O
 * path that touches the device (srpt_ch_detach() sets it).
 */
#ifndef SRPT_DETACH_H
#define SRPT_DETACH_H

#include <linux/rcupdate.h>

#include "srpt.h"

/**
 * __srpt_ch_detached() - has a channel let go of its RDMA device, for a
 * path that does not touch the device?
 * @ch: the channel
 *
 * Once set, @ch->detached stays set.  A path that only decides whether to
 * go on (the data of a write is here, a release tears down what is left)
 * reads it without rcu_read_lock(); every other reader uses
 * srpt_ch_detached().
 *
 * Return: true once srpt_ch_detach() started.
 */
static inline bool __srpt_ch_detached(const struct srpt_channel *ch)
{
	return unlikely(READ_ONCE(ch->detached));
}

/**
 * srpt_ch_detached() - has a channel let go of its RDMA device?
 * @ch: the channel
 *
 * Every I/O path that touches the device (posts, DMA syncs and unmaps,
 * rdma_rw contexts) calls this inside rcu_read_lock() and does its work
 * in the same read-side section only if it returns false: srpt_ch_detach()
 * sets @ch->detached and waits for those sections (synchronize_rcu())
 * before it destroys the QP and unmaps the buffers.
 *
 * Return: true once srpt_ch_detach() started.
 */
static inline bool srpt_ch_detached(const struct srpt_channel *ch)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "channel state read outside rcu_read_lock()");
	return __srpt_ch_detached(ch);
}

#endif /* SRPT_DETACH_H */
