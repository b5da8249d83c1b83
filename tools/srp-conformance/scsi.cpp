// SPDX-License-Identifier: GPL-2.0-only
#include "scsi.h"

#include <algorithm>
#include <stdexcept>

namespace srp::scsi {

uint64_t Field::max() const {
  return width >= 8 ? UINT64_MAX : (uint64_t(1) << (8 * width)) - 1;
}

uint64_t get(const Bytes &cdb, Field f) {
  uint64_t v = 0;
  for (size_t i = 0; i < f.width; i++) {
    const size_t at = size_t(f.off) + i;
    v = (v << 8) | (at < cdb.size() ? cdb[at] : 0);
  }
  return v;
}

void put(Bytes &cdb, Field f, uint64_t v) {
  for (size_t i = f.width; i-- > 0;) {
    const size_t at = size_t(f.off) + i;
    if (at < cdb.size()) cdb[at] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

namespace {

// A CDB of @n zero bytes with the given leading bytes.
Bytes cdb_of(size_t n, std::initializer_list<uint8_t> head) {
  Bytes c(n, 0);
  std::copy(head.begin(), head.end(), c.begin());
  return c;
}

// WRITE SAME(32): variable length CDB, ADDITIONAL CDB LENGTH 18h (32
// bytes), SERVICE ACTION 000Dh.
Bytes write_same_32() {
  Bytes c(32, 0);
  c[0] = 0x7f;
  c[7] = 0x18;
  c[9] = 0x0d;
  return c;
}

std::vector<Command> make_commands() {
  using D = DataDir;
  using U = Unit;
  return {
      {"inquiry",
       "INQUIRY (standard data)",
       cdb_of(6, {0x12}),
       D::kIn,
       {3, 2},
       U::kBytes,
       {},
       "SPC-4 6.6"},
      {"inquiry_vpd_83",
       "INQUIRY, EVPD page 83h (device identification)",
       cdb_of(6, {0x12, 0x01, 0x83}),
       D::kIn,
       {3, 2},
       U::kBytes,
       {},
       "SPC-4 6.6, 7.8.6"},
      {"request_sense",
       "REQUEST SENSE",
       cdb_of(6, {0x03}),
       D::kIn,
       {4, 1},
       U::kBytes,
       {},
       "SPC-4 6.39"},
      {"mode_sense_6",
       "MODE SENSE(6), all pages (3Fh)",
       cdb_of(6, {0x1a, 0x00, 0x3f}),
       D::kIn,
       {4, 1},
       U::kBytes,
       {},
       "SPC-4 6.11"},
      {"mode_sense_10",
       "MODE SENSE(10), all pages (3Fh)",
       cdb_of(10, {0x5a, 0x00, 0x3f}),
       D::kIn,
       {7, 2},
       U::kBytes,
       {},
       "SPC-4 6.12"},
      {"mode_select_6",
       "MODE SELECT(6), PF 1",
       cdb_of(6, {0x15, 0x10}),
       D::kOut,
       {4, 1},
       U::kBytes,
       {},
       "SPC-4 6.9"},
      {"mode_select_10",
       "MODE SELECT(10), PF 1",
       cdb_of(10, {0x55, 0x10}),
       D::kOut,
       {7, 2},
       U::kBytes,
       {},
       "SPC-4 6.10"},
      {"log_sense",
       "LOG SENSE, supported pages (00h)",
       cdb_of(10, {0x4d, 0x00, 0x40}),
       D::kIn,
       {7, 2},
       U::kBytes,
       {},
       "SPC-4 6.8"},
      {"report_luns",
       "REPORT LUNS",
       cdb_of(12, {0xa0}),
       D::kIn,
       {6, 4},
       U::kBytes,
       {},
       "SPC-4 6.27"},
      {"read_capacity_16",
       "READ CAPACITY(16) (SERVICE ACTION IN 10h)",
       cdb_of(16, {0x9e, 0x10}),
       D::kIn,
       {10, 4},
       U::kBytes,
       {},
       "SBC-3 5.16"},
      {"report_target_port_groups",
       "REPORT TARGET PORT GROUPS (MAINTENANCE IN, service action 0Ah)",
       cdb_of(12, {0xa3, 0x0a}),
       D::kIn,
       {6, 4},
       U::kBytes,
       {},
       "SPC-4 6.36"},
      {"report_supported_opcodes",
       "REPORT SUPPORTED OPERATION CODES (MAINTENANCE IN, service action "
       "0Ch), all commands",
       cdb_of(12, {0xa3, 0x0c}),
       D::kIn,
       {6, 4},
       U::kBytes,
       {},
       "SPC-4 6.35"},
      {"set_target_port_groups",
       "SET TARGET PORT GROUPS (MAINTENANCE OUT, service action 0Ah)",
       cdb_of(12, {0xa4, 0x0a}),
       D::kOut,
       {6, 4},
       U::kBytes,
       {},
       "SPC-4 6.46"},
      {"persistent_reserve_in_read_keys",
       "PERSISTENT RESERVE IN, READ KEYS",
       cdb_of(10, {0x5e, 0x00}),
       D::kIn,
       {7, 2},
       U::kBytes,
       {},
       "SPC-4 6.13"},
      {"persistent_reserve_in_read_full_status",
       "PERSISTENT RESERVE IN, READ FULL STATUS",
       cdb_of(10, {0x5e, 0x03}),
       D::kIn,
       {7, 2},
       U::kBytes,
       {},
       "SPC-4 6.13"},
      {"persistent_reserve_out_register",
       "PERSISTENT RESERVE OUT, REGISTER",
       cdb_of(10, {0x5f, 0x00}),
       D::kOut,
       {5, 4},
       U::kBytes,
       {},
       "SPC-4 6.14"},
      {"unmap",
       "UNMAP",
       cdb_of(10, {0x42}),
       D::kOut,
       {7, 2},
       U::kBytes,
       {},
       "SBC-3 5.28"},
      {"extended_copy",
       "EXTENDED COPY (LID1)",
       cdb_of(16, {0x83, 0x00}),
       D::kOut,
       {10, 4},
       U::kBytes,
       {},
       "SPC-4 6.4"},
      {"receive_copy_results",
       "RECEIVE COPY RESULTS, OPERATING PARAMETERS (service action 03h)",
       cdb_of(16, {0x84, 0x03}),
       D::kIn,
       {10, 4},
       U::kBytes,
       {},
       "SPC-4 6.18"},
      {"write_same_10",
       "WRITE SAME(10)",
       cdb_of(10, {0x41}),
       D::kOut,
       {7, 2},
       U::kOneBlock,
       {2, 4},
       "SBC-3 5.41"},
      {"write_same_16",
       "WRITE SAME(16)",
       cdb_of(16, {0x93}),
       D::kOut,
       {10, 4},
       U::kOneBlock,
       {2, 8},
       "SBC-3 5.42"},
      {"write_same_32",
       "WRITE SAME(32) (variable length 7Fh, service action 000Dh, in 16 "
       "bytes of CDB and 16 of additional CDB)",
       write_same_32(),
       D::kOut,
       {28, 4},
       U::kOneBlock,
       {12, 8},
       "SBC-3 5.43"},
      {"compare_and_write",
       "COMPARE AND WRITE",
       cdb_of(16, {0x89}),
       D::kOut,
       {13, 1},
       U::kTwoBlocks,
       {2, 8},
       "SBC-3 5.2"},
      {"read_10",
       "READ(10)",
       cdb_of(10, {0x28}),
       D::kIn,
       {7, 2},
       U::kBlocks,
       {2, 4},
       "SBC-3 5.11"},
      {"read_16",
       "READ(16)",
       cdb_of(16, {0x88}),
       D::kIn,
       {10, 4},
       U::kBlocks,
       {2, 8},
       "SBC-3 5.13"},
      {"write_10",
       "WRITE(10)",
       cdb_of(10, {0x2a}),
       D::kOut,
       {7, 2},
       U::kBlocks,
       {2, 4},
       "SBC-3 5.32"},
      {"write_16",
       "WRITE(16)",
       cdb_of(16, {0x8a}),
       D::kOut,
       {10, 4},
       U::kBlocks,
       {2, 8},
       "SBC-3 5.34"},
      {"verify_10",
       "VERIFY(10), BYTCHK 0",
       cdb_of(10, {0x2f}),
       D::kNone,
       {7, 2},
       U::kNoData,
       {2, 4},
       "SBC-3 5.30"},
      {"verify_16",
       "VERIFY(16), BYTCHK 0",
       cdb_of(16, {0x8f}),
       D::kNone,
       {10, 4},
       U::kNoData,
       {2, 8},
       "SBC-3 5.31"},
      {"synchronize_cache_10",
       "SYNCHRONIZE CACHE(10)",
       cdb_of(10, {0x35}),
       D::kNone,
       {7, 2},
       U::kNoData,
       {2, 4},
       "SBC-3 5.22"},
      {"synchronize_cache_16",
       "SYNCHRONIZE CACHE(16)",
       cdb_of(16, {0x91}),
       D::kNone,
       {10, 4},
       U::kNoData,
       {2, 8},
       "SBC-3 5.23"},
  };
}

}  // namespace

const std::vector<Command> &commands() {
  static const std::vector<Command> all = make_commands();
  return all;
}

const Command &command(const std::string &name) {
  for (const Command &c : commands())
    if (name == c.name) return c;
  throw std::out_of_range("no SCSI command " + name);
}

Bytes build(const Command &c, uint64_t len, uint64_t lba) {
  Bytes cdb = c.base;
  put(cdb, c.len, len);
  put(cdb, c.lba, lba);
  return cdb;
}

uint64_t data_bytes(const Command &c, uint64_t len, uint32_t block_size) {
  switch (c.unit) {
    case Unit::kBytes:
      return len;
    case Unit::kBlocks:
      return len * block_size;
    case Unit::kTwoBlocks:
      return 2 * len * block_size;
    case Unit::kOneBlock:
      return block_size;
    case Unit::kNoData:
      break;
  }
  return 0;
}

uint64_t len_for(const Command &c, uint64_t bytes, uint32_t block_size,
                 uint64_t blocks) {
  const uint64_t bs = std::max<uint32_t>(block_size, 1);
  uint64_t v = 0;
  switch (c.unit) {
    case Unit::kBytes:
      v = bytes;
      break;
    case Unit::kBlocks:
      v = bytes / bs;
      break;
    case Unit::kTwoBlocks:
      v = bytes / (2 * bs);
      break;
    case Unit::kOneBlock:
    case Unit::kNoData:
      v = blocks;
      break;
  }
  return std::min(v, c.len.max());
}

std::optional<MediumWrite> medium_write(const Bytes &cdb) {
  if (cdb.empty()) return std::nullopt;
  const Field lba4{2, 4}, lba8{2, 8};
  switch (cdb[0]) {
    case 0x0a:  // WRITE(6): 21-bit LBA in bytes 1..3, 0 blocks = 256
      return MediumWrite{{1, 3}, {4, 1}, true};
    case 0x2a:  // WRITE(10)
    case 0x2e:  // WRITE AND VERIFY(10)
    case 0x41:  // WRITE SAME(10)
    case 0x50:  // XDWRITE(10)
    case 0x51:  // XPWRITE(10)
    case 0x53:  // XDWRITEREAD(10)
      return MediumWrite{lba4, {7, 2}};
    case 0xaa:  // WRITE(12)
    case 0xae:  // WRITE AND VERIFY(12)
      return MediumWrite{lba4, {6, 4}};
    case 0x8a:  // WRITE(16)
    case 0x8b:  // ORWRITE(16)
    case 0x8e:  // WRITE AND VERIFY(16)
    case 0x93:  // WRITE SAME(16)
      return MediumWrite{lba8, {10, 4}};
    case 0x89:  // COMPARE AND WRITE
      return MediumWrite{lba8, {13, 1}};
    case 0x9a:  // WRITE STREAM(16)
    case 0x9c:  // WRITE ATOMIC(16)
      return MediumWrite{lba8, {12, 2}};
    case 0x7f:  // 32-byte CDBs: every write of SBC-3/4 has these fields
      return MediumWrite{{12, 8}, {28, 4}};
    default:
      return std::nullopt;
  }
}

bool unconfinable(const Bytes &cdb) {
  if (cdb.empty()) return false;
  switch (cdb[0]) {
    case 0x04:  // FORMAT UNIT
    case 0x07:  // REASSIGN BLOCKS
    case 0x18:  // COPY (obsolete)
    case 0x1d:  // SEND DIAGNOSTIC (self-tests)
    case 0x39:  // COMPARE (obsolete)
    case 0x3a:  // COPY AND VERIFY (obsolete)
    case 0x3b:  // WRITE BUFFER (microcode)
    case 0x3f:  // WRITE LONG(10)
    case 0x40:  // CHANGE DEFINITION (obsolete)
    case 0x48:  // SANITIZE
    case 0x85:  // ATA PASS-THROUGH(16)
    case 0x9f:  // SERVICE ACTION OUT(16): WRITE LONG(16), WRITE SCATTERED
    case 0xa1:  // ATA PASS-THROUGH(12)
      return true;
    default:
      return false;
  }
}

std::optional<Field> state_parameter_list(const Bytes &cdb) {
  if (cdb.empty()) return std::nullopt;
  switch (cdb[0]) {
    case 0x42:  // UNMAP
    case 0x4c:  // LOG SELECT
      return Field{7, 2};
    case 0x5f:  // PERSISTENT RESERVE OUT
      return Field{5, 4};
    case 0x83:  // EXTENDED COPY
    case 0x8d:  // WRITE ATTRIBUTE
      return Field{10, 4};
    case 0xa4:  // MAINTENANCE OUT
    case 0xb5:  // SECURITY PROTOCOL OUT
      return Field{6, 4};
    default:
      return std::nullopt;
  }
}

namespace {

// Blocks a medium write covers (a length of 0 written as such).
uint64_t write_blocks(const Bytes &cdb, const MediumWrite &w) {
  const uint64_t n = get(cdb, w.len);
  return n == 0 && w.six ? 256 : n;
}

bool field_inside(const Bytes &cdb, Field f) {
  return size_t(f.off) + f.width <= cdb.size();
}

}  // namespace

std::string confine(Bytes &cdb, DataDir buf, Scratch s) {
  std::string what;
  if (unconfinable(cdb)) {
    what = "opcode 0x" + hex(ByteView(cdb.data(), 1)) + " -> TEST UNIT READY";
    cdb[0] = 0x00;
    return what;
  }
  if (auto w = medium_write(cdb)) {
    if (!field_inside(cdb, w->lba)) {
      // The LBA is only partly in the CDB: all ones in the bytes it has
      // (the most significant ones) put it past any medium.
      put(cdb, w->lba, UINT64_MAX);
      return "LBA past the CDB: high bytes all ones";
    }
    const uint64_t max_lba = w->six ? (uint64_t(1) << 21) - 1 : w->lba.max();
    if (s.blocks == 0 || s.lba + s.blocks - 1 > max_lba) {
      cdb[0] = 0x00;
      return "scratch area beyond the LBA field -> TEST UNIT READY";
    }
    const uint64_t lba = get(cdb, w->lba);
    const uint64_t in =
        lba >= s.lba && lba < s.lba + s.blocks ? lba : s.lba + lba % s.blocks;
    const uint64_t room = s.lba + s.blocks - in;
    uint64_t n = write_blocks(cdb, *w);
    // A length of 0 (not WRITE(6)) writes nothing, or for WRITE SAME runs
    // to the end of the medium, which the scratch area ends with.
    if (n > room) n = std::min(room, w->len.max());
    if (in != lba)
      what = "LBA " + std::to_string(lba) + " -> " + std::to_string(in);
    if (n != write_blocks(cdb, *w)) {
      what += (what.empty() ? "" : ", ") + std::string("blocks ") +
              std::to_string(write_blocks(cdb, *w)) + " -> " +
              std::to_string(n);
    }
    put(cdb, w->lba, in);
    put(cdb, w->len, n == 256 && w->six ? 0 : n);
    return what;
  }
  if (buf != DataDir::kOut) {
    if (auto f = state_parameter_list(cdb)) {
      if (get(cdb, *f) != 0) {
        put(cdb, *f, 0);
        what = "parameter list length -> 0 (no data-out buffer)";
      }
    }
  }
  return what;
}

bool writes_inside(const Bytes &cdb, Scratch s) {
  if (unconfinable(cdb)) return false;
  auto w = medium_write(cdb);
  if (!w) return true;
  if (!field_inside(cdb, w->lba)) {
    // Only the most significant bytes are there: inside only if they
    // already put the LBA past the scratch area's end.
    Bytes hi(cdb.begin() + std::min<size_t>(w->lba.off, cdb.size()), cdb.end());
    return std::all_of(hi.begin(), hi.end(),
                       [](uint8_t b) { return b == 0xff; });
  }
  const uint64_t lba = get(cdb, w->lba);
  const uint64_t n = write_blocks(cdb, *w);
  return lba >= s.lba && lba + n <= s.lba + s.blocks && lba + n >= lba;
}

}  // namespace srp::scsi
