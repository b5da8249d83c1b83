// Device-management MADs (src/srpt_dm.c): every field of ClassPortInfo,
// IOUnitInfo, IOControllerProfile and ServiceEntries is checked at its byte
// offset in IBA Vol 1 section 16.3 (and 13.4 for the MAD header and
// ClassPortInfo), with expected values spelled out byte by byte; then every
// status the dispatcher can answer.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>

#include "srpt_dm.h"
#include "test_util.h"

using srpt_test::get_be32;
using srpt_test::get_be64;
using srpt_test::put_be16;
using srpt_test::put_be32;
using srpt_test::put_be64;

namespace {

uint16_t be16(const uint8_t *p)
{
	return uint16_t(p[0] << 8 | p[1]);
}

bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

srpt_dm_params params()
{
	srpt_dm_params p{};

	p.ioc_guid = 0x0002c90300a1b2c3ull;
	p.id_ext = 0x0002c90300a1b2c3ull;
	p.service_id = 0x0002c90300a1b2c3ull;
	p.vendor_id = 0x0002c9;
	p.device_id = 0x1017;
	p.device_version = 0x00a0;
	p.subsys_vendor_id = 0x0002c9;
	p.subsys_id = 0x12345678;
	p.send_queue_depth = 128;
	p.rdma_read_depth = 16;
	p.send_size = 8260;
	p.rdma_size = 65536;
	p.service_conns = 0;
	p.initiators_supported = 0;
	p.change_id = 1;
	p.id_string = "ib_srpt test controller";
	return p;
}

// A request MAD with every header field set, and garbage in the body that
// the response must not echo.
struct Mad {
	uint8_t b[SRPT_MAD_SIZE];
};

Mad request(uint8_t method, uint16_t attr, uint32_t mod, uint8_t cls = 6,
	    uint8_t cver = 1, uint8_t base = 1)
{
	Mad m;

	memset(m.b, 0xa5, sizeof(m.b));
	m.b[0] = base;
	m.b[1] = cls;
	m.b[2] = cver;
	m.b[3] = method;
	put_be16(&m.b[4], 0);			// status
	put_be16(&m.b[6], 0x1111);		// class specific
	put_be64(&m.b[8], 0x0123456789abcdefull); // TID
	put_be16(&m.b[16], attr);
	put_be16(&m.b[18], 0x2222);		// reserved
	put_be32(&m.b[20], mod);
	return m;
}

struct Answer {
	int rc;
	uint16_t status;
	Mad rsp;
};

Answer ask(const Mad &req, const srpt_dm_params &p = params())
{
	Answer a;

	memset(a.rsp.b, 0x5a, sizeof(a.rsp.b));
	a.rc = srpt_dm_respond(req.b, sizeof(req.b), &p, a.rsp.b);
	a.status = be16(&a.rsp.b[4]);
	return a;
}

const uint8_t *data_of(const Answer &a)
{
	return &a.rsp.b[64];
}

} // namespace

TEST(DmLayout, Sizes)
{
	EXPECT_EQ(sizeof(struct srpt_wire_mad_hdr), 24u);
	EXPECT_EQ(sizeof(struct srpt_wire_dm_mad), 256u);
	EXPECT_EQ(offsetof(struct srpt_wire_dm_mad, data), 64u);
	EXPECT_EQ(sizeof(struct srpt_wire_class_port_info), 72u);
	EXPECT_EQ(sizeof(struct srpt_wire_iou_info), 132u);
	EXPECT_EQ(sizeof(struct srpt_wire_ioc_profile), 128u);
	EXPECT_EQ(sizeof(struct srpt_wire_svc_entry), 48u);
	EXPECT_EQ(sizeof(struct srpt_wire_svc_entries), 192u);
}

