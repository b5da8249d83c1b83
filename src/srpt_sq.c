// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: command contexts, credits and the send queue.
 *
 * Credits: a credit is a posted receive buffer.  Each reposted buffer adds
 * one to req_lim_delta, each response hands req_lim_delta to the initiator.
 * A buffer that carries immediate data is reposted when the command's data
 * is no longer needed, before its response is built.
 *
 * Send queue: every post first takes its work requests from sq_wr_avail.
 * A response (LIO's or the driver's own) or the RDMA READs of a write that
 * cannot have them wait, in order, on the channel's sq_wait list until
 * send completions give entries back: a full send queue delays them,
 * never drops them, and LIO's callbacks never return -ENOMEM (LIO would
 * retry at once from its queue-full work, again and again, until room
 * came back).  The keepalive probe has a send queue entry of its own
 * (srpt_watch.c).
 *
 * Taking and returning a context and posting a response are inline
 * (srpt_sq.h): LIO's callbacks (srpt_lio.c) and the receive path run
 * them for every command without a call.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_sq.h"
#include "srpt_qp.h"

#define SRPT_FIXED_SENSE_LEN	18	/* fixed-format sense data */
/* Tags of the target's SRP_CRED_REQs: this prefix, then the context index. */
#define SRPT_CRED_REQ_TAG	0x5352505443520000ULL

/**
 * srpt_get_ioctx() - take a free command context
 * @ch: channel
 *
 * Return: the context, or NULL when all are in use or the channel is not
 * live.
 */
struct srpt_send_ioctx *srpt_get_ioctx(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ioctx = srpt_take_ioctx_locked(ch);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ioctx)
		srpt_ioctx_reset(ioctx);
	return ioctx;
}

/**
 * srpt_put_detached() - give back the buffers of a detached channel's
 * request
 * @ioctx: the request, finished
 *
 * Under the channel's lock, which srpt_ch_detach() holds for each context
 * it unmaps: before it got to @ioctx, the device is still there and the
 * RDMA contexts are destroyed here; after, there are none left.  The
 * receive buffer of immediate data is not reposted: it is one of the
 * channel's own, freed with the channel (SRQ channels never negotiate
 * immediate data, so no command holds an SRQ buffer).
 */
void srpt_put_detached(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	srpt_unmap_rw(ioctx);
	ioctx->recv = NULL;
	spin_unlock_irqrestore(&ch->lock, flags);
	srpt_free_data(ioctx);
}

/**
 * srpt_unget_ioctx() - give back a context whose request has to wait
 * @ioctx: taken by srpt_get_ioctx(), nothing sent for it, its receive
 *	buffer not reposted (the request goes back on the wait list)
 */
void srpt_unget_ioctx(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	unsigned long flags;

	srpt_unmap_data(ioctx);
	kfree(ioctx->cdb_ext);
	ioctx->cdb_ext = NULL;
	spin_lock_irqsave(&ch->lock, flags);
	srpt_free_ioctx_locked(ioctx);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_ioctx_done() - a request's response completed or can never be sent
 * @ioctx: the request
 *
 * A request LIO knows goes back through LIO, which calls release_cmd; any
 * other goes straight back to the free list.
 */
static void srpt_ioctx_done(struct srpt_send_ioctx *ioctx)
{
	if (ioctx->in_lio)
		transport_generic_free_cmd(&ioctx->cmd, 0);
	else
		srpt_put_ioctx(ioctx);
}

/**
 * srpt_post_send_failed() - a post to a channel's send queue failed
 * @ch: channel
 * @what: what was posted, for the log
 * @ret: the errno of the post
 *
 * See srpt_post_send(): the channel is closed.
 */
void srpt_post_send_failed(struct srpt_channel *ch, const char *what, int ret)
{
	pr_warn_ratelimited("%s: posting %s failed (%d)\n",
			    ch->sess_name, what, ret);
	srpt_ch_close(ch, "posting to the send queue failed");
}

/**
 * srpt_wc_error() - a work request of a channel completed with an error
 * @ch: channel
 * @wc: the completion
 * @what: what the request was, for the log
 * @tag: tag of the request it belonged to, or 0
 *
 * Every error closes the channel, a flush too: the QP is in the error state
 * then, so nothing more would get through.  Errors other than flushes are
 * counted (rdma_errors) and logged.
 */
void srpt_wc_error(struct srpt_channel *ch, const struct ib_wc *wc,
		   const char *what, u64 tag)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		atomic64_inc(&ch->stats.rdma_errors);
		pr_warn_ratelimited("%s: %s for tag 0x%llx failed: %s\n",
				    ch->sess_name, what, tag,
				    ib_wc_status_msg(wc->status));
	}
	srpt_ch_close(ch, wc->status == IB_WC_WR_FLUSH_ERR ?
		      "work requests flushed" : "RDMA transfer error");
}

