// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: LIO's command callbacks, the fabric's side of a command.
 *
 * LIO calls these for every command it was handed (srpt_handle_cmd(),
 * srpt_handle_tmf()):
 *   write_pending  the data of a write: immediate data is here, else the
 *                  RDMA READs are posted and their completion
 *                  (srpt_rdma_read_done()) executes the command
 *   queue_data_in  the data of a read, RDMA WRITEs chained before the
 *                  response SEND
 *   queue_status   the status of any other command
 *   queue_tm_rsp   the result of a task management function
 *   check_stop_free, release_cmd  the end of a command: its context goes
 *                  back to the channel (srpt_put_ioctx())
 *   get_cmd_state, aborted_task, close_session
 * The responses are built and posted by the send queue's inline
 * functions (srpt_sq.h), in the callback itself.
 *
 * With LIO's direct completion (7.3: a backstore's complete_type=1, or 0
 * with the direct_compl module parameter set) LIO calls queue_data_in and
 * queue_status, and through check_stop_free possibly release_cmd, in the
 * backend's completion context: a hard or soft interrupt (iblock's bio
 * end_io), or inside target_submit() in our receive path (rd_mcp,
 * fileio).  Everything they reach takes only the channel's locks with
 * interrupts disabled, posts through the device's post_send and post_recv,
 * frees with kfree() and __free_page(), queues work and never sleeps; the
 * receive path holds no lock across the submission and does not touch the
 * context after it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_lio.h"
#include "srpt_qp.h"
#include "srpt_data.h"
#include "srpt_sq.h"
#include "srpt_trace.h"

/**
 * srpt_check_stop_free() - LIO's last reference of a command may go
 * @se_cmd: the command
 *
 * Return: what target_put_sess_cmd() returns (1 if the command was freed).
 */
int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
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
	srpt_put_ioctx(ioctx);
}

/**
 * srpt_close_session() - LIO ends a session (its ACL went or changed)
 * @se_sess: the session of one channel
 */
void srpt_close_session(struct se_session *se_sess)
{
	srpt_ch_close(se_sess->fabric_sess_ptr, "session closed by LIO");
}

/**
 * srpt_pr_out_check() - refuse what LIO mishandles in PERSISTENT RESERVE OUT
 * @ioctx: the command, a PERSISTENT RESERVE OUT
 * @sgl: its parameter data (immediate data or the RDMA READ buffer)
 * @nents: entries in @sgl
 *
 * Out of line: the parameter bytes are copied to the stack, and only this
 * rare command should pay for the stack protector that buys.
 *
 * Return: true if the command was refused (LIO answers it).
 */
static noinline bool srpt_pr_out_check(struct srpt_send_ioctx *ioctx,
				       struct scatterlist *sgl,
				       unsigned int nents)
{
	/* Read only as far as sg_pcopy_to_buffer() wrote it. */
	u8 param[SRPT_PR_OUT_FLAGS_OFFSET + 1] __uninitialized;
	size_t len = 0;

	if (sgl)
		len = sg_pcopy_to_buffer(sgl, nents, param, sizeof(param), 0);
	if (!srpt_pr_out_refused(ioctx->cdb, param, len))
		return false;
	pr_warn_ratelimited("%s: tag 0x%llx: PERSISTENT RESERVE OUT with SPEC_I_PT refused\n",
			    ioctx->ch->sess_name, ioctx->tag);
	transport_generic_request_failure(&ioctx->cmd,
					  TCM_INVALID_PARAMETER_LIST);
	return true;
}

/**
 * srpt_execute_write() - run a command whose data-out is here
 * @ioctx: the command, its data in @sgl
 * @sgl: the data (immediate data or the RDMA READ buffer)
 * @nents: entries in @sgl
 *
 * The one place where the target looks at data before LIO: see
 * srpt_pr_out_refused().
 */
static void srpt_execute_write(struct srpt_send_ioctx *ioctx,
			       struct scatterlist *sgl, unsigned int nents)
{
	/* The CDB's first 16 bytes are in ioctx->cdb, with or without more. */
	if (unlikely(ioctx->cdb[0] == 0x5f) &&
	    srpt_pr_out_check(ioctx, sgl, nents))
		return;
	ioctx->state = SRPT_CMD_EXECUTING;
	target_execute_cmd(&ioctx->cmd);
}

/**
 * srpt_rdma_read_done() - the RDMA READs of a write completed
 * @cq: completion queue
 * @wc: completion of the last (signaled) READ
 */
void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, rdma_cqe);
	struct srpt_channel *ch = ioctx->ch;

	srpt_sq_released(ch, ioctx->n_wr);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_error(ch, wc, "RDMA READ", ioctx->tag);
		transport_generic_request_failure(&ioctx->cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}
	srpt_sync_data(ioctx, true);
	srpt_execute_write(ioctx, ioctx->data_sgl, ioctx->data_nents);
}

/**
 * srpt_write_pending() - LIO wants the data of a write
 * @se_cmd: the command
 *
 * Immediate data is already here; otherwise the RDMA READs are posted, or
 * wait for send queue room (srpt_post_reads()), and srpt_rdma_read_done()
 * executes the command.  A channel that let go of its device
 * (srpt_ch_detach()) fails the command: its data cannot come any more.
 *
 * Return: 0, or -EIO when the post failed or the channel detached; never
 * -ENOMEM, which LIO would retry at once, again and again.
 */
