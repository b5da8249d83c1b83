/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP (SCSI RDMA Protocol) wire formats and pure protocol helpers for the
 * SRP target. Nothing in here touches kernel state: every function works on
 * caller supplied buffers so that the same code is built into the kernel
 * module and into the userspace unit tests.
 *
 * All names carry an srpt_/SRPT_ prefix so that this header can be included
 * next to <scsi/srp.h> without clashes.
 */
#ifndef SRPT_PROTO_H
#define SRPT_PROTO_H

#include "srpt_portable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Information unit opcodes (byte 0 of every IU). */
enum {
	SRPT_OP_LOGIN_REQ	= 0x00,
	SRPT_OP_TSK_MGMT	= 0x01,
	SRPT_OP_CMD		= 0x02,
	SRPT_OP_I_LOGOUT	= 0x03,
	SRPT_OP_CRED_RSP	= 0x41,
	SRPT_OP_AER_RSP		= 0x42,
	SRPT_OP_T_LOGOUT	= 0x80,
	SRPT_OP_CRED_REQ	= 0x81,
	SRPT_OP_AER_REQ		= 0x82,
	SRPT_OP_LOGIN_RSP	= 0xc0,
	SRPT_OP_RSP		= 0xc1,
	SRPT_OP_LOGIN_REJ	= 0xc2,
};

/* Buffer formats a login negotiates (req_buf_fmt / buf_fmt bit mask). */
enum {
	SRPT_BUF_FORMAT_DIRECT		= 0x2,
	SRPT_BUF_FORMAT_INDIRECT	= 0x4,
};

/* Per-direction descriptor format in the SRP_CMD buf_fmt nibbles. */
enum {
	SRPT_DATA_DESC_NONE	= 0,
	SRPT_DATA_DESC_DIRECT	= 1,
	SRPT_DATA_DESC_INDIRECT	= 2,
	SRPT_DATA_DESC_IMM	= 3,
};

/* SRP_LOGIN_REJ reason codes. */
enum {
	SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL		= 0x10000,
	SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES		= 0x10001,
	SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE	= 0x10002,
	SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL		= 0x10003,
	SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT	= 0x10004,
	SRPT_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED	= 0x10005,
	SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED		= 0x10006,
};

/* SRP_LOGIN_REQ req_flags. */
enum {
	SRPT_MULTICHAN_SINGLE	= 0x0,
	SRPT_MULTICHAN_MULTI	= 0x1,
	SRPT_MULTICHAN_MASK	= 0x3,
	SRPT_IMMED_REQUESTED	= 0x80,
};

/* SRP_LOGIN_RSP rsp_flags. */
enum {
	SRPT_LOGIN_RSP_MULTICHAN_NO_CHAN	= 0x0,
	SRPT_LOGIN_RSP_MULTICHAN_TERMINATED	= 0x1,
	SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED	= 0x2,
	SRPT_LOGIN_RSP_MULTICHAN_MASK		= 0x3,
	SRPT_LOGIN_RSP_IMMED_SUPP		= 0x80,
};

/* SRP_RSP flags. */
enum {
	SRPT_RSP_FLAG_RSPVALID	= 0x01,
	SRPT_RSP_FLAG_SNSVALID	= 0x02,
	SRPT_RSP_FLAG_DOOVER	= 0x04,
	SRPT_RSP_FLAG_DOUNDER	= 0x08,
	SRPT_RSP_FLAG_DIOVER	= 0x10,
	SRPT_RSP_FLAG_DIUNDER	= 0x20,
};

/* SRP_T_LOGOUT reason codes. */
enum {
	SRPT_T_LOGOUT_NO_REASON		= 0x0,
	SRPT_T_LOGOUT_INVALID_IU_TYPE	= 0x2,
};

/* SRP_TSK_MGMT function codes. */
enum {
	SRPT_TSK_ABORT_TASK	= 0x01,
	SRPT_TSK_ABORT_TASK_SET	= 0x02,
	SRPT_TSK_CLEAR_TASK_SET	= 0x04,
	SRPT_TSK_LUN_RESET	= 0x08,
	SRPT_TSK_CLEAR_ACA	= 0x40,
};

/* Response codes carried in byte 3 of the SRP_RSP response data. */
enum {
	SRPT_TMF_RSP_COMPLETE		= 0x00,
	SRPT_TMF_RSP_INVALID_FIELDS	= 0x02,
	SRPT_TMF_RSP_NOT_SUPPORTED	= 0x04,
	SRPT_TMF_RSP_FAILED		= 0x05,
	SRPT_TMF_RSP_INCORRECT_LUN	= 0x09,
};

