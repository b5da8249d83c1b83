// SPDX-License-Identifier: GPL-2.0-only
#include "fuzz.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <iterator>
#include <map>
#include <ostream>

#include "case_util.h"
#include "hostile.h"
#include "scsi.h"

namespace srp::fuzz {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string num(uint64_t v) { return std::to_string(v); }

std::string hexv(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool protected_cmd_byte(size_t pos) {
  return (pos >= 8 && pos < 16) || (pos >= 20 && pos < 28) ||
         (pos >= 32 && pos < 48);
}

// @total bytes from @va as @n descriptors with 4 KiB gaps between them, the
// last one taking the remainder.
std::vector<DirectDesc> spread(uint64_t va, uint32_t rkey, uint32_t total,
                               uint32_t n) {
  std::vector<DirectDesc> d;
  const uint32_t chunk = total / n;
  for (uint32_t i = 0; i < n; i++)
    d.push_back({va + i * (uint64_t(chunk) + 4096), rkey,
                 i + 1 == n ? total - (n - 1) * chunk : chunk});
  return d;
}

}  // namespace

uint64_t iteration_seed(uint64_t seed, uint64_t iteration) {
  return splitmix64(seed ^ splitmix64(iteration + 1));
}

// Rejection sampling on the raw engine output: unlike the standard
// distributions, the result is the same with every C++ library.
uint64_t Mutator::below(uint64_t n) {
  if (n <= 1) return 0;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do {
    x = rng_();
  } while (x >= limit);
  return x % n;
}

size_t Mutator::cmd_position(size_t len) {
  for (int tries = 0; tries < 64; tries++) {
    const size_t pos = static_cast<size_t>(below(len));
    if (!protected_cmd_byte(pos)) return pos;
  }
  return 0;
}

std::vector<std::string> Mutator::mutate_cmd(Bytes &iu, size_t max_len) {
  const Bytes orig = iu;
  static const uint8_t kBytes[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x0f,
                                   0x10, 0x7f, 0x80, 0xfe, 0xff};
  static const uint8_t kFmts[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x10, 0x20,
                                  0x30, 0x40, 0x11, 0x12, 0x21, 0x33, 0xff};
  static const uint8_t kCounts[] = {0, 1, 2, 3, 4, 8, 16, 0x7f, 0xff};
  static const uint8_t kAddCdb[] = {0, 1, 2, 3, 4, 8, 16, 64, 252, 255};
  std::vector<std::string> ops;
  const unsigned n = 1 + static_cast<unsigned>(below(3));
  for (unsigned k = 0; k < n; k++) {
    const size_t len = iu.size();
    switch (below(12)) {
      case 0:
      case 1: {  // bit flip
        if (!len) break;
        const size_t pos = cmd_position(len);
        const unsigned bit = static_cast<unsigned>(below(8));
        iu[pos] ^= static_cast<uint8_t>(1u << bit);
        ops.push_back("flip byte " + num(pos) + " bit " + num(bit));
        break;
      }
      case 2: {  // byte set
        if (!len) break;
        const size_t pos = cmd_position(len);
        const uint8_t v = below(4) == 0 ? static_cast<uint8_t>(below(256))
                                        : kBytes[below(sizeof(kBytes))];
        iu[pos] = v;
        ops.push_back("byte " + num(pos) + " = " + hexv(v));
        break;
      }
      case 3: {  // truncate
        if (!len) break;
        const size_t nl = static_cast<size_t>(below(len));
        iu.resize(nl);
        ops.push_back("truncate to " + num(nl));
        break;
      }
      case 4: {  // extend
        size_t add = 1 + static_cast<size_t>(below(64));
        if (len + add > max_len) add = max_len > len ? max_len - len : 0;
        if (!add) break;
        const bool random = below(2) != 0;
        for (size_t i = 0; i < add; i++)
          iu.push_back(random ? static_cast<uint8_t>(below(256)) : 0);
        ops.push_back("extend by " + num(add) + (random ? " random" : " zero") +
                      " bytes");
        break;
      }
      case 5:  // buf_fmt
        if (len > 5) {
          iu[5] = kFmts[below(sizeof(kFmts))];
          ops.push_back("buf_fmt = " + hexv(iu[5]));
        }
        break;
      case 6: {  // descriptor counts
        const size_t pos = 6 + static_cast<size_t>(below(2));
        if (len > pos) {
          iu[pos] = kCounts[below(sizeof(kCounts))];
          ops.push_back(std::string(pos == 6 ? "data_out" : "data_in") +
                        "_desc_cnt = " + num(iu[pos]));
        }
        break;
      }
      case 7:  // add_cdb_len
        if (len > 31) {
          iu[31] = kAddCdb[below(sizeof(kAddCdb))];
          ops.push_back("add_cdb_len = " + num(iu[31]));
        }
        break;
      case 8:
      case 9: {  // a length field: imm len / direct len / table len / total
        static const size_t kOffs[] = {48, 60, 64};
        const size_t off = kOffs[below(3)];
        if (len < off + 4) break;
        const uint32_t vals[] = {0,
                                 1,
                                 0xffffffffu,
                                 0x80000000u,
                                 0xfffffff0u,
                                 static_cast<uint32_t>(len),
                                 static_cast<uint32_t>(len + 1),
                                 static_cast<uint32_t>(below(65536))};
        const uint32_t v = vals[below(8)];
        put_be32(iu, off, v);
        ops.push_back("be32 at " + num(off) + " = " + hexv(v));
        break;
      }
      case 10:  // task attribute
        if (len > 29) {
          iu[29] = static_cast<uint8_t>(below(8) == 0 ? 0xff : below(8));
          ops.push_back("task_attr = " + num(iu[29]));
        }
        break;
      default:  // opcode
        if (len) {
          iu[0] = static_cast<uint8_t>(below(256));
          ops.push_back("opcode = " + hexv(iu[0]));
        }
        break;
    }
  }
  // A truncation followed by an extension must not change the tag, the LUN
  // or the CDB either (a WRITE could otherwise leave the scratch area).
  for (size_t k = 0; k < iu.size() && k < orig.size(); k++)
    if (protected_cmd_byte(k)) iu[k] = orig[k];
  if (ops.empty()) ops.push_back("none");
  return ops;
}

std::vector<std::string> Mutator::mutate_login(Bytes &pd) {
  std::vector<std::string> ops;
  const unsigned n = 1 + static_cast<unsigned>(below(3));
  for (unsigned k = 0; k < n; k++) {
    const size_t len = pd.size();
    switch (below(8)) {
      case 0:
        if (len) {
          const size_t pos = static_cast<size_t>(below(len));
          const unsigned bit = static_cast<unsigned>(below(8));
          pd[pos] ^= static_cast<uint8_t>(1u << bit);
          ops.push_back("flip byte " + num(pos) + " bit " + num(bit));
        }
        break;
      case 1:
        if (len) {
          const size_t pos = static_cast<size_t>(below(len));
          pd[pos] = static_cast<uint8_t>(below(256));
          ops.push_back("byte " + num(pos) + " = " + hexv(pd[pos]));
        }
        break;
      case 2:
        if (len) {
          const size_t nl = static_cast<size_t>(below(len));
          pd.resize(nl);
          ops.push_back("truncate to " + num(nl));
        }
        break;
      case 3:
        if (len >= 16) {
          const uint32_t vals[] = {
              0,      63,          64,
              65,     8260,        262144,
              262145, 0xffffffffu, static_cast<uint32_t>(below(1u << 20))};
          const uint32_t v = vals[below(9)];
          put_be32(pd, 12, v);
          ops.push_back("req_it_iu_len = " + num(v));
        }
        break;
      case 4:
        if (len >= 10) {
          const uint16_t vals[] = {
              0, 1, 2, 4, 6, 8, 0xffff, static_cast<uint16_t>(below(65536))};
          const uint16_t v = vals[below(8)];
          put_be16(pd, 8, v);
          ops.push_back("req_buf_fmt = " + hexv(v));
        }
        break;
      case 5:
        if (len >= 11) {
          const uint8_t vals[] = {0, 1, 2, 3, 0x80, 0x81, 0x82, 0x83, 0xff};
          pd[10] = vals[below(9)];
          ops.push_back("req_flags = " + hexv(pd[10]));
        }
        break;
      case 6:
        if (len >= 50) {
          const uint16_t vals[] = {
              0,  4,    51,     52,
              68, 8260, 0xffff, static_cast<uint16_t>(below(65536))};
          const uint16_t v = vals[below(8)];
          put_be16(pd, 48, v);
          ops.push_back("imm_data_offset = " + num(v));
        }
        break;
      default:
        if (len >= 12) {
          pd[11] = static_cast<uint8_t>(below(256));
          ops.push_back("opcode = " + hexv(pd[11]));
        }
        break;
    }
  }
  if (ops.empty()) ops.push_back("none");
  return ops;
}

const char *base_name(Base b) {
  switch (b) {
    case Base::kTur:
      return "TEST UNIT READY";
    case Base::kInquiry:
      return "INQUIRY, direct";
    case Base::kReadDirect:
      return "READ(16), direct";
    case Base::kReadIndirect:
      return "READ(16), 3-descriptor indirect";
    case Base::kWriteDirect:
      return "WRITE(16), direct";
    case Base::kWriteIndirect:
      return "WRITE(16), 3-descriptor indirect";
    case Base::kWriteImmediate:
      return "WRITE(16), immediate";
    case Base::kScsi:
      return "SCSI command";
  }
  return "?";
}

Bytes make_base(Base b, const BaseParams &p) {
  const uint32_t bs = std::max<uint32_t>(p.block_size, 1);
  const uint32_t n = std::max<uint32_t>(1, 4096 / bs);
  const uint32_t len = n * bs;
  auto three = [&](uint32_t total) {
    return spread(p.data_va, p.rkey, total, 3);
  };
  CmdBuilder c;
  c.tag(p.tag).lun(p.lun);
  switch (b) {
    case Base::kTur:
      c.cdb(cdb::test_unit_ready());
      break;
    case Base::kInquiry:
      c.cdb(cdb::inquiry(96)).direct(DataDir::kIn, {p.data_va, p.rkey, 96});
      break;
    case Base::kReadDirect:
      c.cdb(cdb::read16(0, n)).direct(DataDir::kIn, {p.data_va, p.rkey, len});
      break;
    case Base::kReadIndirect:
      c.cdb(cdb::read16(0, n)).indirect(DataDir::kIn, three(len));
      break;
    case Base::kWriteDirect:
      c.cdb(cdb::write16(p.scratch_lba, n))
          .direct(DataDir::kOut, {p.data_va, p.rkey, len});
      break;
    case Base::kWriteIndirect:
      c.cdb(cdb::write16(p.scratch_lba, n)).indirect(DataDir::kOut, three(len));
      break;
    case Base::kScsi:
      c.cdb(cdb::test_unit_ready());  // plan() builds these
      break;
    case Base::kWriteImmediate: {
      const uint32_t room = p.max_it_iu_len > p.imm_data_offset
                                ? p.max_it_iu_len - p.imm_data_offset
                                : 0;
      const uint32_t m = std::min(n, room / bs);
      if (m == 0) {
        c.cdb(cdb::test_unit_ready());
        break;
      }
      c.cdb(cdb::write16(p.scratch_lba, m))
          .immediate(pattern(size_t(m) * bs, p.tag), p.imm_data_offset);
      break;
    }
  }
  return c.build();
}

std::string Step::describe() const {
  std::string s = login ? "login request" : std::string(base_name(base));
  s += "; mutations:";
  for (const auto &o : ops) s += " [" + o + "]";
  s += "; " + std::to_string(bytes.size()) +
       " bytes: " + hex(ByteView(bytes), 96);
  return s;
}

namespace {

// Data buffer lengths of the SCSI mode: around block, page and 32 KiB
// boundaries (a target's scatterlist entries), up to kScsiMaxOut.
const uint32_t kScsiLens[] = {0,     1,     2,     8,      24,    36,
                              255,   256,   511,   512,    4095,  4096,
                              4097,  8192,  8193,  16384,  32767, 32768,
                              32769, 36864, 65536, 131072, 262144};

DataDir flip(DataDir d) {
  return d == DataDir::kIn ? DataDir::kOut : DataDir::kIn;
}

// What a SCSI step is built around: one of scsi::commands(), a
// variable-length CDB or a random operation code; and the direction of the
// data that makes.
struct Pick {
  const scsi::Command *cmd = nullptr;
  bool varlen = false;
  DataDir natural = DataDir::kNone;
};

Pick pick_scsi(Mutator &m) {
  const auto &cmds = scsi::commands();
  const uint64_t i = m.below(cmds.size() + 2);
  Pick k;
  if (i < cmds.size()) {
    k.cmd = &cmds[i];
    k.natural = k.cmd->dir;
  } else if (i == cmds.size()) {
    k.varlen = true;
    k.natural = DataDir::kOut;
  } else {
    static const DataDir kDirs[] = {DataDir::kNone, DataDir::kOut,
                                    DataDir::kIn};
    k.natural = kDirs[m.below(3)];
  }
  return k;
}

// The CDB of a SCSI step around @k for a data buffer of @len bytes, and
// what it was made from.
Bytes scsi_cdb(Mutator &m, const BaseParams &p, const Pick &k, uint32_t len,
               std::vector<std::string> *ops) {
  Bytes cdb;
  if (k.cmd) {
    const scsi::Command &c = *k.cmd;
    const uint64_t max = c.len.max();
    const uint64_t blocks =
        1 + m.below(std::max<uint64_t>(p.scratch_blocks, 1));
    const uint64_t same = scsi::len_for(c, len, p.block_size, blocks);
    uint64_t v = same;
    switch (m.below(8)) {
      case 0:
        v = 0;
        break;
      case 1:
        v = max;
        break;
      case 2:
        v = std::min(max, same + 1);
        break;
      case 3:
        v = same / 2;
        break;
      case 4:
        v = m.below(std::min<uint64_t>(max, UINT32_MAX) + 1);
        break;
      default:
        break;
    }
    cdb = scsi::build(c, v, p.scratch_lba);
    ops->push_back(std::string(c.name) + ", length field " + num(v));
  } else if (k.varlen) {
    // Variable length: ADDITIONAL CDB LENGTH against the 16 bytes carried.
    static const uint8_t kAdd[] = {0x00, 0x08, 0x18, 0x19, 0xf8, 0xfc, 0xff};
    cdb.assign(16, 0);
    cdb[0] = 0x7f;
    cdb[7] = m.below(4) ? kAdd[m.below(std::size(kAdd))]
                        : static_cast<uint8_t>(m.below(256));
    put_be16(cdb, 8, m.below(2) ? 0x000d : static_cast<uint16_t>(m.below(32)));
    if (m.below(2)) cdb.resize(32, 0);  // with 16 bytes of additional CDB
    ops->push_back("7Fh CDB of " + num(cdb.size()) +
                   " bytes, additional "
                   "length " +
                   num(cdb[7]) + ", service action " +
                   num(get_be16(ByteView(cdb), 8)));
  } else {
    // A random operation code, its group's CDB length, sparse random bytes.
    static const size_t kGroupLen[] = {6, 10, 10, 16, 16, 12, 10, 10};
    const uint8_t op = static_cast<uint8_t>(m.below(256));
    cdb.assign(kGroupLen[op >> 5], 0);
    cdb[0] = op;
    for (size_t i = 1; i < cdb.size(); i++)
      if (m.below(4) == 0) cdb[i] = static_cast<uint8_t>(m.below(256));
    ops->push_back("opcode " + hexv(op));
  }
  const unsigned n = static_cast<unsigned>(m.below(3));
  for (unsigned k = 0; k < n; k++) {
    const size_t pos = 1 + static_cast<size_t>(m.below(cdb.size() - 1));
    if (m.below(2)) {
      const unsigned bit = static_cast<unsigned>(m.below(8));
      cdb[pos] ^= static_cast<uint8_t>(1u << bit);
      ops->push_back("flip CDB byte " + num(pos) + " bit " + num(bit));
    } else {
      cdb[pos] = static_cast<uint8_t>(m.below(256));
      ops->push_back("CDB byte " + num(pos) + " = " + hexv(cdb[pos]));
    }
  }
  return cdb;
}

// An SRP_CMD around a mutated CDB (the SCSI mode).
void plan_scsi(Mutator &m, const BaseParams &p, Step *st) {
  st->base = Base::kScsi;
  const Pick k = pick_scsi(m);
  const DataDir natural = k.natural;
  // Mostly the command's own direction, else the opposite one or none.
  DataDir dir;
  const uint64_t d = m.below(20);
  if (natural == DataDir::kNone)
    dir = d < 10 ? DataDir::kNone : d < 15 ? DataDir::kOut : DataDir::kIn;
  else
    dir = d < 14 ? natural : d < 17 ? flip(natural) : DataDir::kNone;
  uint32_t len = 0;
  if (dir == DataDir::kIn && m.below(50) == 0) {
    len = 1u << 20;  // past the registered memory: the RDMA fails
  } else if (dir != DataDir::kNone) {
    len = kScsiLens[m.below(std::size(kScsiLens))];
  }
  // The length field follows the buffer, or an edge length of its own
  // when there is none.
  Bytes cdb = scsi_cdb(
      m, p, k,
      dir == DataDir::kNone ? kScsiLens[m.below(std::size(kScsiLens))] : len,
      &st->ops);
  const std::string what = scsi::confine(
      cdb, dir, {p.scratch_lba, std::max<uint64_t>(p.scratch_blocks, 1)});
  if (!what.empty()) st->ops.push_back("confined: " + what);
  CmdBuilder c;
  c.tag(p.tag).lun(p.lun).cdb(cdb);
  const uint64_t va = p.data_va + (dir == DataDir::kOut ? 0 : kScsiRegion);
  std::string layout = "no buffer";
  if (dir != DataDir::kNone) {
    const uint64_t l = m.below(20);
    const bool imm = dir == DataDir::kOut && p.immediate &&
                     len + p.imm_data_offset <= p.max_it_iu_len;
    if (l >= 17 && imm) {
      c.immediate(Bytes(len, 0), p.imm_data_offset);
      layout = "immediate";
    } else if (l >= 10) {
      const uint32_t n = 2 + static_cast<uint32_t>(m.below(3));
      c.indirect(dir, spread(va, p.rkey, len, n));
      layout = num(n) + "-descriptor indirect";
    } else {
      c.direct(dir, {va, p.rkey, len});
      layout = "direct";
    }
  }
  st->ops.push_back(num(len) + "-byte " +
                    (dir == DataDir::kIn    ? std::string("data-in")
                     : dir == DataDir::kOut ? std::string("data-out")
                                            : std::string("no")) +
                    " buffer, " + layout);
  st->buf_dir = dir;
  st->buf_len = len;
  st->bytes = c.build();
}

}  // namespace

Step plan(uint64_t seed, uint64_t iteration, const BaseParams &p,
          const Bytes &login_pd) {
  Mutator m(iteration_seed(seed, iteration));
  Step st;
  st.login = m.below(100) < p.login_percent;
  if (st.login) {
    st.bytes = login_pd;
    st.ops = m.mutate_login(st.bytes);
    return st;
  }
  if (p.scsi) {
    plan_scsi(m, p, &st);
    return st;
  }
  std::vector<Base> bases = {Base::kTur, Base::kInquiry, Base::kReadDirect,
                             Base::kReadIndirect};
  if (p.allow_write) {
    bases.push_back(Base::kWriteDirect);
    bases.push_back(Base::kWriteIndirect);
    if (p.immediate) bases.push_back(Base::kWriteImmediate);
  }
  st.base = bases[m.below(bases.size())];
  st.bytes = make_base(st.base, p);
  st.ops = m.mutate_cmd(st.bytes, p.max_it_iu_len + 64);
  return st;
}

namespace {

// Counters of one fuzz run, reported at the end.
struct Stats {
  // Mutated SRP_CMD-based IUs the target took in: followed by a TEST UNIT
  // READY answered on the same channel, or (replayed alone) by the channel's
  // end and a working new login.
  uint64_t ius = 0;
  // Delivered (the send completed) to a channel the target then closed.
  uint64_t ius_before_close = 0;
  uint64_t logins = 0;         // mutated login requests
  uint64_t logins_accepted = 0;
  uint64_t logins_rejected = 0;
  uint64_t closures = 0;       // channels the target closed
  uint64_t batches = 0;
  // SCSI mode: statuses of the answers.
  uint64_t scsi_good = 0, scsi_check = 0, scsi_conflict = 0;
  uint64_t relogins = 0;  // logins of the fuzzing channel itself
  // Where the time goes (seconds).
  double t_relogin = 0, t_fuzz_login = 0, t_barrier = 0, t_send = 0,
         t_drain = 0;
  std::map<std::string, uint64_t> close_reasons;

