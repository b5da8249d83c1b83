// SPDX-License-Identifier: GPL-2.0-only
//
// The SCSI command table and CDB helpers of scsi.h, checked against the
// field offsets of SPC-4, SBC-3 and SCC-2 byte by byte.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "scsi.h"

using namespace srp;
using namespace srp::scsi;

namespace {

Bytes cdb_bytes(std::initializer_list<uint8_t> v) { return Bytes(v); }

}  // namespace

TEST(Scsi, Fields) {
  Bytes c(10, 0);
  put(c, {2, 4}, 0x11223344);
  put(c, {7, 2}, 0x1234567);  // truncated to 16 bits
  EXPECT_EQ(c, cdb_bytes({0, 0, 0x11, 0x22, 0x33, 0x44, 0, 0x45, 0x67, 0}));
  EXPECT_EQ(get(c, {2, 4}), 0x11223344u);
  EXPECT_EQ(get(c, {7, 2}), 0x4567u);
  // Past the end: reads 0, writes nothing.
  EXPECT_EQ(get(c, {8, 4}), 0x67000000u);
  put(c, {9, 4}, 0xaabbccdd);
  EXPECT_EQ(c.size(), 10u);
  EXPECT_EQ(c[9], 0xaa);
  EXPECT_EQ((Field{0, 1}.max()), 0xffu);
  EXPECT_EQ((Field{0, 4}.max()), 0xffffffffu);
  EXPECT_EQ((Field{0, 8}.max()), UINT64_MAX);
}

// The CDB of every command with a recognisable length and LBA, against the
// layouts of the standards.
TEST(Scsi, CommandLayouts) {
  struct Want {
    const char *name;
    uint64_t len, lba;
    const char *cdb;  // hex bytes
  };
  // The command of the bug report is set_target_port_groups with a 36 KiB
  // parameter list.
  const Want want[] = {
      {"inquiry", 0x1234, 0, "12 00 00 12 34 00"},
      {"inquiry_vpd_83", 255, 0, "12 01 83 00 ff 00"},
      {"request_sense", 18, 0, "03 00 00 00 12 00"},
      {"mode_sense_6", 0xc0, 0, "1a 00 3f 00 c0 00"},
      {"mode_sense_10", 0x1000, 0, "5a 00 3f 00 00 00 00 10 00 00"},
      {"mode_select_6", 24, 0, "15 10 00 00 18 00"},
      {"mode_select_10", 28, 0, "55 10 00 00 00 00 00 00 1c 00"},
      {"log_sense", 64, 0, "4d 00 40 00 00 00 00 00 40 00"},
      {"report_luns", 0x10000, 0, "a0 00 00 00 00 00 00 01 00 00 00 00"},
      {"read_capacity_16", 32, 0,
       "9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00"},
      {"report_target_port_groups", 4096, 0,
       "a3 0a 00 00 00 00 00 00 10 00 00 00"},
      {"report_supported_opcodes", 4096, 0,
       "a3 0c 00 00 00 00 00 00 10 00 00 00"},
      {"set_target_port_groups", 36864, 0,
       "a4 0a 00 00 00 00 00 00 90 00 00 00"},
      {"persistent_reserve_in_read_keys", 8, 0,
       "5e 00 00 00 00 00 00 00 08 00"},
      {"persistent_reserve_in_read_full_status", 8, 0,
       "5e 03 00 00 00 00 00 00 08 00"},
      {"persistent_reserve_out_register", 24, 0,
       "5f 00 00 00 00 00 00 00 18 00"},
      {"unmap", 24, 0, "42 00 00 00 00 00 00 00 18 00"},
      {"extended_copy", 108, 0,
       "83 00 00 00 00 00 00 00 00 00 00 00 00 6c 00 00"},
      {"receive_copy_results", 44, 0,
       "84 03 00 00 00 00 00 00 00 00 00 00 00 2c 00 00"},
      {"write_same_10", 8, 0x01020304, "41 00 01 02 03 04 00 00 08 00"},
      {"write_same_16", 8, 0x0102030405060708ull,
       "93 00 01 02 03 04 05 06 07 08 00 00 00 08 00 00"},
      {"compare_and_write", 1, 0x10,
       "89 00 00 00 00 00 00 00 00 10 00 00 00 01 00 00"},
      {"read_10", 0x80, 0x01020304, "28 00 01 02 03 04 00 00 80 00"},
      {"read_16", 0x80, 0x1020304,
       "88 00 00 00 00 00 01 02 03 04 00 00 00 80 00 00"},
      {"write_10", 2, 7, "2a 00 00 00 00 07 00 00 02 00"},
      {"write_16", 2, 7, "8a 00 00 00 00 00 00 00 00 07 00 00 00 02 00 00"},
      {"verify_10", 3, 9, "2f 00 00 00 00 09 00 00 03 00"},
      {"verify_16", 3, 9, "8f 00 00 00 00 00 00 00 00 09 00 00 00 03 00 00"},
      {"synchronize_cache_10", 3, 9, "35 00 00 00 00 09 00 00 03 00"},
      {"synchronize_cache_16", 3, 9,
       "91 00 00 00 00 00 00 00 00 09 00 00 00 03 00 00"},
  };
  std::set<std::string> seen;
  for (const Want &w : want) {
    const Command &c = command(w.name);
    EXPECT_EQ(hex(ByteView(build(c, w.len, w.lba))),
              std::regex_replace(w.cdb, std::regex(" "), ""))
        << w.name;
    seen.insert(w.name);
  }
  // WRITE SAME(32): 7Fh, ADDITIONAL CDB LENGTH 18h, SERVICE ACTION 000Dh,
  // LBA in bytes 12..19, NUMBER OF LOGICAL BLOCKS in 28..31.
  Bytes ws32 = build(command("write_same_32"), 5, 0x1122334455667788ull);
  ASSERT_EQ(ws32.size(), 32u);
  Bytes want32(32, 0);
  want32[0] = 0x7f;
  want32[7] = 0x18;
  want32[9] = 0x0d;
  for (int i = 0; i < 8; i++)
    want32[12 + i] = static_cast<uint8_t>(0x11 * (i + 1));
  want32[31] = 5;
  EXPECT_EQ(ws32, want32);
  seen.insert("write_same_32");
  // Every command of the table is covered above, and names are unique.
  EXPECT_EQ(seen.size(), commands().size());
  for (const Command &c : commands()) EXPECT_TRUE(seen.count(c.name)) << c.name;
  EXPECT_THROW(command("nothing"), std::out_of_range);
}