TEST(DmLayout, Offsets)
{
#define OFF(s, f) offsetof(struct srpt_wire_##s, f)
	EXPECT_EQ(OFF(mad_hdr, status), 4u);
	EXPECT_EQ(OFF(mad_hdr, tid), 8u);
	EXPECT_EQ(OFF(mad_hdr, attr_id), 16u);
	EXPECT_EQ(OFF(mad_hdr, attr_mod), 20u);
	EXPECT_EQ(OFF(class_port_info, redirect_gid), 8u);
	EXPECT_EQ(OFF(class_port_info, redirect_qkey), 36u);
	EXPECT_EQ(OFF(class_port_info, trap_gid), 40u);
	EXPECT_EQ(OFF(class_port_info, trap_qkey), 68u);
	EXPECT_EQ(OFF(iou_info, controller_list), 4u);
	EXPECT_EQ(OFF(ioc_profile, vendor_id), 8u);
	EXPECT_EQ(OFF(ioc_profile, device_id), 12u);
	EXPECT_EQ(OFF(ioc_profile, device_version), 16u);
	EXPECT_EQ(OFF(ioc_profile, subsys_vendor_id), 20u);
	EXPECT_EQ(OFF(ioc_profile, subsys_id), 24u);
	EXPECT_EQ(OFF(ioc_profile, io_class), 28u);
	EXPECT_EQ(OFF(ioc_profile, io_subclass), 30u);
	EXPECT_EQ(OFF(ioc_profile, protocol), 32u);
	EXPECT_EQ(OFF(ioc_profile, protocol_version), 34u);
	EXPECT_EQ(OFF(ioc_profile, service_conns), 36u);
	EXPECT_EQ(OFF(ioc_profile, send_queue_depth), 40u);
	EXPECT_EQ(OFF(ioc_profile, rdma_read_depth), 43u);
	EXPECT_EQ(OFF(ioc_profile, send_size), 44u);
	EXPECT_EQ(OFF(ioc_profile, rdma_size), 48u);
	EXPECT_EQ(OFF(ioc_profile, op_cap_mask), 52u);
	EXPECT_EQ(OFF(ioc_profile, num_svc_entries), 54u);
	EXPECT_EQ(OFF(ioc_profile, id_string), 64u);
	EXPECT_EQ(OFF(svc_entry, id), 40u);
#undef OFF
}

// The response header: request header with method GetResp and the status;
// TID, class, versions, attribute and modifier echoed; reserved zero.
TEST(DmRespond, Header)
{
	Answer a = ask(request(0x01, 0x0010, 0));

	ASSERT_EQ(a.rc, 0);
	EXPECT_EQ(a.rsp.b[0], 1);
	EXPECT_EQ(a.rsp.b[1], 0x06);
	EXPECT_EQ(a.rsp.b[2], 1);
	EXPECT_EQ(a.rsp.b[3], 0x81);
	EXPECT_EQ(be16(&a.rsp.b[4]), 0);
	EXPECT_EQ(be16(&a.rsp.b[6]), 0);
	EXPECT_EQ(get_be64(&a.rsp.b[8]), 0x0123456789abcdefull);
	EXPECT_EQ(be16(&a.rsp.b[16]), 0x0010);
	EXPECT_EQ(be16(&a.rsp.b[18]), 0);
	EXPECT_EQ(get_be32(&a.rsp.b[20]), 0u);
	EXPECT_TRUE(all_zero(&a.rsp.b[24], 40)) << "reserved DM header bytes";
}

TEST(DmAttr, ClassPortInfo)
{
	Answer a = ask(request(0x01, 0x0001, 0));
	const uint8_t *d = data_of(a);

	ASSERT_EQ(a.rc, 0);
	ASSERT_EQ(a.status, 0);
	EXPECT_EQ(d[0], 1) << "BaseVersion";
	EXPECT_EQ(d[1], 1) << "ClassVersion";
	EXPECT_EQ(be16(&d[2]), 0) << "CapabilityMask";
	// CapabilityMask2 (27 bits) then RespTimeValue (5 bits).
	EXPECT_EQ(get_be32(&d[4]) >> 5, 0u);
	EXPECT_EQ(get_be32(&d[4]) & 0x1f, 18u);
	EXPECT_TRUE(all_zero(&d[8], 64)) << "redirect and trap fields";
	EXPECT_TRUE(all_zero(&d[72], 192 - 72));
}

