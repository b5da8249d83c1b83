/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SRP_CMD decoder, inline: srpt_cmd_parse() (srpt_proto.c, and the
 * unit tests) and the module's receive path (srpt_cmd.c) run the same code,
 * the latter without a call per command.  Pure code, like srpt_proto.c.
 */
#ifndef SRPT_PROTO_CMD_H
#define SRPT_PROTO_CMD_H

#include "srpt_proto.h"

static inline bool srpt_task_attr_valid(u8 attr)
{
	return attr == SRPT_TASK_ATTR_SIMPLE ||
	       attr == SRPT_TASK_ATTR_HEAD_OF_QUEUE ||
	       attr == SRPT_TASK_ATTR_ORDERED ||
	       attr == SRPT_TASK_ATTR_ACA;
}

/**
 * srpt_cmd_parse_direct() - check a direct data buffer descriptor
 * @p: start of the IU
 * @len: IU length
 * @off: offset of the descriptor (after the additional CDB)
 * @cnt: descriptor count of the direction in use
 * @other_cnt: descriptor count of the other direction
 * @out: receives ndesc, desc and data_len
 *
 * Return: %SRPT_CMD_OK or the reason for rejecting the command.
 */
static inline enum srpt_cmd_err
srpt_cmd_parse_direct(const u8 *p, size_t len, u32 off, u32 cnt, u32 other_cnt,
		      struct srpt_cmd_info *out)
{
	const size_t dsz = sizeof(struct srpt_wire_direct_buf);

	/* The Linux initiator leaves the count at 0 for a direct descriptor. */
	if (cnt > 1 || other_cnt)
		return SRPT_CMD_DIRECT_COUNT;
	if ((size_t)off + dsz > len)
		return SRPT_CMD_DESC_OVERFLOW;
	out->ndesc = 1;
	out->desc = (const struct srpt_wire_direct_buf *)(p + off);
	out->data_len = srpt_get_be32(p + off +
			offsetof(struct srpt_wire_direct_buf, len));
	return SRPT_CMD_OK;
}

/**
 * srpt_cmd_parse_indirect() - check an indirect data buffer descriptor
 * @p: start of the IU
 * @len: IU length
 * @off: offset of the indirect header (after the additional CDB)
 * @cnt: number of descriptors in the IU (the direction's count)
 * @out: receives ndesc, desc and data_len
 *
 * Only tables that are entirely inside the IU are supported.
 *
 * Return: %SRPT_CMD_OK or the reason for rejecting the command.
 */
static inline enum srpt_cmd_err
srpt_cmd_parse_indirect(const u8 *p, size_t len, u32 off, u32 cnt,
			struct srpt_cmd_info *out)
{
	const size_t dsz = sizeof(struct srpt_wire_direct_buf);
	const size_t hsz = sizeof(struct srpt_wire_indirect_buf);
	u32 table_len, total, ntable, i;
	const u8 *list;
	u64 sum = 0;

	if ((size_t)off + hsz > len)
		return SRPT_CMD_DESC_OVERFLOW;
	table_len = srpt_get_be32(p + off +
			offsetof(struct srpt_wire_indirect_buf, table_desc) +
			offsetof(struct srpt_wire_direct_buf, len));
	total = srpt_get_be32(p + off +
			offsetof(struct srpt_wire_indirect_buf, len));
	if (table_len == 0 || table_len % dsz)
		return SRPT_CMD_TABLE_LEN;
	if ((size_t)off + hsz + (size_t)cnt * dsz > len)
		return SRPT_CMD_DESC_OVERFLOW;
	ntable = table_len / (u32)dsz;
	if (ntable > cnt)
		return SRPT_CMD_EXTERNAL_TABLE;
	if (ntable < cnt)
		return SRPT_CMD_TABLE_LEN;
	list = p + off + hsz;
	for (i = 0; i < cnt; i++)
		sum += srpt_get_be32(list + i * dsz +
				     offsetof(struct srpt_wire_direct_buf, len));
	if (sum != total)
		return SRPT_CMD_LEN_MISMATCH;
	out->ndesc = cnt;
	out->desc = (const struct srpt_wire_direct_buf *)list;
	out->data_len = total;
	return SRPT_CMD_OK;
}

