/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: receive buffers, their posting and reposting (srpt_ring.c).
 * Reposting a buffer frees a credit, which the next response takes
 * (srpt_take_credits()); both are inline, as every request reposts its
 * buffer and gets a response.
 */
#ifndef SRPT_RING_H
#define SRPT_RING_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "srpt.h"
#include "srpt_detach.h"
#include "srpt_param.h"
#include "srpt_device.h"

#define SRPT_IMM_ALIGN		512	/* alignment of immediate data */

/*
 * Entries of a receive buffer's own immediate-data scatterlist: 8 KiB at
 * any 512-byte boundary (the default srp_max_req_size) spans three pages.
 */
#define SRPT_RECV_IMM_SG	3

/**
 * struct srpt_recv_ioctx - a receive buffer
 * @cqe:	completion entry, done = srpt_recv_done()
 * @ch:		channel whose receive ring holds the buffer; for an SRQ
 *		buffer, the channel that received into it last
 * @sdev:	device whose SRQ the buffer belongs to, or NULL
 * @buf:	where IUs are received, srpt_max_req_size bytes; @pad bytes
 *		into the allocated (512-byte aligned) object
 * @dma:	DMA address of @buf
 * @mapped:	@dma is mapped (until the buffer's device goes)
 * @pad:	offset of @buf in its object: puts a channel's immediate data
 *		on a 512-byte boundary, as block devices want their buffers
 * @byte_len:	bytes received
 * @wait_entry:	entry in the channel's wait list while no command context
 *		is free
 * @sge:	the buffer as the receive request's one entry
 * @wr:		the receive request, set up once (srpt_alloc_recv_bufs())
 * @bad_wr:	where the device reports @wr as the request that failed to
 *		post (written on failure only, never read)
 * @imm_sg:	the immediate data of a command received here, page by page,
 *		kept for the next command with data at the same place
 *		(srpt_cmd_imm_sgl())
 * @imm_off:	offset in @buf of the data @imm_sg describes
 * @imm_len:	its length; 0 while @imm_sg describes nothing
 * @imm_nents:	entries of @imm_sg in use
 */
struct srpt_recv_ioctx {
	struct ib_cqe		cqe;
	struct srpt_channel	*ch;
	struct srpt_device	*sdev;
	void			*buf;
	u64			dma;
	bool			mapped;
	u32			byte_len;
	u32			pad;
	struct list_head	wait_entry;
	struct ib_sge		sge;
	struct ib_recv_wr	wr;
	const struct ib_recv_wr	*bad_wr;
	struct scatterlist	imm_sg[SRPT_RECV_IMM_SG];
	u32			imm_off;
	u32			imm_len;
	u32			imm_nents;
};

/**
 * srpt_opcode_uses_credit() - does a request IU spend one of the
 * initiator's credits?
 * @opcode: the IU's first byte
 *
 * SRP_CRED_RSP and SRP_AER_RSP answer the target's own requests and are
 * not counted against req_lim; everything else is.
 *
 * Return: true if the IU spends a credit.
 */
static inline bool srpt_opcode_uses_credit(u8 opcode)
{
	return opcode != SRPT_OP_CRED_RSP && opcode != SRPT_OP_AER_RSP;
}

void srpt_free_recv_bufs(struct ib_device *ib_dev, struct srpt_recv_ioctx *ring,
			 u32 n);
void srpt_unmap_recv_bufs(struct ib_device *ib_dev,
			  struct srpt_recv_ioctx *ring, u32 n);
