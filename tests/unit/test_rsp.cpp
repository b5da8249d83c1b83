// SRP_RSP builder: header bytes, sense truncation, residual flags for each
// direction and the task management response code.
#include <gtest/gtest.h>

#include <cstring>

#include "srpt_proto.h"
#include "test_util.h"

using namespace srpt_test;

namespace {

srpt_rsp_args args()
{
	srpt_rsp_args a;

	memset(&a, 0, sizeof(a));
	a.tag = 0x0102030405060708ull;
	a.req_lim_delta = 1;
	a.dir = SRPT_DIR_NONE;
	return a;
}

const uint8_t kSense[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 0x0a,
			     0, 0, 0, 0, 0x24, 0x00, 0, 0, 0, 0 };

struct Rsp {
	size_t len;
	Bytes b;
	uint8_t flags() const { return b[18]; }
	uint32_t do_res() const { return get_be32(&b[20]); }
	uint32_t di_res() const { return get_be32(&b[24]); }
	uint32_t sense_len() const { return get_be32(&b[28]); }
	uint32_t resp_len() const { return get_be32(&b[32]); }
};

Rsp build(const srpt_rsp_args &a, size_t buflen = 256)
{
	Rsp r;

	r.b.assign(buflen + 8, 0xee);	// 8 guard bytes past buflen
	r.len = srpt_build_rsp(r.b.data(), buflen, &a);
	for (size_t i = r.len; i < r.b.size(); i++)
		EXPECT_EQ(r.b[i], 0xee) << "byte " << i << " written";
	return r;
}

} // namespace

TEST(Rsp, GoodStatusEveryByte)
{
	srpt_rsp_args a = args();
	a.req_lim_delta = 0x01020304;
	a.status = 0x00;
	const uint8_t expect[36] = {
		0xc1, 0, 0, 0,
		0x01, 0x02, 0x03, 0x04,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0, 0, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	Rsp r = build(a);

	ASSERT_EQ(r.len, 36u);
	EXPECT_EQ(0, memcmp(r.b.data(), expect, sizeof(expect)));
}

TEST(Rsp, CheckConditionEveryByte)
{
	srpt_rsp_args a = args();
	a.req_lim_delta = -2;
	a.status = 0x02;
	a.sense = kSense;
	a.sense_len = sizeof(kSense);
	a.dir = SRPT_DIR_IN;
	a.residual_under = 0x200;
	const uint8_t expect[36] = {
		0xc1, 0, 0, 0,
		0xff, 0xff, 0xff, 0xfe,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0, 0, 0x22, 0x02,		// DIUNDER | SNSVALID, status
		0, 0, 0, 0,			// data-out residual
		0, 0, 0x02, 0x00,		// data-in residual
		0, 0, 0, 18,			// sense length
		0, 0, 0, 0,			// response data length
	};
	Rsp r = build(a);

	ASSERT_EQ(r.len, 36u + 18);
	EXPECT_EQ(0, memcmp(r.b.data(), expect, sizeof(expect)));
	EXPECT_EQ(0, memcmp(&r.b[36], kSense, sizeof(kSense)));
}

TEST(Rsp, SenseTruncatedToFit)
{
	srpt_rsp_args a = args();
	a.status = 0x02;
	a.sense = kSense;
	a.sense_len = sizeof(kSense);

	Rsp r = build(a, 36 + 18);
	EXPECT_EQ(r.len, 54u);
	EXPECT_EQ(r.sense_len(), 18u);

	r = build(a, 36 + 10);
	EXPECT_EQ(r.len, 46u);
	EXPECT_EQ(r.sense_len(), 10u);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_SNSVALID);
	EXPECT_EQ(0, memcmp(&r.b[36], kSense, 10));

	r = build(a, 36 + 1);
	EXPECT_EQ(r.len, 37u);
	EXPECT_EQ(r.sense_len(), 1u);

	// No room at all: status only, SNSVALID clear.
	r = build(a, 36);
	EXPECT_EQ(r.len, 36u);
	EXPECT_EQ(r.sense_len(), 0u);
	EXPECT_EQ(r.flags(), 0);
	EXPECT_EQ(r.b[19], 0x02);
}

TEST(Rsp, SenseNullOrEmpty)
{
	srpt_rsp_args a = args();

	a.sense = nullptr;
	a.sense_len = 18;
	Rsp r = build(a);
	EXPECT_EQ(r.len, 36u);
	EXPECT_EQ(r.flags(), 0);
	a.sense = kSense;
	a.sense_len = 0;
	r = build(a);
	EXPECT_EQ(r.len, 36u);
	EXPECT_EQ(r.sense_len(), 0u);
}

