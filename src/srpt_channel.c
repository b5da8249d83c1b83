// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: channel lifecycle and the QP state machine.
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
 * before the memory goes.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

/*
 * struct ib_qp_attr lives on the stack of the QP transition functions.  It
 * is 216 bytes on x86-64 in 6.1 and 6.12 (two struct rdma_ah_attr).  If a
 * kernel grows it past this budget the build stops here: then allocate the
 * attribute with kmalloc() in srpt_ch_qp_modify() instead of raising the
 * budget, because these functions run in the CM's work queue context on a
 * kernel stack shared with the RDMA core.
 */
#define SRPT_QP_ATTR_STACK_BUDGET	256
static_assert(sizeof(struct ib_qp_attr) <= SRPT_QP_ATTR_STACK_BUDGET,
	      "struct ib_qp_attr outgrew its stack budget: see the comment");

static LIST_HEAD(srpt_ch_list);
static DEFINE_MUTEX(srpt_ch_mutex);
static DECLARE_WAIT_QUEUE_HEAD(srpt_ch_waitq);
static atomic_t srpt_ch_ids = ATOMIC_INIT(0);

static const char * const srpt_ch_state_name[] = {
	[SRPT_CH_CONNECTING]	= "connecting",
	[SRPT_CH_LIVE]		= "live",
	[SRPT_CH_DISCONNECTING]	= "disconnecting",
	[SRPT_CH_RELEASING]	= "releasing",
};

static void srpt_ch_release_work(struct work_struct *work);

/**
 * srpt_free_recv_bufs() - unmap and free receive buffers
 * @ib_dev: device they are mapped for
 * @ring: the buffers; none may be posted any more
 * @n: number of entries in @ring
 */
void srpt_free_recv_bufs(struct ib_device *ib_dev,
			 struct srpt_recv_ioctx *ring, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct srpt_recv_ioctx *r = &ring[i];

		if (!r->buf)
			continue;
		ib_dma_unmap_single(ib_dev, r->dma - r->pad,
				    srpt_max_req_size + r->pad,
				    DMA_FROM_DEVICE);
		kmem_cache_free(srpt_recv_cache, r->buf - r->pad);
		r->buf = NULL;
	}
}

/**
 * srpt_alloc_recv_bufs() - allocate and map receive buffers
 * @ib_dev: device to map them for
 * @ring: zeroed array of @n entries
 * @n: number of buffers
 * @pad: where in each (512-byte aligned) object IUs are received, below
 *	%SRPT_IMM_ALIGN
 *
 * Return: 0, or -ENOMEM with nothing left allocated.
 */
int srpt_alloc_recv_bufs(struct ib_device *ib_dev,
			 struct srpt_recv_ioctx *ring, u32 n, u32 pad)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct srpt_recv_ioctx *r = &ring[i];
		void *obj;
		u64 dma;

		r->cqe.done = srpt_recv_done;
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
	}
	return 0;

nomem:
	srpt_free_recv_bufs(ib_dev, ring, n);
	return -ENOMEM;
}

/**
 * srpt_free_recv_ring() - free the channel's own receive buffers
 * @ch: the channel
 */
