// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure SRP wire-protocol code of the SRP target: builders for the
 * target-to-initiator IUs and SRP_CMD / SRP_TSK_MGMT decoding (login
 * negotiation is in srpt_login.c). No kernel state, no allocation, no printing: built both into the
 * kernel module and into the userspace unit tests.
 *
 * Every multi-byte field is read from or written to the IU with memcpy() so
 * that unaligned receive buffers are handled on every architecture.
 */
#include "srpt_proto.h"
#include "srpt_proto_cmd.h"

/**
 * srpt_build_t_logout() - build an SRP_T_LOGOUT
 * @buf: output buffer
 * @buflen: size of @buf
 * @tag: tag to send
 * @reason: logout reason code
 *
 * Return: number of bytes written (16), or 0 if @buflen is too small.
 */
size_t srpt_build_t_logout(void *buf, size_t buflen, u64 tag, u32 reason)
{
	struct srpt_wire_t_logout r;

	if (!buf || buflen < sizeof(r))
		return 0;

	memset(&r, 0, sizeof(r));
	r.opcode = SRPT_OP_T_LOGOUT;
	r.reason = cpu_to_be32(reason);
	r.tag = cpu_to_be64(tag);
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

/**
 * srpt_build_cred_req() - build an SRP_CRED_REQ
 * @buf: output buffer
 * @buflen: size of @buf
 * @tag: tag to send
 * @req_lim_delta: credits granted to the initiator
 *
 * Return: number of bytes written (16), or 0 if @buflen is too small.
 */
size_t srpt_build_cred_req(void *buf, size_t buflen, u64 tag,
			   s32 req_lim_delta)
{
	struct srpt_wire_cred_req r;

	if (!buf || buflen < sizeof(r))
		return 0;

	memset(&r, 0, sizeof(r));
	r.opcode = SRPT_OP_CRED_REQ;
	r.req_lim_delta = cpu_to_be32((u32)req_lim_delta);
	r.tag = cpu_to_be64(tag);
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

/**
 * srpt_buf_desc_get() - convert a wire direct descriptor to host order
 * @w: descriptor inside an IU (may be unaligned)
 * @out: receives va, key and len in host byte order
 */
void srpt_buf_desc_get(const struct srpt_wire_direct_buf *w,
		       struct srpt_buf_desc *out)
{
	struct srpt_wire_direct_buf d;

	memcpy(&d, w, sizeof(d));
	out->va = be64_to_cpu(d.va);
	out->key = be32_to_cpu(d.key);
	out->len = be32_to_cpu(d.len);
}

/**
 * srpt_cdb_size() - bytes a SCSI CDB says it has
 * @cdb: the CDB, at least 16 bytes readable
 *
 * See srpt_cdb_size_in() in srpt_proto_cmd.h.
 *
 * Return: the size in bytes, 6 to 263.
 */
u32 srpt_cdb_size(const u8 *cdb)
{
	return srpt_cdb_size_in(cdb);
}

/**
 * srpt_dir_conflict() - a medium access command with its data the wrong way
 * @cdb: the CDB, srpt_cdb_size() bytes of it present
 * @dir: SRPT_DIR_* of the command's data buffer
 *
 * LIO runs READ and WRITE commands in the direction the fabric gives, not
 * the one the operation code names: a READ with a data-out buffer would
 * write the initiator's buffer to the medium, a WRITE with a data-in
 * buffer would read.  Those are refused.
 *
 * Return: true for a READ (6, 10, 12, 16, 32) with a data-out buffer or a
 * WRITE, WRITE AND VERIFY, WRITE SAME or COMPARE AND WRITE with a data-in
 * buffer.
 */
bool srpt_dir_conflict(const u8 *cdb, u8 dir)
{
	return srpt_dir_conflict_in(cdb, dir);
}

/**
 * srpt_max_descs() - most data descriptors one request can carry
 * @max_it_iu_len: the channel's largest request IU
 *
 * An SRP_CMD with an indirect table in its IU (no additional CDB) holds
 * this many direct descriptors of one direction (the count is a byte);
 * with one RDMA request per descriptor it is the most work requests the
 * data of one direction can need.
 *
 * Return: the number of descriptors, 1 at least (a direct descriptor).
 */
u32 srpt_max_descs(u32 max_it_iu_len)
{
	const u32 hdr = sizeof(struct srpt_wire_cmd) +
			sizeof(struct srpt_wire_indirect_buf);
	u32 n;

	if (max_it_iu_len < hdr + sizeof(struct srpt_wire_direct_buf))
		return 1;
	n = (max_it_iu_len - hdr) / sizeof(struct srpt_wire_direct_buf);
	return n < 255 ? n : 255;
}

/**
 * srpt_tmf_rsp_code() - SRP response code of a finished task management
 * function
 * @result: what it came to, SRPT_TMF_RESULT_*
 *
 * An ABORT TASK for a task that does not exist is answered "function
 * complete": after it the task does not exist, which is what the initiator
 * asked for (SAM-5, 7.2).  A function that was carried out and did not
 * succeed (a LUN RESET that failed, a TMF that was itself aborted) is
 * "function failed" (05h), not "not supported" (04h): the initiator may
 * well try it again.
 *
 * Return: SRPT_TMF_RSP_* code.
 */
u8 srpt_tmf_rsp_code(u8 result)
{
	switch (result) {
	case SRPT_TMF_RESULT_COMPLETE:
	case SRPT_TMF_RESULT_NO_TASK:
		return SRPT_TMF_RSP_COMPLETE;
	case SRPT_TMF_RESULT_NOT_SUPPORTED:
		return SRPT_TMF_RSP_NOT_SUPPORTED;
	case SRPT_TMF_RESULT_NO_LUN:
		return SRPT_TMF_RSP_INCORRECT_LUN;
	default:
		return SRPT_TMF_RSP_FAILED;
	}
}

/**
 * srpt_pr_out_refused() - a PERSISTENT RESERVE OUT the target does not run
 * @cdb: the CDB
 * @param: the first bytes of its parameter list
 * @len: bytes at @param (0 if there is no parameter list)
 *
 * REGISTER and REGISTER AND IGNORE EXISTING KEY with SPEC_I_PT set
 * (registrations for other initiator ports, named by TransportIDs in the
 * parameter list): when LIO refuses such a request (a short list, a
 * TransportID it cannot resolve) it keeps a reference on the initiator's
 * LUN mapping (core_scsi3_decode_spec_i_port() does not release the
 * local registration's se_dev_entry), and removing the mapping, the ACL
 * or the LUN then waits for ever.  One command from any initiator in an
 * ACL would wedge the target's configuration, so these are answered
 * INVALID FIELD IN PARAMETER LIST instead.
 *
 * Return: true if the command must not reach LIO.
 */
bool srpt_pr_out_refused(const u8 *cdb, const u8 *param, size_t len)
{
	u8 sa = cdb[1] & 0x1f;

	if (cdb[0] != 0x5f || (sa != 0x00 && sa != 0x06))
		return false;
	return len > SRPT_PR_OUT_FLAGS_OFFSET &&
	       (param[SRPT_PR_OUT_FLAGS_OFFSET] & 0x08);
}

/**
 * srpt_cmd_parse() - validate and decode an SRP_CMD
 * @iu: the received IU (any alignment)
 * @len: number of bytes received
 * @imm_negotiated: immediate data was negotiated at login
 * @imm_data_offset: the negotiated immediate data offset
 * @out: receives the decoded command; zeroed first
 * @err: receives the reason of a failure, %SRPT_CMD_OK on success (may be
 *	NULL)
 *
 * The opcode is not checked: the caller dispatches on it. Checks, in order:
 * fixed header present; additional CDB length with zero reserved bits and
 * inside the IU; a CDB no longer than the IU carries (a variable-length
 * CDB's own length, see srpt_cdb_size(), within the 16 + additional CDB
 * bytes); task attribute 0, 1, 2 or 4; not bidirectional; defined
 * descriptor formats (immediate only for data-out, and only if negotiated).
 * Then per format: direct needs a descriptor count of 0 or 1 (the Linux
 * initiator sends 0) with the other direction's count 0, and the descriptor
 * inside the IU; indirect needs the 20-byte header inside the IU, a non-zero
 * table length that is a multiple of 16, the counted descriptors inside the
 * IU, a table that is entirely in the IU (else %SRPT_CMD_EXTERNAL_TABLE) and
 * descriptor lengths adding up to the total length; immediate needs the
 * 4-byte length inside the IU and the data between the end of that
 * descriptor and the end of the IU (computed without overflow).  Last, a
 * READ or WRITE whose buffer goes the other way is refused
 * (srpt_dir_conflict()).
 *
 * Once the fixed header is present, @out->tag, @out->lun and
 * @out->task_attr are filled even on failure so that the caller can answer
 * with an SRP_RSP.
 *
 * Return: 0 on success, -EINVAL on a malformed command.
 */
int srpt_cmd_parse(const void *iu, size_t len, bool imm_negotiated,
		   u32 imm_data_offset, struct srpt_cmd_info *out,
		   enum srpt_cmd_err *err)
{
	return srpt_cmd_decode(iu, len, imm_negotiated, imm_data_offset, out,
			       err);
}

/**
 * srpt_cmd_err_str() - human readable text for an SRP_CMD parse error
 * @e: error code
 *
 * Return: a static string.
 */
const char *srpt_cmd_err_str(enum srpt_cmd_err e)
{
	switch (e) {
	case SRPT_CMD_OK:
		return "ok";
	case SRPT_CMD_TOO_SHORT:
		return "IU shorter than the SRP_CMD header";
	case SRPT_CMD_CDB_OVERFLOW:
		return "additional CDB length malformed or beyond the IU";
	case SRPT_CMD_CDB_SHORT:
		return "CDB length field claims more bytes than the IU carries";
	case SRPT_CMD_BIDI:
		return "bidirectional commands are not supported";
	case SRPT_CMD_BAD_FMT:
		return "undefined data buffer descriptor format";
	case SRPT_CMD_DESC_OVERFLOW:
		return "data buffer descriptors beyond the IU";
	case SRPT_CMD_DIRECT_COUNT:
		return "bad descriptor count for a direct descriptor";
	case SRPT_CMD_TABLE_LEN:
		return "bad indirect descriptor table length";
	case SRPT_CMD_IMM_NOT_NEGOTIATED:
		return "immediate data not negotiated";
	case SRPT_CMD_IMM_RANGE:
		return "immediate data outside the IU";
	case SRPT_CMD_BAD_TASK_ATTR:
		return "undefined task attribute";
	case SRPT_CMD_EXTERNAL_TABLE:
		return "external indirect descriptor table not supported";
	case SRPT_CMD_LEN_MISMATCH:
		return "descriptor lengths disagree with the total length";
	case SRPT_CMD_TOO_LONG:
		return "IU longer than the negotiated maximum";
	case SRPT_CMD_TOO_MUCH_DATA:
		return "transfer length larger than the target accepts";
	case SRPT_CMD_DIR_CONFLICT:
		return "data buffer in the direction opposite to the command's";
	}
	return "unknown error";
}

/**
 * srpt_cmd_err_sense() - sense data to answer a malformed SRP_CMD with
 * @e: error code from srpt_cmd_parse()
 * @sense_key: receives the sense key
 * @asc: receives the additional sense code
 * @ascq: receives the additional sense code qualifier
 *
 * Every error maps to ILLEGAL REQUEST: a bidirectional command and a CDB
 * whose own length field reaches past the bytes the IU carries to INVALID
 * FIELD IN CDB (24h/00h), everything else, being a defect of the SRP IU
 * rather than of the CDB, to INVALID FIELD IN INFORMATION UNIT (0Eh/03h).
 * %SRPT_CMD_OK gives NO SENSE (all zero).
 */
void srpt_cmd_err_sense(enum srpt_cmd_err e, u8 *sense_key, u8 *asc,
			u8 *ascq)
{
	switch (e) {
	case SRPT_CMD_OK:
		*sense_key = 0x00;
		*asc = 0x00;
		*ascq = 0x00;
		break;
	case SRPT_CMD_BIDI:
	case SRPT_CMD_CDB_SHORT:
		*sense_key = 0x05;
		*asc = 0x24;
		*ascq = 0x00;
		break;
	default:
		*sense_key = 0x05;
		*asc = 0x0e;
		*ascq = 0x03;
		break;
	}
}

/**
 * srpt_tmf_parse() - decode an SRP_TSK_MGMT
 * @iu: the received IU (any alignment)
 * @len: number of bytes received
 * @out: receives the decoded request; zeroed first
 *
 * The function code is not validated: the caller answers an undefined code
 * with response code 02h (request fields invalid).  An IU too short for the
 * whole request still has its tag decoded when it holds one (16 bytes), so
 * that the rejection reaches the request it answers.
 *
 * Return: 0 on success, -EINVAL if @len is shorter than 48 bytes.
 */
int srpt_tmf_parse(const void *iu, size_t len, struct srpt_tmf_info *out)
{
	struct srpt_wire_tsk_mgmt t;

	memset(out, 0, sizeof(*out));
	if (iu && len >= offsetof(struct srpt_wire_tsk_mgmt, reserved2))
		out->tag = srpt_get_be64((const u8 *)iu +
					 offsetof(struct srpt_wire_tsk_mgmt,
						  tag));
	if (!iu || len < sizeof(t))
		return -EINVAL;
	memcpy(&t, iu, sizeof(t));
	out->tag = be64_to_cpu(t.tag);
	out->lun = be64_to_cpu(t.lun);
	out->func = t.tsk_mgmt_func;
	out->task_tag = be64_to_cpu(t.task_tag);
	return 0;
}

/**
 * srpt_build_rsp() - build an SRP_RSP
 * @buf: output buffer
 * @buflen: size of @buf, normally the channel's max_ti_iu_len
 * @a: what to report
 *
 * The response data (4 bytes, the code in byte 3) comes first when
 * @a->has_resp_code is set, then the sense data, truncated to what is left
 * of @buflen. The residual count goes to the field of @a->dir with the
 * UNDER flag if @a->residual_under is non-zero, else with the OVER flag if
 * @a->residual_over is non-zero; %SRPT_DIR_NONE reports no residual.
 *
 * Return: total IU length, or 0 if @buflen cannot hold the header and the
 * response data.
 */
size_t srpt_build_rsp(void *buf, size_t buflen, const struct srpt_rsp_args *a)
{
	const size_t hlen = sizeof(struct srpt_wire_rsp);
	size_t resp_len = a->has_resp_code ? SRPT_TMF_RESP_DATA_LEN : 0;
	size_t sense_len = 0;
	u8 *p = buf;
	u32 resid = 0, do_resid = 0, di_resid = 0;
	u8 flags = 0;

	if (!p || buflen < hlen + resp_len)
		return 0;
	if (a->sense && a->sense_len) {
		sense_len = a->sense_len;
		if (sense_len > buflen - hlen - resp_len)
			sense_len = buflen - hlen - resp_len;
		if (sense_len)
			flags |= SRPT_RSP_FLAG_SNSVALID;
	}
	if (a->residual_under)
		resid = a->residual_under;
	else if (a->residual_over)
		resid = a->residual_over;
	if (resid && a->dir == SRPT_DIR_OUT) {
		flags |= a->residual_under ? SRPT_RSP_FLAG_DOUNDER :
					     SRPT_RSP_FLAG_DOOVER;
		do_resid = resid;
	} else if (resid && a->dir == SRPT_DIR_IN) {
		flags |= a->residual_under ? SRPT_RSP_FLAG_DIUNDER :
					     SRPT_RSP_FLAG_DIOVER;
		di_resid = resid;
	}
	if (resp_len)
		flags |= SRPT_RSP_FLAG_RSPVALID;

	/* Field by field, straight into the (possibly unaligned) buffer. */
	srpt_put_be32(p, (u32)SRPT_OP_RSP << 24);
	srpt_put_be32(p + offsetof(struct srpt_wire_rsp, req_lim_delta),
		      (u32)a->req_lim_delta);
	srpt_put_be64(p + offsetof(struct srpt_wire_rsp, tag), a->tag);
	srpt_put_be32(p + offsetof(struct srpt_wire_rsp, reserved2),
		      (u32)flags << 8 | a->status);
	srpt_put_be32(p + offsetof(struct srpt_wire_rsp, data_out_res_cnt),
		      do_resid);
	srpt_put_be32(p + offsetof(struct srpt_wire_rsp, data_in_res_cnt),
		      di_resid);
	srpt_put_be32(p + offsetof(struct srpt_wire_rsp, sense_data_len),
		      (u32)sense_len);
	srpt_put_be32(p + offsetof(struct srpt_wire_rsp, resp_data_len),
		      (u32)resp_len);

	if (resp_len) {
		memset(p + hlen, 0, resp_len);
		p[hlen + 3] = a->resp_code;
	}
	if (sense_len)
		memcpy(p + hlen + resp_len, a->sense, sense_len);
	return hlen + resp_len + sense_len;
}

/**
 * srpt_pick_comp_vector() - completion vector of a new channel
 * @mask: allowed vectors, bit n for vector n; 0, or a mask that allows no
 *	vector below @num_vectors, means every vector
 * @num_vectors: completion vectors of the device
 * @seq: sequence number of the channel on the device
 *
 * Channels go round robin over the allowed vectors.
 *
 * Return: the vector, below @num_vectors (0 for a device with at most one).
 */
u32 srpt_pick_comp_vector(u64 mask, u32 num_vectors, u32 seq)
{
	u32 allowed = 0, n, v;

	if (num_vectors <= 1)
		return 0;
	if (num_vectors < 64)
		mask &= (1ULL << num_vectors) - 1;
	for (v = 0; v < 64; v++)
		allowed += (mask >> v) & 1;
	if (!allowed)
		return seq % num_vectors;
	n = seq % allowed;
	for (v = 0; v < 64; v++) {
		if (!((mask >> v) & 1))
			continue;
		if (!n)
			return v;
		n--;
	}
	return 0;
}
