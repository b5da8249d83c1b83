/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP (SCSI RDMA Protocol) helpers of the pure layer (srpt_proto.c): the
 * SRP_CMD and SRP_TSK_MGMT parsers and the SRP_RSP, SRP_T_LOGOUT and
 * SRP_CRED_REQ builders.  Nothing in here touches kernel state: every
 * function works on caller supplied buffers so that the same code is
 * built into the kernel module and into the userspace unit tests.
 */
#ifndef SRPT_PROTO_H
#define SRPT_PROTO_H

#include "srpt_proto_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t srpt_build_t_logout(void *buf, size_t buflen, u64 tag, u32 reason);
size_t srpt_build_cred_req(void *buf, size_t buflen, u64 tag,
			   s32 req_lim_delta);

/**
 * struct srpt_buf_desc - a memory descriptor in host byte order
 * @va: remote virtual address
 * @key: remote key
 * @len: length in bytes
 */
struct srpt_buf_desc {
	u64	va;
	u32	key;
	u32	len;
};

/* Data direction of an SRP_CMD, seen from the initiator. */
enum {
	SRPT_DIR_NONE	= 0,
	SRPT_DIR_OUT	= 1,	/* write: initiator to target */
	SRPT_DIR_IN	= 2,	/* read: target to initiator */
};

/**
 * srpt_lun_to_int() - the Linux LUN number of an 8-byte SAM LUN field
 * @lun: the field as a big-endian load of its 8 bytes (as the parsers
 *	return it)
 *
 * Linux numbers LUNs by the four 2-byte levels of the SAM LUN structure,
 * the first level in the low 16 bits (what scsilun_to_int() computes from
 * the bytes): the 16-bit groups of @lun in reverse order.  Inline: every
 * command needs it, and a call would cost more than the shifts.
 *
 * Return: the LUN as LIO and the SCSI midlayer number it.
 */
static inline u64 srpt_lun_to_int(u64 lun)
{
	return (lun >> 48) | ((lun >> 16) & 0xffff0000ull) |
	       ((lun << 16) & 0xffff00000000ull) | (lun << 48);
}

/**
 * struct srpt_cmd_info - a validated SRP_CMD
 * @tag: initiator tag, be64_to_cpu() of the wire bytes
 * @lun: the 8 LUN bytes as be64_to_cpu() of the wire bytes
 * @task_attr: SRPT_TASK_ATTR_*
 * @cdb: CDB inside the IU (16 bytes plus the additional CDB)
 * @cdb_len: length of @cdb
 * @dir: SRPT_DIR_NONE, SRPT_DIR_OUT or SRPT_DIR_IN
 * @fmt: SRPT_DATA_DESC_* of the direction in use
 * @ndesc: number of direct descriptors at @desc
 * @desc: big-endian descriptors inside the IU (NULL if @ndesc is 0)
 * @data_len: total data length the descriptors (or immediate data) describe
 * @imm_offset: offset of immediate data in the IU
 * @imm_len: length of immediate data
 */
struct srpt_cmd_info {
	u64					tag;
	u64					lun;
	u8					task_attr;
	const u8				*cdb;
	u32					cdb_len;
	int					dir;
	u8					fmt;
	u32					ndesc;
	const struct srpt_wire_direct_buf	*desc;
	u32					data_len;
	u32					imm_offset;
	u32					imm_len;
};

