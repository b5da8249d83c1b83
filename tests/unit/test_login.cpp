// Login: parsing of both request layouts, the accept/reject decision with
// every reject reason at its boundary, and the LOGIN_RSP / LOGIN_REJ /
// T_LOGOUT / CRED_REQ builders byte by byte.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "srpt_proto.h"
#include "srpt_login.h"
#include "test_util.h"

using namespace srpt_test;

namespace {

const uint8_t kTag[8] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
const uint64_t kTagHost = 0x0102030405060708ull;

struct LoginFields {
	uint32_t it_iu_len = 8260;
	uint16_t buf_fmt = SRPT_BUF_FORMAT_DIRECT | SRPT_BUF_FORMAT_INDIRECT;
	uint8_t flags = SRPT_MULTICHAN_MULTI | SRPT_IMMED_REQUESTED;
	uint16_t imm_off = 68;
	uint8_t init_id[16];
	uint8_t tgt_id[16];

	LoginFields()
	{
		for (int i = 0; i < 16; i++) {
			init_id[i] = uint8_t(0xa0 + i);
			tgt_id[i] = uint8_t(0x10 + i);
		}
	}
};

// T10 layout, 64 bytes, written field by field at the spec offsets.
Bytes ib_login(const LoginFields &f)
{
	Bytes b(64, 0);

	b[0] = 0x00;
	memcpy(&b[8], kTag, 8);
	put_be32(&b[16], f.it_iu_len);
	put_be16(&b[24], f.buf_fmt);
	b[26] = f.flags;
	put_be16(&b[28], f.imm_off);
	memcpy(&b[32], f.init_id, 16);
	memcpy(&b[48], f.tgt_id, 16);
	return b;
}

// Linux RDMA/CM layout, 56 bytes.
Bytes rdma_login(const LoginFields &f)
{
	Bytes b(56, 0);

	memcpy(&b[0], kTag, 8);
	put_be16(&b[8], f.buf_fmt);
	b[10] = f.flags;
	b[11] = 0x00;
	put_be32(&b[12], f.it_iu_len);
	memcpy(&b[16], f.init_id, 16);
	memcpy(&b[32], f.tgt_id, 16);
	put_be16(&b[48], f.imm_off);
	return b;
}

void expect_info(const srpt_login_info &info, const LoginFields &f)
{
	EXPECT_EQ(info.tag, kTagHost);
	EXPECT_EQ(info.req_it_iu_len, f.it_iu_len);
	EXPECT_EQ(info.req_buf_fmt, f.buf_fmt);
	EXPECT_EQ(info.req_flags, f.flags);
	EXPECT_EQ(info.imm_data_offset, f.imm_off);
	EXPECT_EQ(0, memcmp(info.initiator_port_id, f.init_id, 16));
	EXPECT_EQ(0, memcmp(info.target_port_id, f.tgt_id, 16));
}

} // namespace

TEST(LoginParse, IbLayout)
{
	LoginFields f;
	Bytes b = ib_login(f);
	srpt_login_info info;

	ASSERT_EQ(0, srpt_login_parse(b.data(), b.size(), SRPT_LOGIN_IB_CM,
				      &info));
	expect_info(info, f);
}

TEST(LoginParse, RdmaLayout)
{
	LoginFields f;
	f.it_iu_len = 0x12345678;
	f.buf_fmt = 0x0006;
	f.flags = 0x81;
	f.imm_off = 0xabcd;
	Bytes b = rdma_login(f);
	srpt_login_info info;

	ASSERT_EQ(0, srpt_login_parse(b.data(), b.size(), SRPT_LOGIN_RDMA_CM,
				      &info));
	expect_info(info, f);
}