TEST(Scsi, DataBytesAndLengthFields) {
  const uint32_t bs = 512;
  EXPECT_EQ(data_bytes(command("inquiry"), 36, bs), 36u);
  EXPECT_EQ(data_bytes(command("read_16"), 8, bs), 4096u);
  EXPECT_EQ(data_bytes(command("compare_and_write"), 1, bs), 1024u);
  EXPECT_EQ(data_bytes(command("write_same_16"), 1000, bs), 512u);
  EXPECT_EQ(data_bytes(command("verify_16"), 1000, bs), 0u);
  // The largest field value whose data fits, clamped to the field.
  EXPECT_EQ(len_for(command("inquiry"), 36864, bs, 0), 36864u);
  EXPECT_EQ(len_for(command("inquiry"), 1u << 20, bs, 0), 0xffffu);
  EXPECT_EQ(len_for(command("mode_select_6"), 4096, bs, 0), 0xffu);
  EXPECT_EQ(len_for(command("read_10"), 4097, bs, 0), 8u);
  EXPECT_EQ(len_for(command("read_10"), 511, bs, 0), 0u);
  EXPECT_EQ(len_for(command("compare_and_write"), 4096, bs, 0), 4u);
  EXPECT_EQ(len_for(command("compare_and_write"), 1u << 20, bs, 0), 255u);
  EXPECT_EQ(len_for(command("write_same_10"), 4096, bs, 7), 7u);
  EXPECT_EQ(len_for(command("synchronize_cache_10"), 0, bs, 1u << 20), 0xffffu);
}

TEST(Scsi, MediumWrites) {
  struct W {
    Bytes cdb;
    Field lba, len;
  };
  const W ws[] = {
      {{0x0a, 0, 0, 0, 0, 0}, {1, 3}, {4, 1}},
      {{0x2a, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 4}, {7, 2}},
      {{0x2e, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 4}, {7, 2}},
      {{0x41, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 4}, {7, 2}},
      {Bytes(12, 0xaa), {2, 4}, {6, 4}},
      {Bytes(16, 0x8a), {2, 8}, {10, 4}},
      {Bytes(16, 0x93), {2, 8}, {10, 4}},
      {Bytes(16, 0x89), {2, 8}, {13, 1}},
      {Bytes(32, 0x7f), {12, 8}, {28, 4}},
  };
  for (const W &w : ws) {
    auto m = medium_write(w.cdb);
    ASSERT_TRUE(m) << hex(ByteView(w.cdb));
    EXPECT_EQ(m->lba.off, w.lba.off);
    EXPECT_EQ(m->lba.width, w.lba.width);
    EXPECT_EQ(m->len.off, w.len.off);
    EXPECT_EQ(m->len.width, w.len.width);
    EXPECT_EQ(m->six, w.cdb[0] == 0x0a);
  }
  for (uint8_t op : {0x00, 0x12, 0x28, 0x88, 0x2f, 0x35, 0x42, 0x5f, 0xa4})
    EXPECT_FALSE(medium_write(Bytes(16, op))) << int(op);
  for (uint8_t op : {0x04, 0x07, 0x3b, 0x48, 0x9f, 0x85, 0xa1})
    EXPECT_TRUE(unconfinable(Bytes{op, 0, 0, 0, 0, 0})) << int(op);
  EXPECT_FALSE(unconfinable(Bytes{0x2a}));
  EXPECT_FALSE(unconfinable(Bytes{}));
}