/**
 * srpt_cmd_parse_imm() - check an immediate data descriptor (SRP-2)
 * @p: start of the IU
 * @len: IU length
 * @off: offset of the 4-byte length (after the additional CDB)
 * @imm_data_offset: offset of the data negotiated at login
 * @out: receives imm_offset, imm_len and data_len
 *
 * Return: %SRPT_CMD_OK or the reason for rejecting the command.
 */
static inline enum srpt_cmd_err
srpt_cmd_parse_imm(const u8 *p, size_t len, u32 off, u32 imm_data_offset,
		   struct srpt_cmd_info *out)
{
	const size_t isz = sizeof(struct srpt_wire_imm_buf);
	u32 imm_len;

	if ((size_t)off + isz > len)
		return SRPT_CMD_DESC_OVERFLOW;
	imm_len = srpt_get_be32(p + off);
	if ((u64)imm_data_offset < (u64)off + isz ||
	    (u64)imm_data_offset + imm_len > (u64)len)
		return SRPT_CMD_IMM_RANGE;
	out->imm_offset = imm_data_offset;
	out->imm_len = imm_len;
	out->data_len = imm_len;
	return SRPT_CMD_OK;
}

/**
 * srpt_cdb_size_in() - bytes a SCSI CDB says it has
 * @cdb: the CDB, at least 16 bytes readable
 *
 * What the SCSI midlayer's scsi_command_size() computes, and so how many
 * bytes LIO copies from the CDB it is given: the opcode's group size (6,
 * 10, 12 or 16 bytes), or for a variable-length CDB (7Fh) its additional
 * CDB length (byte 7) plus 8.
 *
 * Return: the size in bytes, 6 to 263.
 */
static inline u32 srpt_cdb_size_in(const u8 *cdb)
{
	static const u8 group_size[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };

	if (cdb[0] == 0x7f)
		return cdb[7] + 8U;
	return group_size[cdb[0] >> 5];
}

/* The body of srpt_dir_conflict(), inlined into the parser. */
static inline bool srpt_dir_conflict_in(const u8 *cdb, u8 dir)
{
	u16 sa;

	if (srpt_cdb_reads_medium(cdb))
		return dir == SRPT_DIR_OUT;
	switch (cdb[0]) {
	case 0x0a: case 0x2a: case 0xaa: case 0x8a:
	case 0x2e: case 0xae: case 0x8e:
	case 0x41: case 0x93: case 0x89:
		return dir == SRPT_DIR_IN;
	case 0x7f:
		sa = (u16)(cdb[8] << 8 | cdb[9]);
		return (sa == 0x000b || sa == 0x000c || sa == 0x000d) &&
		       dir == SRPT_DIR_IN;
	default:
		return false;
	}
}

/**
 * srpt_cmd_do_parse() - body of srpt_cmd_decode()
 * @p: the IU
 * @len: IU length
 * @imm_negotiated: immediate data was negotiated at login
 * @imm_data_offset: the negotiated immediate data offset
 * @out: zeroed output, filled as far as the checks get
 *
 * Return: %SRPT_CMD_OK or the first failing check.
 */
