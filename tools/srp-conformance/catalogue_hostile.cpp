// SPDX-License-Identifier: GPL-2.0-only
//
// The hostile.* cases: every SCSI command LIO emulates with an allocation
// length, a parameter list or a transfer length (scsi.h), in well-formed
// SRP_CMDs whose data buffers are 0 bytes to 1 MiB, around the page and
// 32 KiB boundaries where a target's scatterlist changes shape; with the
// CDB's length field equal to, larger and smaller than the buffer; with the
// buffer in the direction opposite to the command's; through a direct
// descriptor, a 3-descriptor indirect table and immediate data. Plus a
// variable-length CDB whose own length exceeds what the IU carries, and
// reserved operation codes. Every answer must be a well-formed SRP_RSP the
// command's accepted outcomes include (judge()); the target must not write
// outside the descriptors, send data-in the command did not produce, or
// write into data-out buffers; where the outcome is certain (data read,
// written, copied) it is checked.
//
// Writes go to the scratch area only: every LBA field is the scratch
// area's first LBA, and the scratch area ends with the medium, so a length
// that runs past it runs past the medium (LBA OUT OF RANGE). A parameter
// list that changes the device's state (PERSISTENT RESERVE OUT, UNMAP, SET
// TARGET PORT GROUPS, EXTENDED COPY) holds zeros or what the case built,
// and its length is 0 when the buffer is not a data-out buffer: a target
// that maps memory of its own for it must not find a list there.
#include <algorithm>

#include "case_util.h"
#include "hostile.h"
#include "scsi.h"