/**
 * enum srpt_cmd_err - why srpt_cmd_parse() refused an SRP_CMD
 * @SRPT_CMD_OK: no error
 * @SRPT_CMD_TOO_SHORT: IU shorter than the fixed SRP_CMD header
 * @SRPT_CMD_CDB_OVERFLOW: additional CDB malformed or beyond the IU
 * @SRPT_CMD_BIDI: both data-out and data-in descriptors present
 * @SRPT_CMD_BAD_FMT: undefined descriptor format
 * @SRPT_CMD_DESC_OVERFLOW: descriptors extend beyond the IU
 * @SRPT_CMD_DIRECT_COUNT: direct format with a bad descriptor count
 * @SRPT_CMD_TABLE_LEN: indirect table length invalid
 * @SRPT_CMD_IMM_NOT_NEGOTIATED: immediate data not negotiated at login
 * @SRPT_CMD_IMM_RANGE: immediate data offset/length outside the IU
 * @SRPT_CMD_BAD_TASK_ATTR: undefined task attribute
 * @SRPT_CMD_EXTERNAL_TABLE: indirect table not entirely inside the IU
 * @SRPT_CMD_LEN_MISMATCH: descriptor lengths disagree with the total length
 * @SRPT_CMD_TOO_LONG: IU longer than the negotiated max_it_iu_len
 * @SRPT_CMD_TOO_MUCH_DATA: transfer larger than the target accepts
 * @SRPT_CMD_CDB_SHORT: the CDB's own length (variable-length CDB) is more
 *	than the 16 + additional CDB bytes of the IU
 * @SRPT_CMD_DIR_CONFLICT: a READ with a data-out buffer or a WRITE with a
 *	data-in buffer (see srpt_dir_conflict())
 */
enum srpt_cmd_err {
	SRPT_CMD_OK,
	SRPT_CMD_TOO_SHORT,
	SRPT_CMD_CDB_OVERFLOW,
	SRPT_CMD_BIDI,
	SRPT_CMD_BAD_FMT,
	SRPT_CMD_DESC_OVERFLOW,
	SRPT_CMD_DIRECT_COUNT,
	SRPT_CMD_TABLE_LEN,
	SRPT_CMD_IMM_NOT_NEGOTIATED,
	SRPT_CMD_IMM_RANGE,
	SRPT_CMD_BAD_TASK_ATTR,
	SRPT_CMD_EXTERNAL_TABLE,
	SRPT_CMD_LEN_MISMATCH,
	SRPT_CMD_TOO_LONG,
	SRPT_CMD_TOO_MUCH_DATA,
	SRPT_CMD_CDB_SHORT,
	SRPT_CMD_DIR_CONFLICT,
};

u32 srpt_cdb_size(const u8 *cdb);
u32 srpt_max_descs(u32 max_it_iu_len);
/**
 * srpt_cdb_reads_medium() - a READ, whose data-in buffer the backend fills
 * @cdb: the CDB, srpt_cdb_size() bytes of it present
 *
 * Return: true for READ (6, 10, 12, 16, 32).
 */
static inline bool srpt_cdb_reads_medium(const u8 *cdb)
{
	switch (cdb[0]) {
	case 0x08: case 0x28: case 0xa8: case 0x88:
		return true;
	case 0x7f:
		/* Variable length: the service action says (SBC-4 5.x). */
		return (cdb[8] << 8 | cdb[9]) == 0x0009;
	default:
		return false;
	}
}

bool srpt_dir_conflict(const u8 *cdb, u8 dir);

/* Byte of the PERSISTENT RESERVE OUT parameter list holding SPEC_I_PT. */
#define SRPT_PR_OUT_FLAGS_OFFSET	20
bool srpt_pr_out_refused(const u8 *cdb, const u8 *param, size_t len);

int srpt_cmd_parse(const void *iu, size_t len, bool imm_negotiated,
		   u32 imm_data_offset, struct srpt_cmd_info *out,
		   enum srpt_cmd_err *err);
/**
 * srpt_cmd_check_limits() - check a parsed SRP_CMD against channel limits
 * @len: bytes received
 * @ci: the command, as srpt_cmd_parse() accepted it
 * @max_it_iu_len: largest IU the login negotiated
 * @max_data_len: largest transfer of one command
 * @err: receives the reason on failure (may be NULL)
 *
 * Return: 0, or -EINVAL with @err set.
 */