TEST(DmAttr, IOUnitInfo)
{
	srpt_dm_params p = params();

	p.change_id = 0xbeef;
	Answer a = ask(request(0x01, 0x0010, 0), p);
	const uint8_t *d = data_of(a);

	ASSERT_EQ(a.status, 0);
	EXPECT_EQ(be16(&d[0]), 0xbeef) << "ChangeID";
	EXPECT_EQ(d[2], 16) << "MaxControllers";
	EXPECT_EQ(d[3], 0) << "no diag device ID, no option ROM";
	EXPECT_EQ(d[4], 0x10) << "slot 1 present (high nibble), slot 2 empty";
	// Slots 3..16 empty, nothing past MaxControllers.
	EXPECT_TRUE(all_zero(&d[5], 128 - 1));
	EXPECT_TRUE(all_zero(&d[132], 192 - 132));
}

// The slot decoding srp_daemon uses: slot i (1-based) is nibble
// (list[(i-1)/2] >> (4 * (1 - (i-1) % 2))) & 0xf.
TEST(DmAttr, IOUnitInfoSlotsAsDiscoveryReadsThem)
{
	uint8_t d[SRPT_DM_DATA_SIZE];
	int present = 0;

	srpt_dm_build_iou_info(d, 1);
	for (int i = 0; i < d[2]; i++) {
		int v = (d[4 + i / 2] >> (4 * (1 - i % 2))) & 0xf;

		if (i == 0)
			EXPECT_EQ(v, 1);
		else
			EXPECT_EQ(v, 0) << "slot " << i + 1;
		present += v == 1;
	}
	EXPECT_EQ(present, 1);
}

TEST(DmAttr, IOControllerProfile)
{
	Answer a = ask(request(0x01, 0x0011, 1));
	const uint8_t *d = data_of(a);

	ASSERT_EQ(a.status, 0);
	EXPECT_EQ(get_be64(&d[0]), 0x0002c90300a1b2c3ull) << "GUID";
	EXPECT_EQ(get_be32(&d[8]), 0x0002c900u) << "VendorID:24, reserved:8";
	EXPECT_EQ(get_be32(&d[12]), 0x1017u) << "DeviceID";
	EXPECT_EQ(be16(&d[16]), 0x00a0) << "DeviceVersion";
	EXPECT_EQ(be16(&d[18]), 0) << "reserved";
	EXPECT_EQ(get_be32(&d[20]), 0x0002c900u) << "SubsystemVendorID";
	EXPECT_EQ(get_be32(&d[24]), 0x12345678u) << "SubsystemID";
	EXPECT_EQ(be16(&d[28]), 0x0100) << "IOClass: SRP r16a";
	EXPECT_EQ(be16(&d[30]), 0x609e) << "IOSubclass: T10 OUI";
	EXPECT_EQ(be16(&d[32]), 0x0108) << "Protocol";
	EXPECT_EQ(be16(&d[34]), 0x0001) << "ProtocolVersion";
	EXPECT_EQ(be16(&d[36]), 0) << "service connections";
	EXPECT_EQ(be16(&d[38]), 0) << "initiators supported";
	EXPECT_EQ(be16(&d[40]), 128) << "SendMessageQueueDepth";
	EXPECT_EQ(d[42], 0) << "reserved";
	EXPECT_EQ(d[43], 16) << "RDMAReadQueueDepth";
	EXPECT_EQ(get_be32(&d[44]), 8260u) << "SendMessageSize";
	EXPECT_EQ(get_be32(&d[48]), 65536u) << "RDMATransferSize";
	// ST | SF | RF (RDMA read from IOC) | WF (RDMA write from IOC).
	EXPECT_EQ(d[52], 0x01 | 0x02 | 0x08 | 0x20) << "op capability mask";
	EXPECT_EQ(d[53], 0) << "reserved";
	EXPECT_EQ(d[54], 1) << "ServiceEntries";
	EXPECT_TRUE(all_zero(&d[55], 9)) << "reserved";
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(&d[64])),
		  "ib_srpt test controller");
	EXPECT_TRUE(all_zero(&d[64 + 23], 64 - 23)) << "ID string NUL padded";
	EXPECT_TRUE(all_zero(&d[128], 192 - 128));
}

