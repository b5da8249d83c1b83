// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the watch work of a channel.
 *
 * Every channel has one delayed work that reports commands stuck longer
 * than cmd_report_secs, probes the initiator every keepalive_secs with a
 * zero-length RDMA WRITE (closing the channel when it is not acknowledged),
 * and, at release, waits until no command context is busy.  The probe has
 * a send queue entry of its own, so it is sent however full the queue is:
 * behind a send that never completes (an initiator that stopped posting
 * receives, its RNR NAKs retried for ever) it times out and ends the
 * channel too.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_watch.h"
#include "srpt_param.h"
#include "srpt_device.h"
#include "srpt_tpg.h"
#include "srpt_qp.h"
#include "srpt_sq.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

static const char *const srpt_cmd_state_name[] = {
	[SRPT_CMD_FREE] = "free",
	[SRPT_CMD_NEW] = "new",
	[SRPT_CMD_DATA_OUT] = "waiting for write data",
	[SRPT_CMD_EXECUTING] = "in the backend",
	[SRPT_CMD_SQ_WAIT] = "waiting for the send queue",
	[SRPT_CMD_RSP_SENT] = "response posted",
	[SRPT_CMD_DONE] = "done",
};

/**
 * srpt_describe_ioctx() - one line about a busy request, for the log
 * @ioctx: the request
 * @buf: output
 * @len: size of @buf
 */
static void srpt_describe_ioctx(const struct srpt_send_ioctx *ioctx,
				char *buf, size_t len)
{
	unsigned int age = jiffies_to_msecs(jiffies - ioctx->start) / 1000;

	if (ioctx->t_logout)
		snprintf(buf, len, "SRP_T_LOGOUT, %s for %u s",
			 srpt_cmd_state_name[ioctx->state], age);
	else if (ioctx->cred_req)
		snprintf(buf, len, "SRP_CRED_REQ, %s for %u s",
			 srpt_cmd_state_name[ioctx->state], age);
	else if (ioctx->in_lio && ioctx->cmd.se_cmd_flags & SCF_SCSI_TMR_CDB)
		snprintf(buf, len, "TMF tag 0x%llx, %s for %u s", ioctx->tag,
			 srpt_cmd_state_name[ioctx->state], age);
	else
		snprintf(buf, len, "tag 0x%llx (LUN %llu, opcode 0x%02x), %s for %u s",
			 ioctx->tag, ioctx->cmd.orig_fe_lun, ioctx->cdb[0],
			 srpt_cmd_state_name[ioctx->state], age);
}

/**
 * srpt_oldest_busy() - the request of a channel that arrived first
 * @ch: channel; its lock is held
 *
 * Return: the busy context with the earliest start, or NULL if none.
 */
static struct srpt_send_ioctx *srpt_oldest_busy(struct srpt_channel *ch)
{
	struct srpt_send_ioctx *oldest = NULL;
	u32 i;

	lockdep_assert_held(&ch->lock);
	for (i = 0; i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];

		if (ioctx->state == SRPT_CMD_FREE)
			continue;
		if (!oldest || time_before(ioctx->start, oldest->start))
			oldest = ioctx;
	}
	return oldest;
}

/**
 * srpt_ch_idle() - nothing of the I/O path uses a closing channel any more
 * @ch: channel
 *
 * Return: true when no command context is busy and no keepalive probe is
 * posted.
 */
static bool srpt_ch_idle(struct srpt_channel *ch)
{
	return !READ_ONCE(ch->n_busy) && !READ_ONCE(ch->keepalive_busy);
}

/**
 * srpt_ch_wait_idle() - wait until every request of a closing channel is
 * finished
 * @ch: channel, no longer live, its QP drained
 * @detachable: stop waiting when the channel's RDMA device is being
 *	removed (the caller then detaches the channel from it)
 *
 * LIO finishes or aborts its commands and their responses complete with
 * flush errors, so the wait ends once the backend gives every command
 * back; while it lasts, every ten seconds the log says how many requests
 * are left, whose they are and which one is the oldest.  srpt_remove_one()
 * wakes the wait (srpt_ch_close_matching()): a device removal does not
 * wait for a backend.
 *
 * Return: true when nothing of the I/O path uses @ch any more; false when
 * @detachable and the device is being removed.
 */