/*
 * What a task management function came to (srpt_cmd.c translates LIO's
 * enum tcm_tmrsp_table): the protocol layer maps it without LIO's headers.
 */
#define SRPT_TMF_RESULT_FAILED		0
#define SRPT_TMF_RESULT_COMPLETE	1
#define SRPT_TMF_RESULT_NO_TASK		2
#define SRPT_TMF_RESULT_NO_LUN		3
#define SRPT_TMF_RESULT_NOT_SUPPORTED	4
#define SRPT_TMF_RESULT_REJECTED	5

u8 srpt_tmf_rsp_code(u8 result);

/* SRP_CMD task attributes. */
enum {
	SRPT_TASK_ATTR_SIMPLE		= 0,
	SRPT_TASK_ATTR_HEAD_OF_QUEUE	= 1,
	SRPT_TASK_ATTR_ORDERED		= 2,
	SRPT_TASK_ATTR_ACA		= 4,
};

/* sol_not bits (solicited notification on success / failure). */
enum {
	SRPT_SOLNT_SC	= 0x02,
	SRPT_SOLNT_UC	= 0x04,
};

/* Sizes the protocol fixes. */
enum {
	SRPT_MIN_IT_IU_LEN	= 64,	/* an IT IU must hold a login request */
	SRPT_TMF_RESP_DATA_LEN	= 4,
};

/*
 * Wire layouts. Every structure is packed (byte aligned) so that a pointer
 * into a receive buffer at any offset is valid; the sizes and offsets match
 * T10 SRP (and SRP-2 for immediate data) and the Linux <scsi/srp.h> layouts.
 * All multi-byte fields are big endian except the tags, which are opaque
 * 8-byte values that are simply echoed back.
 */
struct srpt_wire_direct_buf {
	__be64	va;
	__be32	key;
	__be32	len;
} __packed;

struct srpt_wire_indirect_buf {
	struct srpt_wire_direct_buf	table_desc;
	__be32				len;
	struct srpt_wire_direct_buf	desc_list[];
} __packed;

struct srpt_wire_imm_buf {
	__be32	len;
} __packed;

struct srpt_wire_login_req {
	u8	opcode;
	u8	reserved1[7];
	__be64	tag;
	__be32	req_it_iu_len;
	u8	reserved2[4];
	__be16	req_buf_fmt;
	u8	req_flags;
	u8	reserved3;
	__be16	imm_data_offset;
	u8	reserved4[2];
	u8	initiator_port_id[16];
	u8	target_port_id[16];
} __packed;

/* Linux initiator's reordered login request for RDMA/CM (56 bytes). */
struct srpt_wire_login_req_rdma {
	__be64	tag;
	__be16	req_buf_fmt;
	u8	req_flags;
	u8	opcode;
	__be32	req_it_iu_len;
	u8	initiator_port_id[16];
	u8	target_port_id[16];
	__be16	imm_data_offset;
	u8	reserved[6];
} __packed;

struct srpt_wire_login_rsp {
	u8	opcode;
	u8	reserved1[3];
	__be32	req_lim_delta;
	__be64	tag;
	__be32	max_it_iu_len;
	__be32	max_ti_iu_len;
	__be16	buf_fmt;
	u8	rsp_flags;
	u8	reserved2[25];
} __packed;

struct srpt_wire_login_rej {
	u8	opcode;
	u8	reserved1[3];
	__be32	reason;
	__be64	tag;
	u8	reserved2[8];
	__be16	buf_fmt;
	u8	reserved3[6];
} __packed;

struct srpt_wire_i_logout {
	u8	opcode;
	u8	reserved[7];
	__be64	tag;
} __packed;

struct srpt_wire_t_logout {
	u8	opcode;
	u8	sol_not;
	u8	reserved[2];
	__be32	reason;
	__be64	tag;
} __packed;

struct srpt_wire_tsk_mgmt {
	u8	opcode;
	u8	sol_not;
	u8	reserved1[6];
	__be64	tag;
	u8	reserved2[4];
	__be64	lun;
	u8	reserved3[2];
	u8	tsk_mgmt_func;
	u8	reserved4;
	__be64	task_tag;
	u8	reserved5[8];
} __packed;

/**
 * srpt_get_be32() - a big-endian 32-bit field of an IU
 * @p: the field, any alignment
 *
 * Return: its value in host order.
 */
