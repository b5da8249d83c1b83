// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: receive completions and their dispatch.
 *
 * receive completion -> srpt_handle_iu()
 *   SRP_CMD, SRP_TSK_MGMT: srpt_cmd.c
 *   SRP_I_LOGOUT:          the channel is closed
 *   SRP_CRED_RSP, SRP_AER_RSP: the buffer is reposted
 * A request that finds no free command context (or no room for its data)
 * waits on the channel's wait list, in arrival order, until a context is
 * put back.  The device's shared receive queue is created here, on the
 * first login that asks for it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <scsi/scsi_proto.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_recv.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_qp.h"
#include "srpt_ring.h"
#include "srpt_sq.h"
#include "srpt_cmd.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

/**
 * srpt_handle_iu() - dispatch a received IU
 * @ch: channel
 * @r: receive buffer
 *
 * Return: false if the request must wait for a free command context or
 * for the channel's commands to hold less data (it is then left
 * untouched).
 */
static bool srpt_handle_iu(struct srpt_channel *ch, struct srpt_recv_ioctx *r)
{
	struct srpt_send_ioctx *ioctx;
	u8 opcode = r->byte_len ? *(u8 *)r->buf : 0xff;

	if (unlikely(READ_ONCE(ch->t_logout))) {
		/* Logging the initiator out: nothing more is handled. */
		srpt_repost_recv(ch, r);
		return true;
	}
	switch (opcode) {
	case SRPT_OP_CMD:
	case SRPT_OP_TSK_MGMT:
		ioctx = srpt_get_ioctx(ch);
		if (!ioctx)
			return false;
		if (opcode == SRPT_OP_TSK_MGMT)
			srpt_handle_tmf(ch, r, ioctx);
		else if (!srpt_handle_cmd(ch, r, ioctx))
			return false;
		break;
	case SRPT_OP_I_LOGOUT:
		srpt_ch_close(ch, "SRP_I_LOGOUT from the initiator");
		/* Gives an SRQ buffer back to the SRQ; a ring buffer stays. */
		srpt_repost_recv(ch, r);
		break;
	case SRPT_OP_CRED_RSP:
	case SRPT_OP_AER_RSP:
		srpt_repost_recv(ch, r);
		break;
	default:
		atomic64_inc(&ch->stats.malformed);
		trace_srpt_bad_iu(ch->id, opcode, r->byte_len, -EOPNOTSUPP);
		pr_warn_ratelimited("%s: IU with invalid type 0x%02x (%u bytes): logging the initiator out\n",
				    ch->sess_name, opcode, r->byte_len);
		srpt_repost_recv(ch, r);
		srpt_t_logout(ch, SRPT_T_LOGOUT_INVALID_IU_TYPE);
		break;
	}
	return true;
}

/**
 * srpt_wait_later() - put a request on the wait list
 * @ch: channel
 * @r: the request
 * @head: at the head (srpt_process_wait_list() took it from there and
 *	could not handle it) rather than the tail
 *
 * Every context put back runs the list (srpt_put_ioctx()); when none is in
 * use any more, nothing would: then it runs now, and finds what it waited
 * for (no context busy means no data buffer held either).
 */
static void srpt_wait_later(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
			    bool head)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (head) {
		list_add(&r->wait_entry, &ch->wait_list);
		ch->wait_busy = false;
	} else {
		list_add_tail(&r->wait_entry, &ch->wait_list);
	}
	if (!ch->n_busy && ch->state == SRPT_CH_LIVE)
		queue_work(srpt_system_wq, &ch->wait_work);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_process_wait_list() - handle requests that had to wait
 * @ch: channel
 *
 * Requests wait while the channel is connecting (IB/CM: before the RTU the
 * QP cannot send) or while every command context is in use.  Once the
 * channel closes they are dropped; their buffers are freed with the ring.
 *
 * Only the channel's wait work runs this (a work item never runs twice at
 * once).  The request being handled is off the list (its buffer may be
 * reposted and receive again meanwhile), so @ch->wait_busy stands in for
 * it: a request that arrives then queues behind it, as it would have
 * behind the list (an ABORT TASK must not overtake the command it names).
 */