/**
 * srpt_rsp_from_cmd() - response fields of a finished SCSI command
 * @ioctx: the command
 * @a: receives the fields
 *
 * Return: @a, or NULL for status GOOD without sense data or residual
 * (the short form, srpt_build_rsp_good()).
 */
struct srpt_rsp_args *srpt_rsp_from_cmd(struct srpt_send_ioctx *ioctx,
					struct srpt_rsp_args *a)
{
	struct se_cmd *cmd = &ioctx->cmd;

	if (likely(srpt_rsp_plain(cmd)))
		return NULL;
	memset(a, 0, sizeof(*a));
	a->tag = ioctx->tag;
	a->status = cmd->scsi_status;
	a->dir = ioctx->dir;
	if (cmd->scsi_status && cmd->scsi_sense_length) {
		a->sense = ioctx->sense;
		a->sense_len = cmd->scsi_sense_length;
	}
	/*
	 * LIO can count an underflow twice (a data-in command sent with a
	 * data-out buffer): no more than the buffer can be missing.
	 */
	if (cmd->se_cmd_flags & SCF_UNDERFLOW_BIT)
		a->residual_under = min(cmd->residual_count, ioctx->data_len);
	else if (cmd->se_cmd_flags & SCF_OVERFLOW_BIT)
		a->residual_over = cmd->residual_count;
	return a;
}

/**
 * srpt_post_reads_reserved() - post the RDMA READs of a write
 * @ioctx: the command, @ioctx->n_wr entries reserved for its READs
 *
 * Only the last READ is signaled: srpt_rdma_read_done() executes the
 * command.
 *
 * Return: 0, or -EIO when nothing was posted (failed post, or the channel
 * let go of its device): the entries are given back then.
 */
static int srpt_post_reads_reserved(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	struct ib_send_wr *first = NULL;
	int i, ret = -EIO;

	rcu_read_lock();
	if (!srpt_ch_detached(ch)) {
		if (ioctx->n_dwr) {
			/* Over the kept mapping (srpt_map_kept()). */
			struct ib_send_wr *last =
				&ioctx->buf_wr[ioctx->n_dwr - 1].wr;

			last->wr_cqe = &ioctx->rdma_cqe;
			last->send_flags = IB_SEND_SIGNALED;
			first = &ioctx->buf_wr[0].wr;
		}
		for (i = ioctx->n_rw - 1; i >= 0; i--)
			first = rdma_rw_ctx_wrs(&ioctx->rw[i].rw, ch->qp,
						ch->sport->port_num,
						first ? NULL : &ioctx->rdma_cqe,
						first);
		srpt_watch_rdma_errors(ioctx, first);
		ioctx->state = SRPT_CMD_DATA_OUT;
		/* A failed post closes the channel. */
		ret = srpt_post_send(ch, first, "RDMA READs") ? -EIO : 0;
	}
	if (ret)
		atomic_add(ioctx->n_wr, &ch->sq_wr_avail);
	rcu_read_unlock();
	return ret;
}

/**
 * srpt_post_reads() - post the RDMA READs of a write, or queue them
 * @ioctx: the command (write_pending), its data not here yet
 *
 * Like a response (srpt_post_rsp()), READs that find others waiting, or
 * not enough entries, wait behind them on the sq_wait list and are posted
 * from the send completion that makes room; LIO is not asked to retry.
 *
 * Return: 0 (posted or queued), or -EIO when the post failed or the
 * channel detached (LIO fails the command).
 */
int srpt_post_reads(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;

	if (likely(list_empty(&ch->sq_wait) &&
		   srpt_sq_reserve(ch, ioctx->n_wr)))
		return srpt_post_reads_reserved(ioctx);
	if (unlikely(__srpt_ch_detached(ch)))
		return -EIO;
	srpt_sq_wait(ioctx, ioctx->n_wr, SRPT_SQ_READS, false);
	return 0;
}

/**
 * srpt_post_waiting() - post a response that has its send queue entries now
 * @ioctx: the request, @ioctx->sq_need entries reserved for it
 *
 * A LIO response's fields are read from its command now; a driver-built
 * one's are in @ioctx->rsp.  When nothing could be posted (the channel is
 * closing, or detached) the request ends here, as its completion would;
 * a write whose READs could not be posted is failed (LIO answers it).
 * Called by srpt_sq_kick(), one at a time per channel, so LIO's answer
 * to a failed write, which queues a response, does not recurse (and by
 * srpt_sq_wait() for what found room at once).
 */
