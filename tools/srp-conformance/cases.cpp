// SPDX-License-Identifier: GPL-2.0-only
//
// Context, helpers and runner. The catalogue itself is in catalogue.cpp.
#include "cases.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <ostream>

#include "case_util.h"

namespace srp {

// ---------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------

Context::Context(Connector &conn, const Options &opt, std::ostream *log)
    : conn_(conn), opt_(opt), log_(log) {}

Millis Context::quiet() const {
  return Millis(std::clamp<uint32_t>(opt_.timeout_ms / 5, 200, 2000));
}

void Context::log(const std::string &s) const {
  if (opt_.verbose && log_) *log_ << "  | " << s << "\n";
}

PortId Context::target_port_id() const {
  return make_port_id(opt_.id_ext, opt_.ioc_guid);
}

PortId Context::initiator_port_id() const {
  return make_port_id(opt_.initiator_ext, conn_.local_interface_id());
}

LoginReq Context::default_login() const {
  LoginReq r;
  r.tag = 0x5352505f4c4f4731ull;  // "SRP_LOG1"
  r.req_it_iu_len = opt_.it_iu_len;
  r.req_buf_fmt = kBufFmtDirect | kBufFmtIndirect;
  r.req_flags = kMultichanSingle;
  r.imm_data_offset = 0;
  r.initiator_port_id = initiator_port_id();
  r.target_port_id = target_port_id();
  return r;
}

Context::Attempt Context::try_login(const LoginReq &r, const Bytes *raw,
                                    size_t data_size) {
  Attempt a;
  const Bytes pd = raw ? *raw : encode_login_req_rdma(r);
  log("login request (" + std::to_string(pd.size()) +
      " bytes): " + hex(ByteView(pd)));
  ConnectResult cr = conn_.connect(pd, data_size ? data_size : opt_.data_size,
                                   deadline_in(timeout()));
  a.kind = cr.kind;
  a.cm_status = cr.cm_status;
  a.what = cr.what;
  std::string why;
  if (cr.kind == ConnectResult::Kind::kAccepted) {
    auto rsp = decode_login_rsp(ByteView(cr.private_data), &why);
    if (!rsp) {
      cr.channel->disconnect(deadline_in(timeout()));
      a.kind = ConnectResult::Kind::kError;
      a.what = "connection accepted without a valid SRP_LOGIN_RSP: " + why;
      return a;
    }
    log("login accepted: req_lim_delta " + std::to_string(rsp->req_lim_delta) +
        ", max_it_iu_len " + std::to_string(rsp->max_it_iu_len) +
        ", max_ti_iu_len " + std::to_string(rsp->max_ti_iu_len) + ", buf_fmt " +
        std::to_string(rsp->buf_fmt) + ", rsp_flags " +
        std::to_string(rsp->rsp_flags));
    if (rsp->max_ti_iu_len < kRspSize || rsp->max_ti_iu_len > (1u << 20)) {
      cr.channel->disconnect(deadline_in(timeout()));
      a.kind = ConnectResult::Kind::kError;
      a.what = "SRP_LOGIN_RSP with an implausible max_ti_iu_len " +
               std::to_string(rsp->max_ti_iu_len);
      return a;
    }
    const uint32_t count = static_cast<uint32_t>(std::clamp<int32_t>(
                               rsp->req_lim_delta, 1, 4096)) +
                           16;
    if (!cr.channel->start(rsp->max_ti_iu_len, count, &why)) {
      cr.channel->disconnect(deadline_in(timeout()));
      a.kind = ConnectResult::Kind::kError;
      a.what = "posting receive buffers failed: " + why;
      return a;
    }
    a.rsp = rsp;
    a.session =
        std::make_unique<Session>(std::move(cr.channel), r, *rsp, timeout());
  } else if (cr.kind == ConnectResult::Kind::kRejected) {
    auto rej = decode_login_rej(ByteView(cr.private_data), &why);
    if (rej) {
      a.rej = rej;
      log("login rejected: " + reject_reason_name(rej->reason));
    } else {
      a.what =
          "rejected (" + cr.what + ") without a valid SRP_LOGIN_REJ: " + why;
      log(a.what);
    }
  } else {
    log("login error: " + cr.what);
  }
  return a;
}

std::string describe_attempt(const Context::Attempt &a) {
  switch (a.kind) {
    case ConnectResult::Kind::kAccepted:
      return "SRP_LOGIN_RSP (login accepted)";
    case ConnectResult::Kind::kRejected:
      return a.rej ? "SRP_LOGIN_REJ " + reject_reason_name(a.rej->reason)
                   : a.what;
    case ConnectResult::Kind::kError:
      break;
  }
  return "login error: " + a.what;
}

std::unique_ptr<Session> Context::login(const LoginReq &r) {
  Attempt a = try_login(r);
  if (a.kind != ConnectResult::Kind::kAccepted)
    throw Failure{"SRP_LOGIN_RSP (login accepted)", describe_attempt(a)};
  return std::move(a.session);
}

void Context::expect_reject(const LoginReq &r, uint32_t reason,
                            const Bytes *raw) {
  Attempt a = try_login(r, raw);
  const std::string want = "SRP_LOGIN_REJ " + reject_reason_name(reason);
  if (a.kind != ConnectResult::Kind::kRejected || !a.rej)
    throw Failure{want, describe_attempt(a)};
  if (a.rej->reason != reason)
    throw Failure{want, "SRP_LOGIN_REJ " + reject_reason_name(a.rej->reason)};
  if (a.rej->tag != r.tag)
    throw Failure{"SRP_LOGIN_REJ echoing the request's tag " + hex64(r.tag),
                  "tag " + hex64(a.rej->tag)};
}

const TargetFacts &Context::facts() {
  if (facts_.known) return facts_;
  // MULTI, so that a channel a case already has is not terminated.
  LoginReq r = default_login();
  r.req_flags = kMultichanMulti | kImmedRequested;
  r.imm_data_offset = kLinuxImmDataOffset;
  auto s = login(r);
  facts_.immediate = s->login_rsp().immediate();

  CmdBuilder b;
  b.cdb(cdb::read_capacity16(32))
      .direct(DataDir::kIn,
              {s->channel().data_va(0), s->channel().data_rkey(), 32});
  Rsp rsp = exec(*this, *s, b);
  if (rsp.status == kStatusCheckCondition) {
    // A pending UNIT ATTENTION (e.g. after a reset): once more.
    rsp = exec(*this, *s, b);
  }
  expect_good(rsp, "READ CAPACITY(16)");
  auto cap = decode_read_capacity16(ByteView(s->channel().data(), 32));
  if (!cap || cap->block_size == 0 || cap->block_size > (1u << 20))
    throw Failure{"READ CAPACITY(16) data with a block size",
                  "unusable capacity data"};
  facts_.block_size = cap->block_size;
  facts_.last_lba = cap->last_lba;

  const uint64_t want = std::max<uint64_t>(1, kScratchBytes / cap->block_size);
  const uint64_t nblocks = cap->last_lba + 1;
  facts_.scratch_blocks = static_cast<uint32_t>(std::min(want, nblocks));
  facts_.scratch_lba = nblocks - facts_.scratch_blocks;
  facts_.known = true;

  if (!opt_.no_write) {
    const size_t bytes =
        static_cast<size_t>(facts_.scratch_blocks) * facts_.block_size;
    if (bytes > s->channel().data_size())
      throw Failure{"--data-size large enough for the scratch area",
                    std::to_string(s->channel().data_size()) + " bytes"};
    CmdBuilder rb;
    rb.cdb(cdb::read16(facts_.scratch_lba, facts_.scratch_blocks))
        .direct(DataDir::kIn,
                {s->channel().data_va(0), s->channel().data_rkey(),
                 static_cast<uint32_t>(bytes)});
    Rsp rr = exec(*this, *s, rb);
    expect_good(rr, "READ(16) of the scratch area");
    facts_.scratch_saved.assign(s->channel().data(),
                                s->channel().data() + bytes);
  }
  log("target: block size " + std::to_string(facts_.block_size) +
      ", last LBA " + std::to_string(facts_.last_lba) + ", immediate data " +
      (facts_.immediate ? "offered" : "not offered") + ", scratch LBA " +
      std::to_string(facts_.scratch_lba) + " (+" +
      std::to_string(facts_.scratch_blocks) + " blocks)");
  return facts_;
}

void Context::restore_scratch() {
  if (!facts_.scratch_dirty || facts_.scratch_saved.empty()) return;
  try {
    auto s = login();
    std::copy(facts_.scratch_saved.begin(), facts_.scratch_saved.end(),
              s->channel().data());
    CmdBuilder b;
    b.cdb(cdb::write16(facts_.scratch_lba, facts_.scratch_blocks))
        .direct(DataDir::kOut,
                {s->channel().data_va(0), s->channel().data_rkey(),
                 static_cast<uint32_t>(facts_.scratch_saved.size())});
    Rsp r = exec(*this, *s, b);
    if (r.status == kStatusCheckCondition) r = exec(*this, *s, b);
    expect_good(r, "WRITE(16) restoring the scratch area");
    facts_.scratch_dirty = false;
    log("scratch area restored");
  } catch (const Failure &f) {
    if (log_)
      *log_ << "warning: could not restore the scratch area at LBA "
            << facts_.scratch_lba << ": " << f.got << "\n";
  }
}

void Context::mark_scratch_dirty() { facts_.scratch_dirty = true; }

std::string Context::check_alive() {
  if (opt_.acl_denied || opt_.tpg_disabled) {
    Attempt a = try_login(default_login());
    if (a.kind == ConnectResult::Kind::kRejected && a.rej) return "";
    return "expected an SRP_LOGIN_REJ, got " + describe_attempt(a);
  }
  try {
    auto s = login();
    tur_ok(*this, *s);
    s->disconnect();
    return "";
  } catch (const Failure &f) {
    return f.got;
  }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx",
                static_cast<unsigned long long>(v));
  return buf;
}