int srpt_write_pending(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	struct srpt_channel *ch = ioctx->ch;

	if (likely(ioctx->recv || !ioctx->n_wr)) {
		/* The data is here (or there is none): nothing to post. */
		if (__srpt_ch_detached(ch))
			return -EIO;
		srpt_execute_write(ioctx, se_cmd->t_data_sg,
				   se_cmd->t_data_nents);
		return 0;
	}
	return srpt_post_reads(ioctx);
}

/**
 * srpt_get_cmd_state() - the state of a command, for LIO's debug output
 * @se_cmd: the command
 *
 * Return: enum srpt_cmd_state.
 */
int srpt_get_cmd_state(struct se_cmd *se_cmd)
{
	return srpt_ioctx(se_cmd)->state;
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
static inline int srpt_rsp_posted(struct srpt_send_ioctx *ioctx, int ret)
{
	if (unlikely(ret))
		target_put_sess_cmd(&ioctx->cmd);
	return 0;
}

/**
 * srpt_post_full_rsp() - post a response with status, sense or residual
 * @ioctx: the command, not a plain GOOD (srpt_rsp_plain())
 * @with_data: chain the command's RDMA WRITEs in front of the SEND
 *
 * Out of line: the response fields are built on the stack, and the
 * callbacks of the common case should not pay for the stack protector
 * that buys.
 *
 * Return: what srpt_post_rsp() returns.
 */
static noinline int srpt_post_full_rsp(struct srpt_send_ioctx *ioctx,
				       bool with_data)
{
	/* srpt_rsp_from_cmd() sets every field. */
	struct srpt_rsp_args a __uninitialized;

	return srpt_post_rsp(ioctx, srpt_rsp_from_cmd(ioctx, &a), with_data);
}

/**
 * srpt_lio_post_rsp() - post the response of a command LIO completed
 * @ioctx: the command
 * @with_data: chain the command's RDMA WRITEs in front of the SEND
 *
 * Return: what srpt_post_rsp() returns.
 */
static __always_inline int srpt_lio_post_rsp(struct srpt_send_ioctx *ioctx,
					     bool with_data)
{
	if (likely(srpt_rsp_plain(&ioctx->cmd)))
		return srpt_post_rsp(ioctx, NULL, with_data);
	return srpt_post_full_rsp(ioctx, with_data);
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
	int ret;

	if (unlikely(srpt_data_unfilled(ioctx)))
		srpt_zero_unfilled(ioctx);
	else if (unlikely(ioctx->data_sgl &&
			  se_cmd->data_length < ioctx->data_len))
		srpt_zero_tail(ioctx, se_cmd->data_length);
	srpt_sync_data(ioctx, false);
	ret = srpt_lio_post_rsp(ioctx, ioctx->n_wr > 0);
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
	int ret;

	if (ioctx->recv) {
		rcu_read_lock();
		if (!srpt_ch_detached(ioctx->ch)) {
			__srpt_repost_recv(ioctx->ch, ioctx->recv);
			ioctx->recv = NULL;
		}
		rcu_read_unlock();
	}
	ret = srpt_lio_post_rsp(ioctx, false);
	return srpt_rsp_posted(ioctx, ret);
}

/**
 * srpt_tmf_result() - what a TMR came to, for the protocol layer
 * @response: LIO's TMR_* response
 *
 * Return: SRPT_TMF_RESULT_* (srpt_tmf_rsp_code() maps it to the wire).
 */
static u8 srpt_tmf_result(u8 response)
{
	switch (response) {
	case TMR_FUNCTION_COMPLETE:
		return SRPT_TMF_RESULT_COMPLETE;
	case TMR_TASK_DOES_NOT_EXIST:
		return SRPT_TMF_RESULT_NO_TASK;
	case TMR_LUN_DOES_NOT_EXIST:
		return SRPT_TMF_RESULT_NO_LUN;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		return SRPT_TMF_RESULT_NOT_SUPPORTED;
	case TMR_FUNCTION_REJECTED:
		return SRPT_TMF_RESULT_REJECTED;
	default:
		return SRPT_TMF_RESULT_FAILED;
	}
}

/**
 * srpt_queue_tm_rsp() - send the result of a task management function
 * @se_cmd: the TMR
 *
 * LIO does not retry this callback, so the response goes through the
 * driver's own queue (srpt_queue_own()) and waits there if the send queue
 * is full.
 */
void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	struct srpt_rsp_args *a = &ioctx->rsp;

	memset(a, 0, sizeof(*a));
	a->tag = ioctx->tag;
	a->has_resp_code = true;
	a->resp_code =
		srpt_tmf_rsp_code(srpt_tmf_result(se_cmd->se_tmr_req->response));
	trace_srpt_tmf_rsp(ioctx->ch->id, ioctx->tag, a->resp_code);
	srpt_queue_own(ioctx);
}

/**
 * srpt_aborted_task() - LIO aborted a command (no response will be sent)
 * @se_cmd: the command
 */
void srpt_aborted_task(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);

	atomic64_inc(&ioctx->ch->stats.aborted);
	pr_debug("%s: tag 0x%llx aborted\n", ioctx->ch->sess_name, ioctx->tag);
}