static void srpt_post_waiting(struct srpt_send_ioctx *ioctx)
{
	/* Filled in by srpt_rsp_from_cmd() only where it is used. */
	struct srpt_rsp_args a __uninitialized;
	/* Read before the post: once posted, @ioctx may complete at once. */
	bool lio = ioctx->sq_kind == SRPT_SQ_LIO;

	if (ioctx->sq_kind == SRPT_SQ_READS) {
		if (srpt_post_reads_reserved(ioctx))
			transport_generic_request_failure(&ioctx->cmd,
							  TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}

	if (!srpt_post_reserved(ioctx, lio ? srpt_rsp_from_cmd(ioctx, &a) :
				&ioctx->rsp, ioctx->sq_data, ioctx->sq_need))
		return;
	if (lio)	/* the reference its completion would have dropped */
		target_put_sess_cmd(&ioctx->cmd);
	else
		srpt_ioctx_done(ioctx);
}

/**
 * srpt_sq_kick() - post waiting responses while there is room
 * @ch: channel
 *
 * Called by whoever queued a response and by every completion that gives
 * send queue entries back, so a waiting response cannot be forgotten: its
 * owner re-checks the room after queueing it, and a completion that frees
 * room after that finds it on the list.  The list is served in order: the
 * first response waits until its entries are there (RDMA WRITEs and SEND
 * of a large read may need many), and none behind it goes first.  On a
 * closing channel srpt_ch_wait_idle() kicks the list after the drain: the
 * responses and READs are posted into the QP in the error state and
 * flushed, which ends their requests.
 *
 * One caller at a time serves the list; a kick while it runs (room came
 * back on another CPU, or a response queued by what it posted) makes it
 * look again before it stops.
 */
void srpt_sq_kick(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->sq_kicking) {
		ch->sq_kick_again = true;
		spin_unlock_irqrestore(&ch->lock, flags);
		return;
	}
	ch->sq_kicking = true;
	for (;;) {
		ch->sq_kick_again = false;
		ioctx = list_first_entry_or_null(&ch->sq_wait,
						 struct srpt_send_ioctx,
						 sq_entry);
		if (!ioctx || !srpt_sq_reserve(ch, ioctx->sq_need)) {
			if (ch->sq_kick_again)
				continue;
			break;
		}
		list_del_init(&ioctx->sq_entry);
		spin_unlock_irqrestore(&ch->lock, flags);
		srpt_post_waiting(ioctx);
		spin_lock_irqsave(&ch->lock, flags);
	}
	ch->sq_kicking = false;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_sq_released() - send queue entries came back
 * @ch: channel
 * @n: how many
 */
void srpt_sq_released(struct srpt_channel *ch, unsigned int n)
{
	atomic_add(n, &ch->sq_wr_avail);
	/* Pairs with the ordered srpt_sq_reserve() of a response's owner. */
	smp_mb__after_atomic();
	if (!list_empty(&ch->sq_wait))
		srpt_sq_kick(ch);
}

/**
 * srpt_sq_wait() - post a response or READs, or queue them behind others
 * @ioctx: the request
 * @n: send queue entries the response needs
 * @kind: enum srpt_sq_kind: whose response, or a write's RDMA READs
 * @with_data: the command's RDMA WRITEs go in front of its SEND
 *
 * The slow path of srpt_post_rsp(), and the path of the driver's own
 * responses.  Under the channel's lock: posted at once only if nothing
 * waits and the entries can be reserved; else it joins the tail of the
 * sq_wait list (counted once in sq_full) and the list is kicked, in case
 * the entries came back in the meantime.
 */
noinline void srpt_sq_wait(struct srpt_send_ioctx *ioctx, unsigned int n,
			   u8 kind, bool with_data)
{
	struct srpt_channel *ch = ioctx->ch;
	unsigned long flags;
	bool now;

	ioctx->sq_need = n;
	ioctx->sq_kind = kind;
	ioctx->sq_data = with_data;
	spin_lock_irqsave(&ch->lock, flags);
	now = list_empty(&ch->sq_wait) && srpt_sq_reserve(ch, n);
	if (!now) {
		ioctx->state = SRPT_CMD_SQ_WAIT;
		list_add_tail(&ioctx->sq_entry, &ch->sq_wait);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (now) {
		srpt_post_waiting(ioctx);
		return;
	}
	atomic64_inc(&ch->stats.sq_full);
	srpt_sq_kick(ch);
}

/**
 * srpt_queue_own() - send a response LIO cannot retry for us
 * @ioctx: the request, @ioctx->rsp filled in
 *
 * TMF results, answers to requests LIO never saw and SRP_CRED_REQs are
 * never dropped: when the send queue is full they wait, in order with
 * LIO's responses, on the channel's sq_wait list until a completion makes
 * room (srpt_sq_wait()).
 */
void srpt_queue_own(struct srpt_send_ioctx *ioctx)
{
	srpt_sq_wait(ioctx, 1, SRPT_SQ_OWN, false);
}

/**
 * srpt_send_cred_req() - give freed credits back without a response
 * @ioctx: a context of the channel, still counted as busy, that carries
 *	the SRP_CRED_REQ
 */
void srpt_send_cred_req(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;

	ioctx->state = SRPT_CMD_NEW;
	ioctx->in_lio = false;
	ioctx->start = jiffies;
	ioctx->cred_req = true;
	/* Unique while in flight; the initiator echoes it in SRP_CRED_RSP. */
	ioctx->tag = SRPT_CRED_REQ_TAG | (ioctx - ch->ioctx_ring);
	memset(&ioctx->rsp, 0, sizeof(ioctx->rsp));
	atomic64_inc(&ch->stats.cred_reqs);
	srpt_queue_own(ioctx);
}

/**
 * srpt_t_logout() - end a channel with an SRP_T_LOGOUT
 * @ch: channel, live
 * @reason: SRPT_T_LOGOUT_* reason code
 *
 * For protocol errors after which the channel cannot go on (an IU the
 * target cannot parse at all): the initiator is told why (SRP r16a allows
 * the target to log out), and the channel is closed once the SRP_T_LOGOUT
 * has completed (srpt_send_done()).  Until then no more requests are
 * handled.  If no command context is free the channel is closed at once.
 */
void srpt_t_logout(struct srpt_channel *ch, u32 reason)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&ch->lock, flags);
	first = !ch->t_logout;
	ch->t_logout = true;
	ch->t_logout_reason = reason;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!first)
		return;
	ioctx = srpt_get_ioctx(ch);
	if (!ioctx) {
		srpt_ch_close(ch, "protocol error");
		return;
	}
	ioctx->t_logout = true;
	ioctx->tag = 0;
	memset(&ioctx->rsp, 0, sizeof(ioctx->rsp));
	srpt_queue_own(ioctx);
}