static void srpt_process_wait_list(struct srpt_channel *ch)
{
	struct srpt_recv_ioctx *r;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->state != SRPT_CH_LIVE) {
			ch->wait_busy = false;
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		r = list_first_entry_or_null(&ch->wait_list,
					     struct srpt_recv_ioctx,
					     wait_entry);
		if (r)
			list_del_init(&r->wait_entry);
		ch->wait_busy = !!r;
		spin_unlock_irqrestore(&ch->lock, flags);
		if (!r)
			return;
		if (!srpt_handle_iu(ch, r)) {
			srpt_wait_later(ch, r, true);
			return;
		}
	}
}

/**
 * srpt_wait_work() - work item running srpt_process_wait_list()
 * @work: the channel's wait_work
 */
void srpt_wait_work(struct work_struct *work)
{
	srpt_process_wait_list(container_of(work, struct srpt_channel,
					    wait_work));
}

/**
 * srpt_over_credit() - a request the initiator had no credit for
 * @ch: channel
 * @r: receive buffer (an SRQ buffer: with its own ring a channel cannot
 *	receive more requests than it has credits)
 *
 * The request is answered with BUSY when a command context is free and
 * dropped otherwise, counted either way; it is never queued.
 */
static void srpt_over_credit(struct srpt_channel *ch, struct srpt_recv_ioctx *r)
{
	struct srpt_send_ioctx *ioctx = NULL;
	u64 tag = 0;

	atomic64_inc(&ch->stats.over_credit);
	pr_warn_ratelimited("%s: request beyond the credit limit\n",
			    ch->sess_name);
	if (r->byte_len >= 16) {
		tag = srpt_iu_tag(r);
		if (*(u8 *)r->buf == SRPT_OP_CMD)
			ioctx = srpt_get_ioctx(ch);
	}
	/* Reposting gives the initiator back the credit the response returns. */
	srpt_repost_recv(ch, r);
	if (ioctx)
		srpt_send_error_rsp(ioctx, tag, SAM_STAT_BUSY, 0, 0, 0, -1);
}

/**
 * srpt_recv_done() - completion of a receive
 * @cq: completion queue
 * @wc: work completion; wr_cqe is the buffer's cqe
 */
void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_recv_ioctx *r =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, cqe);
	struct srpt_channel *ch = r->sdev ? wc->qp->qp_context : r->ch;
	struct srpt_send_ioctx *ioctx = NULL;
	unsigned long flags;
	bool wait, over;
	u8 opcode;

	r->ch = ch;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		/* Nothing was received, so no credit: just refill the SRQ. */
		if (r->sdev && srpt_post_recv(ch, r))
			pr_warn_ratelimited("%s: SRQ repost failed\n",
					    dev_name(&r->sdev->ib_dev->dev));
		srpt_wc_error(ch, wc, "receive", 0);
		return;
	}

	if (!ch->virt_dma)
		ib_dma_sync_single_for_cpu(ch->sport->sdev->ib_dev, r->dma,
					   wc->byte_len, DMA_FROM_DEVICE);
	r->byte_len = wc->byte_len;
	opcode = r->byte_len ? *(u8 *)r->buf : 0xff;

	/* Responses to target requests cost the initiator no credit. */
	if (srpt_opcode_uses_credit(opcode))
		over = atomic_dec_return(&ch->req_lim) < 0;
	else
		over = atomic_read(&ch->req_lim) < 0;

	spin_lock_irqsave(&ch->lock, flags);
	wait = !over && (ch->state != SRPT_CH_LIVE ||
			 !list_empty(&ch->wait_list) || ch->wait_busy);
	/*
	 * The common case, an SRP_CMD on a live channel with nothing
	 * waiting: its context is taken under the same lock.  Without a free
	 * context it waits; a context put back runs the list.
	 */
	if (!wait && !over && opcode == SRPT_OP_CMD && !ch->t_logout) {
		ioctx = srpt_take_ioctx_locked(ch);
		wait = !ioctx;
	}
	if (wait)
		list_add_tail(&r->wait_entry, &ch->wait_list);
	spin_unlock_irqrestore(&ch->lock, flags);

	if (ioctx) {
		srpt_ioctx_reset(ioctx);
		if (!srpt_handle_cmd(ch, r, ioctx))
			srpt_wait_later(ch, r, false);
		return;
	}
	if (unlikely(over)) {
		srpt_over_credit(ch, r);
		return;
	}
	if (!wait && !srpt_handle_iu(ch, r))
		srpt_wait_later(ch, r, false);
}