std::string hex8(uint8_t v) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02x", v);
  return buf;
}

std::string status_name(uint8_t s) {
  const char *n = "";
  switch (s) {
    case kStatusGood:
      n = " (GOOD)";
      break;
    case kStatusCheckCondition:
      n = " (CHECK CONDITION)";
      break;
    case kStatusBusy:
      n = " (BUSY)";
      break;
    case kStatusReservationConflict:
      n = " (RESERVATION CONFLICT)";
      break;
    case kStatusTaskSetFull:
      n = " (TASK SET FULL)";
      break;
    case kStatusTaskAborted:
      n = " (TASK ABORTED)";
      break;
    default:
      break;
  }
  return "status " + hex8(s) + n;
}

std::string describe(const Rsp &r) {
  std::string s = "SRP_RSP " + status_name(r.status);
  if (r.flags & kRspFlagSnsValid) {
    auto sn = decode_sense(ByteView(r.sense));
    s += sn ? ", sense " + sense_text(*sn) : ", undecodable sense";
  }
  if (auto c = r.tmf_code()) s += ", response code " + hex8(*c);
  if (r.flags & (kRspFlagDiOver | kRspFlagDiUnder))
    s += std::string(", data-in ") +
         (r.flags & kRspFlagDiOver ? "overflow " : "underflow ") +
         std::to_string(r.data_in_res_cnt);
  if (r.flags & (kRspFlagDoOver | kRspFlagDoUnder))
    s += std::string(", data-out ") +
         (r.flags & kRspFlagDoOver ? "overflow " : "underflow ") +
         std::to_string(r.data_out_res_cnt);
  return s;
}