bool srpt_ch_wait_idle(struct srpt_channel *ch, bool detachable)
{
	struct srpt_device *sdev = detachable ? ch->sport->sdev : NULL;
	struct srpt_send_ioctx *oldest;
	unsigned long flags;
	char desc[96];
	u32 busy;

	/* Responses that waited for room now find it: the QP is drained. */
	srpt_sq_kick(ch);
	while (!wait_event_timeout(ch->idle_wq, srpt_ch_idle(ch) ||
				   (sdev && READ_ONCE(sdev->removing)),
				   10 * HZ)) {
		spin_lock_irqsave(&ch->lock, flags);
		busy = ch->n_busy;
		oldest = srpt_oldest_busy(ch);
		if (oldest)
			srpt_describe_ioctx(oldest, desc, sizeof(desc));
		spin_unlock_irqrestore(&ch->lock, flags);
		if (busy)
			pr_info("%s: release waits for %u request(s); oldest: %s\n",
				ch->sess_name, busy, oldest ? desc : "?");
		else
			pr_info("%s: release waits for its keepalive probe\n",
				ch->sess_name);
	}
	if (!srpt_ch_idle(ch))
		return false;
	/* The last srpt_put_ioctx() or srpt_keepalive_end() woke us under the
	 * lock: let it finish.
	 */
	spin_lock_irqsave(&ch->lock, flags);
	spin_unlock_irqrestore(&ch->lock, flags);
	return true;
}

/**
 * srpt_watch_interval() - how often the watch work of a channel runs
 * @report: the portal group's cmd_report_secs (0: off)
 * @keepalive: its keepalive_secs (0: off)
 *
 * Often enough for both: a quarter of the report age, and the keepalive
 * period; every ten seconds when both are off, to see them turned on.
 *
 * Return: the delay in jiffies.
 */
static unsigned long srpt_watch_interval(u32 report, u32 keepalive)
{
	u32 secs = report ? max(report / 4, 1U) : 10;

	if (keepalive)
		secs = min(secs, keepalive);
	return secs * HZ;
}

/**
 * srpt_keepalive_end() - a keepalive probe is over
 * @ch: channel
 *
 * A closing channel's release work may be waiting for it (see
 * srpt_ch_idle()): woken under the lock, like the last command context.
 */
