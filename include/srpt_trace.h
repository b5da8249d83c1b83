/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt tracepoints: logins, channel state changes, commands, responses
 * and task management.  Enable with
 *
 *   echo 1 > /sys/kernel/tracing/events/ib_srpt/enable
 *
 * Strings are copied into fixed arrays (no __string()), so the same events
 * build on every supported kernel.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_srpt

#if !defined(_SRPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SRPT_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#define SRPT_TRACE_NAME_LEN 48

#define srpt_show_ch_state(s)				\
	__print_symbolic(s,				\
		{ 0, "connecting" },			\
		{ 1, "live" },				\
		{ 2, "disconnecting" },			\
		{ 3, "releasing" })

TRACE_EVENT(srpt_login,
	    TP_PROTO(const char *ini, u32 ch_id, u32 reject_reason, u32 it_iu,
		     u32 ti_iu, u32 credits, bool imm),
	    TP_ARGS(ini, ch_id, reject_reason, it_iu, ti_iu, credits, imm),
	    TP_STRUCT__entry(__array(char, ini, SRPT_TRACE_NAME_LEN)
			     __field(u32, ch_id)
			     __field(u32, reject_reason)
			     __field(u32, it_iu)
			     __field(u32, ti_iu)
			     __field(u32, credits)
			     __field(bool, imm)),
	    TP_fast_assign(strscpy(__entry->ini, ini, SRPT_TRACE_NAME_LEN);
			   __entry->ch_id = ch_id;
			   __entry->reject_reason = reject_reason;
			   __entry->it_iu = it_iu;
			   __entry->ti_iu = ti_iu;
			   __entry->credits = credits;
			   __entry->imm = imm;),
	    TP_printk("initiator=%s ch=%u %s reason=0x%05x it_iu=%u ti_iu=%u credits=%u imm=%d",
		      __entry->ini, __entry->ch_id,
		      __entry->reject_reason ? "rejected" : "accepted",
		      __entry->reject_reason, __entry->it_iu, __entry->ti_iu,
		      __entry->credits, __entry->imm)
);

TRACE_EVENT(srpt_ch_state,
	    TP_PROTO(const char *ini, u32 ch_id, int old_state, int new_state),
	    TP_ARGS(ini, ch_id, old_state, new_state),
	    TP_STRUCT__entry(__array(char, ini, SRPT_TRACE_NAME_LEN)
			     __field(u32, ch_id)
			     __field(int, old_state)
			     __field(int, new_state)),
	    TP_fast_assign(strscpy(__entry->ini, ini, SRPT_TRACE_NAME_LEN);
			   __entry->ch_id = ch_id;
			   __entry->old_state = old_state;
			   __entry->new_state = new_state;),
	    TP_printk("initiator=%s ch=%u %s -> %s", __entry->ini, __entry->ch_id,
		      srpt_show_ch_state(__entry->old_state),
		      srpt_show_ch_state(__entry->new_state))
);

#define srpt_show_qp_state(s)				\
	__print_symbolic(s,				\
		{ IB_QPS_RESET, "RESET" },		\
		{ IB_QPS_INIT, "INIT" },		\
		{ IB_QPS_RTR, "RTR" },			\
		{ IB_QPS_RTS, "RTS" },			\
		{ IB_QPS_SQD, "SQD" },			\
		{ IB_QPS_SQE, "SQE" },			\
		{ IB_QPS_ERR, "ERR" })

/* A channel's QP was moved by the driver (IB/CM logins, and to ERR). */
TRACE_EVENT(srpt_qp_state,
	    TP_PROTO(u32 ch_id, u32 qp_num, int state, int ret),
	    TP_ARGS(ch_id, qp_num, state, ret),
	    TP_STRUCT__entry(__field(u32, ch_id)
			     __field(u32, qp_num)
			     __field(int, state)
			     __field(int, ret)),
	    TP_fast_assign(__entry->ch_id = ch_id;
			   __entry->qp_num = qp_num;
			   __entry->state = state;
			   __entry->ret = ret;),
	    TP_printk("ch=%u qp=0x%x state=%s ret=%d", __entry->ch_id,
		      __entry->qp_num, srpt_show_qp_state(__entry->state),
		      __entry->ret)
);

