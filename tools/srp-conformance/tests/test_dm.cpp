// SPDX-License-Identifier: GPL-2.0-only
//
// srp-dm's device-management encoder and decoders (dm.cpp), byte by byte
// against IBA Vol 1 16.3 offsets; then the decoders run on answers built by
// the target's own src/srpt_dm.c, to check both sides agree.
#include <gtest/gtest.h>

#include <cstring>

#include "dm.h"
#include "srpt_dm.h"

using namespace srp::dm;

namespace {

void put16(uint8_t *p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}

void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = uint8_t(v >> (24 - 8 * i));
}

void put64(uint8_t *p, uint64_t v) {
  put32(p, uint32_t(v >> 32));
  put32(p + 4, uint32_t(v));
}

}  // namespace

TEST(DmClient, GetRequest) {
  auto m = get_request(0x0012, 0x00010300, 0x1122334455667788ull);
  ASSERT_EQ(m.size(), 256u);
  EXPECT_EQ(m[0], 1);     // base version
  EXPECT_EQ(m[1], 0x06);  // class
  EXPECT_EQ(m[2], 1);     // class version
  EXPECT_EQ(m[3], 0x01);  // Get
  EXPECT_EQ(m[4], 0);
  EXPECT_EQ(m[5], 0);
  const uint8_t tid[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
  EXPECT_EQ(memcmp(&m[8], tid, 8), 0);
  EXPECT_EQ(m[16], 0x00);
  EXPECT_EQ(m[17], 0x12);
  EXPECT_EQ(m[20], 0x00);
  EXPECT_EQ(m[21], 0x01);
  EXPECT_EQ(m[22], 0x03);
  EXPECT_EQ(m[23], 0x00);
  for (size_t i = 24; i < 256; i++) ASSERT_EQ(m[i], 0) << i;
}

TEST(DmClient, SvcEntriesModifier) {
  EXPECT_EQ(svc_entries_mod(1, 0, 0), 0x00010000u);
  EXPECT_EQ(svc_entries_mod(2, 4, 7), 0x00020704u);
}

TEST(DmClient, Header) {
  uint8_t m[24] = {};
  m[0] = 1;
  m[1] = 6;
  m[2] = 1;
  m[3] = 0x81;
  put16(&m[4], 0x0100);
  put64(&m[8], 0xa1a2a3a4a5a6a7a8ull);
  put16(&m[16], 0x0011);
  put32(&m[20], 7);
  auto h = decode_header(m, sizeof(m));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->method, 0x81);
  EXPECT_EQ(h->status, 0x0100);
  EXPECT_EQ(h->tid, 0xa1a2a3a4a5a6a7a8ull);
  EXPECT_EQ(h->attr_id, 0x0011);
  EXPECT_EQ(h->attr_mod, 7u);
  EXPECT_FALSE(decode_header(m, 23));
  EXPECT_EQ(status_name(0x0100), "no I/O controller in the slot");
  EXPECT_EQ(status_name(0x001c), "invalid attribute or modifier");
  EXPECT_EQ(status_name(0x1234), "status 0x1234");
}

TEST(DmClient, IouInfo) {
  uint8_t d[192] = {};
  put16(&d[0], 0x0007);
  d[2] = 5;
  d[3] = 0x03;
  d[4] = 0x10;  // slot 1 present, slot 2 empty
  d[5] = 0xf1;  // slot 3 no slot, slot 4 present
  d[6] = 0x20;  // slot 5 other value
  auto iou = decode_iou_info(d, sizeof(d));
  ASSERT_TRUE(iou);
  EXPECT_EQ(iou->change_id, 7);
  EXPECT_EQ(iou->max_controllers, 5);
  EXPECT_EQ(iou->flags, 0x03);
  ASSERT_EQ(iou->slots.size(), 5u);
  EXPECT_EQ(iou->slots[0], Slot::kPresent);
  EXPECT_EQ(iou->slots[1], Slot::kEmpty);
  EXPECT_EQ(iou->slots[2], Slot::kNone);
  EXPECT_EQ(iou->slots[3], Slot::kPresent);
  EXPECT_EQ(iou->slots[4], Slot::kOther);
  EXPECT_FALSE(decode_iou_info(d, 131));
  EXPECT_EQ(format_iou(*iou),
            "change_id: 0x0007\nmax_controllers: 5\n"
            "controller: slot 1 present\ncontroller: slot 4 present\n");
}