TEST(DmAttr, IOControllerProfileMasksAndLimits)
{
	srpt_dm_params p = params();
	std::string longid(100, 'x');
	uint8_t d[SRPT_DM_DATA_SIZE];

	p.vendor_id = 0xff123456;	// only 24 bits are sent
	p.subsys_vendor_id = 0xffabcdef;
	p.id_string = longid.c_str();
	p.service_conns = 0x1234;
	p.initiators_supported = 0x5678;
	srpt_dm_build_ioc_profile(d, &p);
	EXPECT_EQ(get_be32(&d[8]), 0x12345600u);
	EXPECT_EQ(get_be32(&d[20]), 0xabcdef00u);
	EXPECT_EQ(be16(&d[36]), 0x1234);
	EXPECT_EQ(be16(&d[38]), 0x5678);
	for (int i = 0; i < 63; i++)
		EXPECT_EQ(d[64 + i], 'x');
	EXPECT_EQ(d[127], 0) << "ID string always NUL-terminated";

	p.id_string = nullptr;
	srpt_dm_build_ioc_profile(d, &p);
	EXPECT_TRUE(all_zero(&d[64], 64));
}

// The ID string field as a string, and whether the rest of it is zero.
static std::string id_field(const char *f, bool *padded)
{
	size_t n = strnlen(f, SRPT_DM_ID_STRING_LEN);

	*padded = n < SRPT_DM_ID_STRING_LEN &&
		  all_zero(reinterpret_cast<const uint8_t *>(f) + n,
			   SRPT_DM_ID_STRING_LEN - n);
	return std::string(f, n);
}

TEST(DmAttr, IdStringRdmaCmPort)
{
	char f[SRPT_DM_ID_STRING_LEN];
	bool padded;

	// No listener: the description alone, as before.
	srpt_dm_id_string(f, "Linux SRP target ib_srpt 0.1.0", 0);
	EXPECT_EQ(id_field(f, &padded), "Linux SRP target ib_srpt 0.1.0");
	EXPECT_TRUE(padded);

	// The port as the last word, in decimal, without leading zeros.
	srpt_dm_id_string(f, "Linux SRP target ib_srpt 0.1.0", 5000);
	EXPECT_EQ(id_field(f, &padded),
		  "Linux SRP target ib_srpt 0.1.0 rdma_cm_port=5000");
	EXPECT_TRUE(padded);
	srpt_dm_id_string(f, "d", 1);
	EXPECT_EQ(id_field(f, &padded), "d rdma_cm_port=1");
	srpt_dm_id_string(f, "d", 65535);
	EXPECT_EQ(id_field(f, &padded), "d rdma_cm_port=65535");
	srpt_dm_id_string(f, "d", 10);
	EXPECT_EQ(id_field(f, &padded), "d rdma_cm_port=10");

	// No description: the word alone.
	srpt_dm_id_string(f, nullptr, 4420);
	EXPECT_EQ(id_field(f, &padded), "rdma_cm_port=4420");
	EXPECT_TRUE(padded);
	srpt_dm_id_string(f, "", 4420);
	EXPECT_EQ(id_field(f, &padded), "rdma_cm_port=4420");
	srpt_dm_id_string(f, nullptr, 0);
	EXPECT_TRUE(all_zero(reinterpret_cast<uint8_t *>(f), sizeof(f)));
}