/**
 * srpt_send_error_rsp() - answer a request LIO never saw
 * @ioctx: context taken for the request
 * @tag: the request's tag
 * @status: SCSI status
 * @key: sense key (0 for none)
 * @asc: additional sense code
 * @ascq: additional sense code qualifier
 * @tmf_code: for a task management request, its response code; else -1
 *
 * The context goes back to the free list when the SEND completes, or at
 * once if nothing could be posted.
 */
void srpt_send_error_rsp(struct srpt_send_ioctx *ioctx, u64 tag, u8 status,
			 u8 key, u8 asc, u8 ascq, int tmf_code)
{
	struct srpt_rsp_args *a = &ioctx->rsp;
	u8 *sense = ioctx->sense;

	memset(a, 0, sizeof(*a));
	a->tag = tag;
	a->status = status;
	if (key) {
		memset(sense, 0, SRPT_FIXED_SENSE_LEN);
		sense[0] = 0x70;	/* fixed format, current error */
		sense[2] = key;
		sense[7] = SRPT_FIXED_SENSE_LEN - 8;
		sense[12] = asc;
		sense[13] = ascq;
		a->sense = sense;
		a->sense_len = SRPT_FIXED_SENSE_LEN;
	}
	if (tmf_code >= 0) {
		a->has_resp_code = true;
		a->resp_code = tmf_code;
	}
	srpt_queue_own(ioctx);
}

/**
 * srpt_rdma_err_done() - an unsignaled RDMA READ or WRITE failed
 * @cq: completion queue
 * @wc: its error completion (see srpt_watch_rdma_errors())
 *
 * The command's signaled request (the last READ, or the response SEND)
 * completes after this one, flushed, and finishes the command.
 */
void srpt_rdma_err_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, rdma_err_cqe);

	srpt_wc_error(ioctx->ch, wc, ioctx->dir == SRPT_DIR_OUT ?
		      "RDMA READ" : "RDMA WRITE", ioctx->tag);
}

/**
 * srpt_send_done() - a response (and its RDMA WRITEs) completed
 * @cq: completion queue
 * @wc: completion of the SEND
 */
void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, send_cqe);
	struct srpt_channel *ch = ioctx->ch;

	unsigned int n = ioctx->rsp_wrs;

	ioctx->rsp_wrs = 0;
	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_error(ch, wc, "response", ioctx->tag);
	/* The initiator has the SRP_T_LOGOUT (or never will): now disconnect. */
	if (ioctx->t_logout)
		srpt_ch_close(ch, "protocol error, SRP_T_LOGOUT sent");
	/* Before the context goes: a closing channel lives while it is busy. */
	srpt_sq_released(ch, n);
	ioctx->state = SRPT_CMD_DONE;
	srpt_ioctx_done(ioctx);
}