namespace srp::hostile {

namespace {

const Sense kInvalidCdb{kSenseIllegalRequest, 0x24, 0x00};
const Sense kInvalidIu{kSenseIllegalRequest, 0x0e, 0x03};
const Sense kBadOpcode{kSenseIllegalRequest, 0x20, 0x00};
const Sense kBadList{kSenseIllegalRequest, 0x26, 0x00};
const Sense kListLength{kSenseIllegalRequest, 0x1a, 0x00};
const Sense kLbaRange{kSenseIllegalRequest, 0x21, 0x00};
const Sense kMiscompare{kSenseMiscompare, 0x1d, 0x00};
// LOGICAL UNIT COMMUNICATION FAILURE: LIO's answer (with TASK SET FULL)
// where its emulation maps a data buffer that is not there, or a backend
// (fileio) does I/O of another size than the buffer.
const Sense kOddBufferSense{kSenseNotReady, 0x08, 0x00};

constexpr uint8_t kFill = 0xee;       // what the initiator leaves in buffers
constexpr size_t kGuard = 4096;       // checked bytes after the last descriptor
constexpr size_t kScatterGap = 4096;  // scatter()'s gap between descriptors
constexpr size_t kRefAlloc = 16384;   // allocation length of reference reads
// Key of the clean-up registration ("SRP_CLNU").
constexpr uint64_t kCleanupKey = 0x5352505f434c4e55ull;

const uint64_t kLengths[] = {0,     1,     511,   4095,  4096,  4097,    8193,
                             32767, 32768, 32769, 36864, 65536, 1u << 20};

bool same(const Sense &a, const Sense &b) {
  return a.key == b.key && a.asc == b.asc && a.ascq == b.ascq;
}

DataDir opposite(DataDir d) {
  return d == DataDir::kIn ? DataDir::kOut : DataDir::kIn;
}

const char *dir_text(DataDir d) {
  return d == DataDir::kIn ? "data-in" : d == DataDir::kOut ? "data-out" : "no";
}

// The command again while it gets a UNIT ATTENTION (up to 3 times), as an
// initiator retries it.
Rsp exec_ua(Context &ctx, Session &s, const CmdBuilder &b) {
  for (int attempt = 0;; attempt++) {
    Rsp r = exec(ctx, s, b);
    auto sn = rsp_sense(r);
    if (attempt == 3 || r.status != kStatusCheckCondition || !sn ||
        sn->key != kSenseUnitAttention)
      return r;
  }
}

bool is_sense(const Rsp &r, const Sense &want) {
  auto sn = rsp_sense(r);
  return r.status == kStatusCheckCondition && sn && same(*sn, want);
}

// Sends @cdb with @len bytes of data-in into the start of the buffer.
Rsp data_in(Context &ctx, Session &s, const Bytes &cdb, uint32_t len) {
  CmdBuilder b;
  b.cdb(cdb).direct(DataDir::kIn,
                    {s.channel().data_va(0), s.channel().data_rkey(), len});
  return exec_ua(ctx, s, b);
}

// Sends @cdb with @data as a direct data-out buffer at the start of the
// buffer.
Rsp data_out(Context &ctx, Session &s, const Bytes &cdb, const Bytes &data) {
  std::copy(data.begin(), data.end(), s.channel().data());
  CmdBuilder b;
  b.cdb(cdb).direct(DataDir::kOut,
                    {s.channel().data_va(0), s.channel().data_rkey(),
                     static_cast<uint32_t>(data.size())});
  return exec_ua(ctx, s, b);
}

Bytes first_bytes(Session &s, size_t n) {
  return Bytes(s.channel().data(), s.channel().data() + n);
}

// ---- the data buffer of one command -------------------------------------

enum class Buf { kNone, kDirect, kIndirect, kImmediate };

const char *buf_text(Buf b) {
  static const char *const text[] = {"no descriptor", "direct descriptor",
                                     "3-descriptor indirect table",
                                     "immediate data"};
  return text[static_cast<int>(b)];
}

// "4096-byte data-out buffer, direct descriptor"
std::string buffer_text(uint64_t n, DataDir dir, Buf b) {
  if (dir == DataDir::kNone) return "no data buffer";
  return std::to_string(n) + "-byte " + dir_text(dir) + " buffer, " +
         buf_text(b);
}

struct Buffer {
  std::vector<DirectDesc> d;
  size_t end = 0;  // end of the checked area: descriptors, gaps, guard
};

// Lays out an @n-byte buffer as @b from the start of the registered
// memory: everything from there to kGuard bytes past the last descriptor is
// kFill, then @data goes into the descriptors (data-out).
Buffer lay_out(Session &s, Buf b, size_t n, const Bytes &data) {
  Buffer buf;
  if (b == Buf::kDirect || b == Buf::kIndirect) {
    buf.d = scatter(s, 0, n, b == Buf::kIndirect ? 3 : 1);
    buf.end = offset_of(s, buf.d.back()) + buf.d.back().len + kGuard;
  }
  std::fill_n(s.channel().data(), buf.end, kFill);
  if (!data.empty() && !buf.d.empty()) put_scattered(s, buf.d, data);
  return buf;
}

// Where in [from, to) of the registered memory a byte differs from kFill.
std::string touched(Session &s, size_t from, size_t to) {
  const uint8_t *p = s.channel().data();
  for (size_t i = from; i < to; i++)
    if (p[i] != kFill)
      return "the target wrote " + hex8(p[i]) + " at offset " +
             std::to_string(i) + ", outside the descriptors";
  return "";
}

// What the target did to the buffer that it must not have: written
// outside the descriptors, written into a data-out buffer, or sent data-in
// past the first @keep bytes other than 00h (zero fill) or kFill.
std::string buffer_problem(Session &s, const Buffer &buf, DataDir dir,
                           const Bytes &data, uint64_t keep) {
  size_t pos = 0;
  for (const DirectDesc &x : buf.d) {
    const size_t at = offset_of(s, x);
    std::string t = touched(s, pos, at);
    if (!t.empty()) return t;
    pos = at + x.len;
  }
  std::string t = touched(s, pos, buf.end);
  if (!t.empty()) return t;
  if (buf.d.empty()) return "";
  const Bytes got = gather(s, buf.d);
  if (dir == DataDir::kOut) {
    for (size_t i = 0; i < got.size(); i++)
      if (got[i] != data[i])
        return "the data-out buffer changed at byte " + std::to_string(i);
  } else {
    for (size_t i = keep; i < got.size(); i++)
      if (got[i] != kFill && got[i] != 0)
        return "data-in byte " + std::to_string(i) + " is " + hex8(got[i]) +
               ", past the " + std::to_string(keep) +
               " bytes the command may return (00h fill or untouched "
               "expected)";
  }
  return "";
}

struct Fired {
  Rsp rsp;
  Buffer buf;
};

// Sends @cdb with an @shot.buf_len-byte buffer of direction @shot.buf_dir
// described as @b (data-out: holding @data) and checks the answer and the
// buffer; a problem is a Failure naming @what.
Fired fire(Context &ctx, Session &s, const Bytes &cdb, Buf b, const Shot &shot,
           const Accept &a, const Bytes &data, const std::string &what) {
  Fired f;
  f.buf = lay_out(s, b, shot.buf_len, data);
  CmdBuilder cmd;
  if (b == Buf::kNone) {
    cmd.cdb(cdb);
  } else {
    cmd = data_cmd(s, shot.buf_dir, cdb,
                   b == Buf::kImmediate  ? Layout::kImmediate
                   : b == Buf::kIndirect ? Layout::kIndirect
                                         : Layout::kDirect,
                   f.buf.d, &data);
  }
  try {
    f.rsp = exec_ua(ctx, s, cmd);
  } catch (Failure &fl) {
    fl.expected += " (" + what + ")";
    throw;
  }
  const std::string want =
      "an answer to " + what + ": " + accepted_text(a) +
      ", consistent residuals, buffers untouched outside the transfer";
  std::string bad = judge(shot, a, f.rsp);
  if (bad.empty()) {
    const uint64_t keep =
        shot.cmd_dir != DataDir::kIn
            ? 0
            : std::min(shot.cdb_bytes, f.rsp.status == kStatusGood
                                           ? data_in_arrived(shot, f.rsp)
                                           : shot.buf_len);
    bad = buffer_problem(s, f.buf, shot.buf_dir, data, keep);
  }
  if (!bad.empty()) throw Failure{want, describe(f.rsp) + ": " + bad};
  return f;
}

// ---- the cases over scsi::commands() ------------------------------------

// What the data-out buffer holds.
enum class Payload {
  kPattern,    // test data
  kZeros,      // all zero
  kModePages,  // header + the current caching page (MODE SENSE)
  kUnmap,      // UNMAP list: one descriptor, 1 block of the scratch area
  kCopy,       // EXTENDED COPY: 1 block, scratch LBA -> scratch LBA + 1
  kCompare,    // COMPARE AND WRITE: the block as it is, then test data
};

// What a GOOD answer is checked against, beyond judge() and the buffers.
enum class Check {
  kNone,
  kStatic,     // data-in equal to a reference read (data that does not change)
  kRead,       // data-in equal to the scratch area; a data-out buffer changes
               // nothing
  kUnchanged,  // a data-out buffer does not change the scratch area
  kWrite,      // the scratch area holds what was written
  kWriteSame,
  kCompareWrite,
  kCopy,
  kAlua,  // the ALUA states (REPORT TARGET PORT GROUPS) are unchanged
  kPr,    // no registration appears; REGISTER works; nothing left after
};

struct Spec {
  const char *name;          // of the scsi::Command
  uint64_t natural;          // usual data length; 0: from the block size
  std::vector<Sense> extra;  // accepted besides 24/00 and 0E/03
  bool optional;             // INVALID COMMAND OPERATION CODE accepted
  bool conflict;             // RESERVATION CONFLICT accepted
  Payload payload;
  Check check;
  unsigned needs;
  const char *why;  // why these outcomes
};

const char *const kCommonWhy =
    "24h/00h INVALID FIELD IN CDB (an allocation or parameter list length "
    "the device refuses; LIO's answer to a data-out buffer shorter than a "
    "control command's parameter list) and 0Eh/03h INVALID FIELD IN "
    "INFORMATION UNIT (the buffer contradicts the CDB: LIO for READ/WRITE "
    "data commands) are accepted for every command";

// Commands that share their accepted outcomes and checks.
struct Family {
  std::vector<std::pair<const char *, uint64_t>> members;  // name, natural
  std::vector<Sense> extra;
  bool optional, conflict;
  Payload payload;
  Check check;
  unsigned needs;
  const char *why;
};

std::vector<Spec> make_specs() {
  const unsigned w = kNeedsWrite;
  const std::vector<Sense> list = {kListLength, kBadList};
  const std::vector<Family> families = {
      {{{"inquiry", 36},
        {"inquiry_vpd_83", 255},
        {"report_luns", 16},
        {"read_capacity_16", 32}},
       {},
       false,
       false,
       Payload::kPattern,
       Check::kStatic,
       0,
       "mandatory in SPC-4 or SBC-3: not 20h/00h"},
      {{{"request_sense", 18}},
       {},
       false,
       false,
       Payload::kPattern,
       Check::kNone,
       0,
       "mandatory in SPC-4; its data may change between commands"},
      {{{"mode_sense_6", 255},
        {"mode_sense_10", 4096},
        {"log_sense", 64},
        {"report_target_port_groups", 4096},
        {"report_supported_opcodes", 4096},
        {"receive_copy_results", 44}},
       {},
       true,
       false,
       Payload::kPattern,
       Check::kStatic,
       0,
       "optional (SPC-4, SBC-3; ALUA; REPORT SUPPORTED OPERATION CODES is "
       "new in LIO 6.7): 20h/00h accepted"},
      {{{"mode_select_6", 24}, {"mode_select_10", 28}},
       list,
       true,
       false,
       Payload::kModePages,
       Check::kNone,
       0,
       "1Ah/00h for a list shorter than its header and page, 26h/00h for "
       "pages that differ from the current ones (LIO changes nothing); "
       "optional: 20h/00h"},
      {{{"set_target_port_groups", 8}},
       list,
       true,
       false,
       Payload::kZeros,
       Check::kAlua,
       0,
       "zeros ask for target port group 0 to be active/optimized: GOOD if "
       "it is the LUN's group (nothing changes), 26h/00h if there is no such "
       "group, 1Ah/00h for a list too short; 20h/00h without explicit ALUA"},
      {{{"persistent_reserve_in_read_keys", 8},
        {"persistent_reserve_in_read_full_status", 8}},
       {},
       true,
       true,
       Payload::kPattern,
       Check::kStatic,
       0,
       "persistent reservations are optional (20h/00h); RESERVATION "
       "CONFLICT under another initiator's SPC-2 reservation"},
      {{{"persistent_reserve_out_register", 24}},
       list,
       true,
       true,
       Payload::kZeros,
       Check::kPr,
       0,
       "zeros are a REGISTER of key 0 by an unregistered initiator, which "
       "does nothing (SPC-4 5.7.7): GOOD for a 24-byte list, 1Ah/00h for any "
       "other length; 20h/00h without persistent reservations"},
      {{{"unmap", 24}},
       {kListLength, kBadList, kLbaRange},
       true,
       false,
       Payload::kUnmap,
       Check::kNone,
       w,
       "optional (20h/00h: LIO without thin provisioning); 26h/00h for more "
       "descriptors than the device takes, 1Ah/00h for a short list"},
      {{{"extended_copy", 108}},
       {kListLength,
        kBadList,
        {kSenseIllegalRequest, 0x26, 0x06},
        {kSenseIllegalRequest, 0x26, 0x07},
        {kSenseIllegalRequest, 0x26, 0x08},
        {kSenseIllegalRequest, 0x26, 0x09},
        {kSenseCopyAborted, 0x0d, 0x02}},
       true,
       false,
       Payload::kCopy,
       Check::kCopy,
       w,
       "optional (20h/00h); a short or cut list 1Ah/00h or 26h/00h..09h; "
       "COPY ABORTED 0Dh/02h if the copy target is not found"},
      {{{"write_same_10", 0}, {"write_same_16", 0}, {"write_same_32", 0}},
       {kLbaRange},
       true,
       false,
       Payload::kPattern,
       Check::kWriteSame,
       w,
       "optional (20h/00h); 21h/00h for blocks past the medium; a NUMBER OF "
       "LOGICAL BLOCKS of 0 is 24h/00h where WSNZ is set (LIO)"},
      {{{"compare_and_write", 0}},
       {kLbaRange, kMiscompare},
       true,
       false,
       Payload::kCompare,
       Check::kCompareWrite,
       w,
       "optional (20h/00h); MISCOMPARE 1Dh/00h where the compare half is not "
       "what the medium holds (buffers of another length or direction), "
       "never for the consistent 2-block buffer; 24h/00h for more blocks "
       "than the device compares at once"},
      {{{"read_10", 0}, {"read_16", 0}},
       {kLbaRange},
       false,
       false,
       Payload::kPattern,
       Check::kRead,
       w,
       "READ(10) is mandatory in SBC-3, READ(16) what the client reads with "
       "elsewhere: not 20h/00h; 21h/00h for blocks past the medium; a "
       "target that writes the medium from a data-out buffer given to a "
       "READ writes the scratch area, so the case counts as writing"},
      {{{"write_10", 0}, {"write_16", 0}},
       {kLbaRange},
       false,
       false,
       Payload::kPattern,
       Check::kWrite,
       w,
       "WRITE(16) is what the client writes with elsewhere: not 20h/00h; "
       "21h/00h for blocks past the medium"},
      {{{"verify_10", 0},
        {"verify_16", 0},
        {"synchronize_cache_10", 0},
        {"synchronize_cache_16", 0}},
       {kLbaRange},
       true,
       false,
       Payload::kPattern,
       Check::kUnchanged,
       w,
       "optional (20h/00h); 21h/00h for blocks past the medium; counted as "
       "writing for the same reason as READ"},
  };
  std::vector<Spec> v;
  for (const Family &f : families)
    for (const auto &[name, natural] : f.members)
      v.push_back({name, natural, f.extra, f.optional, f.conflict, f.payload,
                   f.check, f.needs, f.why});
  return v;
}

const std::vector<Spec> &specs() {
  static const std::vector<Spec> all = make_specs();
  return all;
}

Accept accept_of(const Spec &sp) {
  Accept a;
  a.senses = {kInvalidCdb, kInvalidIu};
  if (sp.optional) a.senses.push_back(kBadOpcode);
  a.senses.insert(a.senses.end(), sp.extra.begin(), sp.extra.end());
  a.conflict = sp.conflict;
  return a;
}

enum class Variant { kSame, kLarger, kSmaller, kReversed };

const char *variant_text(Variant v) {
  static const char *const text[] = {
      "length field matching the buffer", "length field larger than the buffer",
      "length field smaller than the buffer",
      "buffer in the direction opposite to the command's"};
  return text[static_cast<int>(v)];
}

struct Plan {
  uint64_t n;  // buffer bytes
  Variant v;
  DataDir dir;  // of the buffer
  Buf b;
  uint64_t field;  // CDB length field
};

// ALUA states of the target port groups, in the order reported.
std::optional<std::vector<uint8_t>> alua_states(Context &ctx, Session &s) {
  const uint32_t alloc = 4096;
  Rsp r = data_in(
      ctx, s, scsi::build(scsi::command("report_target_port_groups"), alloc),
      alloc);
  if (r.status != kStatusGood) return std::nullopt;
  const Bytes d = first_bytes(s, alloc);
  const size_t end = std::min<size_t>(alloc, 4 + get_be32(ByteView(d), 0));
  std::vector<uint8_t> states;
  for (size_t pos = 4; pos + 8 <= end; pos += 8 + 4 * size_t(d[pos + 7]))
    states.push_back(d[pos] & 0x0f);
  return states;
}

class Runner {
 public:
  Runner(Context &ctx, Session &s, const Spec &sp)
      : ctx_(ctx),
        s_(s),
        sp_(sp),
        c_(scsi::command(sp.name)),
        f_(ctx.facts()),
        bs_(f_.block_size),
        accept_(accept_of(sp)) {}

