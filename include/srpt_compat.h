/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel API differences between the kernels ib_srpt supports (Debian's 6.1
 * and 6.12 today).  Features are detected by Kbuild from the kernel headers
 * (the SRPT_HAVE_* macros) rather than by version number, because
 * distribution kernels carry backports.  Everything version-dependent lives
 * here; the rest of the driver calls the srpt_compat_*() helpers.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include <linux/completion.h>
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

/**
 * srpt_compat_target_submit() - hand a prepared command to LIO
 * @se_cmd: command set up by target_init_cmd() and target_submit_prep()
 *
 * target_submit() returns int since 6.7 and void before.
 *
 * Return: 0, or the negative errno target_submit() returned.
 */
static inline int srpt_compat_target_submit(struct se_cmd *se_cmd)
{
#ifdef SRPT_HAVE_INT_TARGET_SUBMIT
	return target_submit(se_cmd);
#else
	target_submit(se_cmd);
	return 0;
#endif
}

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
