// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: channel set-up and release.
 *
 * A channel is created by a login (srpt_cm.c), lives until a disconnect,
 * SRP_I_LOGOUT, an error, or an operator action closes it, and is then torn
 * down exactly once by srpt_ch_release_work():
 *
 *   CONNECTING --RTU/ESTABLISHED--> LIVE --close--> DISCONNECTING
 *        \________________close____________________/      |
 *                                                   release work
 *                                       (QP to ERR, drain, LIO session
 *                                        drained and removed, free)
 *
 * The release work is the only owner that frees a channel; everything that
 * can reach a channel (CM callbacks, QP events, completions, LIO) is stopped
 * before the memory goes.  The QP transitions and srpt_ch_close() are in
 * srpt_qp.c, the channel list in srpt_chlist.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_channel.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_login.h"
#include "srpt_qp.h"
#include "srpt_ring.h"
#include "srpt_data.h"
#include "srpt_detach.h"
#include "srpt_sq.h"
#include "srpt_lio.h"
#include "srpt_watch.h"
#include "srpt_recv.h"
#include "srpt_chlist.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

static atomic_t srpt_ch_ids = ATOMIC_INIT(0);

static void srpt_ch_release_work(struct work_struct *work);

/**
 * srpt_free_recv_ring() - free the channel's own receive buffers
 * @ch: the channel
 */
static void srpt_free_recv_ring(struct srpt_channel *ch)
{
	if (!ch->recv_ring)
		return;
	/* A detached channel's buffers are unmapped (srpt_ch_detach()). */
	srpt_free_recv_bufs(__srpt_ch_detached(ch) ? NULL : ch->sport->sdev->ib_dev,
			    ch->recv_ring, ch->rq_size);
	kvfree(ch->recv_ring);
	ch->recv_ring = NULL;
}

/**
 * srpt_alloc_recv_ring() - allocate the channel's own receive buffers
 * @ch: the channel
 *
 * Return: 0 or -ENOMEM.
 */
static int srpt_alloc_recv_ring(struct srpt_channel *ch)
{
	u32 i, pad;

	ch->recv_ring = kvcalloc(ch->rq_size, sizeof(*ch->recv_ring),
				 GFP_KERNEL);
	if (!ch->recv_ring)
		return -ENOMEM;
	for (i = 0; i < ch->rq_size; i++)
		ch->recv_ring[i].ch = ch;
	/* Immediate data, at imm_data_offset in the IU, on a 512-byte boundary. */
	pad = ch->imm_data ? (SRPT_IMM_ALIGN - ch->imm_data_offset %
			      SRPT_IMM_ALIGN) % SRPT_IMM_ALIGN : 0;
	if (srpt_alloc_recv_bufs(ch->sport->sdev->pd, ch->recv_ring,
				 ch->rq_size, pad, srpt_recv_done)) {
		kvfree(ch->recv_ring);
		ch->recv_ring = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * srpt_ioctx_init() - one-time set-up of a command context
 * @ch: channel that owns it
 * @ioctx: the context
 */
void srpt_ioctx_init(struct srpt_channel *ch, struct srpt_send_ioctx *ioctx)
{
	ioctx->ch = ch;
	ioctx->rdma_cqe.done = srpt_rdma_read_done;
	ioctx->rdma_err_cqe.done = srpt_rdma_err_done;
	ioctx->send_cqe.done = srpt_send_done;
	ioctx->rsp_wr.wr_cqe = &ioctx->send_cqe;
	ioctx->rsp_wr.opcode = IB_WR_SEND;
	ioctx->rsp_wr.send_flags = IB_SEND_SIGNALED;
	ioctx->rsp_wr.sg_list = &ioctx->rsp_sge;
	ioctx->rsp_wr.num_sge = 1;
	ioctx->state = SRPT_CMD_FREE;
	INIT_LIST_HEAD(&ioctx->sq_entry);
}

/**
 * srpt_unmap_ioctx_ring() - unmap the response buffers of the contexts
 * @ch: the channel
 * @ib_dev: its device
 */
static void srpt_unmap_ioctx_ring(struct srpt_channel *ch,
				  struct ib_device *ib_dev)
{
	u32 i;

	for (i = 0; ch->ioctx_ring && i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];

		if (ioctx->rsp_buf)
			ib_dma_unmap_single(ib_dev, ioctx->rsp_dma,
					    ch->max_ti_iu_len, DMA_TO_DEVICE);
	}
}

/**
 * srpt_free_ioctx_ring() - unmap and free the command contexts
 * @ch: the channel; every context must be back on the free list.  A
 *	detached channel's are unmapped already (srpt_ch_detach()).
 */
static void srpt_free_ioctx_ring(struct srpt_channel *ch)
{
	u32 i;

	if (!ch->ioctx_ring)
		return;
	if (!__srpt_ch_detached(ch))
		srpt_unmap_ioctx_ring(ch, ch->sport->sdev->ib_dev);
	for (i = 0; i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];

		if (!ioctx->rsp_buf)
			continue;
		kfree(ioctx->rsp_buf);
		srpt_buf_free(ioctx);
	}
	kvfree(ch->ioctx_ring);
	ch->ioctx_ring = NULL;
	kvfree(ch->free_stack);
	ch->free_stack = NULL;
	srpt_pool_drain(ch);
	kvfree(ch->imm_sg_pool);
	ch->imm_sg_pool = NULL;
}