  void run() {
    prepare();
    for (uint64_t n : lengths())
      for (const Plan &p : plans(n)) shoot(p);
    finish();
  }

 private:
  std::vector<uint64_t> lengths() const {
    std::vector<uint64_t> v(std::begin(kLengths), std::end(kLengths));
    v.push_back(natural());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    // Room for the gaps of an indirect table and the guard.
    const size_t room = s_.channel().data_size();
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](uint64_t n) {
                             return n + 2 * kScatterGap + kGuard > room;
                           }),
            v.end());
    return v;
  }

  uint64_t natural() const {
    if (sp_.natural) return sp_.natural;
    return c_.unit == scsi::Unit::kTwoBlocks ? 2 * bs_ : bs_;
  }

  uint64_t max_field() const { return c_.len.max(); }

  uint64_t field_same(uint64_t n) const {
    const uint64_t blocks = c_.unit == scsi::Unit::kOneBlock
                                ? std::min<uint64_t>(4, f_.scratch_blocks)
                                : f_.scratch_blocks;
    uint64_t v = scsi::len_for(c_, n, bs_, blocks);
    if (c_.unit == scsi::Unit::kBlocks) v = std::min(v, blocks);
    return v;
  }

  uint64_t field_larger(uint64_t n, uint64_t same) const {
    switch (c_.unit) {
      case scsi::Unit::kBytes:
        return std::min(max_field(), n ? 2 * n + 1 : natural());
      case scsi::Unit::kOneBlock:
      case scsi::Unit::kNoData:
        // Past the end of the medium, which the scratch area ends with.
        return std::min(max_field(), f_.scratch_blocks + uint64_t(1));
      default:
        return std::min(max_field(), 2 * same + 1);
    }
  }

  uint64_t field_smaller(uint64_t n, uint64_t same) const {
    switch (c_.unit) {
      case scsi::Unit::kBytes:
        return n / 2;
      case scsi::Unit::kOneBlock:
      case scsi::Unit::kNoData:
        return 0;
      default:
        return same / 2;
    }
  }

  std::vector<Buf> bufs(DataDir dir, uint64_t n) const {
    if (dir == DataDir::kNone) return {Buf::kNone};
    std::vector<Buf> v = {Buf::kDirect, Buf::kIndirect};
    if (dir == DataDir::kOut && s_.login_rsp().immediate() &&
        n + s_.login_req().imm_data_offset <= s_.login_rsp().max_it_iu_len)
      v.push_back(Buf::kImmediate);
    return v;
  }

  std::vector<Plan> plans(uint64_t n) const {
    std::vector<Plan> v;
    auto add = [&](Variant var, DataDir dir, uint64_t field) {
      for (Buf b : bufs(dir, n)) v.push_back({n, var, dir, b, field});
    };
    // Commands without data: a data-out buffer is the first contradiction.
    const DataDir nat = c_.dir == DataDir::kNone ? DataDir::kOut : c_.dir;
    const uint64_t same = field_same(n);
    if (n == 0) add(Variant::kSame, DataDir::kNone, same);
    add(Variant::kSame, nat, same);
    const uint64_t larger = field_larger(n, same);
    if (larger != same) add(Variant::kLarger, nat, larger);
    const uint64_t smaller = field_smaller(n, same);
    if (smaller != same) add(Variant::kSmaller, nat, smaller);
    add(Variant::kReversed, opposite(nat), same);
    return v;
  }

  // The consistent COMPARE AND WRITE: one block, compare half as on the
  // medium.
  bool consistent_compare(const Plan &p, uint64_t field) const {
    return p.dir == DataDir::kOut && field == 1 && p.n == 2 * bs_;
  }

  void shoot(const Plan &p) {
    Bytes cdb = scsi::build(c_, p.field, c_.lba.present() ? f_.scratch_lba : 0);
    if (p.dir != DataDir::kOut) {
      if (auto fl = scsi::state_parameter_list(cdb)) scsi::put(cdb, *fl, 0);
    }
    const uint64_t field = scsi::get(cdb, c_.len);
    const Shot shot{c_.dir, scsi::data_bytes(c_, field, bs_), p.dir, p.n};
    const Bytes data = p.dir == DataDir::kOut ? payload(p.n, field) : Bytes();
    const std::string what = std::string(c_.title) + ", " + variant_text(p.v) +
                             ": length field " + std::to_string(field) + ", " +
                             buffer_text(p.n, p.dir, p.b);
    Accept a = accept_;
    if (sp_.check == Check::kCompareWrite && consistent_compare(p, field))
      a.senses.erase(
          std::remove_if(a.senses.begin(), a.senses.end(),
                         [](const Sense &x) { return same(x, kMiscompare); }),
          a.senses.end());
    if (sp_.needs & kNeedsWrite) ctx_.mark_scratch_dirty();
    ctx_.log("hostile: " + what);
    const Fired f = fire(ctx_, s_, cdb, p.b, shot, a, data, what);
    if (f.rsp.status != kStatusGood) return;
    const std::string bad = semantics(p, field, f, shot, data);
    if (!bad.empty())
      throw Failure{"GOOD with the effect the command describes: " + what, bad};
  }

  // @blocks blocks from the scratch area's first LBA.
  Bytes read_back(uint64_t blocks) {
    const uint32_t len = static_cast<uint32_t>(blocks * bs_);
    Rsp r = data_in(ctx_, s_,
                    cdb::read16(f_.scratch_lba, static_cast<uint32_t>(blocks)),
                    len);
    expect_good(r, "READ(16) of the scratch area");
    return first_bytes(s_, len);
  }

  Bytes payload(uint64_t n, uint64_t field) {
    Bytes d;
    switch (sp_.payload) {
      case Payload::kPattern:
        return pattern(n, ++salt_);
      case Payload::kZeros:
        return Bytes(n, 0);
      case Payload::kModePages:
      case Payload::kCopy:
        d = list_;
        break;
      case Payload::kUnmap:
        d = unmap_list(n);
        break;
      case Payload::kCompare: {
        d = pattern(n, ++salt_);
        if (field == 1 && n >= bs_) {
          const Bytes now = read_back(1);
          std::copy(now.begin(), now.end(), d.begin());
        }
        return d;
      }
    }
    d.resize(n, 0);
    return d;
  }

  Bytes unmap_list(uint64_t n) const {
    Bytes d(24, 0);
    put_be16(
        d, 0,
        static_cast<uint16_t>(std::min<uint64_t>(n > 2 ? n - 2 : 0, 0xffff)));
    const uint64_t descs = n > 8 ? (n - 8) / 16 : 0;
    put_be16(d, 2,
             static_cast<uint16_t>(std::min<uint64_t>(descs * 16, 0xfff0)));
    put_be64(d, 8, f_.scratch_lba);
    put_be32(d, 16, 1);
    d.resize(n, 0);
    return d;
  }

  void prepare() {
    if (sp_.check == Check::kStatic) {
      const uint64_t alloc = std::min<uint64_t>(max_field(), kRefAlloc);
      Bytes cdb = scsi::build(c_, alloc);
      const Shot shot{c_.dir, alloc, DataDir::kIn, alloc};
      const Fired f = fire(ctx_, s_, cdb, Buf::kDirect, shot, accept_, Bytes(),
                           std::string(c_.title) + " (reference read, length " +
                               std::to_string(alloc) + ")");
      if (f.rsp.status == kStatusGood) {
        ref_ = gather(s_, f.buf.d);
        ref_.resize(data_in_arrived(shot, f.rsp));
        have_ref_ = true;
      }
    }
    if (sp_.check == Check::kRead || sp_.check == Check::kUnchanged) {
      ref_ = read_back(f_.scratch_blocks);
      have_ref_ = true;
    }
    if (sp_.payload == Payload::kModePages) list_ = mode_select_list();
    if (sp_.payload == Payload::kCopy) list_ = copy_list();
    if (sp_.check == Check::kAlua) alua_ = alua_states(ctx_, s_);
  }

  void finish() {
    if (sp_.check == Check::kAlua && alua_) {
      auto now = alua_states(ctx_, s_);
      if (now && *now != *alua_)
        throw Failure{"the ALUA states unchanged by parameter lists of zeros",
                      "REPORT TARGET PORT GROUPS reports other states after "
                      "the SET TARGET PORT GROUPS commands"};
    }
    if (sp_.check == Check::kPr) pr_finish();
  }

  // No-op REGISTERs must have left no registration; a real one shows up
  // in READ KEYS, and the clean-up removes it.
  void pr_finish() {
    auto keys = registration_keys(ctx_, s_);
    if (!keys) return;
    if (!keys->empty())
      throw Failure{"no registration after REGISTERs of key 0",
                    std::to_string(keys->size()) + " registration keys"};
    const Bytes cdb = scsi::build(c_, 24);
    Bytes list(24, 0);
    put_be64(list, 8, kCleanupKey);
    Rsp r = data_out(ctx_, s_, cdb, list);
    const std::string cleared = clear_reservations(ctx_, s_);
    expect_good(r,
                "PERSISTENT RESERVE OUT REGISTER of key " + hex64(kCleanupKey));
    keys = registration_keys(ctx_, s_);
    if (!cleared.empty()) throw Failure{"the clean-up works", cleared};
    if (keys && !keys->empty())
      throw Failure{"no registration left after the clean-up",
                    std::to_string(keys->size()) + " registration keys"};
  }

  // MODE SELECT parameter list: the header without a block descriptor,
  // then the current caching page (08h) as MODE SENSE(10) reports it, with
  // PS cleared. Zeros if MODE SENSE fails.
  Bytes mode_select_list() {
    const bool six = c_.base[0] == 0x15;
    const size_t hdr = six ? 4 : 8;
    const uint32_t alloc = 255;
    Bytes sense = scsi::build(scsi::command("mode_sense_10"), alloc);
    sense[2] = 0x08;
    Rsp r = data_in(ctx_, s_, sense, alloc);
    Bytes list(hdr, 0);
    if (r.status != kStatusGood) return list;
    const Bytes d = first_bytes(s_, alloc);
    const size_t at = 8 + get_be16(ByteView(d), 6);
    if (at + 2 > alloc || at + 2 + d[at + 1] > alloc) return list;
    list.insert(list.end(), d.begin() + static_cast<std::ptrdiff_t>(at),
                d.begin() + static_cast<std::ptrdiff_t>(at + 2 + d[at + 1]));
    list[hdr] &= 0x7f;
    return list;
  }

  // EXTENDED COPY (LID1) of 1 block from the scratch LBA to the next one,
  // both named by the LUN's NAA designator (VPD page 83h, SPC-4 6.4.5.2
  // identification CSCD descriptors, 6.4.6.2 block to block segment). Zeros
  // if the LUN has no 16-byte NAA designator.
  Bytes copy_list() {
    Bytes list(16 + 2 * 32 + 28, 0);
    const uint32_t alloc = 4096;
    Rsp r = data_in(ctx_, s_,
                    scsi::build(scsi::command("inquiry_vpd_83"), alloc), alloc);
    if (r.status != kStatusGood) return list;
    const Bytes d = first_bytes(s_, alloc);
    const size_t end = std::min<size_t>(alloc, 4 + get_be16(ByteView(d), 2));
    const uint8_t *naa = nullptr;
    for (size_t pos = 4; pos + 4 <= end; pos += 4 + size_t(d[pos + 3])) {
      if ((d[pos] & 0x0f) == 1 && (d[pos + 1] & 0x3f) == 0x03 &&
          d[pos + 3] == 16 && pos + 20 <= end) {
        naa = &d[pos + 4];
        break;
      }
    }
    if (!naa || f_.scratch_blocks < 2) return list;
    list[1] = 0x18;         // LIST ID USAGE 11b: no list identifier
    put_be16(list, 2, 64);  // CSCD descriptor list length
    put_be32(list, 8, 28);  // segment descriptor list length
    for (size_t i = 0; i < 2; i++) {
      const size_t at = 16 + 32 * i;
      list[at] = 0xe4;      // identification descriptor CSCD
      list[at + 4] = 0x01;  // binary code set
      list[at + 5] = 0x03;  // LUN association, NAA designator
      list[at + 7] = 16;
      std::copy(naa, naa + 16,
                list.begin() + static_cast<std::ptrdiff_t>(at + 8));
      // Block device parameters: DISK BLOCK LENGTH (3 bytes).
      list[at + 29] = static_cast<uint8_t>(bs_ >> 16);
      put_be16(list, at + 30, static_cast<uint16_t>(bs_));
    }
    const size_t seg = 16 + 64;
    list[seg] = 0x02;  // block device to block device
    put_be16(list, seg + 2, 0x18);
    put_be16(list, seg + 6, 1);   // destination CSCD 1
    put_be16(list, seg + 10, 1);  // 1 block
    put_be64(list, seg + 12, f_.scratch_lba);
    put_be64(list, seg + 20, f_.scratch_lba + 1);
    copy_ok_ = true;
    return list;
  }

  std::string semantics(const Plan &p, uint64_t field, const Fired &f,
                        const Shot &shot, const Bytes &data) {
    const uint64_t arrived = data_in_arrived(shot, f.rsp);
    switch (sp_.check) {
      case Check::kRead:
      case Check::kUnchanged:
        if (p.dir == DataDir::kOut) {
          // A data-out buffer is not data to write.
          const Bytes now = read_back(f_.scratch_blocks);
          for (size_t i = 0; i < now.size(); i++)
            if (now[i] != ref_[i])
              return "the scratch area changed at byte " + std::to_string(i) +
                     " (" + hex8(ref_[i]) + " -> " + hex8(now[i]) +
                     "): the data-out buffer was written to the medium";
          return "";
        }
        if (sp_.check == Check::kUnchanged) return "";
        [[fallthrough]];
      case Check::kStatic: {
        if (!have_ref_ || p.dir != DataDir::kIn) return "";
        const Bytes got = gather(s_, f.buf.d);
        for (uint64_t i = 0; i < arrived; i++) {
          const uint8_t want = i < ref_.size() ? ref_[i] : 0;
          if (got[i] != want && !(i >= ref_.size() && got[i] == kFill))
            return "data-in byte " + std::to_string(i) + " is " + hex8(got[i]) +
                   ", the reference read has " + hex8(want);
        }
        return "";
      }
      case Check::kWrite: {
        if (p.dir != DataDir::kOut) return "";
        const uint64_t n = std::min<uint64_t>(field * bs_, p.n) / bs_;
        if (n == 0) return "";
        const Bytes back = read_back(n);
        for (size_t i = 0; i < back.size(); i++)
          if (back[i] != data[i])
            return "the scratch area read back differs at byte " +
                   std::to_string(i) + " from the data written";
        return "";
      }
      case Check::kWriteSame: {
        if (p.dir != DataDir::kOut || p.n < bs_) return "";
        const uint64_t n = std::min<uint64_t>(field ? field : f_.scratch_blocks,
                                              f_.scratch_blocks);
        const Bytes back = read_back(n);
        for (size_t i = 0; i < back.size(); i++)
          if (back[i] != data[i % bs_])
            return "block " + std::to_string(i / bs_) +
                   " of the WRITE SAME differs from the block sent at byte " +
                   std::to_string(i % bs_);
        return "";
      }
      case Check::kCompareWrite: {
        if (!consistent_compare(p, field)) return "";
        const Bytes back = read_back(1);
        if (!std::equal(back.begin(), back.end(), data.begin() + bs_))
          return "the block does not hold the write half after GOOD";
        return "";
      }
      case Check::kCopy: {
        if (p.dir != DataDir::kOut || !copy_ok_ || p.n < list_.size() ||
            field < list_.size())
          return "";
        const Bytes back = read_back(2);
        if (!std::equal(back.begin(), back.begin() + bs_, back.begin() + bs_))
          return "the destination block differs from the source after GOOD";
        return "";
      }
      case Check::kNone:
      case Check::kAlua:
      case Check::kPr:
        break;
    }
    return "";
  }

  Context &ctx_;
  Session &s_;
  const Spec &sp_;
  const scsi::Command &c_;
  const TargetFacts &f_;
  const uint32_t bs_;
  const Accept accept_;
  Bytes ref_;
  bool have_ref_ = false;
  Bytes list_;
  bool copy_ok_ = false;
  std::optional<std::vector<uint8_t>> alua_;
  uint64_t salt_ = 0;
};

