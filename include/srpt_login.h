/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP login negotiation of the pure layer (srpt_login.c): the login
 * request of either CM normalized, the decision, SRP_LOGIN_RSP and
 * SRP_LOGIN_REJ.
 */
#ifndef SRPT_LOGIN_H
#define SRPT_LOGIN_H

#include "srpt_proto_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum srpt_login_layout - which login request layout the CM delivered
 * @SRPT_LOGIN_IB_CM: T10 layout (64 bytes) from an IB/CM REQ
 * @SRPT_LOGIN_RDMA_CM: Linux RDMA/CM layout (56 bytes)
 */
enum srpt_login_layout {
	SRPT_LOGIN_IB_CM,
	SRPT_LOGIN_RDMA_CM,
};

/**
 * struct srpt_login_info - a login request normalized from either layout
 * @tag: initiator tag, be64_to_cpu() of the wire bytes (opaque)
 * @req_it_iu_len: largest IU the initiator will send
 * @req_buf_fmt: SRPT_BUF_FORMAT_* mask the initiator can use
 * @req_flags: multichannel action (bits 1:0) and SRPT_IMMED_REQUESTED
 * @imm_data_offset: offset of immediate data in an SRP_CMD (SRP-2)
 * @initiator_port_id: initiator port identifier
 * @target_port_id: target port identifier (id_ext followed by ioc_guid)
 */
struct srpt_login_info {
	u64	tag;
	u32	req_it_iu_len;
	u16	req_buf_fmt;
	u8	req_flags;
	u32	imm_data_offset;
	u8	initiator_port_id[16];
	u8	target_port_id[16];
};

int srpt_login_parse(const void *pdata, size_t len,
		     enum srpt_login_layout layout,
		     struct srpt_login_info *out);

/**
 * struct srpt_login_limits - what the target can offer to a new channel
 * @max_req_size: largest IT IU accepted (module parameter srp_max_req_size)
 * @max_rsp_size: TI IU size offered (TPG attribute srp_max_rsp_size)
 * @supported_buf_fmt: SRPT_BUF_FORMAT_* mask the target supports
 * @imm_data_capable: the channel has its own receive ring (no SRQ)
 * @enabled: port/TPG enabled and resources available
 * @no_rdma_read: the connection request grants the target no RDMA READ
 *	(the initiator's responder resources are 0): it could never fetch
 *	the data of a write
 * @target_port_id: the port identifier this target answers to
 */
struct srpt_login_limits {
	u32	max_req_size;
	u32	max_rsp_size;
	u16	supported_buf_fmt;
	bool	imm_data_capable;
	bool	enabled;
	bool	no_rdma_read;
	u8	target_port_id[16];
};

/**
 * struct srpt_login_decision - outcome of srpt_login_decide()
 * @reject_reason: 0 to accept, else an SRPT_LOGIN_REJ_* code
 * @why: static one-line explanation ("ok" when accepted)
 * @max_it_iu_len: accepted IT IU length (the requested one)
 * @max_ti_iu_len: TI IU length the target will use
 * @buf_fmt: buffer formats both sides support
 * @multichannel: the initiator asked for multichannel operation
 * @immediate: immediate data will be used on this channel
 * @imm_data_offset: negotiated immediate data offset (0 if not used)
 */
struct srpt_login_decision {
	u32		reject_reason;
	const char	*why;
	u32		max_it_iu_len;
	u32		max_ti_iu_len;
	u16		buf_fmt;
	bool		multichannel;
	bool		immediate;
	u32		imm_data_offset;
};

void srpt_login_decide(const struct srpt_login_info *req,
		       const struct srpt_login_limits *lim,
		       struct srpt_login_decision *d);

size_t srpt_build_login_rsp(void *buf, size_t buflen, u64 tag,
			    const struct srpt_login_decision *d,
			    u32 req_lim_delta, u8 multichan_result);
size_t srpt_build_login_rej(void *buf, size_t buflen, u64 tag, u32 reason,
			    u16 supported_buf_fmt);

#ifdef __cplusplus
}
#endif

#endif /* SRPT_LOGIN_H */