static void srpt_free_recv_ring(struct srpt_channel *ch)
{
	if (!ch->recv_ring)
		return;
	srpt_free_recv_bufs(ch->sport->sdev->ib_dev, ch->recv_ring,
			    ch->rq_size);
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
	if (srpt_alloc_recv_bufs(ch->sport->sdev->ib_dev, ch->recv_ring,
				 ch->rq_size, pad)) {
		kvfree(ch->recv_ring);
		ch->recv_ring = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * srpt_free_ioctx_ring() - unmap and free the command contexts
 * @ch: the channel; every context must be back on the free list
 */
static void srpt_free_ioctx_ring(struct srpt_channel *ch)
{
	struct ib_device *ib_dev = ch->sport->sdev->ib_dev;
	u32 i;

	if (!ch->ioctx_ring)
		return;
	for (i = 0; i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];

		if (!ioctx->rsp_buf)
			continue;
		ib_dma_unmap_single(ib_dev, ioctx->rsp_dma, ch->max_ti_iu_len,
				    DMA_TO_DEVICE);
		kfree(ioctx->rsp_buf);
		if (ioctx->data_page)
			__free_page(ioctx->data_page);
	}
	kvfree(ch->ioctx_ring);
	ch->ioctx_ring = NULL;
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
		list_add_tail(&ioctx->free_entry, &ch->free_list);
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
	spin_lock_init(&ch->lock);
	spin_lock_init(&ch->pool_lock);
	INIT_LIST_HEAD(&ch->pool);
	INIT_LIST_HEAD(&ch->list);
	INIT_LIST_HEAD(&ch->free_list);
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
 * srpt_qp_event() - asynchronous event of a channel's QP
 * @event: the event
 * @ptr: the channel
 *
 * May run in interrupt context.
 */
static void srpt_qp_event(struct ib_event *event, void *ptr)
{
	struct srpt_channel *ch = ptr;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		/* Data arrived before the RTU: let the CM catch up. */
		if (ch->using_rdma_cm)
			rdma_notify(ch->rdma_cm_id, event->event);
		else
			ib_cm_notify(ch->ib_cm_id, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		complete(&ch->last_wqe);
		break;
	case IB_EVENT_SQ_DRAINED:
		break;
	default:
		pr_warn_ratelimited("%s: QP event %s\n", ch->sess_name,
				    ib_event_msg(event->event));
		srpt_ch_close(ch, "QP error event");
		break;
	}
}

/**
 * srpt_ch_create_qp() - create the completion queue and the queue pair
 * @ch: the channel; for RDMA/CM logins ch->rdma_cm_id must be set
 *
 * The CQ comes from the device's CQ pool, on a completion vector chosen
 * round robin so that channels spread over the device's vectors.  If the
 * device cannot create a QP of the requested depth, smaller send queues are
 * tried down to SRPT_MIN_SQ_SIZE.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_create_qp(struct srpt_channel *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct ib_device *ib_dev = sdev->ib_dev;
	struct ib_qp_init_attr *init;
	int ret;

	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (!init)
		return -ENOMEM;

retry:
	/*
	 * Room for every completion the QP can have outstanding, plus the two
	 * drain requests.  With its own ring a channel has at most rq_size
	 * receives posted; on the SRQ an initiator that ignores its credits
	 * can have up to the SRQ's size complete on this CQ before any is
	 * polled, and the CQ (shared with other channels by the pool) must
	 * not overflow for that.
	 */
	ch->sq_extra = min_t(u32, srpt_max_descs(ch->max_it_iu_len) + 1,
			     ib_dev->attrs.max_qp_wr - ch->sq_size - 1);
	ch->cq_size = (ch->use_srq ? sdev->srq_size : ch->rq_size) +
		      ch->sq_size + ch->sq_extra + 2;
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
	/* One more of each for the drain requests of ib_drain_qp(). */
	init->cap.max_send_wr = ch->sq_size + ch->sq_extra + 1;
	init->cap.max_rdma_ctxs = ch->sq_size + ch->sq_extra;
	init->cap.max_send_sge = ib_dev->attrs.max_send_sge;
	if (ch->use_srq) {
		init->srq = sdev->srq;
	} else {
		init->cap.max_recv_wr = ch->rq_size + 1;
		init->cap.max_recv_sge = 1;
	}

	if (ch->using_rdma_cm) {
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
		if (ret == -ENOMEM && ch->sq_size / 2 >= SRPT_MIN_SQ_SIZE) {
			ch->sq_size /= 2;
			goto retry;
		}
		pr_err("%s: creating a QP with %u send entries failed (%d)\n",
		       dev_name(&ib_dev->dev), ch->sq_size, ret);
		goto out;
	}
	atomic_set(&ch->sq_wr_avail, ch->sq_size);
	ch->qp_num = ch->qp->qp_num;
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
 * srpt_ch_qp_modify() - move the QP of an IB/CM channel to a new state
 * @ch: the channel
 * @state: IB_QPS_INIT, IB_QPS_RTR or IB_QPS_RTS
 *
 * The attributes come from the CM (ib_cm_init_qp_attr()), which knows the
 * path, the remote QP number and the negotiated RDMA depths.  The attribute
 * structure is on the stack; see SRPT_QP_ATTR_STACK_BUDGET.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_ch_qp_modify(struct srpt_channel *ch, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask = 0;
	int ret;

	ret = ib_cm_init_qp_attr(ch->ib_cm_id, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(ch->qp, &attr, mask);
	trace_srpt_qp_state(ch->id, ch->qp_num, state, ret);
	return ret;
}

/**
 * srpt_ch_qp_init() - move an IB/CM channel's QP from RESET to INIT
 * @ch: the channel
 *
 * Receive buffers can be posted from INIT on.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_qp_init(struct srpt_channel *ch)
{
	return srpt_ch_qp_modify(ch, IB_QPS_INIT);
}

/**
 * srpt_ch_qp_rtr() - move an IB/CM channel's QP from INIT to RTR
 * @ch: the channel
 *
 * Done before the CM REP is sent, so that the QP can receive as soon as the
 * initiator has the REP: an initiator may send its first SRP_CMD before the
 * RTU reaches us.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_qp_rtr(struct srpt_channel *ch)
{
	return srpt_ch_qp_modify(ch, IB_QPS_RTR);
}

/**
 * srpt_ch_qp_rts() - move an IB/CM channel's QP from RTR to RTS
 * @ch: the channel
 *
 * Done when the RTU arrives (or the first receive completion reports
 * communication established), from then on the target can send.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_qp_rts(struct srpt_channel *ch)
{
	return srpt_ch_qp_modify(ch, IB_QPS_RTS);
}

/**
 * srpt_ch_qp_err() - move a channel's QP to the ERR state
 * @ch: the channel
 *
 * Every posted work request then completes with a flush error, which is how
 * the channel drains.  Allowed from any state.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_qp_err(struct srpt_channel *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = ib_modify_qp(ch->qp, &attr, IB_QP_STATE);

	trace_srpt_qp_state(ch->id, ch->qp_num, IB_QPS_ERR, ret);
	return ret;
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
	return 0;
}

static bool srpt_ch_same_nexus(const struct srpt_channel *a,
			       const struct srpt_channel *b)
{
	return a->sport == b->sport && a->tpg == b->tpg &&
	       !memcmp(a->i_port_id, b->i_port_id, sizeof(a->i_port_id)) &&
	       !memcmp(a->t_port_id, b->t_port_id, sizeof(a->t_port_id));
}

/**
 * srpt_ch_over_limit() - would a new channel exceed its group's limits?
 * @ch: the new channel, its session (and so its node ACL) set up
 * @single: a SINGLE login: the channels of its I_T nexus are about to be
 *	replaced and do not count
 *
 * Channels that are closing do not count either.  Called with srpt_ch_mutex
 * held, so that two logins cannot both take the last place.
 *
 * Return: true when max_channels or max_initiator_channels of the portal
 * group (0: no limit) is reached.
 */
static bool srpt_ch_over_limit(struct srpt_channel *ch, bool single)
{
	u32 max_all = READ_ONCE(ch->tpg->max_channels);
	u32 max_ini = READ_ONCE(ch->tpg->max_initiator_channels);
	struct srpt_channel *other;
	u32 n_all = 0, n_ini = 0;

	lockdep_assert_held(&srpt_ch_mutex);
	if (!max_all && !max_ini)
		return false;
	list_for_each_entry(other, &srpt_ch_list, list) {
		if (other->tpg != ch->tpg ||
		    READ_ONCE(other->state) >= SRPT_CH_DISCONNECTING ||
		    (single && srpt_ch_same_nexus(ch, other)))
			continue;
		n_all++;
		if (other->nacl == ch->nacl)
			n_ini++;
	}
	return (max_all && n_all >= max_all) || (max_ini && n_ini >= max_ini);
}

/**
 * srpt_ch_register() - put a new channel on the channel list
 * @ch: the channel, fully set up
 * @single: the initiator asked for SINGLE channel operation
 * @multichan: receives the multichannel result for SRP_LOGIN_RSP
 *
 * With SINGLE, every other channel of the same I_T nexus (initiator port,
 * target port, RDMA port and portal group) is closed; with MULTI they stay.
 *
 * The channel is refused if it was closed while the login set it up (LIO's
 * close_session, a QP event: srpt_ch_close() only marks an unregistered
 * channel) or if its portal group was disabled since the lookup.  Both are
 * decided under srpt_ch_mutex, which srpt_ch_close_matching() takes after
 * clearing @tpg->enabled: a disable either sees the channel on the list or
 * the channel sees the disable.  So are the portal group's channel limits,
 * max_channels and max_initiator_channels (see srpt_ch_over_limit()).
 *
 * Return: 0, -ESHUTDOWN if the channel was refused, or -EDQUOT if a limit
 * is reached (the caller frees it and rejects the login).
 */
int srpt_ch_register(struct srpt_channel *ch, bool single, u8 *multichan)
{
	struct srpt_channel *other;
	bool others = false, ok;

	mutex_lock(&srpt_ch_mutex);
	if (srpt_ch_over_limit(ch, single)) {
		mutex_unlock(&srpt_ch_mutex);
		return -EDQUOT;
	}
	spin_lock_irq(&ch->lock);
	ok = ch->state == SRPT_CH_CONNECTING && READ_ONCE(ch->tpg->enabled) &&
	     !READ_ONCE(ch->tpg->dying);
	ch->registered = ok;
	spin_unlock_irq(&ch->lock);
	if (!ok) {
		mutex_unlock(&srpt_ch_mutex);
		return -ESHUTDOWN;
	}
	list_for_each_entry(other, &srpt_ch_list, list) {
		if (!srpt_ch_same_nexus(ch, other))
			continue;
		others = true;
		if (single)
			srpt_ch_close(other, "replaced by a SINGLE login");
	}
	list_add_tail(&ch->list, &srpt_ch_list);
	mutex_unlock(&srpt_ch_mutex);

	if (!others)
		*multichan = SRPT_LOGIN_RSP_MULTICHAN_NO_CHAN;
	else
		*multichan = single ? SRPT_LOGIN_RSP_MULTICHAN_TERMINATED :
				      SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED;
	return 0;
}

/**
 * srpt_ch_established() - the connection is up (RTU or ESTABLISHED)
 * @ch: the channel
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
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	pr_debug("%s: channel established\n", ch->sess_name);
	if (live)
		trace_srpt_ch_state(ch->sess_name, ch->id, SRPT_CH_CONNECTING,
				    SRPT_CH_LIVE);
	/* Requests that arrived before the RTU. */
	srpt_process_wait_list(ch);
}

/**
 * srpt_ch_close() - start closing a channel
 * @ch: the channel
 * @why: reason, for the log
 *
 * Safe in any context (LIO calls close_session under a spinlock, QP events
 * arrive in interrupt context): it only changes the state and queues the
 * release work, which does the rest.  Later calls do nothing.  A channel
 * the login path has not registered yet is only marked: the registration
 * then fails and the login path frees it.
 */
void srpt_ch_close(struct srpt_channel *ch, const char *why)
{
	enum srpt_ch_state old;
	unsigned long flags;
	bool first, release;

	spin_lock_irqsave(&ch->lock, flags);
	old = ch->state;
	first = old < SRPT_CH_DISCONNECTING;
	if (first)
		ch->state = SRPT_CH_DISCONNECTING;
	release = first && ch->registered;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!first)
		return;
	trace_srpt_ch_state(ch->sess_name, ch->id, old, SRPT_CH_DISCONNECTING);
	pr_info("%s: closing channel: %s\n", ch->sess_name, why);
	if (release)
		queue_work(system_long_wq, &ch->release_work);
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
		if (ch->using_rdma_cm)
			rdma_destroy_qp(ch->rdma_cm_id);
		else
			ib_destroy_qp(ch->qp);
		ch->qp = NULL;
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
 * srpt_ch_release_work() - tear a closed channel down
 * @work: the channel's release_work
 *
 * Order matters: the connection is ended and the QP moved to ERR, then the
 * QP is drained (every posted request completes, with a flush error), then
 * LIO finishes or aborts each command of the session (responses it still
 * queues complete with a flush error too), and only then are the CM id, the
 * QP and the CQ destroyed and the memory freed.
 */
static void srpt_ch_release_work(struct work_struct *work)
{
	struct srpt_channel *ch =
		container_of(work, struct srpt_channel, release_work);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ch->lock, flags);
	ch->state = SRPT_CH_RELEASING;
	spin_unlock_irqrestore(&ch->lock, flags);
	trace_srpt_ch_state(ch->sess_name, ch->id, SRPT_CH_DISCONNECTING,
			    SRPT_CH_RELEASING);

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

	target_stop_session(ch->sess);
	cancel_work_sync(&ch->wait_work);
	cancel_delayed_work_sync(&ch->watch_work);
	srpt_ch_wait_idle(ch);
	target_wait_for_sess_cmds(ch->sess);
	target_remove_session(ch->sess);
	ch->sess = NULL;

	/* No CM callback can run for this channel after this. */
	if (ch->using_rdma_cm) {
		rdma_destroy_qp(ch->rdma_cm_id);
		rdma_destroy_id(ch->rdma_cm_id);
	} else {
		ib_destroy_cm_id(ch->ib_cm_id);
		ib_destroy_qp(ch->qp);
	}
	ch->qp = NULL;
	ch->rdma_cm_id = NULL;
	ch->ib_cm_id = NULL;
	/* Nothing adds to the wait list now (no CQ, CM or wait work left). */
	srpt_ch_return_srq_bufs(ch);
	srpt_ch_free_resources(ch);

	/*
	 * Listed until here: srpt_remove_one() frees the device once no
	 * channel of it is listed, and the above still used the device.
	 */
	mutex_lock(&srpt_ch_mutex);
	list_del(&ch->list);
	mutex_unlock(&srpt_ch_mutex);

	pr_info("%s: channel released\n", ch->sess_name);
	srpt_tpg_put(ch->tpg);
	kfree(ch);
	wake_up_all(&srpt_ch_waitq);
}

static bool srpt_ch_matches(const struct srpt_channel *ch,
			    const struct srpt_device *sdev,
			    const struct srpt_tpg *tpg)
{
	return (!sdev || ch->sport->sdev == sdev) && (!tpg || ch->tpg == tpg);
}

/**
 * srpt_ch_count_matching() - count channels of a device and/or group
 * @sdev: device, or NULL for any
 * @tpg: portal group, or NULL for any
 * @first: if not NULL, receives a description of the first match
 * @len: size of @first
 *
 * Return: the number of channels on the list that match.
 */
static unsigned int srpt_ch_count_matching(struct srpt_device *sdev,
					   struct srpt_tpg *tpg, char *first,
					   size_t len)
{
	struct srpt_channel *ch;
	unsigned int n = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		if (!srpt_ch_matches(ch, sdev, tpg))
			continue;
		if (!n++ && first)
			snprintf(first, len, "%s (%s)", ch->sess_name,
				 srpt_ch_state_name[ch->state]);
	}
	mutex_unlock(&srpt_ch_mutex);
	return n;
}