TEST(Scsi, StateParameterLists) {
  struct P {
    uint8_t op;
    Field f;
  };
  for (P p :
       {P{0x42, {7, 2}}, P{0x4c, {7, 2}}, P{0x5f, {5, 4}}, P{0x83, {10, 4}},
        P{0x8d, {10, 4}}, P{0xa4, {6, 4}}, P{0xb5, {6, 4}}}) {
    auto f = state_parameter_list(Bytes{p.op});
    ASSERT_TRUE(f) << int(p.op);
    EXPECT_EQ(f->off, p.f.off);
    EXPECT_EQ(f->width, p.f.width);
  }
  for (uint8_t op : {0x15, 0x55, 0x12, 0x2a, 0x00})
    EXPECT_FALSE(state_parameter_list(Bytes{op})) << int(op);
}

TEST(Scsi, ConfineMovesWritesIntoScratch) {
  const Scratch s{1000, 64};
  // WRITE(10) far away, too long: moved in, shortened to the end.
  Bytes w10 = build(command("write_10"), 500, 5);
  EXPECT_FALSE(writes_inside(w10, s));
  EXPECT_FALSE(confine(w10, DataDir::kOut, s).empty());
  EXPECT_TRUE(writes_inside(w10, s));
  EXPECT_EQ(get(w10, {2, 4}), 1005u);  // 1000 + 5 % 64
  EXPECT_EQ(get(w10, {7, 2}), 59u);    // to the end of the area
  // Already inside: unchanged.
  Bytes in = build(command("write_16"), 8, 1010);
  const Bytes before = in;
  EXPECT_EQ(confine(in, DataDir::kOut, s), "");
  EXPECT_EQ(in, before);
  // WRITE(6): 0 blocks means 256, more than the area holds.
  Bytes w6{0x0a, 0, 0, 3, 0, 0};
  confine(w6, DataDir::kOut, s);
  EXPECT_TRUE(writes_inside(w6, s));
  EXPECT_EQ(get(w6, {1, 3}), 1003u);
  EXPECT_EQ(w6[4], 61u);
  // WRITE(6) cannot address a scratch area past 21 bits of LBA.
  Bytes w6far{0x0a, 0, 0, 3, 1, 0};
  confine(w6far, DataDir::kOut, {1ull << 22, 64});
  EXPECT_EQ(w6far[0], 0x00);
  // A 7Fh write cut to 16 bytes: the LBA bytes it has become all ones.
  Bytes v(16, 0);
  v[0] = 0x7f;
  v[7] = 0x18;
  v[9] = 0x0d;
  EXPECT_FALSE(writes_inside(v, s));
  confine(v, DataDir::kOut, s);
  EXPECT_EQ(get(v, {12, 4}), 0xffffffffu);
  EXPECT_TRUE(writes_inside(v, s));
  // Unconfinable: FORMAT UNIT becomes TEST UNIT READY.
  Bytes fmt{0x04, 0x10, 0, 0, 0, 0};
  EXPECT_FALSE(confine(fmt, DataDir::kOut, s).empty());
  EXPECT_EQ(fmt[0], 0x00);
}

TEST(Scsi, ConfineEmptiesStateListsWithoutDataOut) {
  const Scratch s{0, 8};
  for (DataDir d : {DataDir::kIn, DataDir::kNone}) {
    Bytes stpg = build(command("set_target_port_groups"), 36864);
    EXPECT_FALSE(confine(stpg, d, s).empty());
    EXPECT_EQ(get(stpg, {6, 4}), 0u);
  }
  // With a data-out buffer (zeros or the client's list) it stays.
  Bytes stpg = build(command("set_target_port_groups"), 36864);
  EXPECT_EQ(confine(stpg, DataDir::kOut, s), "");
  EXPECT_EQ(get(stpg, {6, 4}), 36864u);
  // MODE SELECT with a data-in buffer is left alone.
  Bytes ms = build(command("mode_select_10"), 28);
  EXPECT_EQ(confine(ms, DataDir::kIn, s), "");
}
