/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: command contexts, credits, the send queue and responses
 * (srpt_sq.c).  Taking and returning a context and posting a response
 * are inline: every command does each once.
 */
#ifndef SRPT_SQ_H
#define SRPT_SQ_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "srpt.h"
#include "srpt_detach.h"
#include "srpt_param.h"
#include "srpt_ring.h"
#include "srpt_data.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

struct srpt_send_ioctx *srpt_get_ioctx(struct srpt_channel *ch);
void srpt_unget_ioctx(struct srpt_send_ioctx *ioctx);
void srpt_put_detached(struct srpt_send_ioctx *ioctx);
void srpt_send_cred_req(struct srpt_send_ioctx *ioctx);
void srpt_post_send_failed(struct srpt_channel *ch, const char *what, int ret);
void srpt_wc_error(struct srpt_channel *ch, const struct ib_wc *wc,
		   const char *what, u64 tag);
struct srpt_rsp_args *srpt_rsp_from_cmd(struct srpt_send_ioctx *ioctx,
					struct srpt_rsp_args *a);
void srpt_sq_kick(struct srpt_channel *ch);
void srpt_sq_released(struct srpt_channel *ch, unsigned int n);
void srpt_sq_wait(struct srpt_send_ioctx *ioctx, unsigned int n, u8 kind,
		  bool with_data);
int srpt_post_reads(struct srpt_send_ioctx *ioctx);
void srpt_queue_own(struct srpt_send_ioctx *ioctx);
void srpt_t_logout(struct srpt_channel *ch, u32 reason);
void srpt_send_error_rsp(struct srpt_send_ioctx *ioctx, u64 tag, u8 status,
			 u8 key, u8 asc, u8 ascq, int tmf_code);
void srpt_rdma_err_done(struct ib_cq *cq, struct ib_wc *wc);
void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);

/**
 * srpt_take_ioctx_locked() - take a free command context
 * @ch: the channel, its lock held
 *
 * Only while the channel is live: a busy context keeps a closing channel's
 * release waiting (srpt_ch_wait_idle()), so none may be taken once it
 * could have stopped waiting.
 *
 * Return: the context, counted in @ch->n_busy, or NULL when all are in
 * use or the channel is not live.
 */
static inline struct srpt_send_ioctx *
srpt_take_ioctx_locked(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *ioctx;

	lockdep_assert_held(&ch->lock);
	if (ch->state != SRPT_CH_LIVE || ch->n_busy == ch->n_ioctx)
		return NULL;
	ioctx = ch->free_stack[ch->n_ioctx - ch->n_busy - 1];
	ch->n_busy++;
	return ioctx;
}

/**
 * srpt_ioctx_reset() - start a new request in a context just taken
 * @ioctx: the context, from srpt_take_ioctx_locked()
 *
 * A context comes back to the free list with no receive buffer, RDMA
 * context, data buffer or send queue entry of its request left
 * (srpt_put_ioctx()); what a request sets as it goes is reset here.
 */
static inline void srpt_ioctx_reset(struct srpt_send_ioctx *ioctx)
{
	ioctx->start = jiffies;
	ioctx->responded = false;
	ioctx->cred_req = false;
	ioctx->t_logout = false;
	ioctx->reported = false;
	ioctx->state = SRPT_CMD_NEW;
	ioctx->n_wr = 0;
	ioctx->dir = SRPT_DIR_NONE;
	ioctx->in_lio = false;
}

/**
 * srpt_rsp_plain() - does a finished command get the short GOOD response?
 * @cmd: the command
 *
 * Return: true for status GOOD without sense data or residual
 * (srpt_build_rsp_good()).
 */
static inline bool srpt_rsp_plain(const struct se_cmd *cmd)
{
	return !cmd->scsi_status &&
	       !(cmd->se_cmd_flags & (SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT));
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
	ch->n_busy--;
	ch->free_stack[ch->n_ioctx - ch->n_busy - 1] = ioctx;
	if (unlikely(atomic_read(&ch->kept_pages) > READ_ONCE(ch->kept_max)))
		srpt_shed_locked(ch);
	if (!ch->n_busy && ch->state != SRPT_CH_LIVE)
		wake_up(&ch->idle_wq);
}