TEST(DmAttr, IdStringPortNeverCut)
{
	char f[SRPT_DM_ID_STRING_LEN];
	bool padded;
	// A long package version (e.g. 0.1.0+git<date>.<n>.<hash>).
	std::string desc = "Linux SRP target ib_srpt 0.1.0+git20261204.123.0123abcd";
	std::string word = " rdma_cm_port=65535";

	ASSERT_GT(desc.size() + word.size(), 63u);
	srpt_dm_id_string(f, desc.c_str(), 65535);
	std::string s = id_field(f, &padded);
	EXPECT_TRUE(padded) << "NUL at byte 63";
	EXPECT_EQ(s.size(), 63u) << "the description fills what the word leaves";
	EXPECT_EQ(s, desc.substr(0, 63 - word.size()) + word);

	// Exactly full: 63 bytes with the word, no cut.
	std::string fits(63 - word.size(), 'y');
	srpt_dm_id_string(f, fits.c_str(), 65535);
	EXPECT_EQ(id_field(f, &padded), fits + word);
	EXPECT_TRUE(padded);
	// One byte more: the description loses one byte.
	std::string over = fits + "z";
	srpt_dm_id_string(f, over.c_str(), 65535);
	EXPECT_EQ(id_field(f, &padded), fits + word);

	// A cut that ends in spaces drops them: one space before the word.
	std::string spaced = std::string(40, 'a') + std::string(30, ' ');
	srpt_dm_id_string(f, spaced.c_str(), 5000);
	EXPECT_EQ(id_field(f, &padded), std::string(40, 'a') + " rdma_cm_port=5000");
	std::string blank(100, ' ');
	srpt_dm_id_string(f, blank.c_str(), 5000);
	EXPECT_EQ(id_field(f, &padded), "rdma_cm_port=5000");

	// Longer than the field without a port: cut to 63 as before.
	std::string longid(100, 'x');
	srpt_dm_id_string(f, longid.c_str(), 0);
	EXPECT_EQ(id_field(f, &padded), std::string(63, 'x'));
	EXPECT_TRUE(padded);
}

TEST(DmAttr, IOControllerProfileCarriesRdmaCmPort)
{
	srpt_dm_params p = params();

	p.rdma_cm_port = 5000;
	Answer a = ask(request(0x01, 0x0011, 1), p);
	const uint8_t *d = data_of(a);

	ASSERT_EQ(a.status, 0);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(&d[64])),
		  "ib_srpt test controller rdma_cm_port=5000");
	EXPECT_TRUE(all_zero(&d[64 + 41], 64 - 41)) << "ID string NUL padded";
	// Nothing else moves: the fields srp_daemon reads stay.
	EXPECT_EQ(get_be64(&d[0]), 0x0002c90300a1b2c3ull) << "GUID";
	EXPECT_EQ(be16(&d[28]), 0x0100) << "IOClass";
	EXPECT_EQ(d[54], 1) << "still one service entry";
	EXPECT_TRUE(all_zero(&d[55], 9)) << "reserved";
	EXPECT_TRUE(all_zero(&d[128], 192 - 128));
	// The service entry does not change with the RDMA/CM port either.
	Answer se = ask(request(0x01, 0x0012, 1u << 16), p);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(data_of(se))),
		  "SRP.T10:0002c90300a1b2c3");
	EXPECT_TRUE(all_zero(&data_of(se)[48], 192 - 48)) << "one entry only";
}

TEST(DmAttr, ServiceName)
{
	char name[SRPT_DM_SVC_NAME_LEN];

	srpt_dm_svc_name(name, 0x0002c90300a1b2c3ull);
	EXPECT_EQ(std::string(name), "SRP.T10:0002c90300a1b2c3");
	EXPECT_TRUE(all_zero(reinterpret_cast<uint8_t *>(name) + 24, 16));
	srpt_dm_svc_name(name, 0xfedcba9876543210ull);
	EXPECT_EQ(std::string(name), "SRP.T10:fedcba9876543210");
	srpt_dm_svc_name(name, 0);
	EXPECT_EQ(std::string(name), "SRP.T10:0000000000000000");
}

