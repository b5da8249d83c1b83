// SRP_CMD validation (every error at its boundary) and SRP_TSK_MGMT parsing.
// IUs are held in vectors of the exact received length, so that a read past
// the end is caught by AddressSanitizer.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "srpt_proto.h"
#include "test_util.h"

using namespace srpt_test;

namespace {

const uint64_t kTag = 0x1122334455667788ull;
const uint64_t kLun = 0x0001000000000000ull;

// SRP_CMD header (48 bytes) plus add_cdb bytes of additional CDB.
Bytes cmd(uint8_t buf_fmt = 0, uint8_t out_cnt = 0, uint8_t in_cnt = 0,
	  uint8_t add_cdb = 0)
{
	Bytes b(48 + add_cdb, 0);

	b[0] = SRPT_OP_CMD;
	b[5] = buf_fmt;
	b[6] = out_cnt;
	b[7] = in_cnt;
	put_be64(&b[8], kTag);
	put_be64(&b[20], kLun);
	b[29] = SRPT_TASK_ATTR_SIMPLE;
	b[31] = add_cdb;
	for (int i = 0; i < 16 + add_cdb; i++)
		b[32 + i] = uint8_t(0x40 + i);
	return b;
}

struct Parsed {
	int ret;
	srpt_cmd_err err;
	srpt_cmd_info info;
};

Parsed parse(const Bytes &b, bool imm = false, uint32_t imm_off = 0,
	     size_t len = SIZE_MAX)
{
	Parsed p;

	if (len == SIZE_MAX)
		len = b.size();
	memset(&p.info, 0x5a, sizeof(p.info));
	p.err = SRPT_CMD_LEN_MISMATCH;
	// Copy into a buffer of exactly len bytes.
	Bytes exact(b.begin(), b.begin() + len);
	p.ret = srpt_cmd_parse(exact.data(), exact.size(), imm, imm_off,
			       &p.info, &p.err);
	if (p.ret == 0) {
		EXPECT_EQ(p.err, SRPT_CMD_OK);
		// Pointers must stay inside the IU: rebase them onto b.
		if (p.info.cdb)
			p.info.cdb = b.data() + (p.info.cdb - exact.data());
		if (p.info.desc)
			p.info.desc = (const srpt_wire_direct_buf *)
				(b.data() + ((const uint8_t *)p.info.desc -
					     exact.data()));
	} else {
		EXPECT_EQ(p.ret, -EINVAL);
		EXPECT_NE(p.err, SRPT_CMD_OK);
	}
	return p;
}

srpt_cmd_err err_of(const Bytes &b, bool imm = false, uint32_t imm_off = 0,
		    size_t len = SIZE_MAX)
{
	return parse(b, imm, imm_off, len).err;
}

size_t desc_off(const Parsed &p, const Bytes &b)
{
	return (const uint8_t *)p.info.desc - b.data();
}

} // namespace

TEST(Cmd, TooShort)
{
	Bytes b = cmd();

	EXPECT_EQ(err_of(b, false, 0, 47), SRPT_CMD_TOO_SHORT);
	EXPECT_EQ(err_of(b, false, 0, 0), SRPT_CMD_TOO_SHORT);
	EXPECT_EQ(err_of(b, false, 0, 48), SRPT_CMD_OK);

	srpt_cmd_err e = SRPT_CMD_OK;
	srpt_cmd_info info;
	EXPECT_EQ(-EINVAL, srpt_cmd_parse(nullptr, 48, false, 0, &info, &e));
	EXPECT_EQ(e, SRPT_CMD_TOO_SHORT);
}

TEST(Cmd, NoData)
{
	Bytes b = cmd();
	Parsed p = parse(b);

	ASSERT_EQ(p.ret, 0);
	EXPECT_EQ(p.info.tag, kTag);
	EXPECT_EQ(p.info.lun, kLun);
	EXPECT_EQ(p.info.task_attr, SRPT_TASK_ATTR_SIMPLE);
	EXPECT_EQ(p.info.cdb, b.data() + 32);
	EXPECT_EQ(p.info.cdb_len, 16u);
	EXPECT_EQ(p.info.dir, SRPT_DIR_NONE);
	EXPECT_EQ(p.info.fmt, SRPT_DATA_DESC_NONE);
	EXPECT_EQ(p.info.ndesc, 0u);
	EXPECT_EQ(p.info.desc, nullptr);
	EXPECT_EQ(p.info.data_len, 0u);
	EXPECT_EQ(p.info.imm_offset, 0u);
	EXPECT_EQ(p.info.imm_len, 0u);
}

TEST(Cmd, ErrPointerOptional)
{
	Bytes b = cmd();
	srpt_cmd_info info;

	EXPECT_EQ(0, srpt_cmd_parse(b.data(), b.size(), false, 0, &info,
				    nullptr));
	EXPECT_EQ(-EINVAL, srpt_cmd_parse(b.data(), 47, false, 0, &info,
					  nullptr));
}