std::optional<Sense> rsp_sense(const Rsp &r) {
  if (!(r.flags & kRspFlagSnsValid)) return std::nullopt;
  return decode_sense(ByteView(r.sense));
}

uint64_t send_cmd(Context &ctx, Session &s, CmdBuilder b, Credit c,
                  std::optional<uint64_t> lun) {
  const uint64_t tag = s.new_tag();
  b.tag(tag).lun(encode_lun(lun ? *lun : ctx.opt().lun));
  send_iu(ctx, s, b.build(), c);
  return tag;
}

void send_iu(Context &ctx, Session &s, const Bytes &iu, Credit c) {
  ctx.log(">> " + opcode_name(iu.empty() ? 0xff : iu[0]) + " " +
          std::to_string(iu.size()) + " bytes: " + hex(ByteView(iu), 80));
  std::string why;
  if (!s.send(iu, c, &why)) throw Failure{"the IU sent", "send failed: " + why};
}

Rsp wait_for(Context &ctx, Session &s, uint64_t tag) {
  auto r = s.wait_rsp(tag, deadline_in(ctx.timeout()));
  if (!r)
    throw Failure{"an SRP_RSP for tag " + hex64(tag),
                  s.closed()
                      ? "channel closed: " + s.close_reason()
                      : "no SRP_RSP within " +
                            std::to_string(ctx.opt().timeout_ms) + " ms"};
  ctx.log("<< " + describe(*r) + ", req_lim_delta " +
          std::to_string(r->req_lim_delta));
  return *r;
}