TEST(DmAttr, ServiceEntries)
{
	srpt_dm_params p = params();

	p.id_ext = 0x1122334455667788ull;
	p.service_id = 0x99aabbccddeeff00ull;
	// slot 1, entries 0..0
	Answer a = ask(request(0x01, 0x0012, 1u << 16), p);
	const uint8_t *d = data_of(a);
	char id_ext[17] = {};

	ASSERT_EQ(a.status, 0);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(d)),
		  "SRP.T10:1122334455667788");
	EXPECT_TRUE(all_zero(&d[24], 16)) << "name NUL padded to 40 bytes";
	EXPECT_EQ(get_be64(&d[40]), 0x99aabbccddeeff00ull) << "ServiceID";
	EXPECT_TRUE(all_zero(&d[48], 192 - 48)) << "entries 1..3 unused";
	// What srp_daemon does with the name.
	ASSERT_EQ(sscanf(reinterpret_cast<const char *>(d), "SRP.T10:%16s",
			 id_ext), 1);
	EXPECT_EQ(std::string(id_ext), "1122334455667788");
}

struct StatusCase {
	const char *what;
	uint8_t method;
	uint16_t attr;
	uint32_t mod;
	uint16_t status;
};

class DmStatus : public ::testing::TestWithParam<StatusCase> {};

TEST_P(DmStatus, Answer)
{
	const StatusCase &c = GetParam();
	Answer a = ask(request(c.method, c.attr, c.mod));

	ASSERT_EQ(a.rc, 0) << c.what;
	EXPECT_EQ(a.rsp.b[3], 0x81) << c.what;
	EXPECT_EQ(a.status, c.status) << c.what;
	if (c.status) {
		EXPECT_TRUE(all_zero(data_of(a), 192)) << c.what;
	}
	EXPECT_EQ(get_be32(&a.rsp.b[20]), c.mod) << "modifier echoed";
}

INSTANTIATE_TEST_SUITE_P(
	All, DmStatus,
	::testing::Values(
		StatusCase{ "Get ClassPortInfo", 0x01, 0x0001, 0, 0x0000 },
		StatusCase{ "ClassPortInfo modifier", 0x01, 0x0001, 1, 0x001c },
		StatusCase{ "Get IOUnitInfo", 0x01, 0x0010, 0, 0x0000 },
		StatusCase{ "IOUnitInfo modifier", 0x01, 0x0010, 2, 0x001c },
		StatusCase{ "IOC slot 1", 0x01, 0x0011, 1, 0x0000 },
		StatusCase{ "IOC slot 0", 0x01, 0x0011, 0, 0x001c },
		StatusCase{ "IOC slot 2 empty", 0x01, 0x0011, 2, 0x0100 },
		StatusCase{ "IOC slot 16 empty", 0x01, 0x0011, 16, 0x0100 },
		StatusCase{ "IOC slot 17", 0x01, 0x0011, 17, 0x001c },
		StatusCase{ "IOC slot in high bits", 0x01, 0x0011, 0x10001,
			    0x001c },
		StatusCase{ "svc slot 1 0..0", 0x01, 0x0012, 0x10000, 0x0000 },
		StatusCase{ "svc slot 0", 0x01, 0x0012, 0x00000, 0x001c },
		StatusCase{ "svc slot 17", 0x01, 0x0012, 0x110000, 0x001c },
		StatusCase{ "svc slot 5 empty", 0x01, 0x0012, 0x50000, 0x0100 },
		StatusCase{ "svc 0..1 past last", 0x01, 0x0012, 0x10100,
			    0x001c },
		StatusCase{ "svc 1..1 past last", 0x01, 0x0012, 0x10101,
			    0x001c },
		StatusCase{ "svc reversed 1..0", 0x01, 0x0012, 0x10001,
			    0x001c },
		StatusCase{ "svc 0..4 too long", 0x01, 0x0012, 0x10400,
			    0x001c },
		StatusCase{ "Get unknown attribute", 0x01, 0x0013, 0, 0x000c },
		StatusCase{ "Get Notice (not ours)", 0x01, 0x0002, 0, 0x000c },
		StatusCase{ "Set ClassPortInfo", 0x02, 0x0001, 0, 0x000c },
		StatusCase{ "Set IOUnitInfo", 0x02, 0x0010, 0, 0x000c },
		StatusCase{ "Set IOC profile", 0x02, 0x0011, 1, 0x000c },
		StatusCase{ "Set ServiceEntries", 0x02, 0x0012, 0x10000,
			    0x000c },
		StatusCase{ "Set unknown attribute", 0x02, 0x0099, 0, 0x000c },
		StatusCase{ "Send", 0x03, 0x0010, 0, 0x0008 },
		StatusCase{ "Trap", 0x05, 0x0010, 0, 0x0008 },
		StatusCase{ "GetTable", 0x12, 0x0010, 0, 0x0008 }),
	[](const ::testing::TestParamInfo<StatusCase> &info) {
		std::string n(info.param.what);

		for (char &ch : n)
			if (!isalnum(static_cast<unsigned char>(ch)))
				ch = '_';
		return n;
	});