TEST(Cmd, AdditionalCdb)
{
	Bytes b = cmd(0, 0, 0, 16);	// 32-byte CDB
	Parsed p = parse(b);

	ASSERT_EQ(p.ret, 0);
	EXPECT_EQ(p.info.cdb_len, 32u);
	EXPECT_EQ(p.info.cdb[31], 0x40 + 31);
	EXPECT_EQ(err_of(b, false, 0, 63), SRPT_CMD_CDB_OVERFLOW);
	EXPECT_EQ(err_of(b, false, 0, 64), SRPT_CMD_OK);

	b = cmd(0, 0, 0, 252);		// largest encodable: 63 units
	EXPECT_EQ(parse(b).info.cdb_len, 268u);
	EXPECT_EQ(err_of(b, false, 0, b.size() - 1), SRPT_CMD_CDB_OVERFLOW);

	// Reserved bits 1:0 set.
	for (uint8_t v : { 1, 2, 3, 17 }) {
		b = cmd(0, 0, 0, 0);
		b.resize(48 + 32, 0);
		b[31] = v;
		EXPECT_EQ(err_of(b), SRPT_CMD_CDB_OVERFLOW) << int(v);
	}
}

TEST(Cmd, CdbSize)
{
	// The group sizes of SAM (what scsi_command_size() computes).
	const struct { uint8_t op; uint32_t size; } ops[] = {
		{ 0x00, 6 }, { 0x12, 6 }, { 0x28, 10 }, { 0x5a, 10 },
		{ 0x7e, 12 }, { 0x88, 16 }, { 0x9e, 16 }, { 0xa0, 12 },
		{ 0xa8, 12 }, { 0xc0, 10 }, { 0xff, 10 },
	};
	uint8_t cdb[16] = {};

	for (const auto &o : ops) {
		cdb[0] = o.op;
		cdb[7] = 0xff;	// only a variable-length CDB reads it
		EXPECT_EQ(srpt_cdb_size(cdb), o.size) << int(o.op);
	}
	cdb[0] = 0x7f;
	for (int add : { 0, 8, 0x18, 0xf8, 0xff }) {
		cdb[7] = uint8_t(add);
		EXPECT_EQ(srpt_cdb_size(cdb), uint32_t(add) + 8) << add;
	}
}

// A variable-length CDB (7Fh) says its own length in byte 7; LIO copies that
// many bytes from the CDB it is handed, so it must not exceed the 16 +
// additional CDB bytes the IU carries.
TEST(Cmd, VariableLengthCdbInsideIu)
{
	Bytes b = cmd(0, 0, 0, 0);
	uint8_t key, asc, ascq;

	b[32] = 0x7f;
	b[32 + 7] = 0x08;	// 16 bytes: fits the inline CDB
	EXPECT_EQ(err_of(b), SRPT_CMD_OK);
	b[32 + 7] = 0x09;	// 17 bytes
	EXPECT_EQ(err_of(b), SRPT_CMD_CDB_SHORT);
	b[32 + 7] = 0x18;	// 32 bytes, none additional
	EXPECT_EQ(err_of(b), SRPT_CMD_CDB_SHORT);
	b[32 + 7] = 0xff;	// 263 bytes
	EXPECT_EQ(err_of(b), SRPT_CMD_CDB_SHORT);

	b = cmd(0, 0, 0, 16);	// 32-byte CDB in the IU
	b[32] = 0x7f;
	b[32 + 7] = 0x18;
	EXPECT_EQ(err_of(b), SRPT_CMD_OK);
	b[32 + 7] = 0x19;
	EXPECT_EQ(err_of(b), SRPT_CMD_CDB_SHORT);

	b = cmd(0, 0, 0, 252);	// the largest CDB an IU can carry: 268
	b[32] = 0x7f;
	b[32 + 7] = 0xff;
	EXPECT_EQ(err_of(b), SRPT_CMD_OK);

	// Other opcodes never need more than the inline 16 bytes.
	b = cmd(0, 0, 0, 0);
	for (int op = 0; op < 256; op++) {
		b[32] = uint8_t(op);
		b[32 + 7] = 0xff;
		EXPECT_EQ(err_of(b), op == 0x7f ? SRPT_CMD_CDB_SHORT :
						  SRPT_CMD_OK) << op;
	}

	srpt_cmd_err_sense(SRPT_CMD_CDB_SHORT, &key, &asc, &ascq);
	EXPECT_EQ(key, 0x05);
	EXPECT_EQ(asc, 0x24);
	EXPECT_EQ(ascq, 0x00);
}

TEST(Cmd, TagAndLunKeptOnError)
{
	Bytes b = cmd(0x11, 1, 1);
	Parsed p = parse(b);

	EXPECT_EQ(p.err, SRPT_CMD_BIDI);
	EXPECT_EQ(p.info.tag, kTag);
	EXPECT_EQ(p.info.lun, kLun);
	EXPECT_EQ(p.info.ndesc, 0u);
	EXPECT_EQ(p.info.desc, nullptr);
}

