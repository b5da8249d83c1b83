// Port and ACL names: GUID, GID, IPv4 and IPv6 forms, canonical formatting
// and matching against port ids and IP addresses.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "srpt_names.h"
#include "srpt_name_format.h"

namespace {

std::string fmt(const srpt_name &n)
{
	char buf[64];
	int r = srpt_name_format(&n, buf, sizeof(buf));

	EXPECT_GT(r, 0);
	if (r < 0)
		return "<error>";
	EXPECT_EQ(size_t(r), strlen(buf));
	return buf;
}

// Parse, expecting success, and return the canonical text.
std::string canon(const char *s, srpt_name_kind kind)
{
	srpt_name n;

	EXPECT_EQ(0, srpt_name_parse(s, &n)) << s;
	EXPECT_EQ(n.kind, kind) << s;
	return fmt(n);
}

void expect_invalid(const char *s)
{
	srpt_name n;

	memset(&n, 0x5a, sizeof(n));
	EXPECT_EQ(-EINVAL, srpt_name_parse(s, &n)) << "'" << s << "'";
}

srpt_name parse_ok(const char *s)
{
	srpt_name n;

	EXPECT_EQ(0, srpt_name_parse(s, &n)) << s;
	return n;
}

void expect_id(const srpt_name &n, const uint8_t (&id)[16])
{
	EXPECT_EQ(0, memcmp(n.id, id, 16));
}

} // namespace

TEST(Names, Guid)
{
	srpt_name n = parse_ok("0002:c903:000f:2b64");
	const uint8_t id[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
				 0x00, 0x02, 0xc9, 0x03, 0x00, 0x0f, 0x2b, 0x64 };

	EXPECT_EQ(n.kind, SRPT_NAME_GUID);
	expect_id(n, id);
	EXPECT_EQ(canon("0002:C903:000F:2B64", SRPT_NAME_GUID),
		  "0002:c903:000f:2b64");
	EXPECT_EQ(canon("fe80:0000:0000:0001\n", SRPT_NAME_GUID),
		  "fe80:0000:0000:0001");
	// Leading zeros of a group may be left out (the in-tree driver's
	// sscanf("%hx:%hx:%hx:%hx") takes such names).
	EXPECT_EQ(canon("2:c903:f:2b64", SRPT_NAME_GUID),
		  "0002:c903:000f:2b64");
	EXPECT_EQ(canon("0:0:0:1", SRPT_NAME_GUID), "0000:0000:0000:0001");
}

TEST(Names, GuidInvalid)
{
	expect_invalid("0002:c903:000f");		// 3 groups
	expect_invalid("0002:c903:000f:2b64:0001");	// 5 groups
	expect_invalid("0002:c903:000f:2b645");		// 5-digit group
	expect_invalid("00002:c903:000f:2b64");		// 5-digit group
	expect_invalid("0002:c903:000f:2b6g");		// non-hex
	expect_invalid("0002-c903-000f-2b64");
	expect_invalid("0002:c903:000f:2b64:");
	expect_invalid(":0002:c903:000f:2b64");
}

TEST(Names, Gid)
{
	srpt_name n = parse_ok("0xfe800000000000000002c903000f2b64");
	const uint8_t id[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				 0x00, 0x02, 0xc9, 0x03, 0x00, 0x0f, 0x2b, 0x64 };

	EXPECT_EQ(n.kind, SRPT_NAME_GID);
	expect_id(n, id);
	EXPECT_EQ(canon("0xFE800000000000000002C903000F2B64\n", SRPT_NAME_GID),
		  "0xfe800000000000000002c903000f2b64");
}

