/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP (SCSI RDMA Protocol) wire formats for the SRP target: opcodes,
 * flags, reason codes and the IU layouts, with byte-order helpers.
 * Nothing in here touches kernel state, so that the same definitions are
 * built into the kernel module and into the userspace unit tests.
 *
 * All names carry an srpt_/SRPT_ prefix so that this header can be included
 * next to <scsi/srp.h> without clashes.
 */
#ifndef SRPT_PROTO_WIRE_H
#define SRPT_PROTO_WIRE_H

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

#ifdef __cplusplus
}
#endif

#endif /* SRPT_PROTO_WIRE_H */