TEST(Cmd, TaskAttr)
{
	for (int a = 0; a < 256; a++) {
		Bytes b = cmd();

		b[29] = uint8_t(a);
		Parsed p = parse(b);
		if (a == 0 || a == 1 || a == 2 || a == 4) {
			EXPECT_EQ(p.err, SRPT_CMD_OK) << a;
			EXPECT_EQ(p.info.task_attr, a);
		} else {
			EXPECT_EQ(p.err, SRPT_CMD_BAD_TASK_ATTR) << a;
		}
	}
}

TEST(Cmd, Bidi)
{
	for (uint8_t f : { 0x11, 0x12, 0x21, 0x22, 0x31, 0x13 })
		EXPECT_EQ(err_of(cmd(f, 1, 1), true, 68), SRPT_CMD_BIDI) << int(f);
}

TEST(Cmd, BadFormat)
{
	for (uint8_t f : { 0x40, 0x50, 0xf0, 0x04, 0x0f })
		EXPECT_EQ(err_of(cmd(f, 1, 1), true, 68), SRPT_CMD_BAD_FMT)
			<< int(f);
	// Immediate data exists only for data-out.
	EXPECT_EQ(err_of(cmd(0x03), true, 68), SRPT_CMD_BAD_FMT);
}

TEST(Cmd, ImmediateNotNegotiated)
{
	Bytes b = cmd(0x30);

	append_be32(b, 0);
	b.resize(68, 0);
	EXPECT_EQ(err_of(b, false, 68), SRPT_CMD_IMM_NOT_NEGOTIATED);
	EXPECT_EQ(err_of(b, true, 68), SRPT_CMD_OK);
}

TEST(Cmd, DirectIn)
{
	Bytes b = cmd(0x01, 0, 1);

	append_desc(b, 0x0123456789abcdefull, 0xdeadbeef, 0x10000);
	Parsed p = parse(b);
	ASSERT_EQ(p.ret, 0);
	EXPECT_EQ(p.info.dir, SRPT_DIR_IN);
	EXPECT_EQ(p.info.fmt, SRPT_DATA_DESC_DIRECT);
	EXPECT_EQ(p.info.ndesc, 1u);
	EXPECT_EQ(desc_off(p, b), 48u);
	EXPECT_EQ(p.info.data_len, 0x10000u);

	srpt_buf_desc d;
	srpt_buf_desc_get(p.info.desc, &d);
	EXPECT_EQ(d.va, 0x0123456789abcdefull);
	EXPECT_EQ(d.key, 0xdeadbeefu);
	EXPECT_EQ(d.len, 0x10000u);
}

TEST(Cmd, DirectOutAfterAdditionalCdb)
{
	Bytes b = cmd(0x10, 1, 0, 16);

	append_desc(b, 1, 2, 512);
	Parsed p = parse(b);
	ASSERT_EQ(p.ret, 0);
	EXPECT_EQ(p.info.dir, SRPT_DIR_OUT);
	EXPECT_EQ(p.info.fmt, SRPT_DATA_DESC_DIRECT);
	EXPECT_EQ(desc_off(p, b), 64u);
	EXPECT_EQ(p.info.data_len, 512u);
	EXPECT_EQ(err_of(b, false, 0, b.size() - 1), SRPT_CMD_DESC_OVERFLOW);
}

TEST(Cmd, DirectCount)
{
	Bytes b;

	// The Linux initiator leaves the count at zero for direct descriptors.
	b = cmd(0x01, 0, 0);
	append_desc(b, 1, 2, 3);
	EXPECT_EQ(err_of(b), SRPT_CMD_OK);
	b = cmd(0x01, 0, 2);
	append_desc(b, 1, 2, 3);
	append_desc(b, 1, 2, 3);
	EXPECT_EQ(err_of(b), SRPT_CMD_DIRECT_COUNT);
	b = cmd(0x10, 2, 0);
	append_desc(b, 1, 2, 3);
	append_desc(b, 1, 2, 3);
	EXPECT_EQ(err_of(b), SRPT_CMD_DIRECT_COUNT);
	// A count for the direction not in use.
	b = cmd(0x01, 1, 1);
	append_desc(b, 1, 2, 3);
	EXPECT_EQ(err_of(b), SRPT_CMD_DIRECT_COUNT);
	b = cmd(0x10, 1, 1);
	append_desc(b, 1, 2, 3);
	EXPECT_EQ(err_of(b), SRPT_CMD_DIRECT_COUNT);
}

TEST(Cmd, DirectTruncated)
{
	Bytes b = cmd(0x01, 0, 1);

	append_desc(b, 1, 2, 3);
	EXPECT_EQ(err_of(b, false, 0, 63), SRPT_CMD_DESC_OVERFLOW);
	EXPECT_EQ(err_of(b, false, 0, 48), SRPT_CMD_DESC_OVERFLOW);
	EXPECT_EQ(err_of(b, false, 0, 64), SRPT_CMD_OK);
}