TEST(DmRespond, BadVersions)
{
	EXPECT_EQ(ask(request(0x01, 0x0010, 0, 6, 2)).status, 0x0004);
	EXPECT_EQ(ask(request(0x01, 0x0010, 0, 6, 1, 2)).status, 0x0004);
	// Version is checked before the method.
	EXPECT_EQ(ask(request(0x03, 0x0010, 0, 6, 2)).status, 0x0004);
}

TEST(DmRespond, Dropped)
{
	srpt_dm_params p = params();
	Mad rsp;
	Mad m;

	memset(rsp.b, 0x5a, sizeof(rsp.b));
	m = request(0x81, 0x0010, 0);		// a response
	EXPECT_EQ(srpt_dm_respond(m.b, sizeof(m.b), &p, rsp.b), -EINVAL);
	m = request(0x07, 0x0010, 0);		// TrapRepress
	EXPECT_EQ(srpt_dm_respond(m.b, sizeof(m.b), &p, rsp.b), -EINVAL);
	m = request(0x01, 0x0010, 0, 0x03);	// SA class
	EXPECT_EQ(srpt_dm_respond(m.b, sizeof(m.b), &p, rsp.b), -EINVAL);
	m = request(0x01, 0x0010, 0);
	EXPECT_EQ(srpt_dm_respond(m.b, 23, &p, rsp.b), -EINVAL);
	EXPECT_EQ(srpt_dm_respond(nullptr, 256, &p, rsp.b), -EINVAL);
	for (uint8_t c : rsp.b)
		ASSERT_EQ(c, 0x5a) << "response untouched when dropped";
	// A header-only request is enough.
	EXPECT_EQ(srpt_dm_respond(m.b, 24, &p, rsp.b), 0);
}

TEST(DmParse, Fields)
{
	Mad m = request(0x02, 0xabcd, 0x01020304, 6, 1, 1);
	srpt_dm_request r;

	ASSERT_EQ(srpt_dm_parse_request(m.b, sizeof(m.b), &r), 0);
	EXPECT_EQ(r.base_version, 1);
	EXPECT_EQ(r.mgmt_class, 6);
	EXPECT_EQ(r.class_version, 1);
	EXPECT_EQ(r.method, 2);
	EXPECT_EQ(r.attr_id, 0xabcd);
	EXPECT_EQ(r.attr_mod, 0x01020304u);
}

// The dispatcher on its own overwrites the whole data area even on error.
TEST(DmDispatch, ClearsDataOnError)
{
	srpt_dm_params p = params();
	srpt_dm_request r = { 1, 6, 1, 0x01, 0x0011, 3 };
	uint8_t d[SRPT_DM_DATA_SIZE];

	memset(d, 0xee, sizeof(d));
	EXPECT_EQ(srpt_dm_dispatch(&r, &p, d), 0x0100);
	EXPECT_TRUE(all_zero(d, sizeof(d)));
}