Rsp exec_lun(Context &ctx, Session &s, CmdBuilder b, uint64_t lun) {
  const uint64_t tag = send_cmd(ctx, s, std::move(b), Credit::kConsume, lun);
  return wait_for(ctx, s, tag);
}

Rsp exec(Context &ctx, Session &s, CmdBuilder b) {
  return exec_lun(ctx, s, std::move(b), ctx.opt().lun);
}

void expect_good(const Rsp &r, const std::string &what) {
  if (r.status != kStatusGood)
    throw Failure{what + ": status GOOD", describe(r)};
}

void expect_sense(const Rsp &r, uint8_t key, uint8_t asc, uint8_t ascq,
                  const std::string &what) {
  Sense want{key, asc, ascq};
  const std::string w = what + ": CHECK CONDITION, sense " + sense_text(want);
  if (r.status != kStatusCheckCondition) throw Failure{w, describe(r)};
  auto sn = rsp_sense(r);
  if (!sn) throw Failure{w, describe(r) + " without sense data"};
  if (sn->key != key || sn->asc != asc || sn->ascq != ascq)
    throw Failure{w, describe(r)};
}

void tur_ok(Context &ctx, Session &s) {
  for (int attempt = 0;; attempt++) {
    CmdBuilder b;
    b.cdb(cdb::test_unit_ready());
    Rsp r = exec(ctx, s, b);
    if (r.status == kStatusGood) return;
    auto sn = rsp_sense(r);
    if (attempt < 3 && r.status == kStatusCheckCondition && sn &&
        sn->key == kSenseUnitAttention)
      continue;
    throw Failure{"TEST UNIT READY: GOOD", describe(r)};
  }
}

void credits_restored(Context &ctx, Session &s) {
  tur_ok(ctx, s);
  if (s.credits() != s.initial_credits())
    throw Failure{"credits back at the " + std::to_string(s.initial_credits()) +
                      " granted at login once nothing is outstanding",
                  std::to_string(s.credits()) + " credits"};
}

void no_violations(const Session &s) {
  if (s.violations().empty()) return;
  std::string all;
  for (const auto &v : s.violations()) all += (all.empty() ? "" : "; ") + v;
  throw Failure{"no protocol violations by the target", all};
}

