// SPDX-License-Identifier: GPL-2.0-only
//
// Encoders write every field at its T10 offset, decoders read hand-made
// byte arrays, and the SCSI helpers build the CDBs SPC/SBC define.
#include <gtest/gtest.h>

#include "srp_iu.h"

using namespace srp;

namespace {

PortId seq_id(uint8_t start) {
  PortId p{};
  for (size_t i = 0; i < p.size(); i++) p[i] = static_cast<uint8_t>(start + i);
  return p;
}

LoginReq sample_login() {
  LoginReq r;
  r.tag = 0x0102030405060708ull;
  r.req_it_iu_len = 0x00002044;  // 8260
  r.req_buf_fmt = 0x0006;
  r.req_flags = 0x81;
  r.imm_data_offset = 0x0044;  // 68
  r.initiator_port_id = seq_id(0x10);
  r.target_port_id = seq_id(0x40);
  return r;
}

void expect_bytes(const Bytes &b, size_t off,
                  std::initializer_list<uint8_t> v) {
  size_t i = off;
  for (uint8_t x : v) {
    ASSERT_LT(i, b.size());
    EXPECT_EQ(b[i], x) << "byte " << i;
    i++;
  }
}

void expect_zero(const Bytes &b, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) EXPECT_EQ(b[i], 0) << "byte " << i;
}

}  // namespace

