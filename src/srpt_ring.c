// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: receive buffers.
 *
 * A receive buffer holds one IU; posted, it is a credit of its channel (or,
 * in a shared receive queue, of every channel using it).  This file
 * allocates and maps them, posts them, and gives a buffer back once its
 * request no longer needs it: srpt_repost_recv() is where a credit is freed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "srpt_ring.h"
#include "srpt_qp.h"

/* Receive buffers of srpt_max_req_size bytes, for every channel. */
static struct kmem_cache *srpt_recv_cache;

/**
 * srpt_recv_buf_unmap() - unmap a receive buffer if it is mapped
 * @ib_dev: device it is mapped for
 * @r: the buffer, not posted
 */
static void srpt_recv_buf_unmap(struct ib_device *ib_dev,
				struct srpt_recv_ioctx *r)
{
	if (!r->mapped)
		return;
	ib_dma_unmap_single(ib_dev, r->dma - r->pad,
			    srpt_max_req_size + r->pad, DMA_FROM_DEVICE);
	r->mapped = false;
}

/**
 * srpt_free_recv_bufs() - unmap and free receive buffers
 * @ib_dev: device they are mapped for (not used for those unmapped already)
 * @ring: the buffers; none may be posted any more
 * @n: number of entries in @ring
 */
void srpt_free_recv_bufs(struct ib_device *ib_dev, struct srpt_recv_ioctx *ring,
			 u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct srpt_recv_ioctx *r = &ring[i];

		if (!r->buf)
			continue;
		srpt_recv_buf_unmap(ib_dev, r);
		kmem_cache_free(srpt_recv_cache, r->buf - r->pad);
		r->buf = NULL;
	}
}

/**
 * srpt_unmap_recv_bufs() - unmap receive buffers, keeping their memory
 * @ib_dev: device they are mapped for, about to go away
 * @ring: the buffers; none may be posted any more
 * @n: number of entries in @ring
 *
 * For a channel that outlives its device (srpt_ch_detach()): requests in
 * the backend may still use immediate data in the buffers, which
 * srpt_free_recv_bufs() frees later.
 */
void srpt_unmap_recv_bufs(struct ib_device *ib_dev,
			  struct srpt_recv_ioctx *ring, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		srpt_recv_buf_unmap(ib_dev, &ring[i]);
}

/**
 * srpt_alloc_recv_bufs() - allocate and map receive buffers
 * @pd: protection domain of the device to map them for
 * @ring: zeroed array of @n entries
 * @n: number of buffers
 * @pad: where in each (512-byte aligned) object IUs are received, below
 *	%SRPT_IMM_ALIGN
 * @done: completion handler of the buffers' receives
 *
 * Return: 0, or -ENOMEM with nothing left allocated.
 */
int srpt_alloc_recv_bufs(struct ib_pd *pd, struct srpt_recv_ioctx *ring,
			 u32 n, u32 pad,
			 void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct ib_device *ib_dev = pd->device;
	u32 i;

	for (i = 0; i < n; i++) {
		struct srpt_recv_ioctx *r = &ring[i];
		void *obj;
		u64 dma;

		r->cqe.done = done;
		INIT_LIST_HEAD(&r->wait_entry);
		obj = kmem_cache_alloc(srpt_recv_cache, GFP_KERNEL);
		if (!obj)
			goto nomem;
		dma = ib_dma_map_single(ib_dev, obj, srpt_max_req_size + pad,
					DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ib_dev, dma)) {
			kmem_cache_free(srpt_recv_cache, obj);
			goto nomem;
		}
		r->pad = pad;
		r->buf = obj + pad;
		r->dma = dma + pad;
		r->mapped = true;
		/* The receive request, posted as it is every time. */
		r->sge.addr = r->dma;
		r->sge.length = srpt_max_req_size;
		r->sge.lkey = pd->local_dma_lkey;
		r->wr.wr_cqe = &r->cqe;
		r->wr.sg_list = &r->sge;
		r->wr.num_sge = 1;
	}
	return 0;

nomem:
	srpt_free_recv_bufs(ib_dev, ring, n);
	return -ENOMEM;
}

/**
 * srpt_repost_failed() - a receive buffer could not be reposted
 * @ch: channel
 * @ret: the errno of the post
 *
 * The buffer is lost to the channel (a QP that refuses posts is broken
 * anyway): the channel is closed.
 */
void srpt_repost_failed(struct srpt_channel *ch, int ret)
{
	pr_warn_ratelimited("%s: reposting a receive failed (%d)\n",
			    ch->sess_name, ret);
	srpt_ch_close(ch, "receive post failed");
}

/**
 * srpt_repost_recv() - __srpt_repost_recv() from any context
 * @ch: channel
 * @r: the buffer
 *
 * Nothing is posted once the channel detached from its device (which is
 * going away with any SRQ).
 */
void srpt_repost_recv(struct srpt_channel *ch, struct srpt_recv_ioctx *r)
{
	rcu_read_lock();
	if (!srpt_ch_detached(ch))
		__srpt_repost_recv(ch, r);
	rcu_read_unlock();
}

/**
 * srpt_ring_init() - create the cache receive buffers come from
 *
 * Each object has room to move the IU so that immediate data is 512-byte
 * aligned (see srpt_alloc_recv_bufs()).
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_ring_init(void)
{
	srpt_recv_cache = kmem_cache_create("ib_srpt_recv_buf",
					    srpt_max_req_size +
					    SRPT_IMM_ALIGN - 1,
					    SRPT_IMM_ALIGN, 0, NULL);
	return srpt_recv_cache ? 0 : -ENOMEM;
}

/**
 * srpt_ring_exit() - destroy the receive buffer cache; none may be left
 */
void srpt_ring_exit(void)
{
	kmem_cache_destroy(srpt_recv_cache);
}
