// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: SCSI commands and task management, and LIO's command callbacks.
 *
 * SRP_CMD:      validate (srpt_cmd_parse), copy the CDB, map the remote
 *               buffers with rdma_rw, repost the receive buffer, submit to
 *               LIO.  Writes: write_pending posts the RDMA READs, their
 *               completion executes the command.  Reads: queue_data_in
 *               (srpt_sq.c, with the other response callback) posts the
 *               RDMA WRITEs chained before the response SEND.
 * SRP_TSK_MGMT: LIO TMR, answered by queue_tm_rsp.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>

#include "srpt.h"
#include "srpt_proto_cmd.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

/**
 * srpt_unpack_lun() - LIO LUN number of an SRP LUN field
 * @lun: the 8 LUN bytes as the parser returns them (be64_to_cpu() of the
 *	wire bytes)
 *
 * Return: the LUN in LIO's flat numbering (scsilun_to_int() of the wire
 * bytes).
 */
static u64 srpt_unpack_lun(u64 lun)
{
	__be64 wire = cpu_to_be64(lun);

	return scsilun_to_int((struct scsi_lun *)&wire);
}

/**
 * srpt_iu_tag() - tag of a received request, for answering it
 * @r: receive buffer, byte_len set
 *
 * Every request IU carries its tag in bytes 8..15, decoded the way the
 * parsers decode it.
 *
 * Return: the tag, or 0 when the IU is too short to carry one.
 */
u64 srpt_iu_tag(const struct srpt_recv_ioctx *r)
{
	__be64 tag;

	if (r->byte_len < 16)
		return 0;
	memcpy(&tag, (const u8 *)r->buf + 8, sizeof(tag));
	return be64_to_cpu(tag);
}

static int srpt_lio_task_attr(u8 attr)
{
	switch (attr) {
	case SRPT_TASK_ATTR_HEAD_OF_QUEUE:
		return TCM_HEAD_TAG;
	case SRPT_TASK_ATTR_ORDERED:
		return TCM_ORDERED_TAG;
	case SRPT_TASK_ATTR_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_SIMPLE_TAG;
	}
}

/**
 * srpt_cmd_refuse() - answer a malformed SRP_CMD
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: the command's context
 * @err: why srpt_cmd_parse() or srpt_cmd_check_limits() refused it
 *
 * CHECK CONDITION with the sense srpt_cmd_err_sense() gives, without
 * reaching LIO.
 */
static noinline void srpt_cmd_refuse(struct srpt_channel *ch,
				     struct srpt_recv_ioctx *r,
				     struct srpt_send_ioctx *ioctx,
				     enum srpt_cmd_err err)
{
	u64 tag = srpt_iu_tag(r);
	u8 key, asc, ascq;

	atomic64_inc(&ch->stats.malformed);
	trace_srpt_bad_iu(ch->id, SRPT_OP_CMD, r->byte_len, err);
	pr_warn_ratelimited("%s: malformed SRP_CMD (tag 0x%llx, %u bytes): %s\n",
			    ch->sess_name, tag, r->byte_len,
			    srpt_cmd_err_str(err));
	__srpt_repost_recv(ch, r);
	srpt_cmd_err_sense(err, &key, &asc, &ascq);
	srpt_send_error_rsp(ioctx, tag, SAM_STAT_CHECK_CONDITION, key, asc,
			    ascq, -1);
}

/**
 * srpt_cmd_map() - set up the data transfers of a command with descriptors
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: the command
 * @ci: the parsed command, @ci->ndesc > 0
 * @sgl: receives the data buffer for LIO
 * @nents: receives its entries
 *
 * Return: 0; 1 if the command was answered here (TASK SET FULL when a
 * bound the channel shares with others holds all the data it allows, BUSY
 * when no memory could be had, CHECK CONDITION when its RDMA requests
 * cannot fit in the send queue); -ENOSPC
 * if it has to wait until the channel's commands hold less data (nothing
 * is left set up then).
 */
static int srpt_cmd_map(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
			struct srpt_send_ioctx *ioctx,
			const struct srpt_cmd_info *ci,
			struct scatterlist **sgl, u32 *nents)
{
	int ret = srpt_map_data(ch, ioctx, ci, sgl, nents);