TEST(Rsp, BufferTooSmall)
{
	srpt_rsp_args a = args();

	EXPECT_EQ(build(a, 35).len, 0u);
	EXPECT_EQ(srpt_build_rsp(nullptr, 64, &a), 0u);
	a.has_resp_code = true;
	EXPECT_EQ(build(a, 39).len, 0u);
	EXPECT_EQ(build(a, 40).len, 40u);
}

TEST(Rsp, ResidualOut)
{
	srpt_rsp_args a = args();
	a.dir = SRPT_DIR_OUT;

	a.residual_under = 4096;
	Rsp r = build(a);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_DOUNDER);
	EXPECT_EQ(r.do_res(), 4096u);
	EXPECT_EQ(r.di_res(), 0u);

	a.residual_under = 0;
	a.residual_over = 512;
	r = build(a);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_DOOVER);
	EXPECT_EQ(r.do_res(), 512u);
	EXPECT_EQ(r.di_res(), 0u);
}

TEST(Rsp, ResidualIn)
{
	srpt_rsp_args a = args();
	a.dir = SRPT_DIR_IN;

	a.residual_under = 0xfffffffe;
	Rsp r = build(a);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_DIUNDER);
	EXPECT_EQ(r.di_res(), 0xfffffffeu);
	EXPECT_EQ(r.do_res(), 0u);

	a.residual_under = 0;
	a.residual_over = 1;
	r = build(a);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_DIOVER);
	EXPECT_EQ(r.di_res(), 1u);
	EXPECT_EQ(r.do_res(), 0u);
}

TEST(Rsp, ResidualNoneAndPrecedence)
{
	srpt_rsp_args a = args();

	// No data phase: residuals are not reported.
	a.dir = SRPT_DIR_NONE;
	a.residual_under = 10;
	a.residual_over = 20;
	Rsp r = build(a);
	EXPECT_EQ(r.flags(), 0);
	EXPECT_EQ(r.do_res(), 0u);
	EXPECT_EQ(r.di_res(), 0u);

	// Contradictory input: underflow wins.
	a.dir = SRPT_DIR_IN;
	r = build(a);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_DIUNDER);
	EXPECT_EQ(r.di_res(), 10u);

	// No residual, no flag.
	a.residual_under = 0;
	a.residual_over = 0;
	r = build(a);
	EXPECT_EQ(r.flags(), 0);
}

TEST(Rsp, TmfResponseCode)
{
	srpt_rsp_args a = args();

	a.has_resp_code = true;
	a.resp_code = SRPT_TMF_RSP_NOT_SUPPORTED;
	Rsp r = build(a);
	ASSERT_EQ(r.len, 40u);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_RSPVALID);
	EXPECT_EQ(r.resp_len(), 4u);
	EXPECT_EQ(r.sense_len(), 0u);
	EXPECT_EQ(r.b[36], 0);
	EXPECT_EQ(r.b[37], 0);
	EXPECT_EQ(r.b[38], 0);
	EXPECT_EQ(r.b[39], 0x04);

	a.resp_code = SRPT_TMF_RSP_COMPLETE;
	r = build(a);
	EXPECT_EQ(r.b[39], 0x00);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_RSPVALID);
}

// What LIO reports a task management function came to, and the SRP
// response code (SRP r16a 6.9, table 24) the initiator gets for it.
TEST(Rsp, TmfResultCodes)
{
	EXPECT_EQ(srpt_tmf_rsp_code(SRPT_TMF_RESULT_COMPLETE), 0x00);
	// ABORT TASK of a task that is gone: done, it no longer exists.
	EXPECT_EQ(srpt_tmf_rsp_code(SRPT_TMF_RESULT_NO_TASK), 0x00);
	EXPECT_EQ(srpt_tmf_rsp_code(SRPT_TMF_RESULT_NOT_SUPPORTED), 0x04);
	EXPECT_EQ(srpt_tmf_rsp_code(SRPT_TMF_RESULT_NO_LUN), 0x09);
	// Carried out and failed (a failed LUN RESET, a TMF aborted with
	// TAS): FUNCTION FAILED, not NOT SUPPORTED.
	EXPECT_EQ(srpt_tmf_rsp_code(SRPT_TMF_RESULT_REJECTED), 0x05);
	EXPECT_EQ(srpt_tmf_rsp_code(SRPT_TMF_RESULT_FAILED), 0x05);
	// A result this code does not know is a failure too.
	EXPECT_EQ(srpt_tmf_rsp_code(6), 0x05);
	EXPECT_EQ(srpt_tmf_rsp_code(0xff), 0x05);
}