TEST(LoginParse, TagIsOpaqueBytes)
{
	LoginFields f;
	Bytes b = ib_login(f);
	srpt_login_info info;
	uint8_t out[64];

	ASSERT_EQ(0, srpt_login_parse(b.data(), b.size(), SRPT_LOGIN_IB_CM,
				      &info));
	srpt_login_decision d = {};
	d.why = "ok";
	ASSERT_EQ(52u, srpt_build_login_rsp(out, sizeof(out), info.tag, &d,
					    1, 0));
	EXPECT_EQ(0, memcmp(&out[8], kTag, 8));
}

TEST(LoginParse, LongerPrivateDataIsFine)
{
	LoginFields f;
	Bytes b = ib_login(f);
	srpt_login_info info;

	b.resize(92, 0xee);	// IB CM REQ private data is 92 bytes
	EXPECT_EQ(0, srpt_login_parse(b.data(), b.size(), SRPT_LOGIN_IB_CM,
				      &info));
	b = rdma_login(f);
	b.resize(56 + 3, 0xee);
	EXPECT_EQ(0, srpt_login_parse(b.data(), b.size(), SRPT_LOGIN_RDMA_CM,
				      &info));
}

TEST(LoginParse, Truncated)
{
	LoginFields f;
	Bytes ib = ib_login(f);
	Bytes rd = rdma_login(f);
	srpt_login_info info;

	EXPECT_EQ(-EINVAL, srpt_login_parse(ib.data(), 63, SRPT_LOGIN_IB_CM,
					    &info));
	EXPECT_EQ(0, srpt_login_parse(ib.data(), 64, SRPT_LOGIN_IB_CM, &info));
	EXPECT_EQ(-EINVAL, srpt_login_parse(rd.data(), 55, SRPT_LOGIN_RDMA_CM,
					    &info));
	EXPECT_EQ(0, srpt_login_parse(rd.data(), 56, SRPT_LOGIN_RDMA_CM,
				      &info));
	EXPECT_EQ(-EINVAL, srpt_login_parse(ib.data(), 0, SRPT_LOGIN_IB_CM,
					    &info));
	EXPECT_EQ(-EINVAL, srpt_login_parse(nullptr, 64, SRPT_LOGIN_IB_CM,
					    &info));
	// A 56-byte RDMA/CM request is too short for the IB layout.
	EXPECT_EQ(-EINVAL, srpt_login_parse(rd.data(), rd.size(),
					    SRPT_LOGIN_IB_CM, &info));
}

TEST(LoginParse, WrongOpcode)
{
	LoginFields f;
	Bytes ib = ib_login(f);
	Bytes rd = rdma_login(f);
	srpt_login_info info;

	ib[0] = SRPT_OP_CMD;
	EXPECT_EQ(-EINVAL, srpt_login_parse(ib.data(), ib.size(),
					    SRPT_LOGIN_IB_CM, &info));
	rd[11] = SRPT_OP_CMD;
	EXPECT_EQ(-EINVAL, srpt_login_parse(rd.data(), rd.size(),
					    SRPT_LOGIN_RDMA_CM, &info));
	// In the RDMA/CM layout byte 0 is part of the tag, not the opcode.
	rd[11] = 0;
	rd[0] = 0xc2;
	EXPECT_EQ(0, srpt_login_parse(rd.data(), rd.size(), SRPT_LOGIN_RDMA_CM,
				      &info));
	EXPECT_EQ(info.tag, 0xc202030405060708ull);
}

TEST(LoginParse, UnknownLayout)
{
	LoginFields f;
	Bytes ib = ib_login(f);
	srpt_login_info info;

	EXPECT_EQ(-EINVAL, srpt_login_parse(ib.data(), ib.size(),
					    (srpt_login_layout)7, &info));
}

class LoginDecide : public ::testing::Test {
protected:
	srpt_login_info req;
	srpt_login_limits lim;
	srpt_login_decision d;