static inline int srpt_cmd_check_limits(size_t len,
					const struct srpt_cmd_info *ci,
					u32 max_it_iu_len, u32 max_data_len,
					enum srpt_cmd_err *err)
{
	enum srpt_cmd_err e = SRPT_CMD_OK;

	if (len > max_it_iu_len)
		e = SRPT_CMD_TOO_LONG;
	else if (ci->data_len > max_data_len)
		e = SRPT_CMD_TOO_MUCH_DATA;
	if (err)
		*err = e;
	return e == SRPT_CMD_OK ? 0 : -EINVAL;
}

const char *srpt_cmd_err_str(enum srpt_cmd_err e);
void srpt_cmd_err_sense(enum srpt_cmd_err e, u8 *sense_key, u8 *asc,
			u8 *ascq);
void srpt_buf_desc_get(const struct srpt_wire_direct_buf *w,
		       struct srpt_buf_desc *out);

/**
 * struct srpt_tmf_info - a decoded SRP_TSK_MGMT
 * @tag: tag of the TMF request itself
 * @lun: the 8 LUN bytes as be64_to_cpu() of the wire bytes
 * @func: SRPT_TSK_* function code
 * @task_tag: tag of the task to abort (ABORT TASK), same encoding as @tag
 */
struct srpt_tmf_info {
	u64	tag;
	u64	lun;
	u8	func;
	u64	task_tag;
};

int srpt_tmf_parse(const void *iu, size_t len, struct srpt_tmf_info *out);

/**
 * struct srpt_rsp_args - input of srpt_build_rsp()
 * @tag: tag of the request being answered
 * @req_lim_delta: credits returned to the initiator
 * @status: SCSI status
 * @sense: sense data (may be NULL when @sense_len is 0)
 * @sense_len: length of @sense; truncated to what fits
 * @dir: SRPT_DIR_* of the command (selects the residual fields)
 * @residual_under: bytes not transferred (underflow)
 * @residual_over: bytes that did not fit (overflow)
 * @has_resp_code: add 4 bytes of response data (task management)
 * @resp_code: SRPT_TMF_RSP_* placed in byte 3 of the response data
 * @sol_not_flags_unused: reserved, ignored
 */
struct srpt_rsp_args {
	u64		tag;
	s32		req_lim_delta;
	u8		status;
	const u8	*sense;
	u32		sense_len;
	int		dir;
	u32		residual_under;
	u32		residual_over;
	bool		has_resp_code;
	u8		resp_code;
	u8		sol_not_flags_unused;
};

u32 srpt_pick_comp_vector(u64 mask, u32 num_vectors, u32 seq);
size_t srpt_build_rsp(void *buf, size_t buflen,
		      const struct srpt_rsp_args *a);

/**
 * srpt_build_rsp_good() - build the SRP_RSP of a command that went well
 * @buf: output buffer, at least 36 bytes (any max_ti_iu_len is)
 * @tag: tag of the request being answered
 * @req_lim_delta: credits returned to the initiator
 *
 * The same IU srpt_build_rsp() builds for status GOOD without sense data,
 * response data or residual: the common case, in a few stores (inline:
 * every command without an error takes it).
 *
 * Return: the IU length, 36.
 */
static __always_inline size_t srpt_build_rsp_good(void *buf, u64 tag,
						  s32 req_lim_delta)
{
	u8 *p = (u8 *)buf;

	srpt_put_be32(p, (u32)SRPT_OP_RSP << 24);
	srpt_put_be32(p + offsetof(struct srpt_wire_rsp, req_lim_delta),
		      (u32)req_lim_delta);
	srpt_put_be64(p + offsetof(struct srpt_wire_rsp, tag), tag);
	memset(p + offsetof(struct srpt_wire_rsp, reserved2), 0,
	       sizeof(struct srpt_wire_rsp) -
	       offsetof(struct srpt_wire_rsp, reserved2));
	return sizeof(struct srpt_wire_rsp);
}

#ifdef __cplusplus
}
#endif

#endif /* SRPT_PROTO_H */