TEST(DmClient, IocProfile) {
  uint8_t d[192] = {};
  put64(&d[0], 0x0102030405060708ull);
  put32(&d[8], 0x00aabb00 | 0xcc);  // low byte reserved, ignored
  put32(&d[12], 0x11223344);
  put16(&d[16], 0x5566);
  put32(&d[20], 0x00ddee00);
  put32(&d[24], 0x778899aa);
  put16(&d[28], 0x0100);
  put16(&d[30], 0x609e);
  put16(&d[32], 0x0108);
  put16(&d[34], 0x0001);
  put16(&d[40], 128);
  d[43] = 16;
  put32(&d[44], 8260);
  put32(&d[48], 65536);
  d[52] = 0x2b;
  d[54] = 1;
  memcpy(&d[64], "an ID", 5);
  auto p = decode_ioc_profile(d, sizeof(d));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->guid, 0x0102030405060708ull);
  EXPECT_EQ(p->vendor_id, 0x00aabbu);
  EXPECT_EQ(p->device_id, 0x11223344u);
  EXPECT_EQ(p->device_version, 0x5566);
  EXPECT_EQ(p->subsys_vendor_id, 0x00ddeeu);
  EXPECT_EQ(p->subsys_id, 0x778899aau);
  EXPECT_EQ(p->io_class, 0x0100);
  EXPECT_EQ(p->io_subclass, 0x609e);
  EXPECT_EQ(p->protocol, 0x0108);
  EXPECT_EQ(p->protocol_version, 1);
  EXPECT_EQ(p->send_queue_depth, 128);
  EXPECT_EQ(p->rdma_read_depth, 16);
  EXPECT_EQ(p->send_size, 8260u);
  EXPECT_EQ(p->rdma_size, 65536u);
  EXPECT_EQ(p->op_cap_mask, 0x2b);
  EXPECT_EQ(p->num_svc_entries, 1);
  EXPECT_EQ(p->id_string, "an ID");
  EXPECT_FALSE(decode_ioc_profile(d, 127));

  // An ID string without NUL stops at the field end.
  memset(&d[64], 'z', 64);
  EXPECT_EQ(decode_ioc_profile(d, sizeof(d))->id_string, std::string(64, 'z'));

  std::string f = format_ioc(1, *p);
  EXPECT_NE(f.find("ioc[1].send_size: 8260\n"), std::string::npos);
  EXPECT_NE(f.find("ioc[1].guid: 0x0102030405060708\n"), std::string::npos);
  EXPECT_NE(f.find("ioc[1].io_class: 0x0100\n"), std::string::npos);
}

TEST(DmClient, ServiceEntries) {
  uint8_t d[192] = {};
  memcpy(&d[0], "SRP.T10:0002c90300a1b2c3", 24);
  put64(&d[40], 0x0002c90300a1b2c3ull);
  memcpy(&d[48], "other", 5);
  put64(&d[88], 42);
  auto v = decode_svc_entries(d, sizeof(d), 2);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].name, "SRP.T10:0002c90300a1b2c3");
  EXPECT_EQ(v[0].id, 0x0002c90300a1b2c3ull);
  EXPECT_EQ(v[1].name, "other");
  EXPECT_EQ(v[1].id, 42u);
  EXPECT_EQ(decode_svc_entries(d, sizeof(d), 9).size(), 4u);
  EXPECT_EQ(decode_svc_entries(d, 95, 4).size(), 1u);
  EXPECT_EQ(format_svc(0, v[0]),
            "service[0].name: SRP.T10:0002c90300a1b2c3\n"
            "service[0].id: 0x0002c90300a1b2c3\n"
            "service[0].id_ext: 0002c90300a1b2c3\n");
}