/**
 * srpt_alloc_ioctx_ring() - allocate the command contexts of a channel
 * @ch: the channel
 *
 * There are twice as many contexts as credits: a context is only free again
 * after the completion of its response, and the initiator may already use
 * the credit that response returned.
 *
 * Return: 0 or -ENOMEM.
 */
static int srpt_alloc_ioctx_ring(struct srpt_channel *ch)
{
	struct ib_device *ib_dev = ch->sport->sdev->ib_dev;
	u32 i;

	/*
	 * A context is free only when its response SEND completed, which may
	 * be after the initiator used the credit it returned: a few spare
	 * contexts keep such requests off the wait list.
	 */
	ch->n_ioctx = ch->rq_size + ch->rq_size / 8;
	ch->ioctx_ring = kvcalloc(ch->n_ioctx, sizeof(*ch->ioctx_ring),
				  GFP_KERNEL);
	if (!ch->ioctx_ring)
		return -ENOMEM;
	ch->free_stack = kvcalloc(ch->n_ioctx, sizeof(*ch->free_stack),
				  GFP_KERNEL);
	if (!ch->free_stack)
		goto nomem;
	if (ch->imm_data) {
		ch->imm_sg_max = DIV_ROUND_UP(ch->max_it_iu_len, PAGE_SIZE) + 1;
		ch->imm_sg_pool = kvcalloc(ch->n_ioctx * ch->imm_sg_max,
					   sizeof(*ch->imm_sg_pool),
					   GFP_KERNEL);
		if (!ch->imm_sg_pool)
			goto nomem;
	}
	for (i = 0; i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];

		srpt_ioctx_init(ch, ioctx);
		if (ch->imm_sg_pool)
			ioctx->imm_sg = &ch->imm_sg_pool[i * ch->imm_sg_max];
		ioctx->rsp_buf = kmalloc(ch->max_ti_iu_len, GFP_KERNEL);
		if (!ioctx->rsp_buf)
			goto nomem;
		ioctx->rsp_dma = ib_dma_map_single(ib_dev, ioctx->rsp_buf,
						   ch->max_ti_iu_len,
						   DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ib_dev, ioctx->rsp_dma)) {
			kfree(ioctx->rsp_buf);
			ioctx->rsp_buf = NULL;
			goto nomem;
		}
		ioctx->rsp_sge.addr = ioctx->rsp_dma;
		ioctx->rsp_sge.lkey = ch->sport->sdev->pd->local_dma_lkey;
		ch->free_stack[ch->n_ioctx - 1 - i] = ioctx;
	}
	return 0;

nomem:
	srpt_free_ioctx_ring(ch);
	return -ENOMEM;
}

/**
 * srpt_ch_alloc() - allocate a channel for an accepted login
 * @sport: port the login arrived on
 * @tpg: portal group, with a reference the channel now owns
 * @d: the login decision (negotiated IU sizes, immediate data)
 * @using_rdma_cm: RDMA/CM login (else IB/CM)
 *
 * Return: the channel (not yet on the channel list) or an ERR_PTR.
 */