std::unique_ptr<Session> hostile_login(Context &ctx) {
  LoginReq r = ctx.default_login();
  if (ctx.facts().immediate) {
    r.req_flags |= kImmedRequested;
    r.imm_data_offset = kLinuxImmDataOffset;
  }
  return ctx.login(r);
}

const char *const kSends =
    " with data buffers of 0, 1, 511, 4095, 4096, 4097, 8193, 32767, "
    "32768, 32769, 36864, 65536 and 1048576 bytes and the command's usual "
    "length; per length the CDB's length field matching the buffer (where "
    "the field can say it), larger and smaller, and the buffer in the "
    "opposite direction (parameter list length 0 for a list that changes "
    "the device's state); each as a direct descriptor, a 3-descriptor "
    "indirect table and, for data-out when immediate data was negotiated "
    "and fits, immediate data; LBA fields at the scratch area";

const char *const kRules =
    "; residual flags only for the buffer's direction, never UNDER and "
    "OVER together, UNDER counts within the buffer, on GOOD no more "
    "data-in than the CDB asked for; nothing written outside the "
    "descriptors, no data-in past what the command returns (00h fill "
    "tolerated), data-out buffers unchanged; credits back";

// What a GOOD answer is checked for, by Check.
const char *const kCheckText[] = {
    "",
    "; on GOOD the data-in equal to a reference read of the same command",
    "; on GOOD the data-in equal to the scratch area, and the scratch area "
    "unchanged by a data-out buffer",
    "; on GOOD the scratch area unchanged by a data-out buffer",
    "; on GOOD the scratch area holds the data written",
    "; on GOOD every block written holds the block sent",
    "; on GOOD the block holds the write half",
    "; on GOOD of the copy list the destination block equals the source",
    "; the ALUA states (REPORT TARGET PORT GROUPS) unchanged",
    "; no registration appears, a REGISTER of a real key is seen in READ "
    "KEYS, and none is left after the clean-up (REGISTER AND IGNORE "
    "EXISTING KEY, CLEAR)",
};