TEST(DmClient, SrpIdExt) {
  EXPECT_EQ(srp_id_ext("SRP.T10:0002C90300A1B2C3"), "0002C90300A1B2C3");
  EXPECT_FALSE(srp_id_ext("SRP.T10:0002c90300a1b2c"));
  EXPECT_FALSE(srp_id_ext("SRP.T10:0002c90300a1b2c3x"));
  EXPECT_FALSE(srp_id_ext("SRP.T10:0002c90300a1b2cg"));
  EXPECT_FALSE(srp_id_ext("SRP.T11:0002c90300a1b2c3"));
  EXPECT_FALSE(srp_id_ext(""));
}

TEST(DmClient, ParseGid) {
  auto g = parse_gid("fe80:0000:0000:0000:0002:c9ff:fea1:b2c3");
  ASSERT_TRUE(g);
  EXPECT_EQ((*g)[0], 0xfe);
  EXPECT_EQ((*g)[1], 0x80);
  EXPECT_EQ((*g)[15], 0xc3);
  EXPECT_TRUE(parse_gid("fe800000000000000002c9fffea1b2c3"));
  EXPECT_FALSE(parse_gid("fe80::1"));
  EXPECT_FALSE(parse_gid("fe800000000000000002c9fffea1b2cx"));
}

// The target's builders (src/srpt_dm.c) and this decoder agree.
TEST(DmClient, DecodesTargetAnswers) {
  srpt_dm_params p{};
  p.ioc_guid = p.id_ext = p.service_id = 0x0002c90300a1b2c3ull;
  p.vendor_id = 0x0002c9;
  p.send_queue_depth = 128;
  p.rdma_read_depth = 16;
  p.send_size = 8260;
  p.rdma_size = 65536;
  p.change_id = 1;
  p.id_string = "target";
  uint8_t rsp[256];

  auto req = get_request(kAttrIouInfo, 0, 1);
  ASSERT_EQ(srpt_dm_respond(req.data(), req.size(), &p, rsp), 0);
  EXPECT_EQ(decode_header(rsp, 256)->status, 0);
  auto iou = decode_iou_info(rsp + kDataOffset, kDataSize);
  ASSERT_EQ(iou->slots.size(), 16u);
  EXPECT_EQ(iou->slots[0], Slot::kPresent);
  for (size_t i = 1; i < 16; i++) EXPECT_EQ(iou->slots[i], Slot::kEmpty);

  req = get_request(kAttrIocProfile, 1, 2);
  ASSERT_EQ(srpt_dm_respond(req.data(), req.size(), &p, rsp), 0);
  auto ioc = decode_ioc_profile(rsp + kDataOffset, kDataSize);
  EXPECT_EQ(ioc->guid, 0x0002c90300a1b2c3ull);
  EXPECT_EQ(ioc->vendor_id, 0x0002c9u);
  EXPECT_EQ(ioc->io_class, kSrpIoClass);
  EXPECT_EQ(ioc->send_size, 8260u);
  EXPECT_EQ(ioc->id_string, "target");

  req = get_request(kAttrSvcEntries, svc_entries_mod(1, 0, 0), 3);
  ASSERT_EQ(srpt_dm_respond(req.data(), req.size(), &p, rsp), 0);
  auto v = decode_svc_entries(rsp + kDataOffset, kDataSize, 1);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(srp_id_ext(v[0].name), "0002c90300a1b2c3");
  EXPECT_EQ(v[0].id, 0x0002c90300a1b2c3ull);

  req = get_request(kAttrIocProfile, 2, 4);
  ASSERT_EQ(srpt_dm_respond(req.data(), req.size(), &p, rsp), 0);
  EXPECT_EQ(status_name(decode_header(rsp, 256)->status),
            "no I/O controller in the slot");
}