/**
 * srpt_ch_close_matching() - close the channels of a device and/or group
 * @sdev: device, or NULL for any
 * @tpg: portal group, or NULL for any
 * @wait: wait until they are released
 *
 * The wait ends because channel release ends (drain and LIO's own abort
 * of outstanding commands); while it lasts, a message every ten seconds
 * names a channel that is still there.
 */
void srpt_ch_close_matching(struct srpt_device *sdev, struct srpt_tpg *tpg,
			    bool wait)
{
	DEFINE_WAIT_FUNC(wq, woken_wake_function);
	struct srpt_channel *ch;
	char first[96];
	unsigned int n;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list)
		if (srpt_ch_matches(ch, sdev, tpg))
			srpt_ch_close(ch, sdev ? "RDMA device removed" :
					  "portal group disabled or removed");
	mutex_unlock(&srpt_ch_mutex);

	if (!wait)
		return;
	/*
	 * Counting takes srpt_ch_mutex, which must not be done as the
	 * condition of wait_event*() (the task is no longer running there):
	 * count while running, sleep with wait_woken() in between.
	 */
	add_wait_queue(&srpt_ch_waitq, &wq);
	while ((n = srpt_ch_count_matching(sdev, tpg, first, sizeof(first))))
		if (!wait_woken(&wq, TASK_UNINTERRUPTIBLE, 10 * HZ))
			pr_info("waiting for %u channel(s) to be released, e.g. %s\n",
				n, first);
	remove_wait_queue(&srpt_ch_waitq, &wq);
}

