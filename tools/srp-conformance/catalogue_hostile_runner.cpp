// SPDX-License-Identifier: GPL-2.0-only
//
// One command of the hostile.* table (catalogue_hostile.cpp), run through
// every buffer length, CDB length field, layout and direction: the
// Runner, and what it checks beyond judge() and the buffers.
#include <algorithm>

#include "case_util.h"
#include "hostile.h"
#include "hostile_parts.h"
#include "scsi.h"

namespace srp::hostile {

namespace {

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
    for (uint64_t n : lengths()) {
      for (const Plan &p : plans(n)) shoot(p);
      check_scratch();
    }
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
    // A data-out buffer given to a command that must not write the medium
    // is looked for once per buffer length (check_scratch): a wrong write
    // of a salted pattern stays in the scratch area until then.
    if ((sp_.check == Check::kRead || sp_.check == Check::kUnchanged) &&
        p.dir == DataDir::kOut)
      unchecked_.push_back(what);
    const Fired f = fire(ctx_, s_, cdb, p.b, shot, a, data, what);
    if (f.rsp.status != kStatusGood) return;
    const std::string bad = semantics(p, field, f, shot, data);
    if (!bad.empty())
      throw Failure{"GOOD with the effect the command describes: " + what, bad};
  }

  // After the sends of one buffer length: the scratch area as before them
  // if any of them gave a data-out buffer to a command that must not write
  // the medium (whatever its status). One read-back of the whole area per
  // length instead of one per send: the payloads are salted patterns, so a
  // wrong write is still there, and the failure names every send since
  // the last check.
  void check_scratch() {
    if (unchecked_.empty()) return;
    const Bytes now = read_back(f_.scratch_blocks);
    for (size_t i = 0; i < now.size(); i++) {
      if (now[i] == ref_[i]) continue;
      std::string sends;
      for (const std::string &w : unchecked_)
        sends += (sends.empty() ? "" : "; ") + w;
      throw Failure{"the medium unchanged by data-out buffers: " + sends,
                    "the scratch area changed at byte " + std::to_string(i) +
                        " (" + hex8(ref_[i]) + " -> " + hex8(now[i]) +
                        "): a data-out buffer was written to the medium"};
    }
    unchecked_.clear();
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
        // A data-out buffer is not data to write: check_scratch().
        if (p.dir == DataDir::kOut || sp_.check == Check::kUnchanged)
          return "";
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
  std::vector<std::string> unchecked_;  // data-out sends since check_scratch
  Bytes list_;
  bool copy_ok_ = false;
  std::optional<std::vector<uint8_t>> alua_;
  uint64_t salt_ = 0;
};

}  // namespace

void run_spec(Context &ctx, Session &s, const Spec &sp) {
  Runner(ctx, s, sp).run();
}

}  // namespace srp::hostile