namespace {

// Indirect header (table descriptor + total length) and n in-IU entries.
Bytes indirect(uint8_t dir_fmt, uint8_t cnt, uint32_t table_len,
	       uint32_t total, const std::vector<uint32_t> &lens)
{
	Bytes b = dir_fmt == 0x20 ? cmd(0x20, cnt, 0) : cmd(0x02, 0, cnt);

	append_desc(b, 0xfeedface00000000ull, 0x77, table_len);
	append_be32(b, total);
	for (size_t i = 0; i < lens.size(); i++)
		append_desc(b, 0x1000 * (i + 1), 0x100 + uint32_t(i), lens[i]);
	return b;
}

} // namespace

// LIO runs READ and WRITE in the fabric's direction: the opposite buffer is
// refused before it gets there, any buffer of other commands is not.
TEST(Cmd, DirectionConflict)
{
	const struct { uint8_t op; uint16_t sa; int bad_dir; } ops[] = {
		{ 0x08, 0, SRPT_DIR_OUT }, { 0x28, 0, SRPT_DIR_OUT },
		{ 0xa8, 0, SRPT_DIR_OUT }, { 0x88, 0, SRPT_DIR_OUT },
		{ 0x7f, 0x0009, SRPT_DIR_OUT },
		{ 0x0a, 0, SRPT_DIR_IN }, { 0x2a, 0, SRPT_DIR_IN },
		{ 0xaa, 0, SRPT_DIR_IN }, { 0x8a, 0, SRPT_DIR_IN },
		{ 0x2e, 0, SRPT_DIR_IN }, { 0x8e, 0, SRPT_DIR_IN },
		{ 0x41, 0, SRPT_DIR_IN }, { 0x93, 0, SRPT_DIR_IN },
		{ 0x89, 0, SRPT_DIR_IN }, { 0x7f, 0x000b, SRPT_DIR_IN },
		{ 0x7f, 0x000d, SRPT_DIR_IN },
	};

	for (const auto &o : ops) {
		for (int dir : { SRPT_DIR_NONE, SRPT_DIR_OUT, SRPT_DIR_IN }) {
			// One direct descriptor the way dir says.
			Bytes b = dir == SRPT_DIR_OUT ? cmd(0x10, 1, 0) :
				  dir == SRPT_DIR_IN ? cmd(0x01, 0, 1) : cmd();
			b[32] = o.op;
			b[32 + 7] = o.op == 0x7f ? 0x18 : 0x40 + 7;
			if (o.op == 0x7f) {
				b.resize(48 + 16, 0);
				b[31] = 16;	// 32-byte CDB
				b[32 + 8] = uint8_t(o.sa >> 8);
				b[32 + 9] = uint8_t(o.sa);
			}
			if (dir != SRPT_DIR_NONE)
				append_desc(b, 0x1000, 0x55, 512);
			uint8_t c[32] = {};
			memcpy(c, &b[32], o.op == 0x7f ? 32 : 16);
			EXPECT_EQ(srpt_dir_conflict(c, uint8_t(dir)),
				  dir == o.bad_dir) << int(o.op) << " " << dir;
			EXPECT_EQ(err_of(b), dir == o.bad_dir ?
				  SRPT_CMD_DIR_CONFLICT : SRPT_CMD_OK)
				<< int(o.op) << " " << dir;
		}
	}
	uint8_t sense[3];
	srpt_cmd_err_sense(SRPT_CMD_DIR_CONFLICT, &sense[0], &sense[1],
			   &sense[2]);
	EXPECT_EQ(sense[0], 0x05);
	EXPECT_EQ(sense[1], 0x0e);
	EXPECT_EQ(sense[2], 0x03);
	// The READ family is what srpt_cdb_reads_medium() knows.
	for (const auto &o : ops) {
		uint8_t c[32] = { o.op };
		c[7] = 0x18;
		c[8] = uint8_t(o.sa >> 8);
		c[9] = uint8_t(o.sa);
		EXPECT_EQ(srpt_cdb_reads_medium(c), o.bad_dir == SRPT_DIR_OUT)
			<< int(o.op);
	}
	// Every operation code: only READ (6), (10), (12), (16) and READ (32),
	// the variable-length CDB with service action 0009h.
	for (unsigned op = 0; op < 256; op++) {
		for (unsigned sa : { 0x0009u, 0x000bu, 0x0900u }) {
			uint8_t c[32] = { uint8_t(op) };
			c[8] = uint8_t(sa >> 8);
			c[9] = uint8_t(sa);
			bool want = op == 0x08 || op == 0x28 || op == 0x88 ||
				    op == 0xa8 || (op == 0x7f && sa == 0x0009);
			EXPECT_EQ(srpt_cdb_reads_medium(c), want)
				<< op << " " << sa;
		}
	}
	// Other commands take a buffer either way (LIO decides).
	uint8_t inq[16] = { 0x12 }, var[32] = { 0x7f };
	var[7] = 0x18;
	var[9] = 0x0a;
	EXPECT_FALSE(srpt_dir_conflict(inq, SRPT_DIR_OUT));
	EXPECT_FALSE(srpt_dir_conflict(var, SRPT_DIR_IN));
}