static inline u32 srpt_get_be32(const void *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

/**
 * srpt_get_be64() - a big-endian 64-bit field of an IU
 * @p: the field, any alignment
 *
 * Return: its value in host order.
 */
static inline u64 srpt_get_be64(const void *p)
{
	__be64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

/**
 * srpt_put_be32() - store a big-endian 32-bit field of an IU
 * @p: the field, any alignment
 * @v: the value in host order
 */
static inline void srpt_put_be32(u8 *p, u32 v)
{
	__be32 w = cpu_to_be32(v);

	memcpy(p, &w, sizeof(w));
}

/**
 * srpt_put_be64() - store a big-endian 64-bit field of an IU
 * @p: the field, any alignment
 * @v: the value in host order
 */
static inline void srpt_put_be64(u8 *p, u64 v)
{
	__be64 w = cpu_to_be64(v);

	memcpy(p, &w, sizeof(w));
}

/* CDB bytes in the fixed part of an SRP_CMD. */
#define SRPT_CDB_LEN	16

struct srpt_wire_cmd {
	u8	opcode;
	u8	sol_not;
	u8	reserved1[3];
	u8	buf_fmt;
	u8	data_out_desc_cnt;
	u8	data_in_desc_cnt;
	__be64	tag;
	u8	reserved2[4];
	__be64	lun;
	u8	reserved3;
	u8	task_attr;
	u8	reserved4;
	u8	add_cdb_len;
	u8	cdb[16];
	u8	add_data[];
} __packed;

struct srpt_wire_rsp {
	u8	opcode;
	u8	sol_not;
	u8	reserved1[2];
	__be32	req_lim_delta;
	__be64	tag;
	u8	reserved2[2];
	u8	flags;
	u8	status;
	__be32	data_out_res_cnt;
	__be32	data_in_res_cnt;
	__be32	sense_data_len;
	__be32	resp_data_len;
	u8	data[];
} __packed;

struct srpt_wire_cred_req {
	u8	opcode;
	u8	sol_not;
	u8	reserved[2];
	__be32	req_lim_delta;
	__be64	tag;
} __packed;

struct srpt_wire_cred_rsp {
	u8	opcode;
	u8	reserved[7];
	__be64	tag;
} __packed;

struct srpt_wire_aer_req {
	u8	opcode;
	u8	sol_not;
	u8	reserved[2];
	__be32	req_lim_delta;
	__be64	tag;
	u8	reserved2[4];
	__be64	lun;
	__be32	sense_data_len;
	u8	reserved3[4];
	u8	sense_data[];
} __packed;

struct srpt_wire_aer_rsp {
	u8	opcode;
	u8	reserved[7];
	__be64	tag;
} __packed;

/* ------------------------------------------------------------------ */
/* Login                                                               */
/* ------------------------------------------------------------------ */

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
size_t srpt_build_t_logout(void *buf, size_t buflen, u64 tag, u32 reason);
size_t srpt_build_cred_req(void *buf, size_t buflen, u64 tag,
			   s32 req_lim_delta);

/* ------------------------------------------------------------------ */
/* SRP_CMD, SRP_TSK_MGMT and SRP_RSP                                   */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Port / ACL names (srpt_names.c)                                     */
/* ------------------------------------------------------------------ */

/**
 * enum srpt_name_kind - textual forms of a port or initiator name
 * @SRPT_NAME_NONE: no name (a zeroed struct srpt_name): matches nothing
 * @SRPT_NAME_GUID: "xxxx:xxxx:xxxx:xxxx", stored in id[8..15]
 * @SRPT_NAME_GID: "0x" + 32 hex digits, stored in id[0..15]
 * @SRPT_NAME_IPV4: dotted quad, stored in id[0..3]
 * @SRPT_NAME_IPV6: RFC 4291 text, stored in id[0..15]
 */
enum srpt_name_kind {
	SRPT_NAME_NONE,
	SRPT_NAME_GUID,
	SRPT_NAME_GID,
	SRPT_NAME_IPV4,
	SRPT_NAME_IPV6,
};

/**
 * struct srpt_name - a parsed name
 * @kind: which form it was written in
 * @id: binary value, unused bytes zero
 */
struct srpt_name {
	enum srpt_name_kind	kind;
	u8			id[16];
};

int srpt_name_parse(const char *s, struct srpt_name *out);
bool srpt_name_matches_port_id(const struct srpt_name *n,
			       const u8 port_id[16]);
bool srpt_name_matches_ip(const struct srpt_name *n, const u8 *addr,
			  size_t addr_len);

#ifdef __cplusplus
}
#endif

#endif /* SRPT_PROTO_H */