static void srpt_keepalive_end(struct srpt_channel *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->keepalive_busy = false;
	if (ch->state != SRPT_CH_LIVE)
		wake_up(&ch->idle_wq);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_keepalive_done() - completion of a keepalive probe
 * @cq: completion queue
 * @wc: completion of the zero-length RDMA WRITE
 *
 * Any error but a flush means the initiator's side no longer acknowledges
 * (its QP is gone or in the error state, its port or node is down, after
 * the transport's retries): the channel is closed, and its release frees
 * it and its LIO session.  The probe's entry is its own: nothing goes back
 * to sq_wr_avail.
 */
static void srpt_keepalive_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_channel *ch =
		container_of(wc->wr_cqe, struct srpt_channel, keepalive_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_error(ch, wc, "keepalive probe", 0);
	srpt_keepalive_end(ch);
}

/**
 * srpt_keepalive() - check that the initiator's end of a channel is alive
 * @ch: channel
 *
 * An initiator that crashes, loses its port or has its QP destroyed without
 * a DREQ leaves a channel nothing ever fails on while it is idle: no
 * request arrives and nothing is sent.  A zero-length RDMA WRITE needs no
 * buffer, memory key or receive at the initiator, and no protocol there
 * sees it, but its HCA must acknowledge it; when it does not, the
 * transport's retries end in an error completion (srpt_keepalive_done())
 * or the probe times out (srpt_keepalive_check()), and the channel is
 * closed.  One probe at a time, in a send queue entry of its own that the
 * QP has beyond sq_size + sq_extra (srpt_ch_create_qp()): it is posted
 * however full the send queue is, and a send ahead of it that never
 * completes (a receiver that stopped posting receives, retried for ever
 * at RNR retry count 7) keeps it from completing, so it times out.
 */
static void srpt_keepalive(struct srpt_channel *ch)
{
	struct ib_rdma_wr wr = {
		.wr.wr_cqe = &ch->keepalive_cqe,
		.wr.opcode = IB_WR_RDMA_WRITE,
		.wr.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long flags;
	bool go;
	int ret;

	spin_lock_irqsave(&ch->lock, flags);
	go = ch->state == SRPT_CH_LIVE && !ch->keepalive_busy;
	if (go)
		ch->keepalive_busy = true;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!go)
		return;
	ch->keepalive_at = jiffies;
	atomic64_inc(&ch->stats.keepalives);
	ret = srpt_post_send(ch, &wr.wr, "a keepalive probe");
	if (ret)
		srpt_keepalive_end(ch);
}

/**
 * srpt_keepalive_check() - time out the last keepalive probe or send one
 * @ch: channel
 * @keepalive: the portal group's keepalive_secs, not 0
 *
 * A probe the initiator has not acknowledged after
 * max(@keepalive, %SRPT_KEEPALIVE_MIN_WAIT) seconds ends the channel: a
 * transport may retry forever (soft-RoCE takes a retry count of 7, which
 * is what ib_srp asks for, as "infinite"), and responses queued to a dead
 * initiator then never complete either; nor does anything behind a send
 * that an initiator which stopped posting receives answers with RNR NAKs.
 * Otherwise a new probe is due @keepalive seconds after the last one.
 *
 * The bound: a send that stops completing at time T (and the probe behind
 * it) ends the channel by T + @keepalive + max(@keepalive, 10) + 2 * the
 * watch interval (srpt_watch_interval()): the next probe is posted within
 * @keepalive + one interval, and its timeout is seen within one more
 * interval.  With the defaults (keepalive_secs 30, cmd_report_secs 60: an
 * interval of 15 s) 90 s; docs/configuration.md has it too.
 */
static void srpt_keepalive_check(struct srpt_channel *ch, u32 keepalive)
{
	u32 wait = max_t(u32, keepalive, SRPT_KEEPALIVE_MIN_WAIT);

	if (READ_ONCE(ch->keepalive_busy)) {
		if (time_after(jiffies, ch->keepalive_at + wait * HZ)) {
			pr_warn_ratelimited("%s: the initiator has not acknowledged the keepalive for %u s\n",
					    ch->sess_name, wait);
			srpt_ch_close(ch, "initiator unreachable (keepalive timed out)");
		}
		return;
	}
	/* A check that runs a little early must not skip a whole period. */
	if (time_after_eq(jiffies + HZ / 2, ch->keepalive_at + keepalive * HZ))
		srpt_keepalive(ch);
}

/**
 * srpt_watch_work() - report requests stuck for too long, send keepalives
 * @work: the channel's watch_work
 *
 * Runs while the channel is live.  A request older than the portal
 * group's cmd_report_secs is reported once, with its tag, LUN, opcode and
 * state; LIO offers a fabric driver no way to abort a single command, so
 * the report is what an operator gets (the initiator's own timeout then
 * sends ABORT TASK or LUN RESET).  Every keepalive_secs the channel is
 * probed, see srpt_keepalive() and srpt_keepalive_check().
 */
void srpt_watch_work(struct work_struct *work)
{
	struct srpt_channel *ch = container_of(to_delayed_work(work),
					       struct srpt_channel,
					       watch_work);
	u32 secs = READ_ONCE(ch->tpg->cmd_report_secs);
	u32 keepalive = READ_ONCE(ch->tpg->keepalive_secs);
	unsigned long flags;
	char desc[96];
	s64 more;
	u32 i;

	for (i = 0; secs && i < ch->n_ioctx; i++) {
		struct srpt_send_ioctx *ioctx = &ch->ioctx_ring[i];
		bool report;

		spin_lock_irqsave(&ch->lock, flags);
		report = ioctx->state != SRPT_CMD_FREE && !ioctx->reported &&
			 time_after(jiffies, ioctx->start + secs * HZ);
		if (report) {
			ioctx->reported = true;
			srpt_describe_ioctx(ioctx, desc, sizeof(desc));
		}
		spin_unlock_irqrestore(&ch->lock, flags);
		if (!report)
			continue;
		more = atomic64_inc_return(&ch->stats.stuck);
		pr_warn_ratelimited("%s: request stuck: %s (%lld reported so far)\n",
				    ch->sess_name, desc, more);
	}
	if (keepalive)
		srpt_keepalive_check(ch, keepalive);
	/*
	 * Under the lock, which srpt_ch_close() takes to leave LIVE: once the
	 * release work cancels this work, it is never queued again.
	 */
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state == SRPT_CH_LIVE)
		queue_delayed_work(system_long_wq, &ch->watch_work,
				   srpt_watch_interval(secs, keepalive));
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_watch_start() - start the watch work of a channel that went live
 * @ch: channel; its lock is held and it has just become live
 */
void srpt_watch_start(struct srpt_channel *ch)
{
	struct srpt_tpg *tpg = ch->tpg;

	lockdep_assert_held(&ch->lock);
	ch->keepalive_cqe.done = srpt_keepalive_done;
	ch->keepalive_at = jiffies;
	queue_delayed_work(system_long_wq, &ch->watch_work,
			   srpt_watch_interval(READ_ONCE(tpg->cmd_report_secs),
					       READ_ONCE(tpg->keepalive_secs)));
}