// srpt_max_descs() sizes the send queue's headroom: a table of that many
// entries fits an IU of the given length, one more does not (or the count
// byte is full).
TEST(Cmd, MaxDescs)
{
	for (uint32_t len : { 64u, 84u, 100u, 1024u, 4148u, 8276u, 65536u }) {
		uint32_t n = srpt_max_descs(len);
		std::vector<uint32_t> lens(n, 512);
		Bytes b = indirect(0x02, uint8_t(n), 16 * n, 512 * n, lens);

		if (len < 84) {
			EXPECT_EQ(n, 1u) << len;
			continue;
		}
		EXPECT_LE(b.size(), len) << len;
		EXPECT_TRUE(n == 255 || b.size() + 16 > len) << len;
		EXPECT_EQ(err_of(b), SRPT_CMD_OK) << len;
	}
	EXPECT_EQ(srpt_max_descs(8276), 255u);
	EXPECT_EQ(srpt_max_descs(1024), (1024u - 68) / 16);
}

TEST(Cmd, IndirectOk)
{
	Bytes b = indirect(0x02, 3, 48, 4096 + 512 + 8, { 4096, 512, 8 });
	Parsed p = parse(b);

	ASSERT_EQ(p.ret, 0);
	EXPECT_EQ(p.info.dir, SRPT_DIR_IN);
	EXPECT_EQ(p.info.fmt, SRPT_DATA_DESC_INDIRECT);
	EXPECT_EQ(p.info.ndesc, 3u);
	EXPECT_EQ(desc_off(p, b), 68u);
	EXPECT_EQ(p.info.data_len, 4096u + 512 + 8);
	for (uint32_t i = 0; i < 3; i++) {
		srpt_buf_desc d;

		srpt_buf_desc_get(&p.info.desc[i], &d);
		EXPECT_EQ(d.va, 0x1000u * (i + 1));
		EXPECT_EQ(d.key, 0x100u + i);
	}

	b = indirect(0x20, 1, 16, 7, { 7 });
	p = parse(b);
	ASSERT_EQ(p.ret, 0);
	EXPECT_EQ(p.info.dir, SRPT_DIR_OUT);
	EXPECT_EQ(p.info.ndesc, 1u);
}

TEST(Cmd, IndirectHeaderTruncated)
{
	Bytes b = indirect(0x02, 1, 16, 7, { 7 });

	EXPECT_EQ(err_of(b, false, 0, 48 + 19), SRPT_CMD_DESC_OVERFLOW);
	// Header present, the one counted entry one byte short.
	EXPECT_EQ(err_of(b, false, 0, 48 + 20 + 15), SRPT_CMD_DESC_OVERFLOW);
	EXPECT_EQ(err_of(b, false, 0, 48 + 20 + 16), SRPT_CMD_OK);
}

TEST(Cmd, IndirectTableLen)
{
	for (uint32_t tl : { 0u, 1u, 15u, 31u, 33u, 40u }) {
		Bytes b = indirect(0x02, 2, tl, 20, { 10, 10 });

		EXPECT_EQ(err_of(b), SRPT_CMD_TABLE_LEN) << tl;
	}
	// Table shorter than the counted entries.
	Bytes b = indirect(0x02, 2, 16, 20, { 10, 10 });
	EXPECT_EQ(err_of(b), SRPT_CMD_TABLE_LEN);
}

TEST(Cmd, IndirectCountBeyondIu)
{
	// Three entries counted, two present.
	Bytes b = indirect(0x02, 3, 48, 20, { 10, 10 });

	EXPECT_EQ(err_of(b), SRPT_CMD_DESC_OVERFLOW);
	b = indirect(0x02, 255, 255 * 16, 20, { 10, 10 });
	EXPECT_EQ(err_of(b), SRPT_CMD_DESC_OVERFLOW);
}

TEST(Cmd, IndirectExternalTable)
{
	// Two entries in the IU, the table has three: the rest would need an
	// RDMA READ of the external table.
	Bytes b = indirect(0x02, 2, 48, 30, { 10, 10 });

	EXPECT_EQ(err_of(b), SRPT_CMD_EXTERNAL_TABLE);
	b = indirect(0x02, 0, 16, 10, {});
	EXPECT_EQ(err_of(b), SRPT_CMD_EXTERNAL_TABLE);
}