	if (unlikely(ret == -ENOSPC)) {
		/* Runs when other commands have given data back. */
		atomic64_inc(&ch->stats.data_full);
		return ret;
	}
	if (unlikely(ret == -EBUSY)) {
		/* Other channels hold it: answered, never held here. */
		atomic64_inc(&ch->stats.data_busy);
		pr_info_ratelimited("%s: tag 0x%llx: the data buffers of the initiator, the portal group or the module are at their bound: TASK SET FULL\n",
				    ch->sess_name, ci->tag);
		srpt_unmap_data(ioctx);
		__srpt_repost_recv(ch, r);
		srpt_send_error_rsp(ioctx, ci->tag, SAM_STAT_TASK_SET_FULL, 0, 0,
				    0, -1);
		return 1;
	}
	if (unlikely(ret)) {
		pr_warn_ratelimited("%s: mapping %u bytes for tag 0x%llx failed (%d)\n",
				    ch->sess_name, ci->data_len, ci->tag, ret);
		srpt_unmap_data(ioctx);
		__srpt_repost_recv(ch, r);
		srpt_send_error_rsp(ioctx, ci->tag, SAM_STAT_BUSY, 0, 0, 0, -1);
		return 1;
	}
	/*
	 * The RDMA requests and the response must fit in the send queue at
	 * once, or LIO would retry the command for ever.
	 */
	if (unlikely(ioctx->n_wr + 1 > ch->sq_size + ch->sq_extra)) {
		pr_warn_ratelimited("%s: tag 0x%llx: %u bytes need %u RDMA requests, more than the send queue holds (%u)\n",
				    ch->sess_name, ci->tag, ci->data_len,
				    ioctx->n_wr, ch->sq_size + ch->sq_extra);
		srpt_unmap_data(ioctx);
		__srpt_repost_recv(ch, r);
		srpt_send_error_rsp(ioctx, ci->tag, SAM_STAT_CHECK_CONDITION,
				    ILLEGAL_REQUEST, 0x24, 0x00, -1);
		return 1;
	}
	/*
	 * A READ's backend fills its buffer; LIO's emulated commands may
	 * answer GOOD having filled less of it (RECEIVE COPY RESULTS), and
	 * what the buffer held before (a page the context kept, or one the
	 * allocator did not clear) must not go out.
	 */
	if (*sgl && ci->dir == SRPT_DIR_IN && !srpt_cdb_reads_medium(ioctx->cdb))
		sg_zero_buffer(*sgl, *nents, ci->data_len, 0);
	return 0;
}

/**
 * srpt_handle_cmd() - process an SRP_CMD
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: a free command context
 *
 * Runs in the receive path (srpt_recv_done() or the wait list), which the
 * channel's release waits for before it could detach from the device.
 * A malformed command is answered with CHECK CONDITION without reaching
 * LIO.  The receive buffer is reposted before LIO sees the command, unless
 * it carries immediate data.
 *
 * Return: false if the command has to wait until the channel's commands
 * hold less data (max_channel_data): @ioctx is given back, @r is not
 * reposted; true otherwise.
 */
bool srpt_handle_cmd(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
		     struct srpt_send_ioctx *ioctx)
{
	enum dma_data_direction dma_dir = DMA_NONE;
	struct scatterlist *sgl = NULL;
	/* srpt_cmd_parse() sets every field: not cleared first (stack init). */
	struct srpt_cmd_info ci __uninitialized;
	enum srpt_cmd_err err;
	u32 nents = 0;
	u8 *cdb;
	u64 lun;
	int ret;

	/* Whatever add_cdb_len says, the copy below fits the limit. */
	BUILD_BUG_ON(SRPT_CDB_LEN + 0xfc > SRPT_MAX_CDB_LEN);
	if (unlikely(srpt_cmd_decode(r->buf, r->byte_len, ch->imm_data,
				     ch->imm_data_offset, &ci, &err) ||
		     srpt_cmd_check_limits(r->byte_len, &ci, ch->max_it_iu_len,
					   ch->max_cmd_data, &err))) {
		srpt_cmd_refuse(ch, r, ioctx, err);
		return true;
	}