/* Channel states as LIO's iSCSI connection states, which rtslib parses. */
static const char *const srpt_ch_conn_state[] = {
	[SRPT_CH_CONNECTING] = "IN_LOGIN",
	[SRPT_CH_LIVE] = "LOGGED_IN",
	[SRPT_CH_DISCONNECTING] = "IN_LOGOUT",
	[SRPT_CH_RELEASING] = "CLEANUP_WAIT",
};

/**
 * srpt_nacl_show_info() - the "info" attribute of a node ACL
 * @se_nacl: the ACL
 * @page: configfs page (PAGE_SIZE bytes)
 *
 * Written in the layout of LIO's iSCSI ACL info, which rtslib-fb parses
 * for targetcli's "sessions" command: the initiator's channels form one
 * session (numbered by its first channel), each channel is shown as a
 * connection with its state and the initiator's address.  Without a
 * channel the text starts with "No active".
 *
 * Return: bytes written.
 */
ssize_t srpt_nacl_show_info(struct se_node_acl *se_nacl, char *page)
{
	struct srpt_channel *ch;
	unsigned int n = 0;
	ssize_t len = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		if (ch->nacl != se_nacl)
			continue;
		if (!n++)
			len += scnprintf(page + len, PAGE_SIZE - len,
					 "InitiatorName: %s\nInitiatorAlias: %s\nLIO Session ID: %u   SessionType: Normal\nSession State: TARG_SESS_STATE_%s\n---------------------[SRP Channel Info]---------------------\n",
					 se_nacl->initiatorname, ch->sess_name,
					 ch->id, ch->state == SRPT_CH_LIVE ?
					 "LOGGED_IN" : "IN_LOGIN");
		len += scnprintf(page + len, PAGE_SIZE - len,
				 "CID: %u   Connection State: TARG_CONN_STATE_%s\n",
				 ch->id, srpt_ch_conn_state[ch->state]);
		if (ch->using_rdma_cm)
			len += scnprintf(page + len, PAGE_SIZE - len,
					 "   Address %pISc RDMA_CM qp 0x%x\n",
					 &ch->peer_addr, ch->qp_num);
		else
			len += scnprintf(page + len, PAGE_SIZE - len,
					 "   Address %pI6 IB_CM qp 0x%x\n",
					 ch->i_port_id, ch->qp_num);
	}
	mutex_unlock(&srpt_ch_mutex);
	if (!n)
		len = scnprintf(page, PAGE_SIZE,
				"No active SRP session for initiator %s\n",
				se_nacl->initiatorname);
	return len;
}