TEST(Cmd, IndirectLengthMismatch)
{
	EXPECT_EQ(err_of(indirect(0x02, 2, 32, 21, { 10, 10 })),
		  SRPT_CMD_LEN_MISMATCH);
	EXPECT_EQ(err_of(indirect(0x02, 2, 32, 19, { 10, 10 })),
		  SRPT_CMD_LEN_MISMATCH);
	// The sum must not wrap around in 32 bits.
	EXPECT_EQ(err_of(indirect(0x02, 2, 32, 0xfffffffeu,
				  { 0xffffffffu, 0xffffffffu })),
		  SRPT_CMD_LEN_MISMATCH);
	EXPECT_EQ(err_of(indirect(0x02, 2, 32, 0xffffffffu,
				  { 0xfffffff0u, 0xfu })),
		  SRPT_CMD_OK);
}

namespace {

// What the Linux initiator sends: imm_buf right after the (additional) CDB,
// data at the negotiated offset (68 = 48 + 16 + 4).
Bytes imm_cmd(uint32_t imm_len, size_t data_bytes, uint8_t add_cdb = 0,
	      size_t data_off = 68)
{
	Bytes b = cmd(0x30, 0, 0, add_cdb);

	append_be32(b, imm_len);
	b.resize(data_off, 0);
	for (size_t i = 0; i < data_bytes; i++)
		b.push_back(uint8_t(i));
	return b;
}

} // namespace

TEST(Cmd, ImmediateOk)
{
	Bytes b = imm_cmd(100, 100);
	Parsed p = parse(b, true, 68);

	ASSERT_EQ(p.ret, 0);
	EXPECT_EQ(p.info.dir, SRPT_DIR_OUT);
	EXPECT_EQ(p.info.fmt, SRPT_DATA_DESC_IMM);
	EXPECT_EQ(p.info.imm_offset, 68u);
	EXPECT_EQ(p.info.imm_len, 100u);
	EXPECT_EQ(p.info.data_len, 100u);
	EXPECT_EQ(p.info.ndesc, 0u);
	EXPECT_EQ(p.info.desc, nullptr);

	// Extra bytes after the data are fine.
	b = imm_cmd(100, 101);
	EXPECT_EQ(err_of(b, true, 68), SRPT_CMD_OK);
	// Zero bytes of immediate data.
	b = imm_cmd(0, 0);
	EXPECT_EQ(err_of(b, true, 68), SRPT_CMD_OK);
	// Largest additional CDB that still leaves room below 68.
	b = imm_cmd(10, 10, 16);
	EXPECT_EQ(err_of(b, true, 68), SRPT_CMD_OK);
}

TEST(Cmd, ImmediateRange)
{
	// Length one past the end of the IU.
	EXPECT_EQ(err_of(imm_cmd(101, 100), true, 68), SRPT_CMD_IMM_RANGE);
	// Offset + length wraps around in 32 bits (68 + 0xffffffc0 = 4).
	EXPECT_EQ(err_of(imm_cmd(0xffffffc0u, 100), true, 68),
		  SRPT_CMD_IMM_RANGE);
	EXPECT_EQ(err_of(imm_cmd(0xffffffffu, 100), true, 68),
		  SRPT_CMD_IMM_RANGE);
	// Offset huge.
	EXPECT_EQ(err_of(imm_cmd(1, 100), true, 0xffffffffu),
		  SRPT_CMD_IMM_RANGE);
	// Offset inside the immediate descriptor (ends at 52).
	Bytes b = imm_cmd(16, 16, 0, 52);
	EXPECT_EQ(err_of(b, true, 52), SRPT_CMD_OK);
	EXPECT_EQ(err_of(b, true, 51), SRPT_CMD_IMM_RANGE);
	EXPECT_EQ(err_of(b, true, 0), SRPT_CMD_IMM_RANGE);
	// Additional CDB pushes the descriptor to 68..71, over the data.
	b = imm_cmd(10, 10, 20, 72);
	EXPECT_EQ(err_of(b, true, 68), SRPT_CMD_IMM_RANGE);
	EXPECT_EQ(err_of(b, true, 72), SRPT_CMD_OK);
}

TEST(Cmd, ImmediateDescriptorTruncated)
{
	Bytes b = imm_cmd(0, 0);

	EXPECT_EQ(err_of(b, true, 51, 51), SRPT_CMD_DESC_OVERFLOW);
	EXPECT_EQ(err_of(b, true, 52, 52), SRPT_CMD_OK);
}

TEST(Cmd, Unaligned)
{
	Bytes b = indirect(0x02, 2, 32, 20, { 10, 10 });
	Bytes shifted(b.size() + 1);
	srpt_cmd_info info;
	srpt_cmd_err e;

	memcpy(shifted.data() + 1, b.data(), b.size());
	ASSERT_EQ(0, srpt_cmd_parse(shifted.data() + 1, b.size(), false, 0,
				    &info, &e));
	EXPECT_EQ(info.tag, kTag);
	EXPECT_EQ(info.data_len, 20u);
	srpt_buf_desc d;
	srpt_buf_desc_get(&info.desc[1], &d);
	EXPECT_EQ(d.va, 0x2000u);
	EXPECT_EQ(d.len, 10u);
}