void healthy(Context &ctx, Session &s) {
  credits_restored(ctx, s);
  no_violations(s);
}

Bytes pattern(size_t n, uint64_t salt) {
  Bytes b(n);
  uint64_t x = salt * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b[i] = static_cast<uint8_t>(x >> 24);
  }
  return b;
}

std::vector<DirectDesc> scatter(Session &s, size_t base, size_t len,
                                unsigned n) {
  if (n == 0) n = 1;
  const size_t chunk = len / n;
  const size_t gap = 4096;
  std::vector<DirectDesc> d;
  size_t off = base;
  for (unsigned i = 0; i < n; i++) {
    const size_t l = i + 1 == n ? len - chunk * (n - 1) : chunk;
    if (off + l > s.channel().data_size())
      throw Failure{"a data buffer large enough (--data-size)",
                    std::to_string(s.channel().data_size()) + " bytes"};
    d.push_back({s.channel().data_va(off), s.channel().data_rkey(),
                 static_cast<uint32_t>(l)});
    off += l + gap;
  }
  return d;
}

size_t offset_of(Session &s, const DirectDesc &d) {
  return static_cast<size_t>(d.va - s.channel().data_va(0));
}

void put_scattered(Session &s, const std::vector<DirectDesc> &d,
                   const Bytes &data) {
  size_t pos = 0;
  for (const auto &x : d) {
    std::copy(data.begin() + static_cast<std::ptrdiff_t>(pos),
              data.begin() + static_cast<std::ptrdiff_t>(pos + x.len),
              s.channel().data() + offset_of(s, x));
    pos += x.len;
  }
}

Bytes gather(Session &s, const std::vector<DirectDesc> &d) {
  Bytes out;
  for (const auto &x : d) {
    const uint8_t *p = s.channel().data() + offset_of(s, x);
    out.insert(out.end(), p, p + x.len);
  }
  return out;
}

void fill(Session &s, const std::vector<DirectDesc> &d, uint8_t v) {
  for (const auto &x : d)
    std::fill_n(s.channel().data() + offset_of(s, x), x.len, v);
}

CmdBuilder data_cmd(Session &s, DataDir dir, const Bytes &cdb_bytes,
                    Layout layout, const std::vector<DirectDesc> &d,
                    const Bytes *imm) {
  CmdBuilder b;
  b.cdb(cdb_bytes);
  switch (layout) {
    case Layout::kDirect:
      b.direct(dir, d.at(0), 0);
      break;
    case Layout::kDirectCount1:
      b.direct(dir, d.at(0), 1);
      break;
    case Layout::kIndirect:
      b.indirect(dir, d);
      break;
    case Layout::kImmediate:
      b.immediate(*imm, s.login_req().imm_data_offset);
      break;
  }
  return b;
}

Rsp write_blocks(Context &ctx, Session &s, uint64_t lba, const Bytes &data,
                 Layout layout, unsigned ndesc, size_t base) {
  const auto &f = ctx.facts();
  const uint32_t blocks = static_cast<uint32_t>(data.size() / f.block_size);
  std::vector<DirectDesc> d;
  if (layout != Layout::kImmediate) {
    d = scatter(s, base, data.size(), layout == Layout::kIndirect ? ndesc : 1);
    put_scattered(s, d, data);
  }
  ctx.mark_scratch_dirty();
  return exec(
      ctx, s,
      data_cmd(s, DataDir::kOut, cdb::write16(lba, blocks), layout, d, &data));
}

Bytes read_blocks(Context &ctx, Session &s, uint64_t lba, uint32_t blocks,
                  Layout layout, unsigned ndesc, Rsp *out, size_t base) {
  const auto &f = ctx.facts();
  const size_t len = static_cast<size_t>(blocks) * f.block_size;
  auto d = scatter(s, base, len, layout == Layout::kIndirect ? ndesc : 1);
  fill(s, d, 0xee);
  Rsp r = exec(
      ctx, s,
      data_cmd(s, DataDir::kIn, cdb::read16(lba, blocks), layout, d, nullptr));
  if (out) *out = r;
  expect_good(r, "READ(16)");
  return gather(s, d);
}