/**
 * srpt_tpg_show_channels() - describe the channels of a portal group
 * @tpg: the group
 * @page: configfs page (PAGE_SIZE bytes)
 *
 * One line per channel: initiator, state, credits, counters, completion
 * vector.  Stops before the page is full.
 *
 * Return: bytes written.
 */
ssize_t srpt_tpg_show_channels(struct srpt_tpg *tpg, char *page)
{
	struct srpt_channel *ch;
	ssize_t len = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, list) {
		int n;

		if (ch->tpg != tpg)
			continue;
		n = scnprintf(page + len, PAGE_SIZE - len,
			      "%s id=%u state=%s cm=%s qp=0x%x srq=%d credits=%d pending_credits=%d cmds=%lld imm_cmds=%lld bytes_in=%lld bytes_out=%lld malformed=%lld rdma_errors=%lld tmfs=%lld over_credit=%lld aborted=%lld cred_reqs=%lld sq_full=%lld stuck=%lld vector=%d keepalives=%lld data_full=%lld data_held=%d\n",
			      ch->sess_name, ch->id,
			      srpt_ch_state_name[ch->state],
			      ch->using_rdma_cm ? "rdma" : "ib", ch->qp_num,
			      ch->use_srq, ch->req_lim, ch->req_lim_delta,
			      atomic64_read(&ch->stats.cmds),
			      atomic64_read(&ch->stats.imm_cmds),
			      atomic64_read(&ch->stats.bytes_in),
			      atomic64_read(&ch->stats.bytes_out),
			      atomic64_read(&ch->stats.malformed),
			      atomic64_read(&ch->stats.rdma_errors),
			      atomic64_read(&ch->stats.tmfs),
			      atomic64_read(&ch->stats.over_credit),
			      atomic64_read(&ch->stats.aborted),
			      atomic64_read(&ch->stats.cred_reqs),
			      atomic64_read(&ch->stats.sq_full),
			      atomic64_read(&ch->stats.stuck),
			      ch->comp_vector,
			      atomic64_read(&ch->stats.keepalives),
			      atomic64_read(&ch->stats.data_full),
			      atomic_read(&ch->data_held));
		if (len + n >= PAGE_SIZE - 1)
			break;
		len += n;
	}
	mutex_unlock(&srpt_ch_mutex);
	return len;
}