std::string expected_of(const Spec &sp) {
  return "every command answered by an SRP_RSP for its tag: " +
         accepted_text(accept_of(sp)) + kRules +
         kCheckText[static_cast<int>(sp.check)];
}

// ---- variable-length CDBs and reserved operation codes -------------------

// A variable-length CDB (7Fh) whose ADDITIONAL CDB LENGTH claims 32 or 256
// bytes while the IU carries 16: service action WRITE SAME(32) with the
// most significant LBA bytes all ones, so that a target which reads the
// missing bytes from elsewhere finds an LBA past the medium.
void varlen_case(Context &ctx) {
  const auto &f = ctx.facts();
  auto s = hostile_login(ctx);
  Accept refused;
  refused.good = false;
  refused.senses = {kInvalidIu, kInvalidCdb, kBadOpcode};
  for (uint8_t add : {uint8_t{0x18}, uint8_t{0xf8}}) {
    Bytes cdb(16, 0);
    cdb[0] = 0x7f;
    cdb[7] = add;
    cdb[9] = 0x0d;
    std::fill(cdb.begin() + 12, cdb.end(), 0xff);
    for (uint64_t n : {uint64_t{0}, uint64_t{f.block_size}, uint64_t{36864}}) {
      for (Buf b : {Buf::kNone, Buf::kDirect, Buf::kIndirect}) {
        if ((b == Buf::kNone) != (n == 0)) continue;
        const DataDir dir = b == Buf::kNone ? DataDir::kNone : DataDir::kOut;
        const Shot shot{DataDir::kOut, f.block_size, dir, n};
        fire(ctx, *s, cdb, b, shot, refused, pattern(n, n + add),
             "7Fh CDB claiming " + std::to_string(add + 8) + " bytes in 16, " +
                 buffer_text(n, dir, b));
      }
    }
  }
  // ADDITIONAL CDB LENGTH 18h (32 bytes) in 48 bytes of CDB: the rest is
  // ignored; a WRITE SAME(32) of 1 block of the scratch area.
  Bytes cdb = scsi::build(scsi::command("write_same_32"), 1, f.scratch_lba);
  cdb.resize(48, 0);
  Accept a;
  a.senses = {kInvalidIu, kInvalidCdb, kBadOpcode};
  const Bytes data = pattern(f.block_size, 48);
  const Shot shot{DataDir::kOut, f.block_size, DataDir::kOut, f.block_size};
  ctx.mark_scratch_dirty();
  const Fired fd = fire(ctx, *s, cdb, Buf::kDirect, shot, a, data,
                        "WRITE SAME(32) in 48 bytes of CDB, 1 block");
  if (fd.rsp.status == kStatusGood)
    expect_same(data, read_blocks(ctx, *s, f.scratch_lba, 1, Layout::kDirect),
                "WRITE SAME(32) in 48 bytes of CDB");
  healthy(ctx, *s);
}