	void SetUp() override
	{
		LoginFields f;
		Bytes b = ib_login(f);

		ASSERT_EQ(0, srpt_login_parse(b.data(), b.size(),
					      SRPT_LOGIN_IB_CM, &req));
		memset(&lim, 0, sizeof(lim));
		lim.max_req_size = 8260;
		lim.max_rsp_size = 4096;
		lim.supported_buf_fmt = SRPT_BUF_FORMAT_DIRECT |
					SRPT_BUF_FORMAT_INDIRECT;
		lim.imm_data_capable = true;
		lim.enabled = true;
		memcpy(lim.target_port_id, f.tgt_id, 16);
		memset(&d, 0xa5, sizeof(d));
	}

	uint32_t decide()
	{
		memset(&d, 0xa5, sizeof(d));
		srpt_login_decide(&req, &lim, &d);
		EXPECT_NE(d.why, nullptr);
		return d.reject_reason;
	}

	void expect_rejected(uint32_t reason)
	{
		EXPECT_EQ(decide(), reason);
		EXPECT_EQ(d.max_it_iu_len, 0u);
		EXPECT_EQ(d.max_ti_iu_len, 0u);
		EXPECT_EQ(d.buf_fmt, 0);
		EXPECT_FALSE(d.immediate);
		EXPECT_FALSE(d.multichannel);
		EXPECT_EQ(d.imm_data_offset, 0u);
		ASSERT_NE(d.why, nullptr);
		EXPECT_STRNE(d.why, "ok");
	}
};

TEST_F(LoginDecide, AcceptLinuxDefaults)
{
	ASSERT_EQ(decide(), 0u);
	EXPECT_STREQ(d.why, "ok");
	EXPECT_EQ(d.max_it_iu_len, 8260u);
	EXPECT_EQ(d.max_ti_iu_len, 4096u);
	EXPECT_EQ(d.buf_fmt, SRPT_BUF_FORMAT_DIRECT | SRPT_BUF_FORMAT_INDIRECT);
	EXPECT_TRUE(d.multichannel);
	EXPECT_TRUE(d.immediate);
	EXPECT_EQ(d.imm_data_offset, 68u);
}