	ioctx->tag = ci.tag;
	ioctx->dir = ci.dir;
	ioctx->data_len = ci.data_len;
	lun = srpt_unpack_lun(ci.lun);
	trace_srpt_cmd(ch->id, ci.tag, lun, ci.cdb[0],
		       ci.data_len, ci.dir, ci.fmt == SRPT_DATA_DESC_IMM);
	/* A copy: the receive buffer is reposted before LIO sees the CDB. */
	memcpy(ioctx->cdb, ci.cdb, SRPT_CDB_LEN);
	cdb = ioctx->cdb;
	if (unlikely(ci.cdb_len > SRPT_CDB_LEN)) {
		/* Additional CDB bytes (rare): a copy of its own. */
		ioctx->cdb_ext = kmemdup(ci.cdb, ci.cdb_len, GFP_KERNEL);
		cdb = ioctx->cdb_ext;
		if (!cdb) {
			__srpt_repost_recv(ch, r);
			srpt_send_error_rsp(ioctx, ci.tag, SAM_STAT_BUSY, 0, 0,
					    0, -1);
			return true;
		}
	}

	if (ci.fmt == SRPT_DATA_DESC_IMM) {
		ioctx->recv = r;
		nents = srpt_imm_sgl(ioctx->imm_sg, ch->imm_sg_max,
				     r->buf + ci.imm_offset, ci.imm_len);
		sgl = nents ? ioctx->imm_sg : NULL;
		atomic64_inc(&ch->stats.imm_cmds);
	} else {
		if (ci.ndesc) {
			ret = srpt_cmd_map(ch, r, ioctx, &ci, &sgl, &nents);
			if (ret == -ENOSPC) {
				srpt_unget_ioctx(ioctx);
				return false;
			}
			if (ret)
				return true;
		}
		__srpt_repost_recv(ch, r);
	}

	atomic64_inc(&ch->stats.cmds);
	if (ci.dir == SRPT_DIR_OUT) {
		dma_dir = DMA_TO_DEVICE;
		atomic64_add(ci.data_len, &ch->stats.bytes_in);
	} else if (ci.dir == SRPT_DIR_IN) {
		dma_dir = DMA_FROM_DEVICE;
		atomic64_add(ci.data_len, &ch->stats.bytes_out);
	}

	memset(&ioctx->cmd, 0, sizeof(ioctx->cmd));
	/* LIO may answer before the submission returns: set up first. */
	ioctx->cmd.tag = ci.tag;
	ioctx->state = SRPT_CMD_EXECUTING;
	ioctx->in_lio = true;
	ret = srpt_compat_submit_cmd(&ioctx->cmd, ch->sess, cdb, ioctx->sense,
				     lun, ci.data_len,
				     srpt_lio_task_attr(ci.task_attr), dma_dir,
				     sgl, nents);
	if (unlikely(ret)) {
		/* The session is being stopped: drop the command. */
		ioctx->in_lio = false;
		srpt_put_ioctx(ioctx);
	}
	return true;
}

/**
 * srpt_tmf_to_lio() - LIO TMR code of an SRP task management function
 * @func: SRPT_TSK_* code
 *
 * Return: the TMR_* code, or -1 for an undefined function.
 */
static int srpt_tmf_to_lio(u8 func)
{
	switch (func) {
	case SRPT_TSK_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRPT_TSK_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRPT_TSK_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRPT_TSK_LUN_RESET:
		return TMR_LUN_RESET;
	case SRPT_TSK_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return -1;
	}
}

/**
 * srpt_handle_tmf() - process an SRP_TSK_MGMT
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: a free command context
 */
void srpt_handle_tmf(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
		     struct srpt_send_ioctx *ioctx)
{
	struct srpt_tmf_info ti;
	int func, ret;

	atomic64_inc(&ch->stats.tmfs);
	ret = srpt_tmf_parse(r->buf, r->byte_len, &ti);
	srpt_repost_recv(ch, r);
	if (ret) {
		atomic64_inc(&ch->stats.malformed);
		trace_srpt_bad_iu(ch->id, SRPT_OP_TSK_MGMT, r->byte_len, ret);
		pr_warn_ratelimited("%s: malformed SRP_TSK_MGMT (%u bytes)\n",
				    ch->sess_name, r->byte_len);
		srpt_send_error_rsp(ioctx, ti.tag, SAM_STAT_GOOD, 0, 0, 0,
				    SRPT_TMF_RSP_INVALID_FIELDS);
		return;
	}
	trace_srpt_tmf(ch->id, ti.tag, ti.func, ti.task_tag,
		       srpt_unpack_lun(ti.lun));
	func = srpt_tmf_to_lio(ti.func);
	if (func < 0) {
		pr_info_ratelimited("%s: undefined task management function 0x%02x\n",
				    ch->sess_name, ti.func);
		srpt_send_error_rsp(ioctx, ti.tag, SAM_STAT_GOOD, 0, 0, 0,
				    SRPT_TMF_RSP_INVALID_FIELDS);
		return;
	}