TEST(Rsp, ResponseDataThenSense)
{
	srpt_rsp_args a = args();

	a.has_resp_code = true;
	a.resp_code = SRPT_TMF_RSP_FAILED;
	a.sense = kSense;
	a.sense_len = sizeof(kSense);
	Rsp r = build(a, 36 + 4 + 5);
	ASSERT_EQ(r.len, 45u);
	EXPECT_EQ(r.flags(), SRPT_RSP_FLAG_RSPVALID | SRPT_RSP_FLAG_SNSVALID);
	EXPECT_EQ(r.resp_len(), 4u);
	EXPECT_EQ(r.sense_len(), 5u);
	EXPECT_EQ(r.b[39], 0x05);
	EXPECT_EQ(0, memcmp(&r.b[40], kSense, 5));
}

TEST(Rsp, SolNotIgnored)
{
	srpt_rsp_args a = args();

	a.sol_not_flags_unused = 0xff;
	Rsp r = build(a);
	EXPECT_EQ(r.b[1], 0);
}

// srpt_pick_comp_vector(): round robin over the vectors the mask allows.
TEST(CompVector, AllVectorsWhenMaskIsZero)
{
	for (uint32_t seq = 0; seq < 8; seq++)
		EXPECT_EQ(srpt_pick_comp_vector(0, 4, seq), seq % 4);
}

TEST(CompVector, SingleVectorDevice)
{
	EXPECT_EQ(srpt_pick_comp_vector(0, 1, 5), 0u);
	EXPECT_EQ(srpt_pick_comp_vector(0x6, 1, 5), 0u);
	EXPECT_EQ(srpt_pick_comp_vector(0x6, 0, 5), 0u);
}

TEST(CompVector, MaskSelectsVectorsInOrder)
{
	// Vectors 1, 3 and 6 of 8.
	const uint64_t mask = (1u << 1) | (1u << 3) | (1u << 6);
	const uint32_t want[] = { 1, 3, 6, 1, 3, 6 };

	for (uint32_t seq = 0; seq < 6; seq++)
		EXPECT_EQ(srpt_pick_comp_vector(mask, 8, seq), want[seq]);
}

TEST(CompVector, BitsBeyondTheDeviceAreIgnored)
{
	// Only vector 2 exists in the mask below 4: always 2.
	for (uint32_t seq = 0; seq < 5; seq++)
		EXPECT_EQ(srpt_pick_comp_vector(0xf4, 4, seq), 2u);
	// Nothing allowed below 4: every vector.
	for (uint32_t seq = 0; seq < 5; seq++)
		EXPECT_EQ(srpt_pick_comp_vector(0xf0, 4, seq), seq % 4);
}

TEST(CompVector, SixtyFourAndMoreVectors)
{
	EXPECT_EQ(srpt_pick_comp_vector(1ULL << 63, 64, 7), 63u);
	EXPECT_EQ(srpt_pick_comp_vector(1ULL << 63, 128, 9), 63u);
	EXPECT_EQ(srpt_pick_comp_vector(0, 128, 200), 200u % 128);
	EXPECT_EQ(srpt_pick_comp_vector(0, 4, 0xffffffffu), 0xffffffffu % 4);
}

// srpt_build_rsp_good(): the short form of the common case writes exactly
// what srpt_build_rsp() writes for GOOD without sense, response data or
// residual, over a buffer that held another response before, and nothing
// past the 36 bytes.
TEST(Rsp, GoodShortFormSameBytes)
{
	for (int32_t delta : { 0, 1, 0x01020304, -1 }) {
		srpt_rsp_args a = args();
		a.req_lim_delta = delta;
		a.tag = 0xfedcba9876543210ull ^ uint64_t(delta);
		Rsp want = build(a, 36);

		Bytes got(36 + 8, 0xee);
		memset(got.data(), 0x5a, 36);	// an earlier response's bytes
		EXPECT_EQ(srpt_build_rsp_good(got.data(), a.tag, delta), 36u);
		EXPECT_EQ(0, memcmp(got.data(), want.b.data(), 36))
			<< "delta " << delta;
		for (size_t i = 36; i < got.size(); i++)
			EXPECT_EQ(got[i], 0xee) << "byte " << i << " written";
	}
}
