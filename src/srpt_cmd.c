// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: SCSI commands and task management, as they arrive.
 *
 * SRP_CMD:      validate (srpt_cmd_parse), copy the CDB, map the remote
 *               buffers with rdma_rw, repost the receive buffer, submit to
 *               LIO.  LIO's callbacks (srpt_lio.c) move the data and send
 *               the response.
 * SRP_TSK_MGMT: LIO TMR, answered by queue_tm_rsp (srpt_lio.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include <scsi/scsi_proto.h>

#include "srpt_cmd.h"
#include "srpt_ring.h"
#include "srpt_data.h"
#include "srpt_sq.h"
#include "srpt_proto_cmd.h"
#include "srpt_compat.h"
#include "srpt_trace.h"

#define SRPT_MAX_CDB_LEN	(16 + 63 * 4)	/* CDB + largest additional CDB */

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
 * srpt_cmd_unmapped() - answer a command whose data cannot be set up
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: the command, its data mapped or not
 * @tag: the command's tag
 * @status: SCSI status
 * @key: sense key (0 for none)
 * @asc: additional sense code
 *
 * The data is given back and the receive buffer reposted before the
 * answer, which then carries the buffer's credit.  Out of line: the
 * per-command path inlines both, once is enough for the refusals.
 */
static noinline void srpt_cmd_unmapped(struct srpt_channel *ch,
				       struct srpt_recv_ioctx *r,
				       struct srpt_send_ioctx *ioctx, u64 tag,
				       u8 status, u8 key, u8 asc)
{
	srpt_unmap_data(ioctx);
	__srpt_repost_recv(ch, r);
	srpt_send_error_rsp(ioctx, tag, status, key, asc, 0x00, -1);
}

/**
 * srpt_cmd_map() - set up the data transfers of a command with descriptors
 * @ch: channel
 * @r: receive buffer holding the IU
 * @ioctx: the command
 * @ci: the parsed command, @ci->ndesc > 0
 *
 * The data buffer for LIO is then @ioctx->data_sgl (srpt_map_data()).
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
			const struct srpt_cmd_info *ci)
{
	int ret = srpt_map_data(ch, ioctx, ci->desc, ci->ndesc);

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
		srpt_cmd_unmapped(ch, r, ioctx, ci->tag, SAM_STAT_TASK_SET_FULL,
				  0, 0);
		return 1;
	}
	if (unlikely(ret)) {
		pr_warn_ratelimited("%s: mapping %u bytes for tag 0x%llx failed (%d)\n",
				    ch->sess_name, ci->data_len, ci->tag, ret);
		srpt_cmd_unmapped(ch, r, ioctx, ci->tag, SAM_STAT_BUSY, 0, 0);
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
		srpt_cmd_unmapped(ch, r, ioctx, ci->tag,
				  SAM_STAT_CHECK_CONDITION, ILLEGAL_REQUEST, 0x24);
		return 1;
	}
	/*
	 * A READ's backend fills its buffer; LIO's emulated commands may
	 * answer GOOD having filled less of it (RECEIVE COPY RESULTS), and
	 * what the buffer held before (a page the context kept, or one the
	 * allocator did not clear) must not go out.
	 */
	if (ioctx->data_sgl && ci->dir == SRPT_DIR_IN &&
	    !srpt_cdb_reads_medium(ioctx->cdb))
		sg_zero_buffer(ioctx->data_sgl, ioctx->data_nents,
			       ci->data_len, 0);
	return 0;
}

/**
 * srpt_cmd_imm_sgl() - the scatterlist over a command's immediate data
 * @ch: channel
 * @r: the receive buffer holding the command
 * @ioctx: the command
 * @off: offset of the data in the IU
 * @len: its length
 * @nents: receives the entries used
 *
 * A receive buffer keeps the list it built for the last command it held:
 * an initiator puts its data at the same offset every time, mostly with
 * the same length, so a stream of writes builds each buffer's list once.
 * Nothing else writes the entries: LIO and the backends only read the
 * data list of a command.  Data that needs more entries than a buffer
 * keeps is described in the context's own list.
 *
 * Return: the list, or NULL without data.
 */
static __always_inline struct scatterlist *
srpt_cmd_imm_sgl(struct srpt_channel *ch, struct srpt_recv_ioctx *r,
		 struct srpt_send_ioctx *ioctx, u32 off, u32 len, u32 *nents)
{
	u8 *data = r->buf + off;

	if (unlikely(!len)) {
		*nents = 0;
		return NULL;
	}
	if (likely(r->imm_len == len && r->imm_off == off)) {
		*nents = r->imm_nents;
		return r->imm_sg;
	}
	if (DIV_ROUND_UP(offset_in_page(data) + len, PAGE_SIZE) >
	    SRPT_RECV_IMM_SG) {
		*nents = srpt_imm_sgl(ioctx->imm_sg, ch->imm_sg_max, data,
				      len);
		return ioctx->imm_sg;
	}
	r->imm_nents = srpt_imm_sgl(r->imm_sg, SRPT_RECV_IMM_SG, data, len);
	r->imm_off = off;
	r->imm_len = len;
	*nents = r->imm_nents;
	return r->imm_sg;
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
	lun = srpt_lun_to_int(ci.lun);
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
		sgl = srpt_cmd_imm_sgl(ch, r, ioctx, ci.imm_offset, ci.imm_len,
				       &nents);
		atomic64_inc(&ch->stats.imm_cmds);
	} else {
		if (ci.ndesc) {
			ret = srpt_cmd_map(ch, r, ioctx, &ci);
			if (ret == -ENOSPC) {
				srpt_unget_ioctx(ioctx);
				return false;
			}
			if (ret)
				return true;
			sgl = ioctx->data_sgl;
			nents = ioctx->data_nents;
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
		       srpt_lun_to_int(ti.lun));
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
				srpt_lun_to_int(ti.lun),
				ioctx, func, GFP_KERNEL, ti.task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		ioctx->in_lio = false;
		srpt_send_error_rsp(ioctx, ti.tag, SAM_STAT_GOOD, 0, 0, 0,
				    SRPT_TMF_RSP_FAILED);
	}
}