	ioctx->tag = ti.tag;
	ioctx->state = SRPT_CMD_EXECUTING;
	memset(&ioctx->cmd, 0, sizeof(ioctx->cmd));
	/*
	 * Before the submission: LIO keeps the tag (__target_init_cmd()), and
	 * once submitted the TMR may complete and the context be reused.
	 */
	ioctx->cmd.tag = ti.tag;
	ioctx->in_lio = true;
	ret = target_submit_tmr(&ioctx->cmd, ch->sess, NULL,
				srpt_unpack_lun(ti.lun),
				ioctx, func, GFP_KERNEL, ti.task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		ioctx->in_lio = false;
		srpt_send_error_rsp(ioctx, ti.tag, SAM_STAT_GOOD, 0, 0, 0,
				    SRPT_TMF_RSP_FAILED);
	}
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
	/* Read only as far as sg_pcopy_to_buffer() wrote it. */
	u8 param[SRPT_PR_OUT_FLAGS_OFFSET + 1] __uninitialized;
	size_t len = 0;

	/* The CDB's first 16 bytes are in ioctx->cdb, with or without more. */
	if (unlikely(ioctx->cdb[0] == 0x5f)) {
		if (sgl)
			len = sg_pcopy_to_buffer(sgl, nents, param,
						 sizeof(param), 0);
		if (srpt_pr_out_refused(ioctx->cdb, param, len)) {
			pr_warn_ratelimited("%s: tag 0x%llx: PERSISTENT RESERVE OUT with SPEC_I_PT refused\n",
					    ioctx->ch->sess_name, ioctx->tag);
			transport_generic_request_failure(&ioctx->cmd,
							  TCM_INVALID_PARAMETER_LIST);
			return;
		}
	}
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

int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

void srpt_close_session(struct se_session *se_sess)
{
	srpt_ch_close(se_sess->fabric_sess_ptr, "session closed by LIO");
}

/**
 * srpt_write_pending() - LIO wants the data of a write
 * @se_cmd: the command
 *
 * Immediate data is already here; otherwise the RDMA READs are posted and
 * srpt_rdma_read_done() executes the command.  A channel that let go of
 * its device (srpt_ch_detach()) fails the command: its data cannot come
 * any more.
 *
 * Return: 0, -ENOMEM when the send queue is full (LIO retries), or -EIO
 * when the post failed or the channel detached.
 */
int srpt_write_pending(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);
	struct srpt_channel *ch = ioctx->ch;
	struct ib_send_wr *first = NULL;
	int i, ret = 0;

	if (likely(ioctx->recv || !ioctx->n_rw)) {
		/* The data is here (or there is none): nothing to post. */
		if (unlikely(READ_ONCE(ch->detached)))
			return -EIO;
		srpt_execute_write(ioctx, se_cmd->t_data_sg,
				   se_cmd->t_data_nents);
		return 0;
	}
	rcu_read_lock();
	if (srpt_ch_detached(ch)) {
		ret = -EIO;
	} else if (!list_empty(&ch->sq_wait) ||
		   !srpt_sq_reserve(ch, ioctx->n_wr)) {
		/* Responses waiting for room go first (srpt_sq_kick()). */
		atomic64_inc(&ch->stats.sq_full);
		ret = -ENOMEM;
	} else {
		for (i = ioctx->n_rw - 1; i >= 0; i--)
			first = rdma_rw_ctx_wrs(&ioctx->rw[i].rw, ch->qp,
						ch->sport->port_num,
						first ? NULL : &ioctx->rdma_cqe,
						first);
		srpt_watch_rdma_errors(ioctx, first);
		ioctx->state = SRPT_CMD_DATA_OUT;
		if (srpt_post_send(ch, first, "RDMA READs")) {
			atomic_add(ioctx->n_wr, &ch->sq_wr_avail);
			/* Not retried: LIO fails it, the channel is closing. */
			ret = -EIO;
		}
	}
	rcu_read_unlock();
	return ret;
}

int srpt_get_cmd_state(struct se_cmd *se_cmd)
{
	return srpt_ioctx(se_cmd)->state;
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

void srpt_aborted_task(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = srpt_ioctx(se_cmd);

	atomic64_inc(&ioctx->ch->stats.aborted);
	pr_debug("%s: tag 0x%llx aborted\n", ioctx->ch->sess_name, ioctx->tag);
}
