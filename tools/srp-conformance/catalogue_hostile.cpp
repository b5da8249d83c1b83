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
//
// What the hostile files share is in hostile_parts.h; the Runner of one
// command is in catalogue_hostile_runner.cpp, judge() in hostile.cpp.
#include <algorithm>

#include "case_util.h"
#include "hostile.h"
#include "hostile_parts.h"
#include "scsi.h"

namespace srp::hostile {

namespace {

const char *dir_text(DataDir d) {
  return d == DataDir::kIn ? "data-in" : d == DataDir::kOut ? "data-out" : "no";
}

const char *buf_text(Buf b) {
  static const char *const text[] = {"no descriptor", "direct descriptor",
                                     "3-descriptor indirect table",
                                     "immediate data"};
  return text[static_cast<int>(b)];
}

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

std::string buffer_text(uint64_t n, DataDir dir, Buf b) {
  if (dir == DataDir::kNone) return "no data buffer";
  return std::to_string(n) + "-byte " + dir_text(dir) + " buffer, " +
         buf_text(b);
}

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

void add_cases(std::vector<Case> &out) {
  for (const Spec &sp : specs()) {
    const scsi::Command &c = scsi::command(sp.name);
    out.push_back(Case{std::string("hostile.") + sp.name,
                       std::string(c.title) + kSends, expected_of(sp),
                       std::string(c.spec) + "; " + sp.why + "; " + kCommonWhy,
                       kNeedsLogin | sp.needs, [&sp](Context &ctx) {
                         auto s = hostile_login(ctx);
                         run_spec(ctx, *s, sp);
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