struct srpt_channel *srpt_ch_alloc(struct srpt_port *sport,
				   struct srpt_tpg *tpg,
				   const struct srpt_login_decision *d,
				   bool using_rdma_cm)
{
	const struct ib_device_attr *attrs = &sport->sdev->ib_dev->attrs;
	struct srpt_channel *ch;
	int ret;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return ERR_PTR(-ENOMEM);
	ch->sport = sport;
	ch->tpg = tpg;
	ch->id = atomic_inc_return(&srpt_ch_ids);
	ch->using_rdma_cm = using_rdma_cm;
	ch->virt_dma = ib_uses_virt_dma(sport->sdev->ib_dev);
	/* iWARP needs a memory registration for an RDMA READ's sink. */
	ch->keep_dma = READ_ONCE(srpt_keep_dma_maps) &&
		       !rdma_protocol_iwarp(sport->sdev->ib_dev, sport->port_num);
	spin_lock_init(&ch->lock);
	spin_lock_init(&ch->pool_lock);
	INIT_LIST_HEAD(&ch->pool);
	INIT_LIST_HEAD(&ch->list);
	INIT_LIST_HEAD(&ch->wait_list);
	INIT_LIST_HEAD(&ch->sq_wait);
	init_waitqueue_head(&ch->idle_wq);
	init_completion(&ch->last_wqe);
	INIT_WORK(&ch->release_work, srpt_ch_release_work);
	INIT_WORK(&ch->wait_work, srpt_wait_work);
	INIT_DELAYED_WORK(&ch->watch_work, srpt_watch_work);
	ch->state = SRPT_CH_CONNECTING;
	ch->max_it_iu_len = d->max_it_iu_len;
	ch->max_ti_iu_len = d->max_ti_iu_len;
	ch->imm_data = d->immediate;
	ch->imm_data_offset = d->imm_data_offset;
	ch->rq_size = srpt_rq_size(attrs);
	ch->sq_size = min_t(u32, max_t(u32, READ_ONCE(tpg->sq_size),
				       SRPT_MIN_SQ_SIZE),
			    attrs->max_qp_wr / 2);
	ch->use_srq = READ_ONCE(tpg->use_srq);
	ch->max_cmd_data = READ_ONCE(tpg->max_cmd_data);
	ch->max_data_held = max(READ_ONCE(tpg->max_channel_data),
				ch->max_cmd_data);

	if (ch->use_srq) {
		/* Credits stay per channel; buffers come from the SRQ. */
		ret = srpt_device_get_srq(sport->sdev);
		if (ret)
			goto free_ch;
		ch->rq_size = min(ch->rq_size, sport->sdev->srq_size);
	} else {
		ret = srpt_alloc_recv_ring(ch);
		if (ret)
			goto free_ch;
	}
	ret = srpt_alloc_ioctx_ring(ch);
	if (ret)
		goto free_recv;
	return ch;

free_recv:
	srpt_free_recv_ring(ch);
free_ch:
	kfree(ch);
	return ERR_PTR(ret);
}

/**
 * srpt_sq_extra() - send queue entries a channel has beyond srp_sq_size
 * @sq_size: the channel's send queue entries for requests
 * @max_descs: most data descriptors one of its commands can have
 * @max_qp_wr: the device's limit
 *
 * A command needs a request per descriptor at least, and its response: when
 * srp_sq_size is smaller than that, the QP gets the difference on top, so
 * that the largest command the login allowed can still be posted (only a
 * request larger than srp_sq_size takes them, srpt_sq_reserve()).  A
 * larger srp_sq_size needs none.
 *
 * Return: the extra entries, within what the device takes beyond @sq_size
 * and the two entries of the drain request and the keepalive probe.
 */
static u32 srpt_sq_extra(u32 sq_size, u32 max_descs, u32 max_qp_wr)
{
	u32 need = max_descs + 1;

	if (need <= sq_size)
		return 0;
	return min_t(u32, need - sq_size, max_qp_wr - sq_size - 2);
}

/**
 * srpt_qp_send_wrs() - max_send_wr to ask for, rdma_rw's share taken off
 * @need: send queue entries the channel uses: its requests (registrations
 *	included), the drain request and the keepalive probe
 * @rw_ctxs: the rdma_rw contexts declared in max_rdma_ctxs
 *
 * rdma_rw_init_qp() adds at least one entry per declared context (three
 * where it registers memory) to max_send_wr, entries @need counts already:
 * they would only make the queue larger than it can be filled, and a device
 * that rounds the depth up to a power of two (Soft-RoCE, mlx5) then doubles
 * its memory.  So one per context is taken off; the QP gets at least @need.
 *
 * Return: the value for max_send_wr, at least 1.
 */
