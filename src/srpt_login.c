// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure SRP login negotiation of the SRP target: SRP_LOGIN_REQ parsing in
 * both layouts (IB/CM and RDMA/CM), the accept-or-reject decision, and the
 * SRP_LOGIN_RSP / SRP_LOGIN_REJ builders.  No kernel state, no allocation,
 * no printing: built both into the kernel module and into the userspace
 * unit tests.
 */
#include "srpt_login.h"

/**
 * srpt_login_parse() - normalize an SRP_LOGIN_REQ from either layout
 * @pdata: private data of the connection request
 * @len: number of bytes available at @pdata
 * @layout: %SRPT_LOGIN_IB_CM (T10 layout) or %SRPT_LOGIN_RDMA_CM (Linux
 *	RDMA/CM layout)
 * @out: receives the decoded request; zeroed first
 *
 * Only the layout and the opcode are checked here; the negotiation itself is
 * done by srpt_login_decide().
 *
 * Return: 0 on success; -EINVAL if @len is shorter than the layout, the
 * layout is unknown or the opcode is not SRP_LOGIN_REQ.
 */
int srpt_login_parse(const void *pdata, size_t len,
		     enum srpt_login_layout layout,
		     struct srpt_login_info *out)
{
	struct srpt_wire_login_req_rdma rr;
	struct srpt_wire_login_req r;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!pdata)
		return -EINVAL;

	switch (layout) {
	case SRPT_LOGIN_IB_CM:
		if (len < sizeof(r))
			return -EINVAL;
		memcpy(&r, pdata, sizeof(r));
		/* The tag is echoed even in the reject of a bad opcode. */
		out->tag = be64_to_cpu(r.tag);
		if (r.opcode != SRPT_OP_LOGIN_REQ)
			return -EINVAL;
		out->req_it_iu_len = be32_to_cpu(r.req_it_iu_len);
		out->req_buf_fmt = be16_to_cpu(r.req_buf_fmt);
		out->req_flags = r.req_flags;
		out->imm_data_offset = be16_to_cpu(r.imm_data_offset);
		memcpy(out->initiator_port_id, r.initiator_port_id,
		       sizeof(out->initiator_port_id));
		memcpy(out->target_port_id, r.target_port_id,
		       sizeof(out->target_port_id));
		return 0;
	case SRPT_LOGIN_RDMA_CM:
		if (len < sizeof(rr))
			return -EINVAL;
		memcpy(&rr, pdata, sizeof(rr));
		out->tag = be64_to_cpu(rr.tag);
		if (rr.opcode != SRPT_OP_LOGIN_REQ)
			return -EINVAL;
		out->req_it_iu_len = be32_to_cpu(rr.req_it_iu_len);
		out->req_buf_fmt = be16_to_cpu(rr.req_buf_fmt);
		out->req_flags = rr.req_flags;
		out->imm_data_offset = be16_to_cpu(rr.imm_data_offset);
		memcpy(out->initiator_port_id, rr.initiator_port_id,
		       sizeof(out->initiator_port_id));
		memcpy(out->target_port_id, rr.target_port_id,
		       sizeof(out->target_port_id));
		return 0;
	}
	return -EINVAL;
}

static void srpt_login_reject(struct srpt_login_decision *d, u32 reason,
			      const char *why)
{
	memset(d, 0, sizeof(*d));
	d->reject_reason = reason;
	d->why = why;
}

/**
 * srpt_login_decide() - accept or reject a login request
 * @req: the normalized login request
 * @lim: what the target supports and whether it can take a channel now
 * @d: receives the decision; on rejection only @d->reject_reason and
 *	@d->why are set, every other field is zero
 *
 * The checks run in this order and the first failing one decides:
 * target disabled (INSUFFICIENT_RESOURCES), target port id mismatch
 * (UNABLE_ASSOCIATE_CHANNEL), IT IU length below 64 or above
 * @lim->max_req_size (REQ_IT_IU_LENGTH_TOO_LARGE), no common buffer format
 * (UNSUPPORTED_DESCRIPTOR_FMT), reserved multichannel action 2 or 3
 * (UNABLE_ESTABLISH_CHANNEL), no RDMA READ depth granted
 * (UNABLE_ESTABLISH_CHANNEL: the target could take writes but never fetch
 * their data, and each would hold its buffer until the channel ends), and
 * finally immediate data.
 *
 * Immediate data is used only if the initiator sets IMMED and the channel
 * is capable (own receive ring). The offset must then leave room for the
 * SRP_CMD header and the 4-byte immediate data descriptor (offset >= 52)
 * and must not lie beyond the IT IU (offset <= req_it_iu_len); otherwise the
 * login is rejected with UNABLE_ESTABLISH_CHANNEL. No alignment is required:
 * the Linux initiator uses 48 + 16 + 4 = 68. If the channel is not capable
 * the request is accepted without immediate data and the offset ignored.
 */