// Operation codes of group 3 (60h..7Dh), reserved in SPC-4.
void reserved_opcodes_case(Context &ctx) {
  auto s = hostile_login(ctx);
  Accept a;
  a.good = false;
  a.senses = {kBadOpcode, kInvalidIu};
  for (uint8_t op :
       {uint8_t{0x60}, uint8_t{0x61}, uint8_t{0x6f}, uint8_t{0x7d}}) {
    Bytes cdb(12, 0);
    cdb[0] = op;
    for (uint64_t n : kLengths) {
      if (n + 2 * kScatterGap + kGuard > s->channel().data_size()) continue;
      for (DataDir dir : {DataDir::kNone, DataDir::kOut, DataDir::kIn}) {
        if ((dir == DataDir::kNone) != (n == 0)) continue;
        const Buf b = dir == DataDir::kNone ? Buf::kNone : Buf::kDirect;
        const Shot shot{DataDir::kNone, 0, dir, n};
        fire(ctx, *s, cdb, b, shot, a,
             dir == DataDir::kOut ? pattern(n, op) : Bytes(),
             "operation code " + hex8(op) + ", " + buffer_text(n, dir, b));
      }
    }
  }
  healthy(ctx, *s);
}

}  // namespace

std::string judge(const Shot &shot, const Accept &a, const Rsp &r) {
  // No buffer, or one that contradicts the CDB.
  const bool odd = shot.buf_len == 0 || shot.buf_len != shot.cdb_bytes ||
                   shot.buf_dir != shot.cmd_dir;
  if (r.status == kStatusGood) {
    if (!a.good) return "GOOD, where the command must be refused";
  } else if (r.status == kStatusCheckCondition) {
    auto sn = rsp_sense(r);
    if (!sn) return "CHECK CONDITION without valid sense data";
    const bool ok = a.any_sense || (odd && same(*sn, kOddBufferSense)) ||
                    std::any_of(a.senses.begin(), a.senses.end(),
                                [&](const Sense &x) { return same(x, *sn); });
    if (!ok) return "sense " + sense_text(*sn) + " is not among the accepted";
  } else if (!(r.status == kStatusReservationConflict && a.conflict) &&
             !(r.status == kStatusTaskSetFull && odd)) {
    return status_name(r.status) + " is not an accepted status";
  }
  struct Dir {
    DataDir dir;
    uint8_t under, over;
    uint32_t count;
    const char *name;
  };
  for (const Dir &d : {Dir{DataDir::kOut, kRspFlagDoUnder, kRspFlagDoOver,
                           r.data_out_res_cnt, "data-out"},
                       Dir{DataDir::kIn, kRspFlagDiUnder, kRspFlagDiOver,
                           r.data_in_res_cnt, "data-in"}}) {
    const uint64_t len = shot.buf_dir == d.dir ? shot.buf_len : 0;
    const bool under = r.flags & d.under, over = r.flags & d.over;
    const std::string n = d.name;
    if (under && over) return n + " UNDER and OVER together";
    if (under && (d.count == 0 || d.count > len))
      return n + " UNDER by " + std::to_string(d.count) + " with a " +
             std::to_string(len) + "-byte " + n + " buffer";
    if (over && d.count == 0) return n + " OVER by 0";
  }
  if (r.status == kStatusGood && shot.cmd_dir == DataDir::kIn &&
      shot.buf_dir == DataDir::kIn) {
    const uint64_t got = data_in_arrived(shot, r);
    if (got > shot.cdb_bytes)
      return std::to_string(got) +
             " bytes of data-in reported for a CDB "
             "asking for " +
             std::to_string(shot.cdb_bytes);
    if ((r.flags & kRspFlagDiOver) &&
        (shot.cdb_bytes <= shot.buf_len ||
         r.data_in_res_cnt > shot.cdb_bytes - shot.buf_len))
      return "data-in OVER by " + std::to_string(r.data_in_res_cnt) +
             " with a " + std::to_string(shot.buf_len) +
             "-byte buffer for a CDB asking for " +
             std::to_string(shot.cdb_bytes);
  }
  return "";
}