TEST(Cmd, ErrorStrings)
{
	std::set<std::string> seen;

	for (int e = SRPT_CMD_OK; e <= SRPT_CMD_CDB_SHORT; e++) {
		const char *s = srpt_cmd_err_str(srpt_cmd_err(e));

		ASSERT_NE(s, nullptr);
		EXPECT_GT(strlen(s), 1u);
		EXPECT_TRUE(seen.insert(s).second) << s;
	}
	EXPECT_STREQ(srpt_cmd_err_str(srpt_cmd_err(99)), "unknown error");
}

TEST(Cmd, ErrorSense)
{
	uint8_t key, asc, ascq;

	srpt_cmd_err_sense(SRPT_CMD_OK, &key, &asc, &ascq);
	EXPECT_EQ(key, 0);
	EXPECT_EQ(asc, 0);
	EXPECT_EQ(ascq, 0);
	srpt_cmd_err_sense(SRPT_CMD_BIDI, &key, &asc, &ascq);
	EXPECT_EQ(key, 0x05);
	EXPECT_EQ(asc, 0x24);
	EXPECT_EQ(ascq, 0x00);
	for (int e = SRPT_CMD_TOO_SHORT; e <= SRPT_CMD_TOO_MUCH_DATA; e++) {
		if (e == SRPT_CMD_BIDI)
			continue;
		srpt_cmd_err_sense(srpt_cmd_err(e), &key, &asc, &ascq);
		EXPECT_EQ(key, 0x05) << e;
		EXPECT_EQ(asc, 0x0e) << e;
		EXPECT_EQ(ascq, 0x03) << e;
	}
}

// ------------------------------------------------------------ SRP_TSK_MGMT

TEST(Tmf, Parse)
{
	Bytes b(48, 0);

	b[0] = SRPT_OP_TSK_MGMT;
	put_be64(&b[8], 0xa1a2a3a4a5a6a7a8ull);
	put_be64(&b[20], 0x4003000000000000ull);
	b[30] = SRPT_TSK_ABORT_TASK;
	b[31] = 0xff;		// reserved, must not be taken as the function
	put_be64(&b[32], 0xb1b2b3b4b5b6b7b8ull);
	memset(&b[40], 0xee, 8);

	srpt_tmf_info t;
	ASSERT_EQ(0, srpt_tmf_parse(b.data(), b.size(), &t));
	EXPECT_EQ(t.tag, 0xa1a2a3a4a5a6a7a8ull);
	EXPECT_EQ(t.lun, 0x4003000000000000ull);
	EXPECT_EQ(t.func, SRPT_TSK_ABORT_TASK);
	EXPECT_EQ(t.task_tag, 0xb1b2b3b4b5b6b7b8ull);

	b[30] = 0x99;	// unknown codes are passed through
	ASSERT_EQ(0, srpt_tmf_parse(b.data(), b.size(), &t));
	EXPECT_EQ(t.func, 0x99);
}

TEST(Tmf, TooShort)
{
	Bytes b(47, 0);
	srpt_tmf_info t;

	EXPECT_EQ(-EINVAL, srpt_tmf_parse(b.data(), b.size(), &t));
	EXPECT_EQ(-EINVAL, srpt_tmf_parse(nullptr, 48, &t));
	b.resize(48, 0);
	EXPECT_EQ(0, srpt_tmf_parse(b.data(), b.size(), &t));
}

// A TMF too short to decode is still answered with its own tag, as soon as
// the IU holds one.
TEST(Tmf, TooShortKeepsTag)
{
	Bytes b(48, 0);
	srpt_tmf_info t;

	b[0] = SRPT_OP_TSK_MGMT;
	put_be64(&b[8], 0xc1c2c3c4c5c6c7c8ull);
	for (size_t len = 16; len < 48; len++) {
		Bytes exact(b.begin(), b.begin() + len);

		memset(&t, 0x5a, sizeof(t));
		EXPECT_EQ(-EINVAL, srpt_tmf_parse(exact.data(), len, &t));
		EXPECT_EQ(t.tag, 0xc1c2c3c4c5c6c7c8ull) << len;
		EXPECT_EQ(t.func, 0) << len;
	}
	for (size_t len = 0; len < 16; len++) {
		Bytes exact(b.begin(), b.begin() + len);

		EXPECT_EQ(-EINVAL, srpt_tmf_parse(exact.data(), len, &t));
		EXPECT_EQ(t.tag, 0u) << len;
	}
}

TEST(Tmf, TagMatchesCommandTag)
{
	// The task tag of an ABORT TASK uses the same encoding as a command's
	// tag, so the two compare equal.
	Bytes c = cmd();
	Bytes t(48, 0);
	srpt_cmd_info ci;
	srpt_tmf_info ti;

	memcpy(&t[32], &c[8], 8);
	ASSERT_EQ(0, srpt_cmd_parse(c.data(), c.size(), false, 0, &ci,
				    nullptr));
	ASSERT_EQ(0, srpt_tmf_parse(t.data(), t.size(), &ti));
	EXPECT_EQ(ci.tag, ti.task_tag);
}