TRACE_EVENT(srpt_cmd,
	    TP_PROTO(u32 ch_id, u64 tag, u64 lun, u8 opcode, u32 len, int dir,
		     bool imm),
	    TP_ARGS(ch_id, tag, lun, opcode, len, dir, imm),
	    TP_STRUCT__entry(__field(u32, ch_id)
			     __field(u64, tag)
			     __field(u64, lun)
			     __field(u8, opcode)
			     __field(u32, len)
			     __field(int, dir)
			     __field(bool, imm)),
	    TP_fast_assign(__entry->ch_id = ch_id;
			   __entry->tag = tag;
			   __entry->lun = lun;
			   __entry->opcode = opcode;
			   __entry->len = len;
			   __entry->dir = dir;
			   __entry->imm = imm;),
	    TP_printk("ch=%u tag=0x%llx lun=%llu opcode=0x%02x len=%u dir=%s imm=%d",
		      __entry->ch_id, __entry->tag, __entry->lun, __entry->opcode,
		      __entry->len,
		      __print_symbolic(__entry->dir, { 0, "none" },
				       { 1, "out" }, { 2, "in" }),
		      __entry->imm)
);

TRACE_EVENT(srpt_rsp,
	    TP_PROTO(u32 ch_id, u64 tag, bool cred_req, u8 status, s32 req_lim_delta,
		     u32 wrs),
	    TP_ARGS(ch_id, tag, cred_req, status, req_lim_delta, wrs),
	    TP_STRUCT__entry(__field(u32, ch_id)
			     __field(u64, tag)
			     __field(bool, cred_req)
			     __field(u8, status)
			     __field(s32, req_lim_delta)
			     __field(u32, wrs)),
	    TP_fast_assign(__entry->ch_id = ch_id;
			   __entry->tag = tag;
			   __entry->cred_req = cred_req;
			   __entry->status = status;
			   __entry->req_lim_delta = req_lim_delta;
			   __entry->wrs = wrs;),
	    TP_printk("ch=%u tag=0x%llx %s status=0x%02x credits=%d wrs=%u",
		      __entry->ch_id, __entry->tag,
		      __entry->cred_req ? "SRP_CRED_REQ" : "SRP_RSP",
		      __entry->status, __entry->req_lim_delta, __entry->wrs)
);

TRACE_EVENT(srpt_tmf,
	    TP_PROTO(u32 ch_id, u64 tag, u8 func, u64 task_tag, u64 lun),
	    TP_ARGS(ch_id, tag, func, task_tag, lun),
	    TP_STRUCT__entry(__field(u32, ch_id)
			     __field(u64, tag)
			     __field(u8, func)
			     __field(u64, task_tag)
			     __field(u64, lun)),
	    TP_fast_assign(__entry->ch_id = ch_id;
			   __entry->tag = tag;
			   __entry->func = func;
			   __entry->task_tag = task_tag;
			   __entry->lun = lun;),
	    TP_printk("ch=%u tag=0x%llx function=0x%02x task_tag=0x%llx lun=%llu",
		      __entry->ch_id, __entry->tag, __entry->func,
		      __entry->task_tag, __entry->lun)
);

TRACE_EVENT(srpt_tmf_rsp,
	    TP_PROTO(u32 ch_id, u64 tag, u8 code),
	    TP_ARGS(ch_id, tag, code),
	    TP_STRUCT__entry(__field(u32, ch_id)
			     __field(u64, tag)
			     __field(u8, code)),
	    TP_fast_assign(__entry->ch_id = ch_id;
			   __entry->tag = tag;
			   __entry->code = code;),
	    TP_printk("ch=%u tag=0x%llx response=0x%02x", __entry->ch_id,
		      __entry->tag, __entry->code)
);

TRACE_EVENT(srpt_bad_iu,
	    TP_PROTO(u32 ch_id, u8 opcode, u32 len, int err),
	    TP_ARGS(ch_id, opcode, len, err),
	    TP_STRUCT__entry(__field(u32, ch_id)
			     __field(u8, opcode)
			     __field(u32, len)
			     __field(int, err)),
	    TP_fast_assign(__entry->ch_id = ch_id;
			   __entry->opcode = opcode;
			   __entry->len = len;
			   __entry->err = err;),
	    TP_printk("ch=%u opcode=0x%02x len=%u err=%d", __entry->ch_id,
		      __entry->opcode, __entry->len, __entry->err)
);

#endif /* _SRPT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE srpt_trace
#include <trace/define_trace.h>