// The in-tree driver's initiator port ID forms: with or without "0x" (or
// "0X"), and shorter hex strings of an even length, left-padded with zeros.
TEST(Names, PortIdForms)
{
	const uint8_t gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				  0x00, 0x02, 0xc9, 0x03, 0x00, 0x0f, 0x2b, 0x64 };
	const uint8_t guid_only[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x02,
					0xc9, 0x03, 0x00, 0x0f, 0x2b, 0x64 };
	const uint8_t low[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
				  0, 0, 0, 0, 0, 0, 0, 0x12 };

	expect_id(parse_ok("fe800000000000000002c903000f2b64"), gid);
	expect_id(parse_ok("0Xfe800000000000000002c903000f2b64"), gid);
	expect_id(parse_ok("0002c903000f2b64"), guid_only);
	expect_id(parse_ok("0x0002c903000f2b64"), guid_only);
	expect_id(parse_ok("12"), low);
	expect_id(parse_ok("0x12"), low);
	EXPECT_EQ(canon("0002c903000f2b64", SRPT_NAME_GID),
		  "0x00000000000000000002c903000f2b64");
	// Compared as the 16-byte port ID (id_ext and GUID) it is.
	const uint8_t port[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x02,
				   0xc9, 0x03, 0x00, 0x0f, 0x2b, 0x64 };
	srpt_name n = parse_ok("2c903000f2b64a");	// 14 digits: no match
	EXPECT_FALSE(srpt_name_matches_port_id(&n, port));
	n = parse_ok("0002c903000f2b64");
	EXPECT_TRUE(srpt_name_matches_port_id(&n, port));
}

TEST(Names, GidInvalid)
{
	expect_invalid("0xfe800000000000000002c903000f2b6");	// 31 digits
	expect_invalid("0xfe800000000000000002c903000f2b640");	// 33 digits
	expect_invalid("0xfe800000000000000002c903000f2b6400");	// 34 digits
	expect_invalid("0xfe800000000000000002c903000f2b6z");	// non-hex
	expect_invalid("0x");
	expect_invalid("0x1");
	expect_invalid("123");
	expect_invalid("0x fe800000000000000002c903000f2b6");
	expect_invalid("x12");
}

TEST(Names, NewlineTolerance)
{
	EXPECT_EQ(canon("10.1.2.3\n", SRPT_NAME_IPV4), "10.1.2.3");
	EXPECT_EQ(canon("fe80::1\n", SRPT_NAME_IPV6), "fe80::1");
	expect_invalid("10.1.2.3\n\n");
	expect_invalid("\n");
	expect_invalid("");
	expect_invalid("10.1.2.3\r\n");
	expect_invalid(" 10.1.2.3");
	expect_invalid("10.1.2.3 ");
	expect_invalid("10.1.2.3\n ");
}

TEST(Names, NullArguments)
{
	srpt_name n;
	char buf[8];

	EXPECT_EQ(-EINVAL, srpt_name_parse(nullptr, &n));
	EXPECT_EQ(-EINVAL, srpt_name_parse("1.2.3.4", nullptr));
	EXPECT_EQ(-EINVAL, srpt_name_format(nullptr, buf, sizeof(buf)));
}

TEST(Names, Ipv4)
{
	srpt_name n = parse_ok("192.168.1.10");
	const uint8_t id[16] = { 192, 168, 1, 10 };

	EXPECT_EQ(n.kind, SRPT_NAME_IPV4);
	expect_id(n, id);
	EXPECT_EQ(canon("0.0.0.0", SRPT_NAME_IPV4), "0.0.0.0");
	EXPECT_EQ(canon("255.255.255.255", SRPT_NAME_IPV4), "255.255.255.255");
	EXPECT_EQ(canon("1.20.100.0", SRPT_NAME_IPV4), "1.20.100.0");
}

TEST(Names, Ipv4Invalid)
{
	expect_invalid("256.1.1.1");
	expect_invalid("1.1.1.256");
	expect_invalid("1.2.3");
	expect_invalid("1.2.3.4.5");
	expect_invalid("01.2.3.4");
	expect_invalid("1.2.3.00");
	expect_invalid("1.2.3.010");
	expect_invalid("+1.2.3.4");
	expect_invalid("1.+2.3.4");
	expect_invalid("1.2.3.-4");
	expect_invalid("1..2.3");
	expect_invalid("1.2.3.4.");
	expect_invalid(".1.2.3.4");
	expect_invalid("1000.1.1.1");
	expect_invalid("0001.1.1.1");
	expect_invalid("1.2.3.4a");
	expect_invalid("1.2.3.0x4");
}