TEST_F(LoginDecide, Disabled)
{
	lim.enabled = false;
	expect_rejected(SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	// Checked first: every later check failing too changes nothing.
	lim.target_port_id[0] ^= 1;
	req.req_it_iu_len = 1;
	req.req_buf_fmt = 0;
	req.req_flags = 3;
	expect_rejected(SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES);
}

TEST_F(LoginDecide, TargetPortIdMismatch)
{
	for (int i : { 0, 7, 8, 15 }) {
		SetUp();
		lim.target_port_id[i] ^= 0x80;
		expect_rejected(SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	}
	req.req_it_iu_len = 63;
	req.req_buf_fmt = 0;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
}

TEST_F(LoginDecide, ItIuLenBoundaries)
{
	req.req_it_iu_len = 63;
	expect_rejected(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req.req_it_iu_len = 0;
	expect_rejected(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req.req_it_iu_len = 64;
	req.req_flags = SRPT_MULTICHAN_SINGLE;	// no immediate data
	EXPECT_EQ(decide(), 0u);
	EXPECT_EQ(d.max_it_iu_len, 64u);
	req.req_it_iu_len = lim.max_req_size;
	EXPECT_EQ(decide(), 0u);
	EXPECT_EQ(d.max_it_iu_len, lim.max_req_size);
	req.req_it_iu_len = lim.max_req_size + 1;
	expect_rejected(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req.req_it_iu_len = 0xffffffffu;
	expect_rejected(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	// Before the buffer format check.
	req.req_buf_fmt = 0;
	expect_rejected(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

// No RDMA READ depth: writes could come, their data never be fetched.
TEST_F(LoginDecide, NoRdmaReadDepth)
{
	lim.no_rdma_read = true;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	EXPECT_NE(std::string(d.why).find("RDMA READ"), std::string::npos);
	// After the checks of the request's own fields.
	req.req_buf_fmt = 0;
	expect_rejected(SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	SetUp();
	lim.enabled = false;
	lim.no_rdma_read = true;
	expect_rejected(SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	SetUp();
	EXPECT_EQ(decide(), 0u);
}

TEST_F(LoginDecide, BufferFormatCombinations)
{
	const uint16_t reqs[] = { 0x0, 0x1, 0x2, 0x4, 0x6, 0x8, 0xfff9, 0xffff };
	const uint16_t sups[] = { 0x2, 0x4, 0x6 };

	for (uint16_t s : sups) {
		for (uint16_t r : reqs) {
			lim.supported_buf_fmt = s;
			req.req_buf_fmt = r;
			SCOPED_TRACE("req " + std::to_string(r) + " sup " +
				     std::to_string(s));
			if (r & s) {
				EXPECT_EQ(decide(), 0u);
				EXPECT_EQ(d.buf_fmt, r & s);
			} else {
				expect_rejected(
				    SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
			}
		}
	}
	// Before the multichannel check.
	req.req_buf_fmt = 0;
	req.req_flags = 3;
	expect_rejected(SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

TEST_F(LoginDecide, MultichannelAction)
{
	req.req_flags = 0;
	EXPECT_EQ(decide(), 0u);
	EXPECT_FALSE(d.multichannel);
	req.req_flags = 1;
	EXPECT_EQ(decide(), 0u);
	EXPECT_TRUE(d.multichannel);
	req.req_flags = 2;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	req.req_flags = 3;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	req.req_flags = 0x83;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	req.req_flags = 0x80;
	EXPECT_EQ(decide(), 0u);
	EXPECT_FALSE(d.multichannel);
	EXPECT_TRUE(d.immediate);
}

TEST_F(LoginDecide, ImmediateOffsetBoundaries)
{
	req.req_flags = SRPT_IMMED_REQUESTED;
	req.imm_data_offset = 51;	// 48-byte header + 4-byte length - 1
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	EXPECT_STREQ(d.why, "bad immediate data offset");
	req.imm_data_offset = 0;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	req.imm_data_offset = 52;
	ASSERT_EQ(decide(), 0u);
	EXPECT_TRUE(d.immediate);
	EXPECT_EQ(d.imm_data_offset, 52u);
	req.imm_data_offset = req.req_it_iu_len;
	ASSERT_EQ(decide(), 0u);
	EXPECT_TRUE(d.immediate);
	EXPECT_EQ(d.imm_data_offset, req.req_it_iu_len);
	req.imm_data_offset = req.req_it_iu_len + 1;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	EXPECT_STREQ(d.why, "bad immediate data offset");
	req.req_it_iu_len = 64;
	req.imm_data_offset = 65;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	req.imm_data_offset = 64;
	EXPECT_EQ(decide(), 0u);
}

TEST_F(LoginDecide, ImmediateNotCapable)
{
	lim.imm_data_capable = false;
	req.req_flags = SRPT_IMMED_REQUESTED;
	req.imm_data_offset = 0;	// would be invalid, but is ignored
	ASSERT_EQ(decide(), 0u);
	EXPECT_FALSE(d.immediate);
	EXPECT_EQ(d.imm_data_offset, 0u);
	EXPECT_STREQ(d.why, "ok");
}

TEST_F(LoginDecide, ImmediateNotRequested)
{
	req.req_flags = SRPT_MULTICHAN_MULTI;
	req.imm_data_offset = 3;	// ignored without IMMED
	ASSERT_EQ(decide(), 0u);
	EXPECT_FALSE(d.immediate);
	EXPECT_EQ(d.imm_data_offset, 0u);
}

TEST_F(LoginDecide, ImmediateOffsetAfterOtherChecks)
{
	req.imm_data_offset = 1;
	req.req_flags = SRPT_IMMED_REQUESTED | 2;
	expect_rejected(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	EXPECT_STRNE(d.why, "bad immediate data offset");
	req.req_flags = SRPT_IMMED_REQUESTED;
	lim.supported_buf_fmt = SRPT_BUF_FORMAT_DIRECT;
	req.req_buf_fmt = SRPT_BUF_FORMAT_INDIRECT;
	expect_rejected(SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

TEST_F(LoginDecide, RdmaLayoutSameDecision)
{
	LoginFields f;
	Bytes b = rdma_login(f);
	srpt_login_info r2;

	ASSERT_EQ(0, srpt_login_parse(b.data(), b.size(), SRPT_LOGIN_RDMA_CM,
				      &r2));
	EXPECT_EQ(0, memcmp(&r2, &req, sizeof(r2)));
	srpt_login_decide(&r2, &lim, &d);
	EXPECT_EQ(d.reject_reason, 0u);
	EXPECT_TRUE(d.immediate);
}

// ---------------------------------------------------------------- builders

namespace {

srpt_login_decision accept_decision()
{
	srpt_login_decision d;

	memset(&d, 0, sizeof(d));
	d.why = "ok";
	d.max_it_iu_len = 0x00002044;
	d.max_ti_iu_len = 0x11223344;
	d.buf_fmt = 0x0006;
	d.multichannel = true;
	d.immediate = true;
	d.imm_data_offset = 68;
	return d;
}

} // namespace

TEST(LoginBuild, LoginRspEveryByte)
{
	srpt_login_decision d = accept_decision();
	uint8_t buf[80];
	const uint8_t expect[52] = {
		0xc0, 0, 0, 0,			// opcode, reserved
		0x00, 0x00, 0x01, 0x02,		// req_lim_delta 258
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	// tag
		0x00, 0x00, 0x20, 0x44,		// max_it_iu_len
		0x11, 0x22, 0x33, 0x44,		// max_ti_iu_len
		0x00, 0x06,			// buf_fmt
		0x82,				// IMMED | maintained
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0,
	};

	memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(52u, srpt_build_login_rsp(buf, sizeof(buf), kTagHost, &d,
					    258,
					    SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED));
	EXPECT_EQ(0, memcmp(buf, expect, sizeof(expect)));
	for (size_t i = 52; i < sizeof(buf); i++)
		EXPECT_EQ(buf[i], 0xee) << i;
}

TEST(LoginBuild, LoginRspFlags)
{
	srpt_login_decision d = accept_decision();
	uint8_t buf[52];

	d.immediate = false;
	for (uint8_t mc = 0; mc <= 2; mc++) {
		ASSERT_EQ(52u, srpt_build_login_rsp(buf, sizeof(buf), 0, &d, 0,
						    mc));
		EXPECT_EQ(buf[26], mc);
	}
	d.immediate = true;
	ASSERT_EQ(52u, srpt_build_login_rsp(buf, sizeof(buf), 0, &d, 0,
					    SRPT_LOGIN_RSP_MULTICHAN_TERMINATED));
	EXPECT_EQ(buf[26], 0x81);
	ASSERT_EQ(52u, srpt_build_login_rsp(buf, sizeof(buf), 0, &d, 0, 0));
	EXPECT_EQ(buf[26], 0x80);
}

TEST(LoginBuild, LoginRspRefusals)
{
	srpt_login_decision d = accept_decision();
	uint8_t buf[52];

	memset(buf, 0xee, sizeof(buf));
	EXPECT_EQ(0u, srpt_build_login_rsp(buf, 51, 0, &d, 1, 0));
	EXPECT_EQ(0u, srpt_build_login_rsp(buf, sizeof(buf), 0, &d, 1, 3));
	EXPECT_EQ(0u, srpt_build_login_rsp(nullptr, 52, 0, &d, 1, 0));
	d.reject_reason = SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	EXPECT_EQ(0u, srpt_build_login_rsp(buf, sizeof(buf), 0, &d, 1, 0));
	for (uint8_t c : buf)
		EXPECT_EQ(c, 0xee);
}

TEST(LoginBuild, LoginRejEveryByte)
{
	uint8_t buf[40];
	const uint8_t expect[32] = {
		0xc2, 0, 0, 0,
		0x00, 0x01, 0x00, 0x02,		// reason 0x10002
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x06,			// supported buf_fmt
		0, 0, 0, 0, 0, 0,
	};

	memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(32u, srpt_build_login_rej(buf, sizeof(buf), kTagHost,
				SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE,
				SRPT_BUF_FORMAT_DIRECT |
				SRPT_BUF_FORMAT_INDIRECT));
	EXPECT_EQ(0, memcmp(buf, expect, sizeof(expect)));
	for (size_t i = 32; i < sizeof(buf); i++)
		EXPECT_EQ(buf[i], 0xee);
	EXPECT_EQ(0u, srpt_build_login_rej(buf, 31, kTagHost, 0x10000, 2));
	EXPECT_EQ(0u, srpt_build_login_rej(nullptr, 32, kTagHost, 0x10000, 2));
}

TEST(LoginBuild, LoginRejEveryReason)
{
	uint8_t buf[32];

	for (uint32_t r = 0x10000; r <= 0x10006; r++) {
		ASSERT_EQ(32u, srpt_build_login_rej(buf, sizeof(buf), 0, r, 4));
		EXPECT_EQ(get_be32(&buf[4]), r);
		EXPECT_EQ(buf[0], 0xc2);
		EXPECT_EQ(buf[25], 4);
	}
}

TEST(LoginBuild, TLogoutEveryByte)
{
	uint8_t buf[17];
	const uint8_t expect[16] = {
		0x80, 0, 0, 0,
		0x00, 0x01, 0x00, 0x05,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};

	memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(16u, srpt_build_t_logout(buf, sizeof(buf), kTagHost,
					   0x10005));
	EXPECT_EQ(0, memcmp(buf, expect, sizeof(expect)));
	EXPECT_EQ(buf[16], 0xee);
	EXPECT_EQ(0u, srpt_build_t_logout(buf, 15, kTagHost, 0));
}

TEST(LoginBuild, CredReqEveryByte)
{
	uint8_t buf[16];
	const uint8_t expect[16] = {
		0x81, 0, 0, 0,
		0x00, 0x00, 0x00, 0x20,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};

	ASSERT_EQ(16u, srpt_build_cred_req(buf, sizeof(buf), kTagHost, 32));
	EXPECT_EQ(0, memcmp(buf, expect, sizeof(expect)));
	ASSERT_EQ(16u, srpt_build_cred_req(buf, sizeof(buf), kTagHost, -1));
	EXPECT_EQ(get_be32(&buf[4]), 0xffffffffu);
	EXPECT_EQ(0u, srpt_build_cred_req(buf, 15, kTagHost, 1));
}

// A login request with a wrong opcode is refused, but its tag is kept so the
// SRP_LOGIN_REJ can echo it (both layouts).
TEST(LoginParse, BadOpcodeKeepsTag)
{
	uint8_t ib[64] = {};
	uint8_t rdma[56] = {};
	struct srpt_login_info info;

	ib[0] = 0x42;
	for (int i = 0; i < 8; i++)
		ib[8 + i] = uint8_t(0x10 + i);
	EXPECT_EQ(-EINVAL, srpt_login_parse(ib, sizeof(ib), SRPT_LOGIN_IB_CM, &info));
	EXPECT_EQ(0x1011121314151617ULL, info.tag);

	for (int i = 0; i < 8; i++)
		rdma[i] = uint8_t(0x20 + i);
	rdma[offsetof(struct srpt_wire_login_req_rdma, opcode)] = 0x42;
	EXPECT_EQ(-EINVAL, srpt_login_parse(rdma, sizeof(rdma), SRPT_LOGIN_RDMA_CM, &info));
	EXPECT_EQ(0x2021222324252627ULL, info.tag);
}
