/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel API differences between the kernels ib_srpt supports (Debian's
 * 5.10, 6.1, 6.12 and 7.x).  Features are detected by Kbuild from the
 * kernel headers (the SRPT_HAVE_* macros) rather than by version number,
 * because distribution kernels carry backports.  Everything
 * version-dependent lives here; the rest of the driver calls the
 * srpt_compat_*() helpers and macros.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include <linux/completion.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

/*
 * Since 6.7 a fabric says whether LIO may run its commands in the submitting
 * context (TARGET_DIRECT_SUBMIT).  We submit from a work item of our own, so
 * direct submission saves a context switch per command.
 */
#ifdef SRPT_HAVE_DIRECT_SUBMIT
#define SRPT_COMPAT_SUBMIT_OPS				\
	.direct_submit_supp = 1,			\
	.default_submit_type = TARGET_DIRECT_SUBMIT,
#else
#define SRPT_COMPAT_SUBMIT_OPS
#endif

/*
 * Since 7.3 a backstore's complete_type attribute may ask LIO to complete
 * its successful commands in the backend's own context (TARGET_DIRECT_COMPL:
 * a bio's end_io in hard or soft interrupt context for iblock, the
 * submitting context for rd_mcp and fileio) rather than from LIO's
 * completion workqueue, if the fabric allows it.  queue_data_in,
 * queue_status, check_stop_free and release_cmd may then run in any of
 * these contexts: they take only interrupt-safe locks, never sleep and hold
 * nothing across a submission (see srpt_lio.c).  What complete_type 0 (the
 * fabric's default) means is the direct_compl module parameter's choice,
 * made once at load by srpt_compat_set_compl(); complete_type 1 and 2 are
 * honoured whatever it says.
 */
#ifdef SRPT_HAVE_DIRECT_COMPL
#define SRPT_DIRECT_COMPL_SUPP	true
#define SRPT_COMPAT_COMPL_OPS				\
	.direct_compl_supp = 1,				\
	.default_compl_type = TARGET_QUEUE_COMPL,

/**
 * srpt_compat_set_compl() - choose how LIO completes by default
 * @ops: the fabric template, not registered yet
 * @direct: complete in the backend's context rather than LIO's queue
 */
static inline void srpt_compat_set_compl(struct target_core_fabric_ops *ops,
					 bool direct)
{
	ops->default_compl_type = direct ? TARGET_DIRECT_COMPL :
					   TARGET_QUEUE_COMPL;
}
#else
#define SRPT_DIRECT_COMPL_SUPP	false
#define SRPT_COMPAT_COMPL_OPS

static inline void srpt_compat_set_compl(struct target_core_fabric_ops *ops,
					 bool direct)
{
}
#endif

/**
 * srpt_compat_submit_cmd() - hand a new SCSI command to LIO
 * @cmd: the command, zeroed, its tag set
 * @sess: the channel's session
 * @cdb: the CDB
 * @sense: the sense buffer LIO writes into
 * @lun: unpacked LUN
 * @len: expected data transfer length
 * @attr: TCM_*_TAG task attribute
 * @dir: DMA direction of the data
 * @sgl: the data buffer, or NULL when LIO allocates it
 * @nents: entries in @sgl
 *
 * The command is submitted with %TARGET_SCF_ACK_KREF: LIO keeps it until the
 * fabric's own target_put_sess_cmd() after the response.  After 5.10 this
 * is target_init_cmd(), target_submit_prep() and target_submit(); 5.10 has
 * the same steps in one call, target_submit_cmd_map_sgls().  Either way a
 * command LIO cannot start (a bad CDB, an unmapped LUN) is answered by LIO
 * itself with a CHECK CONDITION through the fabric's queue_status, and
 * counts as taken.
 *
 * Return: 0 when LIO took the command (its callbacks follow), or a negative
 * errno when the session is being stopped and LIO did not take it.
 */
static inline int srpt_compat_submit_cmd(struct se_cmd *cmd,
					 struct se_session *sess,
					 unsigned char *cdb,
					 unsigned char *sense, u64 lun,
					 u32 len, int attr,
					 enum dma_data_direction dir,
					 struct scatterlist *sgl, u32 nents)
{
#ifdef SRPT_HAVE_TARGET_INIT_CMD
	int ret;