static u32 srpt_qp_send_wrs(u32 need, u32 rw_ctxs)
{
	return need > rw_ctxs ? need - rw_ctxs : 1;
}

/**
 * srpt_rw_ctxs() - the rdma_rw contexts to declare for a channel's QP
 * @ch: the channel, its send queue and command contexts sized
 *
 * rdma_rw_init_qp() adds a send request per declared context to the QP, and
 * on a device that registers memory for RDMA (iWARP, or one that sets
 * max_sgl_rd) two more, and makes a pool of one MR per context.  Every
 * request a command posts, registrations included, is counted in the
 * channel's sq_size + sq_extra already (srpt_qp_send_wrs() takes them off
 * what it asks for).  A device that registers memory gets a context per
 * send request, as many MRs as requests can be posted.  Any other one uses
 * no MR unless ib_core's force_mr (a debugging switch) is set; it gets a
 * context per command context.  Should the MR pool run dry,
 * rdma_rw_ctx_init() fails and the command is answered BUSY
 * (srpt_cmd_map()), which the initiator retries.
 *
 * Return: the value for max_rdma_ctxs.
 */
static u32 srpt_rw_ctxs(const struct srpt_channel *ch)
{
	struct ib_device *ib_dev = ch->sport->sdev->ib_dev;

	if (rdma_protocol_iwarp(ib_dev, ch->sport->port_num) ||
	    ib_dev->attrs.max_sgl_rd)
		return ch->sq_size + ch->sq_extra;
	return ch->n_ioctx;
}

/**
 * srpt_ch_create_qp() - create the completion queue and the queue pair
 * @ch: the channel; for RDMA/CM logins ch->rdma_cm_id must be set
 *
 * The CQ comes from the device's CQ pool, on a completion vector chosen
 * round robin so that channels spread over the device's vectors.  If the
 * device cannot create a QP of the requested depth (-ENOMEM, or -EINVAL
 * from a device whose limits the send queue, the RDMA contexts rdma_rw
 * adds to it and the SGEs per request exceed together), smaller send
 * queues are tried down to SRPT_MIN_SQ_SIZE, and the shrink is logged.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_create_qp(struct srpt_channel *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct ib_device *ib_dev = sdev->ib_dev;
	struct ib_qp_init_attr *init;
	u32 asked = ch->sq_size, cap;
	int ret;

	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (!init)
		return -ENOMEM;

retry:
	/*
	 * Room for every completion the QP can have outstanding, plus the two
	 * drain requests and the keepalive probe.  With its own ring a
	 * channel has at most rq_size receives posted; on the SRQ an
	 * initiator that ignores its credits can have up to the SRQ's size
	 * complete on this CQ before any is polled, and the CQ (shared with
	 * other channels by the pool) must not overflow for that.
	 */
	ch->sq_extra = srpt_sq_extra(ch->sq_size,
				     srpt_max_descs(ch->max_it_iu_len),
				     ib_dev->attrs.max_qp_wr);
	ch->cq_size = (ch->use_srq ? sdev->srq_size : ch->rq_size) +
		      ch->sq_size + ch->sq_extra + 3;
	ch->comp_vector = srpt_pick_comp_vector(srpt_comp_vector_mask(),
						ib_dev->num_comp_vectors,
						atomic_inc_return(&sdev->next_vector));
	ch->cq = ib_cq_pool_get(ib_dev, ch->cq_size, ch->comp_vector,
				IB_POLL_WORKQUEUE);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		goto out;
	}

	memset(init, 0, sizeof(*init));
	init->event_handler = srpt_qp_event;
	init->qp_context = ch;
	init->send_cq = ch->cq;
	init->recv_cq = ch->cq;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	init->qp_type = IB_QPT_RC;
	init->port_num = ch->sport->port_num;
	/*
	 * One more of each for the drain requests of ib_drain_qp(), and a
	 * send entry of its own for the keepalive probe: it is posted however
	 * full the queue is (srpt_keepalive()).
	 */
	init->cap.max_rdma_ctxs = srpt_rw_ctxs(ch);
	init->cap.max_send_wr = srpt_qp_send_wrs(ch->sq_size + ch->sq_extra + 2,
						 init->cap.max_rdma_ctxs);
	init->cap.max_send_sge = ib_dev->attrs.max_send_sge;
	if (ch->use_srq) {
		init->srq = sdev->srq;
	} else {
		init->cap.max_recv_wr = ch->rq_size + 1;
		init->cap.max_recv_sge = 1;
	}

	cap = READ_ONCE(srpt_max_qp_wr_cap);
	if (cap && init->cap.max_send_wr + init->cap.max_rdma_ctxs > cap) {
		ret = -EINVAL;
	} else if (ch->using_rdma_cm &&
		   !rdma_cap_ib_cm(ib_dev, ch->sport->port_num)) {
		/* iWARP: the iW CM moves the QP, see srpt_ch_qp_by_cma(). */
		ret = rdma_create_qp(ch->rdma_cm_id, sdev->pd, init);
		ch->qp = ret ? NULL : ch->rdma_cm_id->qp;
	} else {
		ch->qp = ib_create_qp(sdev->pd, init);
		ret = PTR_ERR_OR_ZERO(ch->qp);
		if (ret)
			ch->qp = NULL;
	}
	if (ret) {
		ib_cq_pool_put(ch->cq, ch->cq_size);
		ch->cq = NULL;
		if ((ret == -ENOMEM || ret == -EINVAL) &&
		    ch->sq_size / 2 >= SRPT_MIN_SQ_SIZE) {
			ch->sq_size /= 2;
			goto retry;
		}
		pr_err("%s: creating a QP with %u send entries failed (%d)\n",
		       dev_name(&ib_dev->dev), ch->sq_size, ret);
		goto out;
	}
	if (ch->sq_size < asked)
		pr_warn_ratelimited("%s: %s: send queue of %u entries refused by the device, the channel has %u\n",
				    dev_name(&ib_dev->dev), ch->sess_name,
				    asked, ch->sq_size);
	atomic_set(&ch->sq_wr_avail, ch->sq_size);
	ch->qp_num = ch->qp->qp_num;
	/* As the device set it (Soft-RoCE: 2^n - 1), rdma_rw's included. */
	ch->sq_depth = init->cap.max_send_wr;
	pr_debug("QP 0x%x: sq %u+%u rq %u vector %d\n", ch->qp->qp_num,
		 ch->sq_size, ch->sq_extra, ch->rq_size, ch->comp_vector);