void srpt_login_decide(const struct srpt_login_info *req,
		       const struct srpt_login_limits *lim,
		       struct srpt_login_decision *d)
{
	u16 fmt = req->req_buf_fmt & lim->supported_buf_fmt;
	u8 mc = req->req_flags & SRPT_MULTICHAN_MASK;
	bool imm = false;

	if (!lim->enabled) {
		srpt_login_reject(d, SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES,
				  "target port disabled or out of resources");
		return;
	}
	if (memcmp(req->target_port_id, lim->target_port_id,
		   sizeof(req->target_port_id)) != 0) {
		srpt_login_reject(d, SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL,
				  "target port id mismatch");
		return;
	}
	if (req->req_it_iu_len < SRPT_MIN_IT_IU_LEN ||
	    req->req_it_iu_len > lim->max_req_size) {
		srpt_login_reject(d, SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE,
				  "requested IT IU length out of range");
		return;
	}
	if (!fmt) {
		srpt_login_reject(d, SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT,
				  "no supported buffer format requested");
		return;
	}
	if (mc != SRPT_MULTICHAN_SINGLE && mc != SRPT_MULTICHAN_MULTI) {
		srpt_login_reject(d, SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				  "reserved multichannel action");
		return;
	}
	if (lim->no_rdma_read) {
		srpt_login_reject(d, SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				  "no RDMA READ depth (responder resources 0)");
		return;
	}
	if ((req->req_flags & SRPT_IMMED_REQUESTED) && lim->imm_data_capable) {
		if (req->imm_data_offset < sizeof(struct srpt_wire_cmd) +
					   sizeof(struct srpt_wire_imm_buf) ||
		    req->imm_data_offset > req->req_it_iu_len) {
			srpt_login_reject(d,
					  SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
					  "bad immediate data offset");
			return;
		}
		imm = true;
	}

	memset(d, 0, sizeof(*d));
	d->why = "ok";
	d->max_it_iu_len = req->req_it_iu_len;
	d->max_ti_iu_len = lim->max_rsp_size;
	d->buf_fmt = fmt;
	d->multichannel = mc == SRPT_MULTICHAN_MULTI;
	d->immediate = imm;
	d->imm_data_offset = imm ? req->imm_data_offset : 0;
}

/**
 * srpt_build_login_rsp() - build an SRP_LOGIN_RSP
 * @buf: output buffer
 * @buflen: size of @buf
 * @tag: tag of the login request, as returned by srpt_login_parse()
 * @d: an accepting decision from srpt_login_decide()
 * @req_lim_delta: initial credits granted
 * @multichan_result: %SRPT_LOGIN_RSP_MULTICHAN_NO_CHAN, _TERMINATED or
 *	_MAINTAINED
 *
 * Return: number of bytes written (52), or 0 if @buflen is too small, @d is
 * a rejection or @multichan_result is not one of the three values.
 */
size_t srpt_build_login_rsp(void *buf, size_t buflen, u64 tag,
			    const struct srpt_login_decision *d,
			    u32 req_lim_delta, u8 multichan_result)
{
	struct srpt_wire_login_rsp r;

	if (!buf || buflen < sizeof(r) || d->reject_reason ||
	    multichan_result > SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED)
		return 0;

	memset(&r, 0, sizeof(r));
	r.opcode = SRPT_OP_LOGIN_RSP;
	r.req_lim_delta = cpu_to_be32(req_lim_delta);
	r.tag = cpu_to_be64(tag);
	r.max_it_iu_len = cpu_to_be32(d->max_it_iu_len);
	r.max_ti_iu_len = cpu_to_be32(d->max_ti_iu_len);
	r.buf_fmt = cpu_to_be16(d->buf_fmt);
	r.rsp_flags = multichan_result;
	if (d->immediate)
		r.rsp_flags |= SRPT_LOGIN_RSP_IMMED_SUPP;
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

/**
 * srpt_build_login_rej() - build an SRP_LOGIN_REJ
 * @buf: output buffer
 * @buflen: size of @buf
 * @tag: tag of the login request
 * @reason: SRPT_LOGIN_REJ_* code
 * @supported_buf_fmt: buffer formats the target supports
 *
 * Return: number of bytes written (32), or 0 if @buflen is too small.
 */
size_t srpt_build_login_rej(void *buf, size_t buflen, u64 tag, u32 reason,
			    u16 supported_buf_fmt)
{
	struct srpt_wire_login_rej r;

	if (!buf || buflen < sizeof(r))
		return 0;

	memset(&r, 0, sizeof(r));
	r.opcode = SRPT_OP_LOGIN_REJ;
	r.reason = cpu_to_be32(reason);
	r.tag = cpu_to_be64(tag);
	r.buf_fmt = cpu_to_be16(supported_buf_fmt);
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}