	ret = target_init_cmd(cmd, sess, sense, lun, len, attr, dir,
			      TARGET_SCF_ACK_KREF);
	if (unlikely(ret))
		return ret;
	if (target_submit_prep(cmd, cdb, sgl, nents, NULL, 0, NULL, 0,
			       GFP_KERNEL))
		return 0;	/* LIO sent CHECK CONDITION */
	/*
	 * target_submit() returns int since 6.7: an error means a command
	 * without a LUN or a call from interrupt context, neither possible
	 * after target_submit_prep() succeeded in a work item.
	 */
	target_submit(cmd);
	return 0;
#else
	return target_submit_cmd_map_sgls(cmd, sess, cdb, sense, lun, len,
					  attr, dir, TARGET_SCF_ACK_KREF,
					  sgl, nents, NULL, 0, NULL, 0);
#endif
}

/**
 * srpt_compat_stop_session() - refuse new commands on a session
 * @sess: the session
 *
 * target_wait_for_sess_cmds() then waits for the ones LIO has.  5.10 calls
 * this target_sess_cmd_list_set_waiting().
 */
static inline void srpt_compat_stop_session(struct se_session *sess)
{
#ifdef SRPT_HAVE_STOP_SESSION
	target_stop_session(sess);
#else
	target_sess_cmd_list_set_waiting(sess);
#endif
}

/*
 * LIO provides a portal group's enable attribute and calls the fabric's
 * fabric_enable_tpg after 5.10.  In 5.10 each fabric has the attribute
 * itself: srpt_configfs.c's srpt_tpg_attr_enable, listed there then.
 */
#ifdef SRPT_HAVE_FABRIC_ENABLE_TPG
#define SRPT_COMPAT_ENABLE_OPS	.fabric_enable_tpg = srpt_enable_tpg,
#define SRPT_COMPAT_ENABLE_ATTR
#else
#define SRPT_COMPAT_ENABLE_OPS
#define SRPT_COMPAT_ENABLE_ATTR	(&srpt_tpg_attr_enable),
#endif

/**
 * srpt_compat_cm_listen() - listen for IB/CM REQs to one service ID
 * @id: the listening CM ID
 * @service_id: the service ID
 *
 * In 5.10 ib_cm_listen() also takes a mask of the service ID bits
 * compared: all of them here.
 *
 * Return: 0 or a negative errno.
 */
static inline int srpt_compat_cm_listen(struct ib_cm_id *id, __be64 service_id)
{
#ifdef SRPT_HAVE_CM_LISTEN_MASK
	return ib_cm_listen(id, service_id, cpu_to_be64(~0ULL));
#else
	return ib_cm_listen(id, service_id);
#endif
}

/*
 * The per-CPU system workqueue: system_wq is being renamed
 * system_percpu_wq (7.x marks the old name for removal; Debian's 6.12 has
 * both, 6.1 and 5.10 only system_wq).
 */
#ifdef SRPT_HAVE_SYSTEM_PERCPU_WQ
#define srpt_system_wq	system_percpu_wq
#else
#define srpt_system_wq	system_wq
#endif

/* How long a channel on an SRQ waits for IB_EVENT_QP_LAST_WQE_REACHED. */
#define SRPT_LAST_WQE_WAIT	HZ

/**
 * srpt_compat_drain_srq() - finish draining a QP that receives from an SRQ
 * @qp: the QP, in the error state, its send queue drained
 * @last_wqe: completed by the QP event handler on
 *	IB_EVENT_QP_LAST_WQE_REACHED
 *
 * ib_drain_qp() drains no receive queue of a QP on an SRQ before 6.10: the
 * receives are the SRQ's, but until the device reports the QP's last WQE
 * it may still complete some of them on the QP's CQ.  Since 6.10
 * ib_drain_qp() waits for that event itself, and this does nothing.
 * Before, the event is waited for (at most %SRPT_LAST_WQE_WAIT: Soft-RoCE
 * of those kernels never sends it) and the send queue drained once more:
 * the CQ is ordered, so every receive completed before that drain request
 * has then been processed.
 */
static inline void srpt_compat_drain_srq(struct ib_qp *qp,
					 struct completion *last_wqe)
{
#ifndef SRPT_HAVE_DRAIN_SRQ
	if (!qp->srq)
		return;
	if (!wait_for_completion_timeout(last_wqe, SRPT_LAST_WQE_WAIT))
		pr_debug("QP 0x%x: no last WQE event\n", qp->qp_num);
	ib_drain_sq(qp);
#endif
}

#endif /* SRPT_COMPAT_H */