TEST(Names, Ipv6)
{
	srpt_name n = parse_ok("2001:db8::ff00:42:8329");
	const uint8_t id[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				 0, 0, 0xff, 0x00, 0x00, 0x42, 0x83, 0x29 };

	EXPECT_EQ(n.kind, SRPT_NAME_IPV6);
	expect_id(n, id);
	n = parse_ok("2001:0db8:0000:0000:0000:ff00:0042:8329");
	expect_id(n, id);

	const uint8_t mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				     192, 0, 2, 1 };
	n = parse_ok("::ffff:192.0.2.1");
	EXPECT_EQ(n.kind, SRPT_NAME_IPV6);
	expect_id(n, mapped);

	const uint8_t zero[16] = {};
	expect_id(parse_ok("::"), zero);
	const uint8_t one[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				  1 };
	expect_id(parse_ok("::1"), one);
	const uint8_t lead[16] = { 0, 1 };
	expect_id(parse_ok("1::"), lead);
	const uint8_t all[16] = { 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6,
				  1, 2, 3, 4 };
	expect_id(parse_ok("1:2:3:4:5:6:1.2.3.4"), all);
	const uint8_t seven[16] = { 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7,
				    0, 0 };
	expect_id(parse_ok("1:2:3:4:5:6:7::"), seven);
	const uint8_t back[16] = { 0, 0, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7,
				   0, 8 };
	expect_id(parse_ok("::2:3:4:5:6:7:8"), back);
	expect_id(parse_ok("0:2:3:4:5:6:7:8"), back);
}

TEST(Names, Ipv6Invalid)
{
	expect_invalid("1::2::3");		// two "::"
	expect_invalid("::1::");
	expect_invalid("1:2:3:4:5:6:7:8:9");	// too many groups
	expect_invalid("1:2:3:4:5:6:7:8::");
	expect_invalid("::1:2:3:4:5:6:7:8");
	expect_invalid("1:2:3:4:5:6:7::8");	// "::" must hide a group
	expect_invalid("1:2:3:4:5:6:7");	// too few groups
	expect_invalid(":1:2:3:4:5:6:7:8");
	expect_invalid("1:2:3:4:5:6:7:8:");
	expect_invalid(":::");
	expect_invalid("1:::2");
	expect_invalid(":1::2");
	expect_invalid("1::2:");
	expect_invalid("12345::");		// 5 hex digits
	expect_invalid("g::1");
	expect_invalid("fe80::1%eth0");		// zone id
	expect_invalid("1:2:3:4:5:6:7:1.2.3.4");	// IPv4 tail = 9 groups
	expect_invalid("::1.2.3");
	expect_invalid("::256.1.1.1");
	expect_invalid("::1.2.3.04");
	expect_invalid("::1.2.3.4:5");		// IPv4 not last
	expect_invalid("::1.2.3.4.5");
	expect_invalid("1.2.3.4::");
	expect_invalid("::ffff:1.2.3.4\n\n");
	expect_invalid("[::1]");
}

TEST(Names, Ipv6Canonical)
{
	const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "2001:0DB8:0000:0000:0000:FF00:0042:8329",
		  "2001:db8::ff00:42:8329" },
		{ "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1" },	// first run
		{ "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1" },	// no 1-group ::
		{ "0:0:0:0:0:0:0:0", "::" },
		{ "0:0:0:0:0:0:0:1", "::1" },
		{ "1:0:0:0:0:0:0:0", "1::" },
		{ "1:0:0:2:0:0:0:3", "1:0:0:2::3" },			// longest run
		{ "1:0:2:0:0:3:0:0", "1:0:2::3:0:0" },
		{ "0:0:1:0:0:0:0:0", "0:0:1::" },
		{ "::FFFF:192.0.2.1", "::ffff:192.0.2.1" },
		{ "0:0:0:0:0:ffff:c000:0201", "::ffff:192.0.2.1" },
		{ "::1.2.3.4", "::102:304" },
		{ "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304" },
		{ "fe80:0:0:0:0:0:0:1", "fe80::1" },
		{ "FE80::0001", "fe80::1" },
		{ "abcd:ef01:2345:6789:abcd:ef01:2345:6789",
		  "abcd:ef01:2345:6789:abcd:ef01:2345:6789" },
	};

	for (const auto &c : cases) {
		EXPECT_EQ(canon(c.in, SRPT_NAME_IPV6), c.out) << c.in;
		// The canonical form is a fixed point.
		EXPECT_EQ(canon(c.out, SRPT_NAME_IPV6), c.out) << c.out;
	}
}