// srpt_cmd_check_limits(): the channel-level limits, each at its boundary.
TEST(CmdLimits, IuLengthAndDataLengthBoundaries)
{
	struct srpt_cmd_info ci = {};
	enum srpt_cmd_err err = SRPT_CMD_OK;

	ci.data_len = 4096;
	EXPECT_EQ(0, srpt_cmd_check_limits(100, &ci, 100, 4096, &err));
	EXPECT_EQ(SRPT_CMD_OK, err);
	EXPECT_EQ(-EINVAL, srpt_cmd_check_limits(101, &ci, 100, 4096, &err));
	EXPECT_EQ(SRPT_CMD_TOO_LONG, err);
	ci.data_len = 4097;
	EXPECT_EQ(-EINVAL, srpt_cmd_check_limits(100, &ci, 100, 4096, &err));
	EXPECT_EQ(SRPT_CMD_TOO_MUCH_DATA, err);
	EXPECT_EQ(-EINVAL, srpt_cmd_check_limits(100, &ci, 100, 4096, nullptr));
	EXPECT_STRNE("unknown error", srpt_cmd_err_str(SRPT_CMD_TOO_LONG));
	EXPECT_STRNE("unknown error", srpt_cmd_err_str(SRPT_CMD_TOO_MUCH_DATA));
}

// PERSISTENT RESERVE OUT REGISTER (and REGISTER AND IGNORE EXISTING KEY)
// with SPEC_I_PT never reaches LIO, which leaks a LUN-mapping reference
// when it refuses one; everything else does.
TEST(PrOut, SpecIPtRefused)
{
	uint8_t cdb[16] = { 0x5f, 0x00 };
	uint8_t param[24] = {};

	EXPECT_FALSE(srpt_pr_out_refused(cdb, param, sizeof(param)));
	param[20] = 0x08;	/* SPEC_I_PT */
	EXPECT_TRUE(srpt_pr_out_refused(cdb, param, sizeof(param)));
	EXPECT_TRUE(srpt_pr_out_refused(cdb, param, 21));
	EXPECT_FALSE(srpt_pr_out_refused(cdb, param, 20));	/* too short */
	EXPECT_FALSE(srpt_pr_out_refused(cdb, param, 0));
	cdb[1] = 0x06;		/* REGISTER AND IGNORE EXISTING KEY */
	EXPECT_TRUE(srpt_pr_out_refused(cdb, param, sizeof(param)));
	cdb[1] = 0xe6;		/* reserved bits above the service action */
	EXPECT_TRUE(srpt_pr_out_refused(cdb, param, sizeof(param)));
	for (uint8_t sa : { 0x01, 0x02, 0x03, 0x04, 0x05, 0x07 }) {
		cdb[1] = sa;	/* RESERVE, RELEASE, CLEAR, PREEMPT, ..., MOVE */
		EXPECT_FALSE(srpt_pr_out_refused(cdb, param, sizeof(param)))
			<< int(sa);
	}
	cdb[0] = 0x5e;		/* PERSISTENT RESERVE IN */
	cdb[1] = 0x00;
	EXPECT_FALSE(srpt_pr_out_refused(cdb, param, sizeof(param)));
	param[20] = 0xf7;	/* every other flag: ALL_TG_PT, APTPL */
	cdb[0] = 0x5f;
	EXPECT_FALSE(srpt_pr_out_refused(cdb, param, sizeof(param)));
}

// The SAM LUN field to Linux's LUN number: the first 2-byte level in the
// low 16 bits, as the SCSI midlayer and LIO number LUNs.  The reference
// walks the bytes of the field, level by level.
uint64_t lun_from_bytes(const uint8_t b[8])
{
	uint64_t lun = 0;

	for (int level = 0; level < 4; level++)
		lun |= uint64_t((b[2 * level] << 8) | b[2 * level + 1])
		       << (16 * level);
	return lun;
}

TEST(Lun, ToInt)
{
	// Peripheral device addressing, LUN 0 and 5; flat space LUN 0x101;
	// two levels; every byte set.
	EXPECT_EQ(srpt_lun_to_int(0), 0u);
	EXPECT_EQ(srpt_lun_to_int(0x0005000000000000ull), 5u);
	EXPECT_EQ(srpt_lun_to_int(0x4101000000000000ull), 0x4101u);
	EXPECT_EQ(srpt_lun_to_int(0x0001000200000000ull), 0x00020001u);
	EXPECT_EQ(srpt_lun_to_int(0x0102030405060708ull),
		  0x0708050603040102ull);

	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 10000; i++) {
		uint8_t b[8];

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put_be64(b, x);
		ASSERT_EQ(srpt_lun_to_int(x), lun_from_bytes(b)) << std::hex << x;
	}
}