TEST(Bytes, BigEndianWriters) {
  Bytes b;
  put_be16(b, 0, 0x1234);
  put_be32(b, 2, 0xa1b2c3d4);
  put_be64(b, 6, 0x0102030405060708ull);
  ASSERT_EQ(b.size(), 14u);
  expect_bytes(b, 0,
               {0x12, 0x34, 0xa1, 0xb2, 0xc3, 0xd4, 1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(get_be16(ByteView(b), 0), 0x1234);
  EXPECT_EQ(get_be32(ByteView(b), 2), 0xa1b2c3d4u);
  EXPECT_EQ(get_be64(ByteView(b), 6), 0x0102030405060708ull);
}

TEST(Bytes, PortIdAndLun) {
  PortId p = make_port_id(0x1122334455667788ull, 0x99aabbccddeeff00ull);
  EXPECT_EQ(p[0], 0x11);
  EXPECT_EQ(p[7], 0x88);
  EXPECT_EQ(p[8], 0x99);
  EXPECT_EQ(p[15], 0x00);
  EXPECT_EQ(encode_lun(0), (Lun{0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encode_lun(5), (Lun{0, 5, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encode_lun(0x3fff), (Lun{0x3f, 0xff, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encode_lun(0x00010002ull), (Lun{0, 2, 0, 1, 0, 0, 0, 0}));
}

TEST(LoginReq, T10Layout) {
  Bytes b = encode_login_req(sample_login());
  ASSERT_EQ(b.size(), 64u);
  EXPECT_EQ(b[0], kOpLoginReq);
  expect_zero(b, 1, 8);
  expect_bytes(b, 8, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_bytes(b, 16, {0x00, 0x00, 0x20, 0x44});
  expect_zero(b, 20, 24);
  expect_bytes(b, 24, {0x00, 0x06, 0x81, 0x00, 0x00, 0x44, 0x00, 0x00});
  for (size_t i = 0; i < 16; i++) {
    EXPECT_EQ(b[32 + i], 0x10 + i);
    EXPECT_EQ(b[48 + i], 0x40 + i);
  }
}

TEST(LoginReq, RdmaCmLayout) {
  // struct srp_login_req_rdma: tag, req_buf_fmt, req_flags, opcode,
  // req_it_iu_len, initiator_port_id, target_port_id, imm_data_offset.
  Bytes b = encode_login_req_rdma(sample_login());
  ASSERT_EQ(b.size(), 56u);
  expect_bytes(b, 0, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_bytes(b, 8, {0x00, 0x06, 0x81, kOpLoginReq, 0x00, 0x00, 0x20, 0x44});
  for (size_t i = 0; i < 16; i++) {
    EXPECT_EQ(b[16 + i], 0x10 + i);
    EXPECT_EQ(b[32 + i], 0x40 + i);
  }
  expect_bytes(b, 48, {0x00, 0x44});
  expect_zero(b, 50, 56);
}

TEST(LoginReq, OpcodeOverride) {
  LoginReq r = sample_login();
  r.opcode = 0x02;
  EXPECT_EQ(encode_login_req(r)[0], 0x02);
  EXPECT_EQ(encode_login_req_rdma(r)[11], 0x02);
}

TEST(Cmd, NoData) {
  Bytes b = CmdBuilder()
                .tag(0x1122334455667788ull)
                .lun(encode_lun(3))
                .task_attr(kTaskOrdered)
                .sol_not(kSolNotSuccess)
                .cdb(cdb::test_unit_ready())
                .build();
  ASSERT_EQ(b.size(), 48u);
  EXPECT_EQ(b[0], kOpCmd);
  EXPECT_EQ(b[1], kSolNotSuccess);
  expect_zero(b, 2, 8);  // reserved, buf_fmt, counts
  expect_bytes(b, 8, {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88});
  expect_zero(b, 16, 20);
  expect_bytes(b, 20, {0, 3, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(b[28], 0);
  EXPECT_EQ(b[29], kTaskOrdered);
  EXPECT_EQ(b[30], 0);
  EXPECT_EQ(b[31], 0);  // add_cdb_len
  expect_zero(b, 32, 48);
}

TEST(Cmd, DirectDataIn) {
  Bytes b = CmdBuilder()
                .tag(1)
                .cdb(cdb::read16(0x10, 2))
                .direct(DataDir::kIn, {0xaabbccdd11223344ull, 0x5566, 1024})
                .build();
  ASSERT_EQ(b.size(), 64u);
  EXPECT_EQ(b[5], 0x01);  // data-in direct
  EXPECT_EQ(b[6], 0);
  EXPECT_EQ(b[7], 0);  // Linux initiator style count for direct
  EXPECT_EQ(b[32], 0x88);
  expect_bytes(b, 48, {0xaa, 0xbb, 0xcc, 0xdd, 0x11, 0x22, 0x33, 0x44});
  expect_bytes(b, 56, {0, 0, 0x55, 0x66, 0, 0, 0x04, 0x00});
}

TEST(Cmd, DirectDataOutCountOne) {
  Bytes b = CmdBuilder()
                .cdb(cdb::write16(0, 1))
                .direct(DataDir::kOut, {0x1000, 7, 512}, 1)
                .build();
  EXPECT_EQ(b[5], 0x10);
  EXPECT_EQ(b[6], 1);
  EXPECT_EQ(b[7], 0);
}

TEST(Cmd, IndirectTable) {
  std::vector<DirectDesc> d = {
      {0x1000, 0x11, 100}, {0x2000, 0x22, 200}, {0x3000, 0x33, 300}};
  Bytes b = CmdBuilder()
                .cdb(cdb::read16(0, 1))
                .indirect(DataDir::kIn, d, {0xfeed0000, 0x99, 0})
                .build();
  ASSERT_EQ(b.size(), 48u + 20u + 3u * 16u);
  EXPECT_EQ(b[5], 0x02);
  EXPECT_EQ(b[7], 3);
  // Table descriptor: va, key, len = 3 x 16.
  expect_bytes(b, 48,
               {0, 0, 0, 0, 0xfe, 0xed, 0, 0, 0, 0, 0, 0x99, 0, 0, 0, 48});
  // Total length 600.
  expect_bytes(b, 64, {0, 0, 0x02, 0x58});
  // Descriptor 2 (third) at 68 + 32.
  expect_bytes(b, 100,
               {0, 0, 0, 0, 0, 0, 0x30, 0x00, 0, 0, 0, 0x33, 0, 0, 0x01, 0x2c});
}

TEST(Cmd, IndirectDataOutUsesOutCount) {
  Bytes b = CmdBuilder()
                .cdb(cdb::write16(0, 1))
                .indirect(DataDir::kOut, {{1, 2, 3}, {4, 5, 6}})
                .build();
  EXPECT_EQ(b[5], 0x20);
  EXPECT_EQ(b[6], 2);
  EXPECT_EQ(b[7], 0);
}

TEST(Cmd, ImmediateData) {
  Bytes data = {0xde, 0xad, 0xbe, 0xef, 0x01};
  Bytes b = CmdBuilder()
                .cdb(cdb::write16(9, 1))
                .immediate(data, kLinuxImmDataOffset)
                .build();
  ASSERT_EQ(b.size(), 68u + 5u);
  EXPECT_EQ(b[5], 0x30);  // data-out immediate
  EXPECT_EQ(b[6], 0);
  expect_bytes(b, 48, {0, 0, 0, 5});  // srp_imm_buf at the descriptor position
  expect_zero(b, 52, 68);             // padding up to imm_data_offset
  expect_bytes(b, 68, {0xde, 0xad, 0xbe, 0xef, 0x01});
}

TEST(Cmd, ImmediateAtOffset52) {
  Bytes b = CmdBuilder().cdb(cdb::write16(0, 1)).immediate({1, 2}, 52).build();
  ASSERT_EQ(b.size(), 54u);
  expect_bytes(b, 48, {0, 0, 0, 2, 1, 2});
}

TEST(Cmd, AdditionalCdb) {
  Bytes c(22);
  for (size_t i = 0; i < c.size(); i++) c[i] = static_cast<uint8_t>(i + 1);
  CmdBuilder cb;
  cb.cdb(c).direct(DataDir::kIn, {0x1234, 1, 16});
  EXPECT_EQ(cb.desc_offset(), 56u);
  Bytes b = cb.build();
  ASSERT_EQ(b.size(), 48u + 8u + 16u);
  EXPECT_EQ(b[31], 8);  // 6 extra bytes padded to 8
  for (size_t i = 0; i < 16; i++) EXPECT_EQ(b[32 + i], i + 1);
  expect_bytes(b, 48, {17, 18, 19, 20, 21, 22, 0, 0});
  expect_bytes(b, 56, {0, 0, 0, 0, 0, 0, 0x12, 0x34});
}

TEST(Cmd, RawOverrides) {
  Bytes b = CmdBuilder()
                .cdb(cdb::read16(0, 1))
                .indirect(DataDir::kIn, {{1, 2, 3}, {4, 5, 6}})
                .buf_fmt_raw(0x11)
                .out_count_raw(9)
                .in_count_raw(8)
                .add_cdb_len_raw(252)
                .table_len_raw(40)
                .total_len_raw(0xffffffff)
                .opcode_raw(0x7f)
                .build();
  EXPECT_EQ(b[0], 0x7f);
  EXPECT_EQ(b[5], 0x11);
  EXPECT_EQ(b[6], 9);
  EXPECT_EQ(b[7], 8);
  EXPECT_EQ(b[31], 252);
  expect_bytes(b, 60, {0, 0, 0, 40, 0xff, 0xff, 0xff, 0xff});
  // Descriptors stay where the consistent layout put them.
  expect_bytes(b, 68, {0, 0, 0, 0, 0, 0, 0, 1});
}

TEST(Cmd, ImmLenOverrideAndLength) {
  Bytes b = CmdBuilder()
                .cdb(cdb::write16(0, 1))
                .immediate(Bytes(10, 0xaa), 68)
                .imm_len_raw(0xfffffff0)
                .build();
  expect_bytes(b, 48, {0xff, 0xff, 0xff, 0xf0});
  Bytes s = CmdBuilder().cdb(cdb::test_unit_ready()).length_raw(20).build();
  EXPECT_EQ(s.size(), 20u);
  Bytes l = CmdBuilder().cdb(cdb::test_unit_ready()).length_raw(192).build();
  ASSERT_EQ(l.size(), 192u);
  expect_zero(l, 48, 192);
}

TEST(TskMgmt, Layout) {
  TskMgmt t;
  t.tag = 0x0a0b0c0d0e0f1011ull;
  t.lun = encode_lun(1);
  t.function = kTmfLunReset;
  t.task_tag = 0x2122232425262728ull;
  t.sol_not = kSolNotFailure;
  Bytes b = encode_tsk_mgmt(t);
  ASSERT_EQ(b.size(), 48u);
  EXPECT_EQ(b[0], kOpTskMgmt);
  EXPECT_EQ(b[1], kSolNotFailure);
  expect_zero(b, 2, 8);
  expect_bytes(b, 8, {0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11});
  expect_zero(b, 16, 20);
  expect_bytes(b, 20, {0, 1, 0, 0, 0, 0, 0, 0});
  expect_zero(b, 28, 30);
  EXPECT_EQ(b[30], kTmfLunReset);
  EXPECT_EQ(b[31], 0);
  expect_bytes(b, 32, {0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28});
  expect_zero(b, 40, 48);
}

TEST(SixteenByteIus, Layout) {
  struct {
    Bytes b;
    uint8_t op;
  } cases[] = {{encode_i_logout(0x55), kOpILogout},
               {encode_cred_rsp(0x55), kOpCredRsp},
               {encode_aer_rsp(0x55), kOpAerRsp}};
  for (auto &c : cases) {
    ASSERT_EQ(c.b.size(), 16u);
    EXPECT_EQ(c.b[0], c.op);
    expect_zero(c.b, 1, 15);
    EXPECT_EQ(c.b[15], 0x55);
  }
  Bytes raw = encode_raw(ByteView(cases[0].b));
  EXPECT_EQ(raw, cases[0].b);
}

TEST(Decode, LoginRsp) {
  Bytes b(52, 0);
  b[0] = kOpLoginRsp;
  put_be32(b, 4, 128);
  put_be64(b, 8, 0x1122334455667788ull);
  put_be32(b, 16, 8260);
  put_be32(b, 20, 256);
  put_be16(b, 24, 6);
  b[26] = 0x81;
  auto r = decode_login_rsp(ByteView(b));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->req_lim_delta, 128);
  EXPECT_EQ(r->tag, 0x1122334455667788ull);
  EXPECT_EQ(r->max_it_iu_len, 8260u);
  EXPECT_EQ(r->max_ti_iu_len, 256u);
  EXPECT_EQ(r->buf_fmt, 6);
  EXPECT_EQ(r->multichannel_result(), 1);
  EXPECT_TRUE(r->immediate());

  std::string why;
  b.resize(51);
  EXPECT_FALSE(decode_login_rsp(ByteView(b), &why));
  EXPECT_NE(why.find("51 bytes"), std::string::npos);
  b.resize(52);
  b[0] = kOpLoginRej;
  EXPECT_FALSE(decode_login_rsp(ByteView(b), &why));
  EXPECT_NE(why.find("SRP_LOGIN_REJ"), std::string::npos);
}

TEST(Decode, LoginRej) {
  Bytes b(148, 0);  // as it comes with an IB REJ
  b[0] = kOpLoginRej;
  put_be32(b, 4, kRejItIuLenTooLarge);
  put_be64(b, 8, 42);
  put_be16(b, 24, 6);
  auto r = decode_login_rej(ByteView(b));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, 0x10002u);
  EXPECT_EQ(r->tag, 42u);
  EXPECT_EQ(r->buf_fmt, 6);
  EXPECT_EQ(reject_reason_name(r->reason), "0x10002 (IT IU length too large)");
}

TEST(Decode, RspWithSenseAndResponseData) {
  Bytes b(36, 0);
  b[0] = kOpRsp;
  b[1] = 1;
  put_be32(b, 4, 3);
  put_be64(b, 8, 7);
  b[18] = kRspFlagRspValid | kRspFlagSnsValid | kRspFlagDiUnder;
  b[19] = kStatusCheckCondition;
  put_be32(b, 20, 0);
  put_be32(b, 24, 60);
  put_be32(b, 28, 18);
  put_be32(b, 32, 4);
  b.insert(b.end(), {0, 0, 0, 0x04});
  Bytes sense(18, 0);
  sense[0] = 0x70;
  sense[2] = 0x05;
  sense[7] = 10;
  sense[12] = 0x0e;
  sense[13] = 0x03;
  b.insert(b.end(), sense.begin(), sense.end());
  auto r = decode_rsp(ByteView(b));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sol_not, 1);
  EXPECT_EQ(r->req_lim_delta, 3);
  EXPECT_EQ(r->tag, 7u);
  EXPECT_EQ(r->status, kStatusCheckCondition);
  EXPECT_EQ(r->data_in_res_cnt, 60u);
  EXPECT_EQ(r->tmf_code(), std::optional<uint8_t>(0x04));
  ASSERT_EQ(r->sense.size(), 18u);
  auto s = decode_sense(ByteView(r->sense));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->key, 5);
  EXPECT_EQ(s->asc, 0x0e);
  EXPECT_EQ(s->ascq, 0x03);
  EXPECT_EQ(sense_text(*s), "ILLEGAL REQUEST 0E/03");
}

TEST(Decode, RspLengthsChecked) {
  Bytes b(40, 0);
  b[0] = kOpRsp;
  b[18] = kRspFlagSnsValid;
  put_be32(b, 28, 5);  // 5 bytes of sense, 4 present
  std::string why;
  EXPECT_FALSE(decode_rsp(ByteView(b), &why));
  EXPECT_NE(why.find("sense data length"), std::string::npos);
  b[18] = kRspFlagRspValid;
  put_be32(b, 32, 0xffffffff);  // must not wrap
  EXPECT_FALSE(decode_rsp(ByteView(b), &why));
  // Without the valid flags the lengths are not used.
  b[18] = 0;
  auto r = decode_rsp(ByteView(b));
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->sense.empty());
  EXPECT_FALSE(r->tmf_code());
  b.resize(35);
  EXPECT_FALSE(decode_rsp(ByteView(b)));
}

TEST(Decode, CredReqTLogoutAerReq) {
  Bytes c(16, 0);
  c[0] = kOpCredReq;
  c[1] = 2;
  put_be32(c, 4, 5);
  put_be64(c, 8, 99);
  auto cr = decode_cred_req(ByteView(c));
  ASSERT_TRUE(cr);
  EXPECT_EQ(cr->sol_not, 2);
  EXPECT_EQ(cr->req_lim_delta, 5);
  EXPECT_EQ(cr->tag, 99u);

  Bytes t(16, 0);
  t[0] = kOpTLogout;
  put_be32(t, 4, 0x10000);
  put_be64(t, 8, 3);
  auto tl = decode_t_logout(ByteView(t));
  ASSERT_TRUE(tl);
  EXPECT_EQ(tl->reason, 0x10000u);
  EXPECT_EQ(tl->tag, 3u);
  EXPECT_FALSE(decode_t_logout(ByteView(c)));

  Bytes a(36, 0);
  a[0] = kOpAerReq;
  put_be32(a, 4, 1);
  put_be64(a, 8, 4);
  a[21] = 2;
  put_be32(a, 28, 3);
  a.insert(a.end(), {0x70, 0, 6});
  auto ar = decode_aer_req(ByteView(a));
  ASSERT_TRUE(ar);
  EXPECT_EQ(ar->lun, encode_lun(2));
  EXPECT_EQ(ar->sense.size(), 3u);
  a.pop_back();
  EXPECT_FALSE(decode_aer_req(ByteView(a)));
}

TEST(Sense, DescriptorFormat) {
  Bytes s = {0x72, 0x06, 0x29, 0x03, 0, 0, 0, 0};
  auto d = decode_sense(ByteView(s));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->key, kSenseUnitAttention);
  EXPECT_EQ(d->asc, 0x29);
  EXPECT_EQ(d->ascq, 0x03);
  Bytes junk = {0x00, 0x05};
  EXPECT_FALSE(decode_sense(ByteView(junk)));
}

TEST(Scsi, Cdbs) {
  EXPECT_EQ(cdb::test_unit_ready(), Bytes(6, 0));
  EXPECT_EQ(cdb::inquiry(36), (Bytes{0x12, 0, 0, 0, 36, 0}));
  EXPECT_EQ(cdb::inquiry(0x1ff, true, 0x80),
            (Bytes{0x12, 1, 0x80, 1, 0xff, 0}));
  Bytes rc = cdb::read_capacity16(32);
  ASSERT_EQ(rc.size(), 16u);
  EXPECT_EQ(rc[0], 0x9e);
  EXPECT_EQ(rc[1], 0x10);
  expect_bytes(rc, 10, {0, 0, 0, 32});
  Bytes r = cdb::read16(0x0102030405060708ull, 0x11223344);
  ASSERT_EQ(r.size(), 16u);
  EXPECT_EQ(r[0], 0x88);
  expect_bytes(r, 2, {1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44, 0, 0});
  Bytes w = cdb::write16(1, 2);
  EXPECT_EQ(w[0], 0x8a);
  expect_bytes(w, 2, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2});
  Bytes rl = cdb::report_luns(4096);
  ASSERT_EQ(rl.size(), 12u);
  EXPECT_EQ(rl[0], 0xa0);
  expect_bytes(rl, 6, {0, 0, 0x10, 0});
}

TEST(Scsi, DecodeData) {
  Bytes cap(32, 0);
  put_be64(cap, 0, 2047);
  put_be32(cap, 8, 4096);
  auto c = decode_read_capacity16(ByteView(cap));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->last_lba, 2047u);
  EXPECT_EQ(c->block_size, 4096u);

  Bytes inq(36, ' ');
  inq[0] = 0x00;
  inq[4] = 31;
  std::string v = "LIO-ORG ";
  std::string p = "disk0           ";
  std::copy(v.begin(), v.end(), inq.begin() + 8);
  std::copy(p.begin(), p.end(), inq.begin() + 16);
  auto i = decode_inquiry(ByteView(inq));
  ASSERT_TRUE(i);
  EXPECT_EQ(i->vendor, "LIO-ORG");
  EXPECT_EQ(i->product, "disk0");
  EXPECT_EQ(i->additional_length, 31);
  inq.resize(35);
  EXPECT_FALSE(decode_inquiry(ByteView(inq)));
}

TEST(Names, Text) {
  EXPECT_EQ(opcode_name(kOpRsp), "opcode 0xc1 (SRP_RSP)");
  EXPECT_EQ(opcode_name(0x7f), "opcode 0x7f (unknown)");
  EXPECT_EQ(hex(ByteView(Bytes{0xab, 0x01})), "ab01");
  EXPECT_EQ(hex(ByteView(Bytes(4, 0)), 2), "0000...");
}