int srpt_alloc_recv_bufs(struct ib_pd *pd, struct srpt_recv_ioctx *ring,
			 u32 n, u32 pad,
			 void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void srpt_repost_failed(struct srpt_channel *ch, int ret);

/**
 * srpt_post_recv() - post one receive buffer
 * @ch: channel owning the buffer (unused, may be NULL, for SRQ buffers)
 * @r: the buffer; SRQ buffers go to their device's SRQ
 *
 * The buffer goes back to the device first: the CPU has read it since the
 * last receive (srpt_recv_done() synced it for the CPU).  Inline: every
 * request reposts its buffer.
 *
 * The device's post_recv and post_srq_recv are called as ib_post_recv()
 * and ib_post_srq_recv() call them, with @r->bad_wr for the request that
 * failed: given NULL there, those wrappers pass the address of a local,
 * and every function this is inlined into would pay for a stack canary.
 *
 * Return: 0 or the errno of the post.
 */
static __always_inline int srpt_post_recv(struct srpt_channel *ch,
					  struct srpt_recv_ioctx *r)
{
	struct srpt_device *sdev = r->sdev;

	if (sdev) {
		ib_dma_sync_single_for_device(sdev->ib_dev, r->dma,
					      srpt_max_req_size,
					      DMA_FROM_DEVICE);
		return sdev->srq->device->ops.post_srq_recv(sdev->srq, &r->wr,
							    &r->bad_wr);
	}
	if (!ch->virt_dma)
		ib_dma_sync_single_for_device(ch->sport->sdev->ib_dev, r->dma,
					      srpt_max_req_size,
					      DMA_FROM_DEVICE);
	return ch->qp->device->ops.post_recv(ch->qp, &r->wr, &r->bad_wr);
}

/**
 * srpt_iu_uses_credit() - does a received IU spend one of the initiator's
 * credits?
 * @r: the receive buffer, byte_len set
 *
 * Return: true if the IU spends a credit (srpt_opcode_uses_credit()).
 */
static inline bool srpt_iu_uses_credit(const struct srpt_recv_ioctx *r)
{
	return srpt_opcode_uses_credit(r->byte_len ? *(u8 *)r->buf : 0xff);
}

/**
 * __srpt_repost_recv() - give a receive buffer back, which frees a credit
 * @ch: channel, attached to its device: the caller is in the receive path
 *	(which ends before the channel can detach, see srpt_ch_detach()) or
 *	checked srpt_ch_detached() in the same RCU read-side section
 * @r: the buffer
 *
 * A channel's own buffer is not posted once the channel is closing (it
 * stays idle until the ring is freed); an SRQ buffer always goes back to
 * the SRQ, which other channels share.  The buffer's IU must still be in
 * it: its opcode says whether reposting returns a credit.
 */
static __always_inline void __srpt_repost_recv(struct srpt_channel *ch,
					       struct srpt_recv_ioctx *r)
{
	bool live = READ_ONCE(ch->state) < SRPT_CH_DISCONNECTING;
	/* Before the post: the next IU may land in the buffer at once. */
	bool credit = live && srpt_iu_uses_credit(r);
	int ret;

	if (!live && !r->sdev)
		return;
	ret = srpt_post_recv(ch, r);
	if (unlikely(ret))
		srpt_repost_failed(ch, ret);
	else if (credit)
		atomic_inc(&ch->req_lim_delta);
}

/**
 * srpt_take_credits() - credits to return in the next response
 * @ch: channel
 *
 * Return: the receive buffers reposted since the last response.
 */
static inline s32 srpt_take_credits(struct srpt_channel *ch)
{
	s32 delta = atomic_xchg(&ch->req_lim_delta, 0);

	/* Before the response goes out: the initiator may use them at once. */
	if (delta)
		atomic_add(delta, &ch->req_lim);
	return delta;
}

/**
 * srpt_undo_credits() - a response carrying credits could not be posted
 * @ch: channel
 * @delta: the credits it carried
 */
static inline void srpt_undo_credits(struct srpt_channel *ch, s32 delta)
{
	atomic_add(delta, &ch->req_lim_delta);
	atomic_sub(delta, &ch->req_lim);
}

void srpt_repost_recv(struct srpt_channel *ch, struct srpt_recv_ioctx *r);
int srpt_ring_init(void);
void srpt_ring_exit(void);

#endif /* SRPT_RING_H */