static __always_inline enum srpt_cmd_err
srpt_cmd_do_parse(const u8 *p, size_t len, bool imm_negotiated,
		  u32 imm_data_offset, struct srpt_cmd_info *out)
{
	u32 fmt, out_fmt, in_fmt, cnt, other_cnt, off;
	u8 add_cdb_len, out_cnt, in_cnt;

	if (!p || len < sizeof(struct srpt_wire_cmd))
		return SRPT_CMD_TOO_SHORT;
	out->tag = srpt_get_be64(p + offsetof(struct srpt_wire_cmd, tag));
	out->lun = srpt_get_be64(p + offsetof(struct srpt_wire_cmd, lun));
	out->task_attr = p[offsetof(struct srpt_wire_cmd, task_attr)];

	/* Bits 7:2 hold the length in 4-byte units, bits 1:0 are reserved. */
	add_cdb_len = p[offsetof(struct srpt_wire_cmd, add_cdb_len)];
	if (add_cdb_len & 0x3)
		return SRPT_CMD_CDB_OVERFLOW;
	off = sizeof(struct srpt_wire_cmd) + add_cdb_len;
	if (off > len)
		return SRPT_CMD_CDB_OVERFLOW;
	out->cdb = p + offsetof(struct srpt_wire_cmd, cdb);
	out->cdb_len = SRPT_CDB_LEN + add_cdb_len;
	if (srpt_cdb_size_in(out->cdb) > out->cdb_len)
		return SRPT_CMD_CDB_SHORT;

	if (!srpt_task_attr_valid(out->task_attr))
		return SRPT_CMD_BAD_TASK_ATTR;

	fmt = p[offsetof(struct srpt_wire_cmd, buf_fmt)];
	out_fmt = fmt >> 4;
	in_fmt = fmt & 0xf;
	if (out_fmt && in_fmt)
		return SRPT_CMD_BIDI;
	if (out_fmt > SRPT_DATA_DESC_IMM || in_fmt > SRPT_DATA_DESC_INDIRECT)
		return SRPT_CMD_BAD_FMT;
	if (out_fmt == SRPT_DATA_DESC_IMM && !imm_negotiated)
		return SRPT_CMD_IMM_NOT_NEGOTIATED;

	out_cnt = p[offsetof(struct srpt_wire_cmd, data_out_desc_cnt)];
	in_cnt = p[offsetof(struct srpt_wire_cmd, data_in_desc_cnt)];
	if (out_fmt) {
		out->dir = SRPT_DIR_OUT;
		out->fmt = (u8)out_fmt;
		cnt = out_cnt;
		other_cnt = in_cnt;
	} else if (in_fmt) {
		out->dir = SRPT_DIR_IN;
		out->fmt = (u8)in_fmt;
		cnt = in_cnt;
		other_cnt = out_cnt;
	} else {
		return SRPT_CMD_OK;
	}

	switch (out->fmt) {
	case SRPT_DATA_DESC_DIRECT:
		return srpt_cmd_parse_direct(p, len, off, cnt, other_cnt, out);
	case SRPT_DATA_DESC_INDIRECT:
		return srpt_cmd_parse_indirect(p, len, off, cnt, out);
	default:
		return srpt_cmd_parse_imm(p, len, off, imm_data_offset, out);
	}
}

/**
 * srpt_cmd_decode() - srpt_cmd_parse(), inline
 * @iu: the received IU (any alignment)
 * @len: number of bytes received
 * @imm_negotiated: immediate data was negotiated at login
 * @imm_data_offset: the negotiated immediate data offset
 * @out: receives the decoded command; zeroed first
 * @err: receives the reason of a failure (may be NULL)
 *
 * Return: 0 on success, -EINVAL on a malformed command.
 */
static __always_inline int
srpt_cmd_decode(const void *iu, size_t len, bool imm_negotiated,
		u32 imm_data_offset, struct srpt_cmd_info *out,
		enum srpt_cmd_err *err)
{
	enum srpt_cmd_err e;

	out->tag = 0;
	out->lun = 0;
	out->task_attr = 0;
	out->cdb = NULL;
	out->cdb_len = 0;
	out->dir = SRPT_DIR_NONE;
	out->fmt = SRPT_DATA_DESC_NONE;
	out->ndesc = 0;
	out->desc = NULL;
	out->data_len = 0;
	out->imm_offset = 0;
	out->imm_len = 0;
	e = srpt_cmd_do_parse(iu, len, imm_negotiated, imm_data_offset, out);
	if (e == SRPT_CMD_OK && out->dir &&
	    srpt_dir_conflict_in(out->cdb, out->dir))
		e = SRPT_CMD_DIR_CONFLICT;
	if (err)
		*err = e;
	if (e == SRPT_CMD_OK)
		return 0;
	out->ndesc = 0;
	out->desc = NULL;
	return -EINVAL;
}

#endif /* SRPT_PROTO_CMD_H */