/**
 * srpt_device_get_srq() - create the device's SRQ if it has none yet
 * @sdev: the device (login path; logins run in parallel)
 *
 * The SRQ gets srpt_srq_size buffers, capped by the device's limit.
 *
 * Return: 0 or a negative errno.
 */
int srpt_device_get_srq(struct srpt_device *sdev)
{
	struct ib_device *ib_dev = sdev->ib_dev;
	struct ib_srq_init_attr attr = { };
	struct ib_srq *srq;
	u32 i, n;
	int ret;

	mutex_lock(&sdev->srq_mutex);
	if (sdev->srq) {
		ret = 0;
		goto unlock;
	}
	if (!ib_dev->attrs.max_srq_wr) {
		pr_warn("%s: no SRQ support, use_srq=1 logins refused\n",
			dev_name(&ib_dev->dev));
		ret = -EOPNOTSUPP;
		goto unlock;
	}
	n = min_t(u32, srpt_srq_size, ib_dev->attrs.max_srq_wr);
	sdev->srq_ring = kvcalloc(n, sizeof(*sdev->srq_ring), GFP_KERNEL);
	if (!sdev->srq_ring) {
		ret = -ENOMEM;
		goto unlock;
	}
	for (i = 0; i < n; i++)
		sdev->srq_ring[i].sdev = sdev;
	ret = srpt_alloc_recv_bufs(sdev->pd, sdev->srq_ring, n, 0,
				   srpt_recv_done);
	if (ret)
		goto free_ring;

	attr.attr.max_wr = n;
	attr.attr.max_sge = 1;
	attr.srq_type = IB_SRQT_BASIC;
	srq = ib_create_srq(sdev->pd, &attr);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto free_bufs;
	}
	sdev->srq = srq;
	sdev->srq_size = n;

	for (i = 0; i < n; i++) {
		ret = srpt_post_recv(NULL, &sdev->srq_ring[i]);
		if (ret) {
			srpt_device_free_srq(sdev);
			goto fail;
		}
	}
	pr_info("%s: shared receive queue of %u buffers\n",
		dev_name(&ib_dev->dev), n);
	mutex_unlock(&sdev->srq_mutex);
	return 0;

free_bufs:
	srpt_free_recv_bufs(ib_dev, sdev->srq_ring, n);
free_ring:
	kvfree(sdev->srq_ring);
	sdev->srq_ring = NULL;
fail:
	pr_err("%s: creating the SRQ failed (%d)\n", dev_name(&ib_dev->dev),
	       ret);
unlock:
	mutex_unlock(&sdev->srq_mutex);
	return ret;
}

/**
 * srpt_device_free_srq() - destroy a device's SRQ and free its buffers
 * @sdev: the device: being removed, with no channel of it left, or in
 *	srpt_device_get_srq() when posting its buffers failed
 */
void srpt_device_free_srq(struct srpt_device *sdev)
{
	if (!sdev->srq)
		return;
	ib_destroy_srq(sdev->srq);
	srpt_free_recv_bufs(sdev->ib_dev, sdev->srq_ring, sdev->srq_size);
	kvfree(sdev->srq_ring);
	sdev->srq = NULL;
	sdev->srq_ring = NULL;
	sdev->srq_size = 0;
}