  std::string timing() const {
    char b[320];
    std::snprintf(b, sizeof(b),
                  "time: %.1f s in %llu re-logins, %.1f s in mutated logins, "
                  "%.1f s in barriers, %.1f s sending, %.1f s draining "
                  "closed channels",
                  t_relogin, static_cast<unsigned long long>(relogins),
                  t_fuzz_login, t_barrier, t_send, t_drain);
    std::string s = b;
    if (!close_reasons.empty()) {
      s += "; closed by:";
      for (const auto &kv : close_reasons)
        s += " " + std::to_string(kv.second) + "x " + kv.first + ";";
      s.pop_back();
    }
    return s;
  }

  std::string text() const {
    return std::to_string(ius + ius_before_close) + " mutated IUs (" +
           std::to_string(ius) + " followed by a TEST UNIT READY answer, " +
           std::to_string(ius_before_close) +
           " delivered to a channel the target then closed), " +
           std::to_string(logins) + " mutated login requests (" +
           std::to_string(logins_accepted) + " accepted, " +
           std::to_string(logins_rejected) + " rejected), " +
           std::to_string(closures) + " channels closed by the target, " +
           std::to_string(batches) + " batches" +
           (scsi_good + scsi_check + scsi_conflict == 0
                ? std::string()
                : ", SCSI answers " + std::to_string(scsi_good) + " GOOD, " +
                      std::to_string(scsi_check) + " CHECK CONDITION, " +
                      std::to_string(scsi_conflict) + " RESERVATION CONFLICT");
  }
};

// Bytes registered for the target's RDMA on fuzzing channels: the base IUs
// use the first 17 KiB; mutated lengths (up to 64 KiB, or huge) stay inside
// or fail the RDMA either way. Smaller than --data-size: every channel the
// target closes costs a new login and registration, thousands of times.
constexpr size_t kFuzzDataSize = 256u << 10;

// Where a failure happened: one iteration, or a batch of them.
struct Where {
  uint64_t first = 0;
  uint64_t count = 1;
};

}  // namespace

CaseResult run(Context &ctx, std::ostream &out) {
  const Options &o = ctx.opt();
  const uint64_t seed =
      o.seed_given
          ? o.seed
          : static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  const uint64_t first = o.fuzz_from;
  const uint64_t last = first + o.iterations;
  const uint64_t batch_max = std::max<uint32_t>(1, o.fuzz_batch);
  out << "fuzz: seed " << seed << ", iterations " << first << ".." << last - 1
      << ", batch " << batch_max << (o.fuzz_scsi ? ", SCSI layer" : "")
      << std::endl;

  CaseResult res;
  res.name = "fuzz";
  res.expected =
      "after every mutated IU (or batch of them) the target answers TEST UNIT "
      "READY (after a re-login if it closed the channel), every login request "
      "gets an SRP_LOGIN_RSP or a well-formed SRP_LOGIN_REJ, no protocol "
      "violations";
  if (o.fuzz_scsi)
    res.expected +=
        "; every SCSI command answered by an SRP_RSP for its tag (GOOD, "
        "CHECK CONDITION with valid sense data or RESERVATION CONFLICT, "
        "consistent residuals) unless the target closed the channel; no "
        "persistent reservation registration at the end";
  const auto start = Clock::now();
  Stats stats;
  Where where{first, 1};
  Step st;
  bool have_step = false;
  const uint64_t progress = o.iterations >= 20000 ? 10000 : 1000;
  uint64_t next_progress = first + progress;
  try {
    const TargetFacts &f = ctx.facts();
    if (!o.no_write) ctx.mark_scratch_dirty();
    std::unique_ptr<Session> s;
    auto since = [](Clock::time_point t0) {
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    auto fresh = [&]() {
      const auto t0 = Clock::now();
      if (s) {
        no_violations(*s);
        // A closed channel has nothing left to wait for.
        if (s->closed()) s->channel().disconnect(Clock::now());
      }
      stats.relogins++;
      s.reset();
      LoginReq r = ctx.default_login();
      if (f.immediate) {
        r.req_flags |= kImmedRequested;
        r.imm_data_offset = kLinuxImmDataOffset;
      }
      auto a = ctx.try_login(r, nullptr,
                             o.fuzz_scsi ? kScsiDataSize : kFuzzDataSize);
      if (a.kind != ConnectResult::Kind::kAccepted)
        throw Failure{"SRP_LOGIN_RSP (login accepted)", describe_attempt(a)};
      s = std::move(a.session);
      // Data-out buffers of SCSI steps: zeros.
      if (o.fuzz_scsi) std::fill_n(s->channel().data(), kScsiRegion, 0);
      stats.t_relogin += since(t0);
    };
    // Takes in what the target sent so far; a closed channel is replaced.
    auto settle = [&]() {
      if (s) {
        s->pump_until(Clock::now());
        s->take_unclaimed();
        no_violations(*s);
        if (s->closed()) {
          stats.closures++;
          stats.close_reasons[s->close_reason()]++;
          ctx.log("fuzz: channel closed (" + s->close_reason() +
                  "), logging in again");
        }
      }
      if (!s || s->closed()) fresh();
    };
    const Bytes login_pd = encode_login_req_rdma(ctx.default_login());
    // SCSI mode: the registrations there were before.
    std::vector<uint64_t> keys_before;
    if (o.fuzz_scsi) {
      settle();
      keys_before = hostile::registration_keys(ctx, *s).value_or(
          std::vector<uint64_t>{});
      // READ KEYS used the start of the data-out region.
      std::fill_n(s->channel().data(), kScsiRegion, 0);
    }
    auto make_step = [&](uint64_t it, Step *out_step, BaseParams *p) {
      p->lun = encode_lun(o.lun);
      p->tag = s->new_tag();
      p->data_va = s->channel().data_va(0);
      p->rkey = s->channel().data_rkey();
      p->block_size = f.block_size;
      p->scratch_lba = f.scratch_lba;
      p->immediate = s->login_rsp().immediate();
      p->imm_data_offset = s->login_req().imm_data_offset;
      p->allow_write = !o.no_write;
      p->max_it_iu_len = s->login_rsp().max_it_iu_len;
      p->login_percent = o.fuzz_login_percent;
      p->scsi = o.fuzz_scsi;
      p->scratch_blocks = f.scratch_blocks;
      *out_step = plan(seed, it, *p, login_pd);
    };
    // The barrier: TEST UNIT READY answered GOOD on this channel. False if
    // the channel closed on the way (not a failure by itself).
    auto barrier = [&]() -> bool {
      const auto t0 = Clock::now();
      struct Add {
        double &t;
        Clock::time_point t0;
        ~Add() { t += std::chrono::duration<double>(Clock::now() - t0).count(); }
      } add{stats.t_barrier, t0};
      for (int attempt = 0; attempt < 4; attempt++) {
        CmdBuilder b;
        b.cdb(cdb::test_unit_ready());
        const uint64_t tag = s->new_tag();
        b.tag(tag).lun(encode_lun(o.lun));
        std::string why;
        if (!s->send(b.build(), Credit::kConsume, &why)) {
          s->pump_until(Clock::now());
          if (s->closed()) return false;
          throw Failure{"TEST UNIT READY sent", "send failed: " + why};
        }
        auto r = s->wait_rsp(tag, deadline_in(ctx.timeout()));
        if (!r) {
          if (s->closed()) return false;
          throw Failure{"an answer to TEST UNIT READY within " +
                            std::to_string(o.timeout_ms) + " ms",
                        "nothing, and the channel is still up"};
        }
        if (r->status == kStatusGood) return true;
        auto sense = rsp_sense(*r);
        if (!(r->status == kStatusCheckCondition && sense &&
              sense->key == kSenseUnitAttention))
          throw Failure{"TEST UNIT READY: GOOD", describe(*r)};
      }
      throw Failure{"TEST UNIT READY: GOOD", "UNIT ATTENTION 4 times"};
    };
    // Sends one step's IU; false if the channel was closed before it went.
    // SCSI mode: every command of a batch the target took in gets an
    // SRP_RSP (it may come after the barrier's) that judge() accepts.
    auto check_scsi = [&](const std::vector<std::pair<uint64_t, uint64_t>> &its,
                          const std::vector<Step> &steps) {
      hostile::Accept any;
      any.any_sense = true;
      any.conflict = true;
      for (size_t k = 0; k < steps.size(); k++) {
        const Step &x = steps[k];
        const uint64_t tag = get_be64(ByteView(x.bytes), 8);
        auto r = s->wait_rsp(tag, deadline_in(ctx.timeout()));
        if (!r && s->closed()) return;  // the next settle() logs in again
        std::string bad =
            r ? hostile::judge({DataDir::kNone, 0, x.buf_dir, x.buf_len}, any,
                               *r)
              : "no SRP_RSP within " + std::to_string(o.timeout_ms) +
                    " ms and the channel still up";
        if (!bad.empty()) {
          where = {its[k].first, 1};
          st = x;
          have_step = true;
          throw Failure{"an SRP_RSP for tag " + hex64(tag) + ": " +
                            hostile::accepted_text(any) +
                            ", consistent residuals",
                        (r ? describe(*r) + ": " : std::string()) + bad};
        }
        if (r->status == kStatusGood)
          stats.scsi_good++;
        else if (r->status == kStatusCheckCondition)
          stats.scsi_check++;
        else
          stats.scsi_conflict++;
      }
    };
    auto send_step = [&](const Step &x) -> bool {
      std::string why;
      const auto t0 = Clock::now();
      const bool ok = s->send(x.bytes, Credit::kConsume, &why);
      stats.t_send += since(t0);
      if (ok) return true;
      s->pump_until(Clock::now());  // the event saying why
      if (s->closed()) return false;
      throw Failure{"the IU sent", "send failed: " + why};
    };

    uint64_t i = first;
    // SRP_CMD iterations whose IU never reached the target (the channel
    // ended before it was delivered), to send again on the next channel.
    std::deque<uint64_t> redo;
    std::map<uint64_t, unsigned> redone;
    while (i < last || !redo.empty()) {
      where = {redo.empty() ? i : redo.front(), 1};
      have_step = false;
      // Events already there (e.g. a fuzzed SINGLE login terminated this
      // channel) are taken in first.
      settle();
      if (i >= next_progress) {
        out << "fuzz: " << (i - first) << " iterations done, "
            << static_cast<uint64_t>(
                   std::chrono::duration<double>(Clock::now() - start).count())
            << " s; " << stats.text() << "; " << stats.timing() << std::endl;
        next_progress += progress;
      }
      BaseParams p;
      if (redo.empty()) {
        make_step(i, &st, &p);
        have_step = true;
      }

      if (redo.empty() && st.login) {
        ctx.log("fuzz " + std::to_string(i) + ": " + st.describe());
        stats.logins++;
        const auto t0 = Clock::now();
        auto a = ctx.try_login(ctx.default_login(), &st.bytes, kFuzzDataSize);
        if (a.kind == ConnectResult::Kind::kError ||
            (a.kind == ConnectResult::Kind::kRejected && !a.rej))
          throw Failure{"an SRP_LOGIN_RSP or a well-formed SRP_LOGIN_REJ",
                        describe_attempt(a)};
        if (a.rej && (a.rej->reason < kRejUnableEstablish ||
                      a.rej->reason > kRejChannelLimit))
          throw Failure{"a defined SRP_LOGIN_REJ reason",
                        reject_reason_name(a.rej->reason)};
        if (a.rej) stats.logins_rejected++;
        if (a.session) {
          stats.logins_accepted++;
          tur_ok(ctx, *a.session);
          no_violations(*a.session);
          a.session->disconnect();
        }
        stats.t_fuzz_login += since(t0);
        i++;
        continue;
      }

      // A batch: IUs to send again first, then this and the following
      // SRP_CMD steps (up to the next login step), sent back to back, then
      // one TEST UNIT READY.
      std::vector<std::pair<uint64_t, uint64_t>> sent;  // iteration, seq
      std::vector<Step> sent_steps;
      stats.batches++;
      bool closed = false;
      auto add = [&](uint64_t it, bool planned) {
        Step x;
        BaseParams q;
        if (planned) {
          x = st;
        } else {
          make_step(it, &x, &q);
        }
        ctx.log("fuzz " + std::to_string(it) + ": " + x.describe());
        if (!send_step(x)) return false;
        st = x;
        sent.emplace_back(it, s->last_send_seq());
        sent_steps.push_back(x);
        return true;
      };
      while (!closed && !redo.empty() && sent.size() < batch_max) {
        const uint64_t it = redo.front();
        if (redone[it] >= 2) {
          // Sent twice, the second time first on a new channel, and both
          // times the channel ended before its send completed: the IU
          // itself ends the channel (e.g. the target's RDMA READ with its
          // bad rkey put our QP in error before the SEND's acknowledgement
          // was processed). It was delivered; do not send it again.
          stats.ius_before_close++;
          redo.pop_front();
          continue;
        }
        redone[it]++;
        if (!add(it, false)) {
          closed = true;
          break;
        }
        redo.pop_front();
      }
      bool first_planned = have_step;
      while (!closed && sent.size() < batch_max && i < last) {
        if (!first_planned) {
          Step nx;
          BaseParams q;
          make_step(i, &nx, &q);
          if (nx.login) break;
          st = nx;
        }
        first_planned = false;
        if (!add(i, true)) {
          redo.push_back(i);
          i++;
          closed = true;
          break;
        }
        i++;
      }
      if (sent.empty() && !closed) continue;
      where = {sent.empty() ? i - 1 : sent.front().first,
               sent.empty() ? 1 : sent.back().first - sent.front().first + 1};
      have_step = sent.size() == 1;
      if (!closed && barrier()) {
        // Counted once the barrier shows the target took them in.
        stats.ius += sent.size();
        if (o.fuzz_scsi) check_scsi(sent, sent_steps);
        s->take_unclaimed();
        no_violations(*s);
        continue;
      }
      // The channel ended somewhere in the batch. The IUs it delivered
      // count; the others go again on the next channel.
      {
        const auto t0 = Clock::now();
        s->channel().drain_sends(deadline_in(ctx.timeout()));
        stats.t_drain += since(t0);
      }
      for (const auto &[it, seq] : sent) {
        if (s->delivered(seq)) {
          stats.ius_before_close++;
        } else {
          redo.push_back(it);
        }
      }
      // Keep the iteration order of what is sent again.
      std::sort(redo.begin(), redo.end());
    }
    if (s) {
      s->pump_until(Clock::now());
      no_violations(*s);
    }
    if (o.fuzz_scsi) {
      // Every parameter list held zeros: no registration may appear. A
      // failure names the whole run.
      have_step = false;
      where = {first, last - first};
      settle();
      const auto keys = hostile::registration_keys(ctx, *s);
      if (keys && *keys != keys_before) {
        const std::string cleared = hostile::clear_reservations(ctx, *s);
        throw Failure{
            "no new persistent reservation registration after SCSI fuzzing "
            "with parameter lists of zeros",
            std::to_string(keys->size()) + " registration keys, " +
                std::to_string(keys_before.size()) + " before; then cleared" +
                (cleared.empty() ? "" : " (failed: " + cleared + ")")};
      }
      hostile::clear_reservations(ctx, *s);  // an SPC-2 reservation
    }
  } catch (const Failure &fl) {
    res.status = CaseResult::Status::kFail;
    res.name = "fuzz.iteration_" + std::to_string(where.first);
    res.iteration = where.first;
    res.expected = fl.expected;
    res.got = fl.got;
    if (where.count > 1)
      res.got += " (after the batch of iterations " +
                 std::to_string(where.first) + ".." +
                 std::to_string(where.first + where.count - 1) + ")";
    else if (have_step)
      res.got += " (after " + st.describe() + ")";
    res.got += "; reproduce with --fuzz --seed " + std::to_string(seed) +
               " --fuzz-from " + std::to_string(where.first) +
               " --iterations " + std::to_string(where.count) +
               (where.count > 1 ? " --fuzz-batch " + std::to_string(batch_max)
                                : std::string(" --fuzz-batch 1"));
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (res.status == CaseResult::Status::kPass) {
    const std::string dead = ctx.check_alive();
    if (!dead.empty()) {
      res.status = CaseResult::Status::kFail;
      res.expected = "target alive after fuzzing";
      res.got = dead + "; seed " + std::to_string(seed);
    } else {
      char secs[32];
      std::snprintf(secs, sizeof(secs), "%.1f", res.seconds);
      res.reason = std::to_string(o.iterations) + " iterations, seed " +
                   std::to_string(seed) + ", " + secs + " s: " + stats.text();
      out << "fuzz: " << stats.timing() << std::endl;
    }
  } else {
    res.got += "; so far: " + stats.text();
  }
  return res;
}

}  // namespace srp::fuzz