/**
 * srpt_put_ioctx() - return a command context to the free list
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
static __always_inline void srpt_put_ioctx(struct srpt_send_ioctx *ioctx)
{
	struct srpt_channel *ch = ioctx->ch;
	bool no_rsp = !ioctx->responded;
	unsigned long flags;
	bool live, cred, detached = false;

	/*
	 * Only rdma_rw contexts and receive buffers touch the device: a
	 * command over a kept mapping, or without data, skips this.
	 */
	if (ioctx->rw || ioctx->recv) {
		rcu_read_lock();
		detached = srpt_ch_detached(ch);
		if (likely(!detached)) {
			srpt_unmap_rw(ioctx);
			if (ioctx->recv) {
				__srpt_repost_recv(ch, ioctx->recv);
				ioctx->recv = NULL;
			}
		}
		rcu_read_unlock();
		if (detached)
			srpt_put_detached(ioctx);
	}
	srpt_free_data(ioctx);
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
 * srpt_sq_reserve() - take send queue entries
 * @ch: channel
 * @n: entries needed
 *
 * Requests share ch->sq_size entries.  One that needs more than that (a
 * descriptor table larger than a small srp_sq_size) may also take the
 * ch->sq_extra entries the QP has beyond them: it drives sq_wr_avail below
 * zero, which keeps every other request out until its entries are back,
 * so the QP never holds more than sq_size + sq_extra requests and a large
 * command waits at most for one other large command.  (The QP has one
 * entry more for the keepalive probe and one for the drain request, which
 * take nothing from sq_wr_avail.)
 *
 * Return: true if the entries are now reserved.
 */
static inline bool srpt_sq_reserve(struct srpt_channel *ch, unsigned int n)
{
	int left = atomic_sub_return(n, &ch->sq_wr_avail);

	if (left >= 0 || (n > ch->sq_size && left >= -(int)ch->sq_extra))
		return true;
	atomic_add(n, &ch->sq_wr_avail);
	return false;
}

/**
 * srpt_post_send() - post a chain of work requests to a channel's send queue
 * @ch: channel
 * @first: the chain; its entries are reserved in sq_wr_avail
 * @what: what is posted, for the log
 *
 * With the entries reserved, a full queue cannot be why a post fails: the
 * QP is unusable, and srpt_post_send_failed() closes the channel.
 * (Retrying would not help, and a response that is never sent leaves the
 * initiator waiting.)
 *
 * The device's post_send is called as ib_post_send() calls it, with
 * @ch->bad_send_wr for the request that failed (see srpt_post_recv()).
 *
 * Return: 0 or the negative errno of the post.
 */
static __always_inline int srpt_post_send(struct srpt_channel *ch,
					  struct ib_send_wr *first,
					  const char *what)
{
	int ret = srpt_fault_post_send() ? -ENOMEM :
		  ch->qp->device->ops.post_send(ch->qp, first,
						&ch->bad_send_wr);

	if (unlikely(ret))
		srpt_post_send_failed(ch, what, ret);
	return ret;
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
 * (still unsignaled: it runs only for an error).  Inline: every command
 * with data runs it.
 */
static inline void srpt_watch_rdma_errors(struct srpt_send_ioctx *ioctx,
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

	if (with_data && ioctx->n_dwr) {
		/* Over the kept mapping (srpt_map_kept()). */
		ioctx->buf_wr[ioctx->n_dwr - 1].wr.next = first;
		first = &ioctx->buf_wr[0].wr;
	} else if (with_data) {
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
	srpt_sq_wait(ioctx, n, SRPT_SQ_LIO, with_data);
	return 0;
}

#endif /* SRPT_SQ_H */
