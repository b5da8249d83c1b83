// SPDX-License-Identifier: GPL-2.0-only
//
// hostile.h: judging an answer to a hostile command and clearing the
// reservations such commands leave; and the helpers of hostile_parts.h.
#include "hostile.h"

#include <algorithm>

#include "case_util.h"
#include "hostile_parts.h"
#include "scsi.h"

namespace srp::hostile {

bool same(const Sense &a, const Sense &b) {
  return a.key == b.key && a.asc == b.asc && a.ascq == b.ascq;
}

DataDir opposite(DataDir d) {
  return d == DataDir::kIn ? DataDir::kOut : DataDir::kIn;
}

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

Rsp data_in(Context &ctx, Session &s, const Bytes &cdb, uint32_t len) {
  CmdBuilder b;
  b.cdb(cdb).direct(DataDir::kIn,
                    {s.channel().data_va(0), s.channel().data_rkey(), len});
  return exec_ua(ctx, s, b);
}

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

}  // namespace srp::hostile