TEST(Names, RoundTripPseudoRandom)
{
	uint32_t x = 12345;
	auto next = [&x]() {
		x = x * 1103515245u + 12345u;
		return uint8_t(x >> 16);
	};

	for (int iter = 0; iter < 2000; iter++) {
		srpt_name n, m;

		memset(&n, 0, sizeof(n));
		n.kind = srpt_name_kind(SRPT_NAME_GUID + iter % 4);
		for (int i = 0; i < 16; i++) {
			// Plenty of zero groups to exercise "::".
			n.id[i] = (next() & 3) ? 0 : next();
		}
		if (n.kind == SRPT_NAME_GUID)
			memset(n.id, 0, 8);
		if (n.kind == SRPT_NAME_IPV4)
			memset(n.id + 4, 0, 12);
		std::string s = fmt(n);
		ASSERT_EQ(0, srpt_name_parse(s.c_str(), &m)) << s;
		if (n.kind == SRPT_NAME_IPV6 && m.kind != SRPT_NAME_IPV6)
			ADD_FAILURE() << s;
		EXPECT_EQ(m.kind, n.kind) << s;
		EXPECT_EQ(0, memcmp(m.id, n.id, 16)) << s;
		EXPECT_EQ(fmt(m), s);
	}
}

TEST(Names, FormatBufferSize)
{
	srpt_name n = parse_ok("10.0.0.1");
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(-ENOSPC, srpt_name_format(&n, buf, 8));	// needs 9
	EXPECT_EQ(buf[0], '\0');
	EXPECT_EQ(buf[1], 'x');
	EXPECT_EQ(8, srpt_name_format(&n, buf, 9));
	EXPECT_STREQ(buf, "10.0.0.1");
	EXPECT_EQ(-ENOSPC, srpt_name_format(&n, buf, 0));

	n = parse_ok("0x00000000000000000000000000000001");
	char gid[35];
	EXPECT_EQ(-ENOSPC, srpt_name_format(&n, gid, 34));
	EXPECT_EQ(34, srpt_name_format(&n, gid, 35));

	n.kind = srpt_name_kind(9);
	EXPECT_EQ(-EINVAL, srpt_name_format(&n, buf, sizeof(buf)));
}

TEST(Names, MatchesPortId)
{
	const uint8_t port[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				   0x00, 0x02, 0xc9, 0x03, 0x00, 0x0f, 0x2b, 0x64 };
	uint8_t other[16];

	srpt_name gid = parse_ok("0xfe800000000000000002c903000f2b64");
	srpt_name guid = parse_ok("0002:c903:000f:2b64");
	srpt_name ip4 = parse_ok("0.2.201.3");
	srpt_name ip6 = parse_ok("fe80::2:c903:f:2b64");

	EXPECT_TRUE(srpt_name_matches_port_id(&gid, port));
	EXPECT_TRUE(srpt_name_matches_port_id(&guid, port));
	EXPECT_FALSE(srpt_name_matches_port_id(&ip4, port));
	EXPECT_FALSE(srpt_name_matches_port_id(&ip6, port));

	// A different subnet prefix / id_ext: only the GUID form still matches.
	memcpy(other, port, 16);
	other[0] = 0x00;
	other[7] = 0x01;
	EXPECT_FALSE(srpt_name_matches_port_id(&gid, other));
	EXPECT_TRUE(srpt_name_matches_port_id(&guid, other));

	// Low byte differs: nothing matches.
	memcpy(other, port, 16);
	other[15] ^= 1;
	EXPECT_FALSE(srpt_name_matches_port_id(&gid, other));
	EXPECT_FALSE(srpt_name_matches_port_id(&guid, other));
	memcpy(other, port, 16);
	other[8] ^= 0x80;
	EXPECT_FALSE(srpt_name_matches_port_id(&guid, other));
}

