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
 * A response that cannot have them (LIO's and the driver's own) waits, in
 * order, on the channel's sq_wait list until send completions give entries
 * back: a full send queue delays a response, never drops it, and LIO's
 * callbacks never return -ENOMEM.  The keepalive probe has a send queue
 * entry of its own (srpt_watch.c).
 *
 * LIO's response callbacks (queue_data_in, queue_status) are here too, so
 * that a command's response is built and posted in one function.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

static void srpt_send_cred_req(struct srpt_send_ioctx *ioctx);

/**
 * srpt_take_credits() - credits to return in the next response
 * @ch: channel
 *
 * Return: the receive buffers reposted since the last response.
 */
static s32 srpt_take_credits(struct srpt_channel *ch)
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
static void srpt_undo_credits(struct srpt_channel *ch, s32 delta)
{
	atomic_add(delta, &ch->req_lim_delta);
	atomic_sub(delta, &ch->req_lim);
}

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
 * srpt_free_ioctx_locked() - a context back on the free list
 * @ioctx: the context, busy until now
 *
 * Wakes a closing channel's release when the last busy context comes back.
 * Caller holds ch->lock.
 */
static __always_inline void
srpt_free_ioctx_locked(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;

	lockdep_assert_held(&ch->lock);
	ioctx->state = SRPT_CMD_FREE;
	list_add(&ioctx->free_entry, &ch->free_list);
	if (unlikely(atomic_read(&ch->kept_pages) > SRPT_KEPT_PAGES))
		srpt_shed_locked(ch);
	ch->n_busy--;
	if (!ch->n_busy && ch->state != SRPT_CH_LIVE)
		wake_up(&ch->idle_wq);
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
static void srpt_put_detached(struct srpt_send_ioctx *ioctx)
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
 * __srpt_put_ioctx() - return a command context to the free list
 * @ioctx: the context
 *
 * Gives back an immediate-data receive buffer still held (aborted command)
 * and lets requests waiting for a context go on.  When the last busy
 * context of a live channel was a request that got no response (aborted),
 * no response is left to carry the credits its buffer freed: the context
 * is reused at once for an SRP_CRED_REQ that returns them.
 *
 * The last busy context of a closing channel wakes the release work, which
 * then frees the channel: nothing here touches @ch after the lock is
 * dropped.
 */
static __always_inline void __srpt_put_ioctx(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	bool no_rsp = !ioctx->responded;
	unsigned long flags;
	bool live, cred, detached = false;

	/* Requests without data or immediate data (TMFs, errors) skip this. */
	if (ioctx->rw || ioctx->data_sgl || ioctx->recv ||
	    ioctx->charged || ioctx->rdma_sg) {
		rcu_read_lock();
		detached = srpt_ch_detached(ch);
		if (likely(!detached)) {
			__srpt_unmap_data(ioctx);
			if (ioctx->recv) {
				__srpt_repost_recv(ch, ioctx->recv);
				ioctx->recv = NULL;
			}
		}
		rcu_read_unlock();
		if (detached)
			srpt_put_detached(ioctx);
	}
	if (unlikely(ioctx->cdb_ext)) {
		kfree(ioctx->cdb_ext);
		ioctx->cdb_ext = NULL;
	}
	spin_lock_irqsave(&ch->lock, flags);
	live = ch->state == SRPT_CH_LIVE;
	cred = no_rsp && live && ch->n_busy == 1 &&
	       atomic_read(&ch->req_lim_delta) > 0 &&
	       list_empty(&ch->wait_list);
	if (!cred) {
		srpt_free_ioctx_locked(ioctx);
		if (live && !list_empty(&ch->wait_list))
			queue_work(srpt_system_wq, &ch->wait_work);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (cred)
		srpt_send_cred_req(ioctx);
}

/**
 * srpt_put_ioctx() - __srpt_put_ioctx(), for requests LIO does not own
 * @ioctx: the context
 */
void srpt_put_ioctx(struct srpt_send_ioctx *ioctx)
{
	__srpt_put_ioctx(ioctx);
}

/**
 * srpt_release_cmd() - LIO is done with a command
 * @se_cmd: the command
 *
 * The release of every command: the context goes back at once.
 */
void srpt_release_cmd(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);

	ioctx->in_lio = false;
	__srpt_put_ioctx(ioctx);
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
 * srpt_watch_rdma_errors() - route the error completions of RDMA requests
 * @ioctx: the command
 * @first: its chain of work requests
 *
 * rdma_rw leaves every request but the last of a chain without a
 * completion entry, and unsignaled: the CQ layer drops the error
 * completion of such a request (it calls only wr_cqe->done), so a failed
 * RDMA WRITE (bad rkey, initiator gone) went unseen and the channel stayed
 * live with its QP in error.  Those requests get srpt_rdma_err_done()
 * (still unsignaled: it runs only for an error).
 */
void srpt_watch_rdma_errors(struct srpt_send_ioctx *ioctx,
			    struct ib_send_wr *first)
{
	for (; first; first = first->next)
		if (!first->wr_cqe)
			first->wr_cqe = &ioctx->rdma_err_cqe;
}

/**
 * srpt_build_and_post() - build and post a response, after any RDMA WRITEs
 * @ioctx: the request
 * @a: response fields, req_lim_delta filled in here; NULL for status GOOD
 *	without sense data or residual (srpt_build_rsp_good())
 * @with_data: chain the command's RDMA WRITEs in front of the SEND
 * @n: send queue entries already reserved for all of it
 *
 * The IU is an SRP_RSP, or an SRP_CRED_REQ if @ioctx->cred_req is set, or
 * an SRP_T_LOGOUT if @ioctx->t_logout is.  An SRP_RSP or SRP_CRED_REQ
 * carries every credit freed so far.
 *
 * Called by srpt_post_reserved() with the device in use.
 *
 * Return: 0, or -EIO when the post failed (see srpt_post_send()): then
 * the entries and the credits are given back and nothing was posted.
 */
static __always_inline int
srpt_build_and_post(struct srpt_send_ioctx *ioctx, struct srpt_rsp_args *a,
		    bool with_data, unsigned int n)
{
	struct srpt_channel *ch = ioctx->ch;
	struct ib_send_wr *first = &ioctx->rsp_wr;
	s32 delta = ioctx->t_logout ? 0 : srpt_take_credits(ch);
	size_t len;
	int i, ret;

	if (likely(!a)) {
		len = srpt_build_rsp_good(ioctx->rsp_buf, ioctx->tag, delta);
	} else {
		a->req_lim_delta = delta;
		if (unlikely(ioctx->t_logout))
			len = srpt_build_t_logout(ioctx->rsp_buf,
						  ch->max_ti_iu_len, ioctx->tag,
						  ch->t_logout_reason);
		else if (unlikely(ioctx->cred_req))
			len = srpt_build_cred_req(ioctx->rsp_buf,
						  ch->max_ti_iu_len, ioctx->tag,
						  delta);
		else
			len = srpt_build_rsp(ioctx->rsp_buf, ch->max_ti_iu_len,
					     a);
	}
	if (!ch->virt_dma)
		ib_dma_sync_single_for_device(ch->sport->sdev->ib_dev,
					      ioctx->rsp_dma, len,
					      DMA_TO_DEVICE);

	/* The rest of the SEND was set up with the context. */
	ioctx->rsp_sge.length = len;
	ioctx->rsp_wr.next = NULL;

	if (with_data) {
		for (i = ioctx->n_rw - 1; i >= 0; i--)
			first = rdma_rw_ctx_wrs(&ioctx->rw[i].rw, ch->qp,
						ch->sport->port_num, NULL,
						first);
		srpt_watch_rdma_errors(ioctx, first);
	}

	ioctx->rsp_wrs = n;
	ioctx->state = SRPT_CMD_RSP_SENT;
	ioctx->responded = true;
	trace_srpt_rsp(ch->id, ioctx->tag, ioctx->cred_req, a ? a->status : 0,
		       delta, n);
	ret = srpt_post_send(ch, first, "a response");
	if (ret) {
		atomic_add(n, &ch->sq_wr_avail);
		ioctx->rsp_wrs = 0;
		ioctx->responded = false;
		srpt_undo_credits(ch, delta);
		ret = -EIO;
	}
	return ret;
}

/**
 * srpt_post_reserved() - post a response unless the channel detached
 * @ioctx: the request
 * @a: response fields, see srpt_build_and_post()
 * @with_data: chain the command's RDMA WRITEs in front of the SEND
 * @n: send queue entries already reserved for all of it
 *
 * Return: 0, or -EIO when nothing was posted (failed post, or the channel
 * let go of its device): the entries are given back then.
 */
static __always_inline int
srpt_post_reserved(struct srpt_send_ioctx *ioctx, struct srpt_rsp_args *a,
		   bool with_data, unsigned int n)
{
	int ret;

	rcu_read_lock();
	if (srpt_ch_detached(ioctx->ch)) {
		atomic_add(n, &ioctx->ch->sq_wr_avail);
		ret = -EIO;
	} else {
		ret = srpt_build_and_post(ioctx, a, with_data, n);
	}
	rcu_read_unlock();
	return ret;
}

/**
 * srpt_post_rsp() - post the response of a command LIO completed
 * @ioctx: the command
 * @a: response fields, see srpt_build_and_post()
 * @with_data: chain the command's RDMA WRITEs in front of the SEND
 *
 * The common case is one reservation and one post.  A response that finds
 * others waiting, or not enough entries, waits behind them on the sq_wait
 * list (srpt_sq_wait()): it never overtakes one that waits already, which
 * could otherwise starve (a large one, for ever).
 *
 * Return: 0 (posted, or queued), or -EIO when the post failed or the
 * channel detached (nothing posted, see srpt_post_reserved()).
 */
static __always_inline int srpt_post_rsp(struct srpt_send_ioctx *ioctx,
					 struct srpt_rsp_args *a,
					 bool with_data)
{
	struct srpt_channel *ch = ioctx->ch;
	unsigned int n = 1 + (with_data ? ioctx->n_wr : 0);

	if (likely(list_empty(&ch->sq_wait) && srpt_sq_reserve(ch, n)))
		return srpt_post_reserved(ioctx, a, with_data, n);
	srpt_sq_wait(ioctx, n, true, with_data);
	return 0;
}

/**
 * srpt_rsp_from_cmd() - response fields of a finished SCSI command
 * @ioctx: the command
 * @a: receives the fields
 *
 * Return: @a, or NULL for status GOOD without sense data or residual
 * (the short form, srpt_build_rsp_good()).
 */
static struct srpt_rsp_args *srpt_rsp_from_cmd(struct srpt_send_ioctx *ioctx,
					       struct srpt_rsp_args *a)
{
	struct se_cmd *cmd = &ioctx->cmd;

	if (likely(!cmd->scsi_status &&
		   !(cmd->se_cmd_flags & (SCF_UNDERFLOW_BIT |
					  SCF_OVERFLOW_BIT))))
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
 * srpt_rsp_posted() - finish posting a LIO response
 * @ioctx: the command
 * @ret: what srpt_post_rsp() or srpt_post_reserved() returned
 *
 * After a failed post (the channel is then closing: see srpt_post_send())
 * or on a detached channel no completion will come for the command, so the
 * reference the completion would have dropped is dropped here.
 *
 * Return: 0 (posted, queued or given up).
 */
static int srpt_rsp_posted(struct srpt_send_ioctx *ioctx, int ret)
{
	if (unlikely(ret))
		target_put_sess_cmd(&ioctx->cmd);
	return 0;
}

/**
 * srpt_queue_data_in() - send the data and the status of a read
 * @se_cmd: the command
 *
 * LIO calls this once per command: it is never asked to retry (a full send
 * queue queues the response), so the tail of the buffer is zeroed and the
 * buffer synced for the device once, before the response is posted or
 * queued.
 *
 * Return: 0.
 */
int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	/* Filled in by srpt_rsp_from_cmd() only where it is used. */
	struct srpt_rsp_args a __uninitialized;
	int ret;

	if (unlikely(srpt_data_unfilled(ioctx)))
		srpt_zero_tail(ioctx, 0);
	else if (unlikely(ioctx->data_sgl &&
			  se_cmd->data_length < ioctx->data_len))
		srpt_zero_tail(ioctx, se_cmd->data_length);
	srpt_sync_data(ioctx, false);
	ret = srpt_post_rsp(ioctx, srpt_rsp_from_cmd(ioctx, &a),
			    ioctx->n_rw > 0);
	return srpt_rsp_posted(ioctx, ret);
}

/**
 * srpt_queue_status() - send the status of a command
 * @se_cmd: the command
 *
 * An immediate-data buffer is reposted first, so that the credit it frees
 * travels in this response.  LIO also sends the CHECK CONDITION of a failed
 * LUN lookup with this, and ignores what it returns there.
 *
 * Return: 0.
 */
int srpt_queue_status(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	/* Filled in by srpt_rsp_from_cmd() only where it is used. */
	struct srpt_rsp_args a __uninitialized;
	int ret;

	if (ioctx->recv) {
		rcu_read_lock();
		if (!srpt_ch_detached(ioctx->ch)) {
			__srpt_repost_recv(ioctx->ch, ioctx->recv);
			ioctx->recv = NULL;
		}
		rcu_read_unlock();
	}
	ret = srpt_post_rsp(ioctx, srpt_rsp_from_cmd(ioctx, &a), false);
	return srpt_rsp_posted(ioctx, ret);
}

/**
 * srpt_post_waiting() - post a response that has its send queue entries now
 * @ioctx: the request, @ioctx->sq_need entries reserved for it
 *
 * A LIO response's fields are read from its command now; a driver-built
 * one's are in @ioctx->rsp.  When nothing could be posted (the channel is
 * closing, or detached) the request ends here, as its completion would.
 */
static void srpt_post_waiting(struct srpt_send_ioctx *ioctx)
{
	/* Filled in by srpt_rsp_from_cmd() only where it is used. */
	struct srpt_rsp_args a __uninitialized;
	/* Read before the post: once posted, @ioctx may complete at once. */
	bool lio = ioctx->sq_lio;

	if (!srpt_post_reserved(ioctx, lio ? srpt_rsp_from_cmd(ioctx, &a) :
				&ioctx->rsp, ioctx->sq_data, ioctx->sq_need))
		return;
	if (lio)
		srpt_rsp_posted(ioctx, -EIO);
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
 * responses are posted into the QP in the error state and flushed, which
 * ends their requests.
 */
void srpt_sq_kick(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		ioctx = list_first_entry_or_null(&ch->sq_wait,
						 struct srpt_send_ioctx,
						 sq_entry);
		if (!ioctx || !srpt_sq_reserve(ch, ioctx->sq_need)) {
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		list_del_init(&ioctx->sq_entry);
		spin_unlock_irqrestore(&ch->lock, flags);
		srpt_post_waiting(ioctx);
	}
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
 * srpt_sq_wait() - post a response, or queue it behind those that wait
 * @ioctx: the request
 * @n: send queue entries the response needs
 * @lio: a LIO callback's response (else @ioctx->rsp holds its fields)
 * @with_data: the command's RDMA WRITEs go in front of its SEND
 *
 * The slow path of srpt_post_rsp(), and the path of the driver's own
 * responses.  Under the channel's lock: posted at once only if nothing
 * waits and the entries can be reserved; else it joins the tail of the
 * sq_wait list (counted once in sq_full) and the list is kicked, in case
 * the entries came back in the meantime.
 */
noinline void srpt_sq_wait(struct srpt_send_ioctx *ioctx, unsigned int n,
			   bool lio, bool with_data)
{
	struct srpt_channel *ch = ioctx->ch;
	unsigned long flags;
	bool now;

	ioctx->sq_need = n;
	ioctx->sq_lio = lio;
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
 * srpt_send_cred_req() - give freed credits back without a response
 * @ioctx: a context of the channel, still counted as busy, that carries
 *	the SRP_CRED_REQ
 */
static void srpt_send_cred_req(struct srpt_send_ioctx *ioctx)
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
