// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the QP state machine of a channel, and closing a channel.
 *
 * INIT, RTR and RTS are set up by the login path (srpt_cm.c), ERR by the
 * release work (srpt_chlist.c).  srpt_ch_close() is the one entry every
 * layer may use to end a channel, from any context: it only changes the
 * channel's state and queues the release work that srpt_ch_alloc() set up.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/build_bug.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "srpt_qp.h"
#include "srpt.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
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

/**
 * srpt_qp_event() - asynchronous event of a channel's QP
 * @event: the event
 * @ptr: the channel
 *
 * May run in interrupt context.
 */
void srpt_qp_event(struct ib_event *event, void *ptr)
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
 * srpt_ch_qp_by_cma() - does the RDMA/CM move the channel's QP?
 * @ch: the channel
 *
 * Only on iWARP, where the iW CM takes the QP to RTS when it accepts and
 * the RNR retry count does not exist; there the QP is attached to the
 * RDMA/CM id (srpt_ch_create_qp()).  IB/CM logins, and RDMA/CM logins on
 * InfiniBand and RoCE ports, have a QP of their own that the target moves.
 *
 * Return: true if the QP is the RDMA/CM id's.
 */
static bool srpt_ch_qp_by_cma(const struct srpt_channel *ch)
{
	return ch->rdma_cm_id && ch->rdma_cm_id->qp;
}

/**
 * srpt_ch_qp_query_rnr() - record the RNR retry count the QP has
 * @ch: the channel, its QP in RTS
 * @attr: scratch attribute structure (the caller's, on its stack)
 *
 * Asked from the device rather than remembered from what was set: the
 * channels attribute shows it, and a test reads what the device has.
 */
static void srpt_ch_qp_query_rnr(struct srpt_channel *ch,
				 struct ib_qp_attr *attr)
{
	struct ib_qp_init_attr *init = kzalloc(sizeof(*init), GFP_KERNEL);

	if (init && !ib_query_qp(ch->qp, attr, IB_QP_RNR_RETRY, init))
		ch->rnr_retry = attr->rnr_retry;
	kfree(init);
}

/**
 * srpt_ch_qp_modify() - move the QP of a channel to a new state
 * @ch: the channel
 * @state: IB_QPS_INIT, IB_QPS_RTR or IB_QPS_RTS
 *
 * The attributes come from the CM (ib_cm_init_qp_attr(), or
 * rdma_init_qp_attr() which adds the RDMA/CM's receive PSN and ACK
 * timeout), which knows the path, the remote QP number and the RDMA
 * depths of the REQ.  These depths are the initiator's wishes until the
 * REP is sent, and RDMA/CM logins leave RTS before it: they are capped at
 * what the device allows, as the REP caps them.  At RTS the RNR retry
 * count is capped at the portal group's rnr_retry (the only transition
 * where it can be set: RTS to RTS does not take it): the initiator's REQ
 * asks for 7 (ib_srp), which is for ever, and an initiator that stopped
 * posting receives would freeze the send queue; after rnr_retry retries,
 * each after its RNR NAK timer, the send fails and the channel closes.
 * IB/CM and RDMA/CM logins alike.  A QP the RDMA/CM moves (iWARP) is left
 * alone.  The attribute structure is on the stack; see
 * SRPT_QP_ATTR_STACK_BUDGET.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_ch_qp_modify(struct srpt_channel *ch, enum ib_qp_state state)
{
	const struct ib_device_attr *dev = &ch->sport->sdev->ib_dev->attrs;
	struct ib_qp_attr attr = { .qp_state = state };
	int mask = 0;
	int ret;

	if (srpt_ch_qp_by_cma(ch))
		return 0;
	if (ch->using_rdma_cm)
		ret = rdma_init_qp_attr(ch->rdma_cm_id, &attr, &mask);
	else
		ret = ib_cm_init_qp_attr(ch->ib_cm_id, &attr, &mask);
	if (ret)
		goto out;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		attr.max_dest_rd_atomic = min_t(u8, attr.max_dest_rd_atomic,
						dev->max_qp_rd_atom);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		attr.max_rd_atomic = min_t(u8, attr.max_rd_atomic,
					   dev->max_qp_init_rd_atom);
	if (mask & IB_QP_RNR_RETRY)
		attr.rnr_retry = min_t(u32, attr.rnr_retry,
				       READ_ONCE(ch->tpg->rnr_retry));
	ret = ib_modify_qp(ch->qp, &attr, mask);
	if (!ret && state == IB_QPS_RTS)
		srpt_ch_qp_query_rnr(ch, &attr);
out:
	trace_srpt_qp_state(ch->id, ch->qp_num, state, ret);
	return ret;
}

/**
 * srpt_ch_qp_init() - move a channel's QP from RESET to INIT
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
 * srpt_ch_qp_rtr() - move a channel's QP from INIT to RTR
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
 * srpt_ch_qp_rts() - move a channel's QP from RTR to RTS
 * @ch: the channel
 *
 * From then on the target can send.  IB/CM logins do it when the RTU
 * arrives (or the first receive completion reports communication
 * established); RDMA/CM logins before rdma_accept() sends the REP, as the
 * RDMA/CM itself would (rdma_accept() leaves a QP alone that is not the
 * id's).  The RNR retry count becomes the portal group's rnr_retry, or
 * the initiator's if that is lower.
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

/*
 * Release works run here, not on a system work queue: the module's exit
 * destroys the queue, which waits for the last instructions of a release
 * (after it dropped the portal group, which let configfs and then rmmod go
 * on) to finish before the module's code goes.
 */
static struct workqueue_struct *srpt_release_wq;

/**
 * srpt_qp_init() - create the work queue channel releases run on
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_qp_init(void)
{
	/* Unbound: a release may wait long for the backend. */
	srpt_release_wq = alloc_workqueue("ib_srpt_release", WQ_UNBOUND, 0);
	return srpt_release_wq ? 0 : -ENOMEM;
}

/**
 * srpt_qp_exit() - wait for the last channel release and destroy its queue
 */
void srpt_qp_exit(void)
{
	destroy_workqueue(srpt_release_wq);
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
 * then fails and the login path frees it.  One registered but whose CM
 * reply the login path has not sent yet is only marked too: the release
 * destroys the CM id, so srpt_ch_replied() queues it.
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
	release = first && ch->registered && ch->replied;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!first)
		return;
	trace_srpt_ch_state(ch->sess_name, ch->id, old, SRPT_CH_DISCONNECTING);
	pr_info("%s: closing channel: %s\n", ch->sess_name, why);
	if (release)
		queue_work(srpt_release_wq, &ch->release_work);
}

/**
 * srpt_ch_replied() - the login path is done with a registered channel's CM id
 * @ch: the channel, registered; its CM reply was sent (or failed)
 *
 * From now on the release may run: if the channel was closed meanwhile,
 * its release is queued here.
 */
void srpt_ch_replied(struct srpt_channel *ch)
{
	unsigned long flags;
	bool release;

	spin_lock_irqsave(&ch->lock, flags);
	ch->replied = true;
	release = ch->registered && ch->state == SRPT_CH_DISCONNECTING;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (release)
		queue_work(srpt_release_wq, &ch->release_work);
}