void expect_same(const Bytes &want, const Bytes &got, const std::string &what) {
  if (want.size() != got.size())
    throw Failure{what + ": " + std::to_string(want.size()) + " bytes",
                  std::to_string(got.size()) + " bytes"};
  for (size_t i = 0; i < want.size(); i++) {
    if (want[i] != got[i]) {
      char buf[128];
      std::snprintf(buf, sizeof(buf),
                    "first difference at byte %zu: wrote 0x%02x, read 0x%02x",
                    i, want[i], got[i]);
      throw Failure{what + ": data read back identical to the data written",
                    buf};
    }
  }
}

// ---------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------

std::vector<const Case *> select_cases(const std::vector<std::string> &globs) {
  // Without a glob that includes, every case is in; "!GLOB" takes out.
  const bool all = std::all_of(globs.begin(), globs.end(), [](const auto &g) {
    return !g.empty() && g[0] == '!';
  });
  std::vector<const Case *> v;
  for (const auto &c : catalogue()) {
    bool take = all, drop = false;
    for (const auto &g : globs) {
      if (!g.empty() && g[0] == '!')
        drop = drop || glob_match(g.substr(1), c.name);
      else
        take = take || glob_match(g, c.name);
    }
    if (take && !drop) v.push_back(&c);
  }
  return v;
}

CaseResult run_case(Context &ctx, const Case &c) {
  CaseResult res;
  res.name = c.name;
  res.expected = c.expected;
  const auto &o = ctx.opt();
  auto skip = [&](const std::string &why) {
    res.status = CaseResult::Status::kSkip;
    res.reason = why;
    return res;
  };
  if ((c.needs & kNeedsAclDenied) && !o.acl_denied)
    return skip(
        "needs a target configured without an ACL for this "
        "initiator (--acl-denied)");
  if ((c.needs & kNeedsTpgDisabled) && !o.tpg_disabled)
    return skip(
        "needs a target whose portal group is disabled (--tpg-disabled)");
  if (o.acl_denied && !(c.needs & kNeedsAclDenied))
    return skip("needs an accepted login (--acl-denied given)");
  if (o.tpg_disabled && !(c.needs & kNeedsTpgDisabled))
    return skip("needs an enabled portal group (--tpg-disabled given)");
  if ((c.needs & kNeedsWrite) && o.no_write)
    return skip("writes to the LUN (--no-write given)");

  const auto start = Clock::now();
  try {
    // Learned before the case logs in (facts() logs in itself).
    if (c.needs & kNeedsLogin) ctx.facts();
    if (c.needs & kNeedsImmediate) {
      if (!ctx.facts().immediate)
        throw Skip{
            "the target does not offer immediate data (SRP_LOGIN_RSP "
            "without IMMED_SUPP)"};
    }
    c.run(ctx);
  } catch (const Failure &f) {
    res.status = CaseResult::Status::kFail;
    res.expected = f.expected;
    res.got = f.got;
  } catch (const Skip &s) {
    res.status = CaseResult::Status::kSkip;
    res.reason = s.reason;
  } catch (const std::exception &e) {
    res.status = CaseResult::Status::kFail;
    res.expected = c.expected;
    res.got = std::string("client error: ") + e.what();
  }
  if (res.status != CaseResult::Status::kSkip) {
    const std::string dead = ctx.check_alive();
    if (!dead.empty()) {
      if (res.status == CaseResult::Status::kPass) {
        res.status = CaseResult::Status::kFail;
        res.expected =
            "target alive afterwards: a fresh login and TEST UNIT READY work";
        res.got = dead;
      } else {
        res.got += "; and the target is no longer alive: " + dead;
      }
    }
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return res;
}

}  // namespace srp