out:
	kfree(init);
	return ret;
}

/**
 * srpt_ch_post_recvs() - post every receive buffer of the channel
 * @ch: the channel, its QP in INIT or later (nothing to do with an SRQ)
 *
 * Return: 0 or the errno of the first failed post.
 */
int srpt_ch_post_recvs(struct srpt_channel *ch)
{
	u32 i;
	int ret;

	if (ch->use_srq)
		return 0;
	for (i = 0; i < ch->rq_size; i++) {
		ret = srpt_post_recv(ch, &ch->recv_ring[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * srpt_ch_start_session() - create the LIO session of a channel
 * @ch: the channel
 * @acl_name: name of the initiator's node ACL
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_start_session(struct srpt_channel *ch, const char *acl_name)
{
	struct se_session *sess;

	sess = target_setup_session(&ch->tpg->se_tpg, 0, 0, TARGET_PROT_NORMAL,
				    acl_name, ch, NULL);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	ch->sess = sess;
	ch->nacl = sess->se_node_acl;
	ch->ini_held = &container_of(sess->se_node_acl, struct srpt_nacl,
				     nacl)->data_held;
	return 0;
}

/**
 * srpt_ch_established() - the connection is up (RTU or ESTABLISHED)
 * @ch: the channel
 *
 * Runs in the CM's handler.  Requests that arrived before the RTU are
 * handled by the channel's wait work, not here: handling them posts to the
 * QP and sets up RDMA contexts, which only the wait work's place in the
 * release (cancel_work_sync() after the drain, before the QP can be
 * destroyed or the channel detached) makes safe against a release that
 * runs at the same time, such as a device removal.
 */
void srpt_ch_established(struct srpt_channel *ch)
{
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&ch->lock, flags);
	live = ch->state == SRPT_CH_CONNECTING;
	if (live) {
		ch->state = SRPT_CH_LIVE;
		/* Under the lock: a close cannot slip in before it. */
		srpt_watch_start(ch);
		if (!list_empty(&ch->wait_list))
			queue_work(srpt_system_wq, &ch->wait_work);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	pr_debug("%s: channel established\n", ch->sess_name);
	if (live)
		trace_srpt_ch_state(ch->sess_name, ch->id, SRPT_CH_CONNECTING,
				    SRPT_CH_LIVE);
}

/**
 * srpt_ch_destroy_qp() - destroy a channel's QP
 * @ch: the channel, its QP drained
 *
 * A QP attached to the RDMA/CM id (iWARP) goes with rdma_destroy_qp(),
 * which also clears the id's pointer; every other is the channel's own.
 */
static void srpt_ch_destroy_qp(struct srpt_channel *ch)
{
	if (ch->rdma_cm_id && ch->rdma_cm_id->qp)
		rdma_destroy_qp(ch->rdma_cm_id);
	else
		ib_destroy_qp(ch->qp);
	ch->qp = NULL;
}

/**
 * srpt_ch_free_resources() - give back what a channel holds of its device
 * @ch: the channel; its QP, if any, holds no posted receive that could
 *	still complete, or was drained
 *
 * The LIO session, the QP, the CQ and the DMA-mapped buffers.  Afterwards
 * nothing of @ch refers to the RDMA device any more.
 */
static void srpt_ch_free_resources(struct srpt_channel *ch)
{
	if (ch->sess)
		target_remove_session(ch->sess);
	ch->sess = NULL;
	if (ch->qp) {
		ib_drain_qp(ch->qp);
		srpt_ch_destroy_qp(ch);
	}
	if (ch->cq)
		ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->cq = NULL;
	srpt_free_ioctx_ring(ch);
	srpt_free_recv_ring(ch);
}

/**
 * srpt_ch_free() - free a channel that never went on the channel list
 * @ch: the channel, see srpt_ch_free_resources()
 *
 * Used by the login path after a failure.  The RDMA/CM id (if any) is left
 * to the caller.
 */
void srpt_ch_free(struct srpt_channel *ch)
{
	srpt_ch_free_resources(ch);
	srpt_tpg_put(ch->tpg);
	kfree(ch);
}

/**
 * srpt_ch_return_srq_bufs() - repost SRQ buffers a dead channel still holds
 * @ch: the channel, drained, with every command finished
 *
 * Requests that waited for a command context keep their buffer; for an SRQ
 * buffer that would shrink the device's SRQ, so it is given back here.
 */
static void srpt_ch_return_srq_bufs(struct srpt_channel *ch)
{
	struct srpt_recv_ioctx *r, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_init(&ch->wait_list, &list);
	spin_unlock_irqrestore(&ch->lock, flags);
	list_for_each_entry_safe(r, tmp, &list, wait_entry) {
		list_del_init(&r->wait_entry);
		if (r->sdev)
			srpt_post_recv(ch, r);
	}
}

/**
 * srpt_ch_destroy_conn() - destroy a released channel's CM id and QP
 * @ch: the channel, its QP drained
 *
 * No CM callback can run for the channel after this.
 */
static void srpt_ch_destroy_conn(struct srpt_channel *ch)
{
	if (ch->using_rdma_cm) {
		/* A QP attached to the id (iWARP) must go before the id. */
		if (ch->rdma_cm_id->qp)
			srpt_ch_destroy_qp(ch);
		rdma_destroy_id(ch->rdma_cm_id);
	} else {
		ib_destroy_cm_id(ch->ib_cm_id);
	}
	ch->rdma_cm_id = NULL;
	ch->ib_cm_id = NULL;
	/* The CM's callbacks, which may use the QP, are over. */
	if (ch->qp)
		srpt_ch_destroy_qp(ch);
}

/**
 * srpt_ch_detach() - let a closing channel go of its RDMA device
 * @ch: the channel, its QP drained, its LIO session stopped; the device is
 *	being removed while requests of @ch are still in the backend
 *
 * A backend may hold a command for as long as it likes (a suspended
 * device-mapper table, a lost path), and LIO gives no way to take it back;
 * the device must not wait for it.  So the channel lets go of everything
 * of the device now and keeps only memory: from the moment @ch->detached
 * is set no I/O path starts to use the device (srpt_ch_detached()), and
 * synchronize_rcu() waits for those that did; a second drain of the send
 * queue completes what they posted.  Then each context's RDMA contexts are
 * destroyed, the QP, CM id and CQ are destroyed, the buffers unmapped (a
 * command's immediate data stays readable in its receive buffer: SRQ
 * channels have none, so no command holds a buffer of the SRQ the device
 * frees), and the channel leaves the channel list, which lets
 * srpt_remove_one() go on.
 * The commands finish later without the device: their responses are
 * dropped (the initiator lost the connection anyway) and their buffers
 * freed (srpt_put_detached()).
 */
static void srpt_ch_detach(struct srpt_channel *ch)
{
	struct ib_device *ib_dev = ch->sport->sdev->ib_dev;
	unsigned long flags;
	u32 i, busy;

	WRITE_ONCE(ch->detached, true);
	synchronize_rcu();
	/*
	 * Only sends can have been posted since the release's drain: no
	 * receive completes after it, so none is reposted.  (ib_drain_qp()
	 * of a QP on an SRQ would wait, since 6.10, for a last-WQE event that
	 * a QP already in the error state need not raise again: up to a
	 * minute per channel.)
	 */
	ib_drain_sq(ch->qp);
	for (i = 0; i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];

		spin_lock_irqsave(&ch->lock, flags);
		srpt_unmap_rw(ioctx);
		srpt_buf_unmap(ioctx);
		spin_unlock_irqrestore(&ch->lock, flags);
	}
	srpt_ch_destroy_conn(ch);
	srpt_ch_return_srq_bufs(ch);
	ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->cq = NULL;
	srpt_unmap_ioctx_ring(ch, ib_dev);
	if (ch->recv_ring)
		srpt_unmap_recv_bufs(ib_dev, ch->recv_ring, ch->rq_size);

	spin_lock_irqsave(&ch->lock, flags);
	busy = ch->n_busy;
	spin_unlock_irqrestore(&ch->lock, flags);
	pr_info("%s: RDMA device removed with %u request(s) in the backend: channel detached from it, released once they finish\n",
		ch->sess_name, busy);
	srpt_ch_unlist(ch);
	/* srpt_remove_one() counts the listed channels again. */
	srpt_ch_released();
}

/**
 * srpt_ch_release_work() - tear a closed channel down
 * @work: the channel's release_work
 *
 * Order matters: the connection is ended and the QP moved to ERR, then the
 * QP is drained (every posted request completes, with a flush error), then
 * LIO finishes or aborts each command of the session (responses it still
 * queues complete with a flush error too), and only then are the CM id, the
 * QP and the CQ destroyed and the memory freed.  When the device is being
 * removed the channel does not wait for the backend before it lets go of
 * the device (srpt_ch_detach()); the rest follows when the backend is done.
 */
static void srpt_ch_release_work(struct work_struct *work)
{
	struct srpt_channel *ch =
		container_of(work, struct srpt_channel, release_work);
	unsigned long flags;
	bool detached = false;
	int ret;

	spin_lock_irqsave(&ch->lock, flags);
	ch->state = SRPT_CH_RELEASING;
	spin_unlock_irqrestore(&ch->lock, flags);
	trace_srpt_ch_state(ch->sess_name, ch->id, SRPT_CH_DISCONNECTING,
			    SRPT_CH_RELEASING);
	srpt_ch_releasing(ch);

	if (ch->using_rdma_cm) {
		rdma_disconnect(ch->rdma_cm_id);
	} else if (ib_send_cm_dreq(ch->ib_cm_id, NULL, 0)) {
		/* The initiator sent the DREQ (or it is gone): reply. */
		ib_send_cm_drep(ch->ib_cm_id, NULL, 0);
	}
	ret = srpt_ch_qp_err(ch);
	if (ret)
		pr_warn("%s: QP to ERR failed (%d)\n", ch->sess_name, ret);

	ib_drain_qp(ch->qp);
	if (ch->use_srq)
		srpt_compat_drain_srq(ch->qp, &ch->last_wqe);

	srpt_compat_stop_session(ch->sess);
	cancel_work_sync(&ch->wait_work);
	cancel_delayed_work_sync(&ch->watch_work);
	if (!srpt_ch_wait_idle(ch, true)) {
		srpt_ch_detach(ch);
		detached = true;
		srpt_ch_wait_idle(ch, false);
	}
	target_wait_for_sess_cmds(ch->sess);
	target_remove_session(ch->sess);
	ch->sess = NULL;

	if (!detached) {
		srpt_ch_destroy_conn(ch);
		/* Nothing adds to the wait list now (no CQ, CM or wait work). */
		srpt_ch_return_srq_bufs(ch);
	}
	srpt_ch_free_resources(ch);

	/* The above still used the device: listed until here. */
	if (!detached)
		srpt_ch_unlist(ch);

	pr_info("%s: channel released\n", ch->sess_name);
	srpt_tpg_put(ch->tpg);
	kfree(ch);
	srpt_ch_released();
}