uint64_t data_in_arrived(const Shot &shot, const Rsp &r) {
  if (shot.buf_dir != DataDir::kIn) return 0;
  if ((r.flags & kRspFlagDiUnder) && r.data_in_res_cnt <= shot.buf_len)
    return shot.buf_len - r.data_in_res_cnt;
  return shot.buf_len;
}

std::string accepted_text(const Accept &a) {
  std::string s;
  if (a.good) s = "GOOD";
  if (a.any_sense || !a.senses.empty()) {
    s += (s.empty() ? "" : " or ") + std::string("CHECK CONDITION with ");
    if (a.any_sense) {
      s += "valid sense data";
    } else {
      for (size_t i = 0; i < a.senses.size(); i++)
        s += (i ? ", " : "") + sense_text(a.senses[i]);
    }
  }
  if (a.conflict) s += " or RESERVATION CONFLICT";
  return s;
}

std::string clear_reservations(Context &ctx, Session &s) {
  Bytes release(10, 0);
  release[0] = 0x57;  // RELEASE(10)
  CmdBuilder b;
  b.cdb(release);
  exec_ua(ctx, s, b);
  const Bytes cdb =
      scsi::build(scsi::command("persistent_reserve_out_register"), 24);
  auto pr_out = [&](uint8_t sa, uint64_t key, uint64_t sa_key) {
    Bytes c = cdb;
    c[1] = sa;
    Bytes list(24, 0);
    put_be64(list, 0, key);
    put_be64(list, 8, sa_key);
    return data_out(ctx, s, c, list);
  };
  // REGISTER AND IGNORE EXISTING KEY, then CLEAR even if that failed: it
  // may have registered the key all the same.
  const Rsp reg = pr_out(0x06, 0, kCleanupKey);
  if (is_sense(reg, kBadOpcode)) return "";
  const Rsp clear = pr_out(0x03, kCleanupKey, 0);
  if (reg.status != kStatusGood)
    return "PERSISTENT RESERVE OUT REGISTER AND IGNORE EXISTING KEY: " +
           describe(reg);
  if (clear.status != kStatusGood)
    return "PERSISTENT RESERVE OUT CLEAR: " + describe(clear);
  return "";
}