// LIO lists a new node ACL before the fabric parses its name, so a login
// can see the zeroed name: it must match no initiator, whatever its port ID
// or address.
TEST(Names, ZeroedNameMatchesNothing)
{
	const uint8_t zero[16] = {};
	const uint8_t low_zero[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 0 };
	srpt_name n;

	memset(&n, 0, sizeof(n));
	EXPECT_EQ(n.kind, SRPT_NAME_NONE);
	EXPECT_FALSE(srpt_name_matches_port_id(&n, zero));
	EXPECT_FALSE(srpt_name_matches_port_id(&n, low_zero));
	EXPECT_FALSE(srpt_name_matches_ip(&n, zero, 4));
	EXPECT_FALSE(srpt_name_matches_ip(&n, zero, 16));
	char buf[64];
	EXPECT_EQ(-EINVAL, srpt_name_format(&n, buf, sizeof(buf)));
	// Every parsed name has a kind.
	EXPECT_NE(parse_ok("0000:0000:0000:0000").kind, SRPT_NAME_NONE);
}

TEST(Names, MatchesIp)
{
	const uint8_t v4[4] = { 192, 0, 2, 1 };
	const uint8_t v4b[4] = { 192, 0, 2, 2 };
	const uint8_t mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				     192, 0, 2, 1 };
	const uint8_t compat[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				     192, 0, 2, 1 };
	const uint8_t v6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				 0, 0, 0, 0, 0, 0, 0, 1 };

	srpt_name n4 = parse_ok("192.0.2.1");
	srpt_name n6 = parse_ok("fe80::1");
	srpt_name nm = parse_ok("::ffff:192.0.2.1");
	srpt_name guid = parse_ok("0000:0000:0000:0001");
	srpt_name gid = parse_ok("0xfe800000000000000000000000000001");

	EXPECT_TRUE(srpt_name_matches_ip(&n4, v4, 4));
	EXPECT_FALSE(srpt_name_matches_ip(&n4, v4b, 4));
	EXPECT_TRUE(srpt_name_matches_ip(&n4, mapped, 16));
	EXPECT_FALSE(srpt_name_matches_ip(&n4, compat, 16));
	EXPECT_FALSE(srpt_name_matches_ip(&n4, v6, 16));
	EXPECT_FALSE(srpt_name_matches_ip(&n4, v4, 3));
	EXPECT_FALSE(srpt_name_matches_ip(&n4, mapped, 15));
	EXPECT_FALSE(srpt_name_matches_ip(&n4, nullptr, 4));

	EXPECT_TRUE(srpt_name_matches_ip(&n6, v6, 16));
	EXPECT_FALSE(srpt_name_matches_ip(&n6, mapped, 16));
	EXPECT_FALSE(srpt_name_matches_ip(&n6, v4, 4));

	EXPECT_TRUE(srpt_name_matches_ip(&nm, mapped, 16));
	EXPECT_TRUE(srpt_name_matches_ip(&nm, v4, 4));
	EXPECT_FALSE(srpt_name_matches_ip(&nm, v4b, 4));

	// IB names never match an IP address, even with equal bytes.
	EXPECT_FALSE(srpt_name_matches_ip(&guid, v6, 16));
	EXPECT_FALSE(srpt_name_matches_ip(&gid, v6, 16));
}

TEST(Names, KindDetection)
{
	// Same length as a GUID but with a "::" it is an IPv6 address.
	EXPECT_EQ(parse_ok("1111:2222::3333:4").kind, SRPT_NAME_IPV6);
	EXPECT_EQ(parse_ok("1111:2222:3333:4444").kind, SRPT_NAME_GUID);
	EXPECT_EQ(parse_ok("1:2:3:4:5:6:7:8").kind, SRPT_NAME_IPV6);
	EXPECT_EQ(parse_ok("0x0000000000000000000000000000abcd").kind,
		  SRPT_NAME_GID);
	EXPECT_EQ(parse_ok("1.2.3.4").kind, SRPT_NAME_IPV4);
}