std::optional<std::vector<uint64_t>> registration_keys(Context &ctx,
                                                       Session &s) {
  const uint32_t alloc = 4096;
  Rsp r = data_in(
      ctx, s,
      scsi::build(scsi::command("persistent_reserve_in_read_keys"), alloc),
      alloc);
  if (r.status != kStatusGood) return std::nullopt;
  const Bytes d = first_bytes(s, alloc);
  const size_t n = std::min<size_t>(get_be32(ByteView(d), 4), alloc - 8) / 8;
  std::vector<uint64_t> keys;
  for (size_t i = 0; i < n; i++)
    keys.push_back(get_be64(ByteView(d), 8 + 8 * i));
  return keys;
}

void add_cases(std::vector<Case> &out) {
  for (const Spec &sp : specs()) {
    const scsi::Command &c = scsi::command(sp.name);
    out.push_back(Case{std::string("hostile.") + sp.name,
                       std::string(c.title) + kSends, expected_of(sp),
                       std::string(c.spec) + "; " + sp.why + "; " + kCommonWhy,
                       kNeedsLogin | sp.needs, [&sp](Context &ctx) {
                         auto s = hostile_login(ctx);
                         Runner(ctx, *s, sp).run();
                         healthy(ctx, *s);
                       }});
  }
  out.push_back(Case{
      "hostile.variable_length_cdb",
      "a 16-byte variable-length CDB (7Fh, WRITE SAME(32) service action, "
      "LBA bytes 12..15 all ones) whose ADDITIONAL CDB LENGTH claims 32 and "
      "then 256 bytes, with no buffer (0 bytes) or a data-out buffer of 1 "
      "block or 36 KiB, direct and indirect; then WRITE SAME(32) of 1 "
      "scratch block in 48 bytes of CDB (add_cdb_len 32, 16 bytes more "
      "than it claims)",
      "every command answered by an SRP_RSP for its tag; the short ones "
      "refused: CHECK CONDITION with ILLEGAL REQUEST 0E/03, "
      "24/00 or 20/00, never GOOD and never LBA OUT OF RANGE (which would "
      "show the target took CDB bytes from past the IU); the 48-byte one "
      "GOOD (the block written) or CHECK CONDITION 0E/03, 24/00, 20/00; "
      "residuals and buffers as for every hostile case; credits back",
      "SPC-4 4.2.3 variable length CDB; SRP r16a: the CDB is the 16 bytes "
      "plus add_cdb_len bytes of the IU, nothing beyond",
      kNeedsLogin | kNeedsWrite, varlen_case});
  out.push_back(
      Case{"hostile.reserved_opcodes",
           "12-byte CDBs with the reserved operation codes 60h, 61h, 6Fh, 7Dh, "
           "with no buffer and with direct data-out and data-in buffers of 1 "
           "byte to 1 MiB",
           "every command answered by an SRP_RSP for its tag: CHECK CONDITION "
           "ILLEGAL REQUEST 20/00 (or 0E/03), never GOOD; no "
           "data-in, data-out buffers unchanged; credits back",
           "SPC-4 4.2.5.1: operation codes 60h..7Dh are reserved", kNeedsLogin,
           reserved_opcodes_case});
}

}  // namespace srp::hostile
