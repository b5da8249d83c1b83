// SPDX-License-Identifier: GPL-2.0-only
//
// The case catalogue. Each case names what it sends, the outcome it
// expects and the reason (T10 SRP r16a, SRP-2, SAM/SPC/SBC). Malformed
// SRP_CMDs expect CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN
// INFORMATION UNIT (0Eh/03h), bidirectional commands INVALID FIELD IN CDB
// (24h/00h); after each the target must answer TEST UNIT READY on the same
// channel and give back every credit.
#include <algorithm>
#include <cstring>
#include <functional>

#include "case_util.h"
#include "cases.h"
#include "hostile.h"

namespace srp {

namespace {

constexpr uint64_t kUnmappedLun = 16383;  // highest flat LUN: not mapped
constexpr uint8_t kAscInvalidFieldInIu = 0x0e;
constexpr uint8_t kAscqInvalidFieldInIu = 0x03;

std::vector<Case> g_cases;

void add(const char *name, const char *sends, const char *expected,
         const char *reason, unsigned needs,
         std::function<void(Context &)> run) {
  g_cases.push_back(Case{name, sends, expected, reason, needs, std::move(run)});
}

// ---- small helpers -------------------------------------------------------

DirectDesc buf(Session &s, size_t off, uint32_t len) {
  return {s.channel().data_va(off), s.channel().data_rkey(), len};
}

CmdBuilder tur_cmd() {
  CmdBuilder b;
  b.cdb(cdb::test_unit_ready());
  return b;
}

CmdBuilder read_cmd(Session &s, uint32_t blocks, uint32_t bs) {
  CmdBuilder b;
  b.cdb(cdb::read16(0, blocks)).direct(DataDir::kIn, buf(s, 0, blocks * bs));
  return b;
}

uint32_t xfer_blocks(const TargetFacts &f) {
  return std::max<uint32_t>(1, 16384 / f.block_size);
}

LoginReq imm_login(Context &ctx, uint16_t offset = kLinuxImmDataOffset) {
  LoginReq r = ctx.default_login();
  r.req_flags |= kImmedRequested;
  r.imm_data_offset = offset;
  return r;
}

std::unique_ptr<Session> login_with_imm(Context &ctx) {
  auto s = ctx.login(imm_login(ctx));
  if (!s->login_rsp().immediate())
    throw Skip{"the target did not enable immediate data for this login"};
  return s;
}

// Sends @b with a fresh tag and expects CHECK CONDITION ILLEGAL REQUEST
// @asc/@ascq for that tag; then the channel must still work.
void expect_malformed(Context &ctx, Session &s, CmdBuilder b,
                      const std::string &what,
                      uint8_t asc = kAscInvalidFieldInIu,
                      uint8_t ascq = kAscqInvalidFieldInIu) {
  const uint64_t tag = send_cmd(ctx, s, std::move(b));
  Rsp r = wait_for(ctx, s, tag);
  expect_sense(r, kSenseIllegalRequest, asc, ascq, what);
  healthy(ctx, s);
}

// The same on a fresh default login.
void malformed_case(Context &ctx,
                    const std::function<CmdBuilder(Session &)> &mk,
                    const std::string &what, uint8_t asc = kAscInvalidFieldInIu,
                    uint8_t ascq = kAscqInvalidFieldInIu) {
  auto s = ctx.login();
  expect_malformed(ctx, *s, mk(*s), what, asc, ascq);
}

// Sends @iu and expects no response at all; the channel stays up.
void expect_ignored(Context &ctx, Session &s, const Bytes &iu, Credit c) {
  send_iu(ctx, s, iu, c);
  s.pump_until(deadline_in(ctx.quiet()));
  auto extra = s.take_unclaimed();
  if (!extra.empty())
    throw Failure{"no response (the IU is ignored)", describe(extra.front())};
  if (s.closed())
    throw Failure{"the channel stays up",
                  "channel closed: " + s.close_reason()};
  healthy(ctx, s);
}

void ignored_case(Context &ctx, const std::function<Bytes(Session &)> &mk,
                  Credit c = Credit::kConsume) {
  auto s = ctx.login();
  expect_ignored(ctx, *s, mk(*s), c);
}

// SRP_T_LOGOUT reason 02h: invalid information unit type (SRP r16a).
constexpr uint32_t kTLogoutInvalidIuType = 2;

// Sends @iu, which no target can take as a request, and expects the target
// to log the channel out: an SRP_T_LOGOUT with reason 02h, no SRP_RSP, then
// the disconnect (a new login must then work: the runner's alive check).
void t_logout_case(Context &ctx, const std::function<Bytes(Session &)> &mk) {
  auto s = ctx.login();
  send_iu(ctx, *s, mk(*s), Credit::kConsume);
  if (!s->wait_closed(deadline_in(ctx.timeout())))
    throw Failure{"SRP_T_LOGOUT, then the target disconnects",
                  "the channel is still up"};
  auto extra = s->take_unclaimed();
  if (!extra.empty())
    throw Failure{"no SRP_RSP (an SRP_T_LOGOUT)", describe(extra.front())};
  auto tl = s->t_logout();
  if (!tl)
    throw Failure{"an SRP_T_LOGOUT before the disconnect",
                  "disconnected without one: " + s->close_reason()};
  if (tl->reason != kTLogoutInvalidIuType)
    throw Failure{"SRP_T_LOGOUT reason 02h (invalid IU type)",
                  "reason " + std::to_string(tl->reason)};
  no_violations(*s);
}

// The command must fail: the channel closes, or an SRP_RSP with a status
// other than GOOD arrives. GOOD is wrong.
void expect_failed_or_closed(Context &ctx, Session &s, uint64_t tag,
                             const std::string &what) {
  auto r = s.wait_rsp(tag, deadline_in(ctx.timeout()));
  if (r && r->status == kStatusGood)
    throw Failure{what + ": the channel closed or a status other than GOOD",
                  describe(*r)};
  if (!r && !s.closed())
    throw Failure{what + ": the channel closed or a status other than GOOD",
                  "nothing within " + std::to_string(ctx.opt().timeout_ms) +
                      " ms and the channel still up"};
}

uint8_t tmf(Context &ctx, Session &s, uint8_t func, uint64_t task_tag,
            std::optional<uint64_t> lun = std::nullopt) {
  TskMgmt t;
  t.tag = s.new_tag();
  t.lun = encode_lun(lun ? *lun : ctx.opt().lun);
  t.function = func;
  t.task_tag = task_tag;
  send_iu(ctx, s, encode_tsk_mgmt(t), Credit::kConsume);
  Rsp r = wait_for(ctx, s, t.tag);
  auto code = r.tmf_code();
  if (!code)
    throw Failure{"SRP_RSP with RSPVALID and a 4-byte response code",
                  describe(r)};
  return *code;
}

void expect_tmf(Context &ctx, Session &s, uint8_t func, std::vector<uint8_t> ok,
                uint64_t task_tag = 0,
                std::optional<uint64_t> lun = std::nullopt) {
  const uint8_t code = tmf(ctx, s, func, task_tag, lun);
  if (std::find(ok.begin(), ok.end(), code) == ok.end()) {
    std::string want;
    for (uint8_t c : ok) want += (want.empty() ? "" : " or ") + hex8(c);
    throw Failure{"task management response code " + want,
                  "response code " + hex8(code)};
  }
}

void check_login_rsp(const LoginReq &req, const LoginRsp &rsp) {
  auto bad = [](const std::string &want, const std::string &got) {
    throw Failure{"SRP_LOGIN_RSP with " + want, got};
  };
  if (rsp.tag != req.tag)
    bad("the request's tag " + hex64(req.tag), "tag " + hex64(rsp.tag));
  if (rsp.max_it_iu_len < kMinItIuLen || rsp.max_it_iu_len > req.req_it_iu_len)
    bad("64 <= max_it_iu_len <= " + std::to_string(req.req_it_iu_len),
        "max_it_iu_len " + std::to_string(rsp.max_it_iu_len));
  if (rsp.max_ti_iu_len < 64)
    bad("max_ti_iu_len >= 64",
        "max_ti_iu_len " + std::to_string(rsp.max_ti_iu_len));
  if (rsp.buf_fmt == 0 || (rsp.buf_fmt & ~req.req_buf_fmt))
    bad("buf_fmt a non-empty subset of " + std::to_string(req.req_buf_fmt),
        "buf_fmt " + std::to_string(rsp.buf_fmt));
  if (rsp.req_lim_delta < 1)
    bad("req_lim_delta >= 1",
        "req_lim_delta " + std::to_string(rsp.req_lim_delta));
  if (rsp.multichannel_result() > kRspMultichanMaintained)
    bad("a defined multichannel result", "rsp_flags " + hex8(rsp.rsp_flags));
}

Context::Attempt accepted(Context &ctx, const LoginReq &r) {
  auto a = ctx.try_login(r);
  if (a.kind != ConnectResult::Kind::kAccepted)
    throw Failure{"SRP_LOGIN_RSP (login accepted)", describe_attempt(a)};
  check_login_rsp(r, *a.rsp);
  return a;
}

void expect_multichannel(const LoginRsp &rsp, uint8_t want, const char *text) {
  if (rsp.multichannel_result() != want)
    throw Failure{std::string("SRP_LOGIN_RSP multichannel result ") + text,
                  "rsp_flags " + hex8(rsp.rsp_flags)};
}

void expect_closed(Context &ctx, Session &s, const std::string &what) {
  if (!s.wait_closed(deadline_in(ctx.timeout())))
    throw Failure{what, "still connected after " +
                            std::to_string(ctx.opt().timeout_ms) + " ms"};
}

bool status_in(uint8_t st, std::initializer_list<uint8_t> ok) {
  return std::find(ok.begin(), ok.end(), st) != ok.end();
}

// ---- the catalogue -------------------------------------------------------

void login_cases() {
  add("login.valid",
      "SRP_LOGIN_REQ, RDMA/CM layout (56 bytes): SINGLE, DIRECT|INDIRECT, "
      "IT IU --it-iu-len; then TEST UNIT READY",
      "SRP_LOGIN_RSP: tag echoed, 64 <= max_it_iu_len <= requested, "
      "max_ti_iu_len >= 64, buf_fmt a non-empty subset of the request, "
      "req_lim_delta >= 1; TUR GOOD; credits back at the initial grant",
      "SRP r16a 6.2/6.3 (SRP_LOGIN_REQ/RSP); Linux srp_login_req_rdma",
      kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.tag = 0x1122334455667788ull;
        auto a = accepted(ctx, r);
        healthy(ctx, *a.session);
      });

  add("login.it_iu_len_63", "SRP_LOGIN_REQ with req_it_iu_len 63",
      "SRP_LOGIN_REJ 0x10002 (IT IU length too large/out of range), tag "
      "echoed",
      "an IT IU must hold at least an SRP_LOGIN_REQ (64 bytes)", kNeedsLogin,
      [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_it_iu_len = 63;
        r.tag = 0xa5a5a5a500000063ull;
        ctx.expect_reject(r, kRejItIuLenTooLarge);
      });

  add("login.it_iu_len_64", "SRP_LOGIN_REQ with req_it_iu_len 64 (minimum)",
      "SRP_LOGIN_RSP with max_it_iu_len 64; TUR (a 48-byte SRP_CMD) GOOD",
      "64 is the smallest valid IT IU length", kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_it_iu_len = 64;
        auto a = accepted(ctx, r);
        healthy(ctx, *a.session);
      });

  add("login.it_iu_len_above_target_max",
      "SRP_LOGIN_REQ with req_it_iu_len = --target-max-it-iu + 1",
      "SRP_LOGIN_REJ 0x10002",
      "SRP r16a: IT IU length larger than the target supports", kNeedsLogin,
      [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_it_iu_len = ctx.opt().target_max_it_iu + 1;
        ctx.expect_reject(r, kRejItIuLenTooLarge);
      });

  add("login.it_iu_len_max_u32", "SRP_LOGIN_REQ with req_it_iu_len 0xffffffff",
      "SRP_LOGIN_REJ 0x10002", "no target takes a 4 GiB IU", kNeedsLogin,
      [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_it_iu_len = 0xffffffffu;
        ctx.expect_reject(r, kRejItIuLenTooLarge);
      });

  add("login.wrong_id_ext",
      "SRP_LOGIN_REQ whose target port ID has id_ext inverted",
      "SRP_LOGIN_REJ 0x10003 (unable to associate channel)",
      "the target port ID names another port", kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.target_port_id = make_port_id(~ctx.opt().id_ext, ctx.opt().ioc_guid);
        ctx.expect_reject(r, kRejUnableAssociate);
      });

  add("login.wrong_ioc_guid",
      "SRP_LOGIN_REQ whose target port ID has ioc_guid inverted",
      "SRP_LOGIN_REJ 0x10003", "the target port ID names another port",
      kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.target_port_id = make_port_id(ctx.opt().id_ext, ~ctx.opt().ioc_guid);
        ctx.expect_reject(r, kRejUnableAssociate);
      });

  add("login.buf_fmt_zero", "SRP_LOGIN_REQ with req_buf_fmt 0",
      "SRP_LOGIN_REJ 0x10004 (unsupported descriptor format)",
      "no buffer format in common", kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_buf_fmt = 0;
        ctx.expect_reject(r, kRejUnsupportedFormat);
      });

  add("login.buf_fmt_undefined_bits",
      "SRP_LOGIN_REQ with req_buf_fmt 0x8009 (no DIRECT, no INDIRECT bit)",
      "SRP_LOGIN_REJ 0x10004", "undefined format bits give no common format",
      kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_buf_fmt = 0x8009;
        ctx.expect_reject(r, kRejUnsupportedFormat);
      });

  add("login.buf_fmt_direct_only",
      "SRP_LOGIN_REQ with req_buf_fmt DIRECT only; READ(16) with a direct "
      "descriptor",
      "SRP_LOGIN_RSP buf_fmt 0x2; the read GOOD",
      "the target may only use formats both sides support", kNeedsLogin,
      [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_buf_fmt = kBufFmtDirect;
        auto a = accepted(ctx, r);
        if (a.rsp->buf_fmt != kBufFmtDirect)
          throw Failure{"buf_fmt 0x2",
                        "buf_fmt " + std::to_string(a.rsp->buf_fmt)};
        read_blocks(ctx, *a.session, 0, 1, Layout::kDirect);
        healthy(ctx, *a.session);
      });

  add("login.buf_fmt_indirect_only",
      "SRP_LOGIN_REQ with req_buf_fmt INDIRECT only; READ(16) with a "
      "2-descriptor indirect table",
      "SRP_LOGIN_RSP buf_fmt 0x4; the read GOOD",
      "the target may only use formats both sides support", kNeedsLogin,
      [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_buf_fmt = kBufFmtIndirect;
        auto a = accepted(ctx, r);
        if (a.rsp->buf_fmt != kBufFmtIndirect)
          throw Failure{"buf_fmt 0x4",
                        "buf_fmt " + std::to_string(a.rsp->buf_fmt)};
        const auto &f = ctx.facts();
        read_blocks(ctx, *a.session, 0, std::max<uint32_t>(2, xfer_blocks(f)),
                    Layout::kIndirect, 2);
        healthy(ctx, *a.session);
      });

  add("login.bad_opcode", "56-byte login request whose opcode byte is 0x02",
      "SRP_LOGIN_REJ 0x10000 (unable to establish channel)",
      "the private data is not an SRP_LOGIN_REQ", kNeedsLogin,
      [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.opcode = kOpCmd;
        ctx.expect_reject(r, kRejUnableEstablish);
      });

  add("login.private_data_short",
      "only the first 40 bytes of the 56-byte login request as private data",
      "iWARP (exact length delivered): SRP_LOGIN_REJ 0x10000. IB/RoCE: the CM "
      "pads the private data to 56 bytes with zeros, so the target sees a "
      "target port ID whose last 8 bytes are 0: SRP_LOGIN_REJ 0x10003",
      "a login request shorter than its layout is malformed", kNeedsLogin,
      [](Context &ctx) {
        const bool exact = ctx.connector().exact_private_data_length();
        if (!exact && ctx.opt().ioc_guid == 0)
          throw Skip{
              "with IB/RoCE zero padding this needs a non-zero "
              "ioc_guid (the cut removes it)"};
        LoginReq r = ctx.default_login();
        Bytes pd = encode_login_req_rdma(r);
        pd.resize(40);
        ctx.expect_reject(r,
                          ctx.connector().exact_private_data_length()
                              ? kRejUnableEstablish
                              : kRejUnableAssociate,
                          &pd);
      });

  add("login.multichannel_reserved",
      "SRP_LOGIN_REQ with multichannel action 2 (reserved)",
      "SRP_LOGIN_REJ 0x10000",
      "SRP r16a: multichannel actions 2 and 3 are "
      "reserved",
      kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_flags = 0x2;
        ctx.expect_reject(r, kRejUnableEstablish);
      });

  add("login.single_terminates_existing",
      "login A; login B (SINGLE) with the same initiator and target port IDs",
      "B: SRP_LOGIN_RSP multichannel result 1 (terminated); A disconnected by "
      "the target within the timeout; TUR on B GOOD",
      "SRP r16a: SINGLE terminates the other channels of the I_T nexus",
      kNeedsLogin, [](Context &ctx) {
        auto a = ctx.login();
        tur_ok(ctx, *a);
        auto b = accepted(ctx, ctx.default_login());
        expect_multichannel(*b.rsp, kRspMultichanTerminated, "1 (terminated)");
        expect_closed(ctx, *a, "channel A disconnected by the target");
        healthy(ctx, *b.session);
      });

  add("login.multi_keeps_existing",
      "login A; login B (MULTI) with the same port IDs; TUR on both",
      "B: multichannel result 2 (maintained); A and B both answer TUR",
      "SRP r16a: MULTI keeps the other channels of the nexus", kNeedsLogin,
      [](Context &ctx) {
        auto a = ctx.login();
        LoginReq r = ctx.default_login();
        r.req_flags = kMultichanMulti;
        auto b = accepted(ctx, r);
        expect_multichannel(*b.rsp, kRspMultichanMaintained, "2 (maintained)");
        healthy(ctx, *a);
        healthy(ctx, *b.session);
      });

  add("login.multi_then_single_terminates_all",
      "login A; login B (MULTI); login C (SINGLE), same port IDs",
      "C: multichannel result 1; A and B both disconnected by the target; C "
      "answers TUR",
      "SINGLE terminates every other channel of the nexus", kNeedsLogin,
      [](Context &ctx) {
        auto a = ctx.login();
        LoginReq r = ctx.default_login();
        r.req_flags = kMultichanMulti;
        auto b = accepted(ctx, r);
        auto c = accepted(ctx, ctx.default_login());
        expect_multichannel(*c.rsp, kRspMultichanTerminated, "1 (terminated)");
        expect_closed(ctx, *a, "channel A disconnected by the target");
        expect_closed(ctx, *b.session, "channel B disconnected by the target");
        healthy(ctx, *c.session);
      });

  add("login.immediate_requested",
      "SRP_LOGIN_REQ with IMMED (0x80) and imm_data_offset 68 (the Linux "
      "initiator's)",
      "SRP_LOGIN_RSP; IMMED_SUPP in rsp_flags when the target offers "
      "immediate data (a target may decline); TUR GOOD",
      "SRP-2 immediate data negotiation", kNeedsLogin, [](Context &ctx) {
        auto a = accepted(ctx, imm_login(ctx));
        ctx.log(std::string("immediate data ") +
                (a.rsp->immediate() ? "offered" : "declined"));
        healthy(ctx, *a.session);
      });

  add("login.immediate_offset_51",
      "SRP_LOGIN_REQ with IMMED and imm_data_offset 51 (< 48 + 4)",
      "SRP_LOGIN_REJ 0x10000",
      "the offset must leave room for the SRP_CMD and the 4-byte immediate "
      "descriptor",
      kNeedsLogin | kNeedsImmediate, [](Context &ctx) {
        ctx.expect_reject(imm_login(ctx, 51), kRejUnableEstablish);
      });

  add("login.immediate_offset_0",
      "SRP_LOGIN_REQ with IMMED and imm_data_offset 0", "SRP_LOGIN_REJ 0x10000",
      "an offset of 0 overlaps the SRP_CMD header",
      kNeedsLogin | kNeedsImmediate, [](Context &ctx) {
        ctx.expect_reject(imm_login(ctx, 0), kRejUnableEstablish);
      });

  add("login.immediate_offset_beyond_iu",
      "SRP_LOGIN_REQ with IMMED and imm_data_offset = req_it_iu_len + 4",
      "SRP_LOGIN_REJ 0x10000", "immediate data would start past the IU",
      kNeedsLogin | kNeedsImmediate, [](Context &ctx) {
        LoginReq r = imm_login(ctx);
        r.req_it_iu_len = std::min<uint32_t>(ctx.opt().it_iu_len, 0xfff0);
        r.imm_data_offset = static_cast<uint16_t>(r.req_it_iu_len + 4);
        ctx.expect_reject(r, kRejUnableEstablish);
      });

  add("login.immediate_offset_52",
      "SRP_LOGIN_REQ with IMMED and imm_data_offset 52 (smallest valid); "
      "WRITE(16) with immediate data at offset 52, READ(16) back",
      "SRP_LOGIN_RSP with IMMED_SUPP; write GOOD; data read back identical",
      "48-byte SRP_CMD + 4-byte immediate descriptor = 52",
      kNeedsLogin | kNeedsImmediate | kNeedsWrite, [](Context &ctx) {
        auto a = accepted(ctx, imm_login(ctx, 52));
        if (!a.rsp->immediate())
          throw Failure{"IMMED_SUPP in rsp_flags",
                        "rsp_flags " + hex8(a.rsp->rsp_flags)};
        const auto &f = ctx.facts();
        const Bytes data = pattern(f.block_size, 52);
        expect_good(write_blocks(ctx, *a.session, f.scratch_lba, data,
                                 Layout::kImmediate),
                    "WRITE(16) with immediate data");
        expect_same(
            data,
            read_blocks(ctx, *a.session, f.scratch_lba, 1, Layout::kDirect),
            "immediate write");
        healthy(ctx, *a.session);
      });

  add("login.repeated_20", "20 logins in a row, TUR and disconnect on each",
      "every login accepted and every TUR GOOD",
      "channels must be released (no resource leak)", kNeedsLogin,
      [](Context &ctx) {
        for (int i = 0; i < 20; i++) {
          auto s = ctx.login();
          tur_ok(ctx, *s);
          no_violations(*s);
          s->disconnect();
        }
      });

  add("acl.denied", "SRP_LOGIN_REQ from an initiator the target has no ACL for",
      "SRP_LOGIN_REJ 0x10000 (unable to establish channel)",
      "LIO node ACL: the initiator is not allowed", kNeedsAclDenied,
      [](Context &ctx) {
        ctx.expect_reject(ctx.default_login(), kRejUnableEstablish);
      });

  add("acl.denied_repeated", "10 logins from an initiator without an ACL",
      "SRP_LOGIN_REJ 0x10000 every time",
      "a refused login must leave nothing behind", kNeedsAclDenied,
      [](Context &ctx) {
        for (int i = 0; i < 10; i++)
          ctx.expect_reject(ctx.default_login(), kRejUnableEstablish);
      });

  add("acl.tpg_disabled",
      "SRP_LOGIN_REQ (with an ACL) to a target port whose only portal group "
      "is disabled",
      "SRP_LOGIN_REJ 0x10001 (insufficient resources), tag echoed",
      "the port cannot take channels now (docs/configuration.md: no enabled "
      "portal group)",
      kNeedsTpgDisabled, [](Context &ctx) {
        ctx.expect_reject(ctx.default_login(), kRejInsufficientResources);
      });

  add("acl.tpg_disabled_repeated",
      "5 logins, SINGLE and MULTI, to a disabled portal group",
      "SRP_LOGIN_REJ 0x10001 every time",
      "a refused login must leave nothing behind", kNeedsTpgDisabled,
      [](Context &ctx) {
        for (int i = 0; i < 5; i++) {
          LoginReq r = ctx.default_login();
          if (i & 1) r.req_flags = kMultichanMulti;
          ctx.expect_reject(r, kRejInsufficientResources);
        }
      });
}

void scsi_cases() {
  add("scsi.test_unit_ready", "SRP_CMD TEST UNIT READY, no data",
      "SRP_RSP GOOD with the command's tag, no residual flags; credits back",
      "SAM-5 TEST UNIT READY", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        Rsp r = exec(ctx, *s, tur_cmd());
        if (r.status == kStatusCheckCondition) r = exec(ctx, *s, tur_cmd());
        expect_good(r, "TEST UNIT READY");
        if (r.flags & (kRspFlagDiOver | kRspFlagDiUnder | kRspFlagDoOver |
                       kRspFlagDoUnder))
          throw Failure{"no residual flags for a command without data",
                        describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.inquiry", "INQUIRY (allocation length 36), direct data-in",
      "GOOD; peripheral qualifier 0; 36 bytes of standard INQUIRY data",
      "SPC-4 INQUIRY", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(36)).direct(DataDir::kIn, buf(*s, 0, 36));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "INQUIRY");
        auto inq = decode_inquiry(ByteView(s->channel().data(), 36));
        if (!inq || inq->peripheral_qualifier != 0)
          throw Failure{
              "peripheral qualifier 0 (LUN connected)",
              inq ? "qualifier " + std::to_string(inq->peripheral_qualifier)
                  : "no data"};
        ctx.log("INQUIRY: " + inq->vendor + " " + inq->product);
        healthy(ctx, *s);
      });

  add("scsi.inquiry_vpd_supported_pages",
      "INQUIRY EVPD page 00h (allocation length 255)",
      "GOOD; page code 00h in byte 1", "SPC-4 Supported VPD Pages", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(255, true, 0)).direct(DataDir::kIn, buf(*s, 0, 255));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "INQUIRY VPD 00h");
        if (s->channel().data()[1] != 0)
          throw Failure{"page code 00h",
                        "page code " + hex8(s->channel().data()[1])};
        healthy(ctx, *s);
      });

  add("scsi.read_capacity16", "READ CAPACITY(16), 32 bytes",
      "GOOD; block length a power of two in 512..65536; last LBA >= 1",
      "SBC-3 READ CAPACITY(16)", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::read_capacity16(32)).direct(DataDir::kIn, buf(*s, 0, 32));
        Rsp r = exec(ctx, *s, b);
        if (r.status == kStatusCheckCondition) r = exec(ctx, *s, b);
        expect_good(r, "READ CAPACITY(16)");
        auto c = decode_read_capacity16(ByteView(s->channel().data(), 32));
        const uint32_t bs = c ? c->block_size : 0;
        if (!c || bs < 512 || bs > 65536 || (bs & (bs - 1)) || c->last_lba < 1)
          throw Failure{"a plausible capacity",
                        c ? "block size " + std::to_string(bs) + ", last LBA " +
                                std::to_string(c->last_lba)
                          : "no data"};
        healthy(ctx, *s);
      });

  add("scsi.report_luns", "REPORT LUNS (allocation length 4096)",
      "GOOD; LUN list length a multiple of 8 that includes --lun",
      "SPC-4 REPORT LUNS", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::report_luns(4096)).direct(DataDir::kIn, buf(*s, 0, 4096));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "REPORT LUNS");
        const ByteView v(s->channel().data(), 4096);
        const uint32_t len = get_be32(v, 0);
        if (len % 8)
          throw Failure{"LUN list length a multiple of 8", std::to_string(len)};
        const Lun want = encode_lun(ctx.opt().lun);
        bool found = false;
        for (uint32_t i = 0; i < len / 8 && 8 + 8 * (i + 1) <= 4096; i++)
          found =
              found || std::equal(want.begin(), want.end(), v.data + 8 + 8 * i);
        if (!found)
          throw Failure{"LUN " + std::to_string(ctx.opt().lun) + " in the list",
                        std::to_string(len / 8) + " LUNs, not that one"};
        healthy(ctx, *s);
      });

  struct WR {
    const char *name, *sends;
    Layout wl, rl;
    unsigned wn, rn;
  };
  const WR wrs[] = {
      {"scsi.write_read_direct",
       "WRITE(16) of 16 KiB with a direct descriptor, READ(16) back direct",
       Layout::kDirect, Layout::kDirect, 1, 1},
      {"scsi.write_read_indirect",
       "WRITE(16) with a 4-descriptor indirect table (non-contiguous "
       "buffers), READ(16) back with a 3-descriptor table",
       Layout::kIndirect, Layout::kIndirect, 4, 3},
      {"scsi.write_direct_read_indirect_16",
       "WRITE(16) direct, READ(16) back with a 16-descriptor indirect table",
       Layout::kDirect, Layout::kIndirect, 1, 16},
      {"scsi.write_direct_count1_read_direct",
       "WRITE(16) with a direct descriptor and data_out_desc_cnt 1 (ib_srp "
       "sends 0), READ(16) back",
       Layout::kDirectCount1, Layout::kDirectCount1, 1, 1},
  };
  for (const WR &w : wrs) {
    add(w.name, w.sends,
        "both GOOD; the data read back is byte for byte the data written",
        "SRP r16a 5.6 data buffer descriptors", kNeedsLogin | kNeedsWrite,
        [w](Context &ctx) {
          const auto &f = ctx.facts();
          auto s = ctx.login();
          const uint32_t n = xfer_blocks(f);
          const Bytes data = pattern(size_t(n) * f.block_size, n + w.wn);
          expect_good(write_blocks(ctx, *s, f.scratch_lba, data, w.wl, w.wn),
                      "WRITE(16)");
          expect_same(data,
                      read_blocks(ctx, *s, f.scratch_lba, n, w.rl, w.rn,
                                  nullptr, size_t(1) << 20),
                      "write/read");
          healthy(ctx, *s);
        });
  }

  add("scsi.write_immediate_read_direct",
      "login with IMMED (offset 68); WRITE(16) with immediate data (up to 8 "
      "KiB); READ(16) back direct",
      "GOOD; data read back identical; credits back (the buffer holding the "
      "immediate data is returned)",
      "SRP-2 immediate data", kNeedsLogin | kNeedsWrite | kNeedsImmediate,
      [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = login_with_imm(ctx);
        const uint32_t room =
            s->login_rsp().max_it_iu_len - s->login_req().imm_data_offset;
        const uint32_t n =
            std::min<uint32_t>(xfer_blocks(f), room / f.block_size);
        if (n == 0) throw Skip{"max_it_iu_len too small for one block"};
        const Bytes data = pattern(size_t(n) * f.block_size, 68);
        expect_good(
            write_blocks(ctx, *s, f.scratch_lba, data, Layout::kImmediate),
            "WRITE(16) with immediate data");
        expect_same(data,
                    read_blocks(ctx, *s, f.scratch_lba, n, Layout::kDirect),
                    "immediate write");
        healthy(ctx, *s);
      });

  add("scsi.indirect_zero_length_descriptor",
      "WRITE(16) with an indirect table [a, 0-byte descriptor, b]; READ(16) "
      "back",
      "GOOD; data identical (the empty descriptor transfers nothing)",
      "descriptor lengths only have to add up to the total",
      kNeedsLogin | kNeedsWrite, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(2, xfer_blocks(f));
        const Bytes data = pattern(size_t(n) * f.block_size, 7);
        auto d = scatter(*s, 0, data.size(), 2);
        put_scattered(*s, d, data);
        d.insert(d.begin() + 1, buf(*s, 512 << 10, 0));
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, n)).indirect(DataDir::kOut, d);
        ctx.mark_scratch_dirty();
        expect_good(exec(ctx, *s, b), "WRITE(16)");
        expect_same(data,
                    read_blocks(ctx, *s, f.scratch_lba, n, Layout::kDirect, 1,
                                nullptr, 1 << 20),
                    "write/read");
        healthy(ctx, *s);
      });

  add("scsi.direct_count_one_read",
      "READ(16) with a direct descriptor and data_in_desc_cnt 1, compared "
      "with the same read with count 0",
      "both GOOD and identical",
      "count 0 (ib_srp) and 1 both describe one "
      "direct descriptor",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = xfer_blocks(f);
        const Bytes a = read_blocks(ctx, *s, 0, n, Layout::kDirect);
        const Bytes b = read_blocks(ctx, *s, 0, n, Layout::kDirectCount1);
        expect_same(a, b, "count 0 vs count 1");
        healthy(ctx, *s);
      });

  add("scsi.read_residual_underflow",
      "INQUIRY allocation length 36 with a 96-byte data-in buffer",
      "GOOD with DIUNDER and data_in_res_cnt 60",
      "SRP r16a SRP_RSP residuals: the buffer was 60 bytes larger than the "
      "transfer",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(36)).direct(DataDir::kIn, buf(*s, 0, 96));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "INQUIRY");
        if (!(r.flags & kRspFlagDiUnder) || r.data_in_res_cnt != 60)
          throw Failure{"DIUNDER with data_in_res_cnt 60", describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.read_residual_overflow",
      "INQUIRY allocation length 96 with a 36-byte data-in buffer",
      "DIOVER with data_in_res_cnt 60, and GOOD or CHECK CONDITION ILLEGAL "
      "REQUEST (LIO refuses data overflow when the fabric supplies the data "
      "buffer, as this target and the in-tree one do)",
      "SRP r16a SRP_RSP residuals: 60 bytes did not fit", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(96)).direct(DataDir::kIn, buf(*s, 0, 36));
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        const bool cc = r.status == kStatusCheckCondition && sn &&
                        sn->key == kSenseIllegalRequest;
        if (r.status != kStatusGood && !cc)
          throw Failure{"GOOD or CHECK CONDITION ILLEGAL REQUEST",
                        describe(r)};
        if (!(r.flags & kRspFlagDiOver) || r.data_in_res_cnt != 60)
          throw Failure{"DIOVER with data_in_res_cnt 60", describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.underflow_no_stale_data",
      "WRITE(16) and READ(16) of one 4 KiB page of a pattern; INQUIRY "
      "(allocation length 36), then READ(16) of 1 block, each into a 4 KiB "
      "buffer filled with EEh",
      "GOOD with DIUNDER; past the data transferred, every byte of the "
      "buffer is EEh (not written) or 00h, none left over from the pattern",
      "SRP r16a SRP_RSP residuals: only the data the command produced is "
      "the initiator's",
      kNeedsLogin | kNeedsWrite, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        constexpr size_t kPage = 4096;
        if (kPage % f.block_size || f.scratch_blocks < kPage / f.block_size)
          throw Skip{"needs 4 KiB of scratch area in whole blocks (" +
                     std::to_string(f.block_size) + "-byte blocks)"};
        const auto n = static_cast<uint32_t>(kPage / f.block_size);
        const Bytes data = pattern(kPage, 0x57a1e);
        expect_good(write_blocks(ctx, *s, f.scratch_lba, data, Layout::kDirect),
                    "WRITE(16)");
        struct Probe {
          const char *what;
          Bytes cdb;
          size_t len;  // bytes the command produces
        };
        std::vector<Probe> probes = {{"INQUIRY", cdb::inquiry(36), 36}};
        // LIO accepts a READ shorter than its buffer with 512-byte blocks
        // only.
        if (f.block_size == 512)
          probes.push_back(
              {"READ(16) of 1 block", cdb::read16(f.scratch_lba, 1), 512});
        for (const Probe &p : probes) {
          // The target's buffer of the next command held the pattern.
          expect_same(data, read_blocks(ctx, *s, f.scratch_lba, n,
                                        Layout::kDirect),
                      "read back");
          std::memset(s->channel().data(), 0xee, kPage);
          CmdBuilder b;
          b.cdb(p.cdb).direct(DataDir::kIn, buf(*s, 0, kPage));
          Rsp r = exec(ctx, *s, b);
          expect_good(r, p.what);
          if (!(r.flags & kRspFlagDiUnder) || r.data_in_res_cnt != kPage - p.len)
            throw Failure{std::string(p.what) + ": DIUNDER with data_in_res_cnt " +
                              std::to_string(kPage - p.len),
                          describe(r)};
          const uint8_t *got = s->channel().data();
          for (size_t i = p.len; i < kPage; i++)
            if (got[i] != 0xee && got[i] != 0)
              throw Failure{std::string(p.what) +
                                ": EEh or 00h past the data transferred",
                            "byte " + std::to_string(i) + " is " +
                                std::to_string(got[i]) + " (pattern: " +
                                std::to_string(data[i]) + ")"};
        }
        healthy(ctx, *s);
      });

  add("scsi.write_length_mismatch",
      "WRITE(16) of 1 block with a 2-block data-out descriptor",
      "CHECK CONDITION ILLEGAL REQUEST (LIO refuses length mismatches on "
      "WRITE), or GOOD with DOUNDER and data_out_res_cnt = 1 block",
      "SAM-5/SRP residual handling", kNeedsLogin | kNeedsWrite,
      [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .direct(DataDir::kOut, buf(*s, 0, 2 * f.block_size));
        ctx.mark_scratch_dirty();
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        const bool cc = r.status == kStatusCheckCondition && sn &&
                        sn->key == kSenseIllegalRequest;
        const bool under = r.status == kStatusGood &&
                           (r.flags & kRspFlagDoUnder) &&
                           r.data_out_res_cnt == f.block_size;
        if (!cc && !under)
          throw Failure{
              "CHECK CONDITION ILLEGAL REQUEST or GOOD with DOUNDER "
              "of one block",
              describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.additional_cdb_no_data",
      "TEST UNIT READY with 4 bytes of additional CDB (add_cdb_len 4)", "GOOD",
      "SRP r16a ADDITIONAL CDB LENGTH", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(Bytes(20, 0));
        Rsp r = exec(ctx, *s, b);
        if (r.status == kStatusCheckCondition) r = exec(ctx, *s, b);
        expect_good(r, "TUR with additional CDB");
        healthy(ctx, *s);
      });

  add("scsi.additional_cdb_with_data",
      "READ(16) with 8 bytes of additional CDB, direct descriptor at offset "
      "56",
      "GOOD; data identical to a plain READ(16) of the same blocks",
      "descriptors start after the additional CDB", kNeedsLogin,
      [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = xfer_blocks(f);
        const Bytes want = read_blocks(ctx, *s, 0, n, Layout::kDirect);
        Bytes c = cdb::read16(0, n);
        c.resize(24, 0);
        CmdBuilder b;
        b.cdb(c).direct(DataDir::kIn, buf(*s, 1 << 20, n * f.block_size));
        expect_good(exec(ctx, *s, b), "READ(16) with additional CDB");
        const uint8_t *p = s->channel().data() + (1 << 20);
        expect_same(want, Bytes(p, p + want.size()), "additional CDB read");
        healthy(ctx, *s);
      });

  struct TA {
    const char *name;
    uint8_t attr;
  };
  for (TA t : {TA{"scsi.task_attr_ordered", kTaskOrdered},
               TA{"scsi.task_attr_head_of_queue", kTaskHeadOfQueue}}) {
    add(t.name, "TEST UNIT READY with this task attribute", "GOOD",
        "SAM-5 task attributes", kNeedsLogin, [t](Context &ctx) {
          auto s = ctx.login();
          tur_ok(ctx, *s);
          Rsp r = exec(ctx, *s, tur_cmd().task_attr(t.attr));
          expect_good(r, "TUR");
          healthy(ctx, *s);
        });
  }

  add("scsi.task_attr_aca",
      "TEST UNIT READY with task attribute ACA (4) and "
      "no ACA condition",
      "GOOD, or CHECK CONDITION ILLEGAL REQUEST; the channel stays up",
      "SAM-5: ACA attribute without an ACA condition", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        Rsp r = exec(ctx, *s, tur_cmd().task_attr(kTaskAca));
        auto sn = rsp_sense(r);
        if (r.status != kStatusGood && !(r.status == kStatusCheckCondition &&
                                         sn && sn->key == kSenseIllegalRequest))
          throw Failure{"GOOD or CHECK CONDITION ILLEGAL REQUEST", describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.solicited_notification_bits",
      "TEST UNIT READY with sol_not SCSOLNT|UCSOLNT (0x06)", "GOOD",
      "SRP r16a sol_not bits only ask for solicited events", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        Rsp r =
            exec(ctx, *s, tur_cmd().sol_not(kSolNotSuccess | kSolNotFailure));
        expect_good(r, "TUR");
        healthy(ctx, *s);
      });

  add("scsi.lun_not_mapped", "TEST UNIT READY to LUN 16383 (not mapped)",
      "CHECK CONDITION ILLEGAL REQUEST 25/00 (LOGICAL UNIT NOT SUPPORTED)",
      "SPC-4 / SAM-5 incorrect logical unit", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        Rsp r = exec_lun(ctx, *s, tur_cmd(), kUnmappedLun);
        expect_sense(r, kSenseIllegalRequest, 0x25, 0x00, "TUR to LUN 16383");
        healthy(ctx, *s);
      });

  add("scsi.inquiry_lun_not_mapped", "INQUIRY to LUN 16383 (not mapped)",
      "GOOD with peripheral qualifier 1 or 3, or CHECK CONDITION ILLEGAL "
      "REQUEST 25/00",
      "SPC-4 INQUIRY for an unavailable logical unit", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(36)).direct(DataDir::kIn, buf(*s, 0, 36));
        std::fill_n(s->channel().data(), 36, 0);
        Rsp r = exec_lun(ctx, *s, b, kUnmappedLun);
        auto sn = rsp_sense(r);
        const uint8_t pq = s->channel().data()[0] >> 5;
        const bool good = r.status == kStatusGood && (pq == 1 || pq == 3);
        const bool cc = r.status == kStatusCheckCondition && sn &&
                        sn->key == kSenseIllegalRequest && sn->asc == 0x25;
        if (!good && !cc)
          throw Failure{"GOOD with qualifier 1/3 or CHECK CONDITION 25/00",
                        describe(r) + ", qualifier " + std::to_string(pq)};
        healthy(ctx, *s);
      });

  add("scsi.invalid_cdb_opcode", "CDB with operation code FFh",
      "CHECK CONDITION ILLEGAL REQUEST 20/00 (INVALID COMMAND OPERATION CODE)",
      "SPC-4", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        Bytes c(6, 0);
        c[0] = 0xff;
        CmdBuilder b;
        b.cdb(c);
        expect_sense(exec(ctx, *s, b), kSenseIllegalRequest, 0x20, 0x00,
                     "CDB opcode FFh");
        healthy(ctx, *s);
      });

  add("scsi.read_beyond_capacity", "READ(16) of 1 block at last LBA + 1",
      "CHECK CONDITION ILLEGAL REQUEST 21/00 (LBA OUT OF RANGE)", "SBC-3",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::read16(f.last_lba + 1, 1))
            .direct(DataDir::kIn, buf(*s, 0, f.block_size));
        expect_sense(exec(ctx, *s, b), kSenseIllegalRequest, 0x21, 0x00,
                     "READ(16) past the end");
        healthy(ctx, *s);
      });

  add("scsi.tmf_abort_task_unknown_tag",
      "SRP_TSK_MGMT ABORT TASK for a tag that was never used",
      "SRP_RSP with RSPVALID, response code 00h (function complete)",
      "SAM-5 7.2: afterwards the task does not exist, as asked", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfAbortTask, {kTmfRspComplete},
                   0x00dead00beef0000ull);
        healthy(ctx, *s);
      });

  add("scsi.tmf_abort_task_set",
      "SRP_TSK_MGMT ABORT TASK SET, nothing in flight",
      "response code 00h (complete) or 04h (not supported: LIO has no ABORT "
      "TASK SET), not 05h (failed)",
      "SAM-5 ABORT TASK SET; SRP r16a response codes", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfAbortTaskSet,
                   {kTmfRspComplete, kTmfRspNotSupported});
        healthy(ctx, *s);
      });

  add("scsi.tmf_lun_reset", "SRP_TSK_MGMT LOGICAL UNIT RESET",
      "response code 00h; then TUR GOOD (after at most 3 UNIT ATTENTIONs)",
      "SAM-5 LOGICAL UNIT RESET", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfLunReset, {kTmfRspComplete});
        healthy(ctx, *s);
      });

  add("scsi.tmf_clear_task_set", "SRP_TSK_MGMT CLEAR TASK SET",
      "response code 00h (complete) or 04h (not supported), not 05h (failed)",
      "SRP r16a response codes: unsupported is 04h", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfClearTaskSet,
                   {kTmfRspComplete, kTmfRspNotSupported});
        healthy(ctx, *s);
      });

  add("scsi.tmf_clear_aca", "SRP_TSK_MGMT CLEAR ACA",
      "response code 00h or 04h, not 05h", "SRP r16a response codes",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfClearAca,
                   {kTmfRspComplete, kTmfRspNotSupported});
        healthy(ctx, *s);
      });

  add("scsi.tmf_lun_not_mapped", "SRP_TSK_MGMT LOGICAL UNIT RESET to LUN 16383",
      "response code 09h (incorrect logical unit number)",
      "SRP r16a SRP_RSP response codes", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfLunReset, {kTmfRspIncorrectLun}, 0,
                   kUnmappedLun);
        healthy(ctx, *s);
      });

  add("scsi.tmf_abort_task_in_flight",
      "READ(16) of 1 MiB, immediately SRP_TSK_MGMT ABORT TASK for its tag",
      "TMF response code 00h; the READ answered (any status) or silently "
      "aborted; every credit comes back",
      "SAM-5 ABORT TASK; credits of aborted commands must be returned",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(1, (1u << 20) / f.block_size);
        CmdBuilder b;
        b.cdb(cdb::read16(0, n))
            .direct(DataDir::kIn, buf(*s, 0, n * f.block_size));
        const uint64_t tag = send_cmd(ctx, *s, b);
        expect_tmf(ctx, *s, kTmfAbortTask, {kTmfRspComplete}, tag);
        s->wait_rsp(tag, deadline_in(ctx.quiet()));
        healthy(ctx, *s);
      });
}

void malformed_cases() {
  struct Short {
    const char *name;
    size_t len;
  };
  for (Short sh : {Short{"malformed.cmd_short_47", 47},
                   Short{"malformed.cmd_short_16", 16}}) {
    add(sh.name, "SRP_CMD (TEST UNIT READY) truncated to this many bytes",
        "CHECK CONDITION ILLEGAL REQUEST 0E/03 for the command's tag; TUR "
        "GOOD afterwards",
        "an SRP_CMD is at least 48 bytes", kNeedsLogin, [sh](Context &ctx) {
          malformed_case(
              ctx, [&](Session &) { return tur_cmd().length_raw(sh.len); },
              "short SRP_CMD");
        });
  }

  add("malformed.cmd_short_8", "SRP_CMD truncated to 8 bytes (no tag)",
      "CHECK CONDITION (tag 0) or no response; TUR GOOD and every credit "
      "back afterwards",
      "the IU does not even hold a tag", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        send_iu(ctx, *s, tur_cmd().length_raw(8).build(), Credit::kConsume);
        auto r = s->wait_any_rsp(deadline_in(ctx.quiet()));
        if (r && r->status != kStatusCheckCondition)
          throw Failure{"CHECK CONDITION or no response", describe(*r)};
        healthy(ctx, *s);
      });

  add("malformed.add_cdb_len_past_end", "48-byte SRP_CMD with add_cdb_len 252",
      "CHECK CONDITION 0E/03", "the additional CDB runs past the IU",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx, [](Session &) { return tur_cmd().add_cdb_len_raw(252); },
            "add_cdb_len past the end");
      });

  add("malformed.add_cdb_len_reserved_bits",
      "52-byte SRP_CMD with add_cdb_len 0x06 (bits 1:0 reserved, set)",
      "CHECK CONDITION 0E/03, or GOOD (reserved bits ignored)",
      "ADDITIONAL CDB LENGTH is bits 7:2", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(Bytes(20, 0)).add_cdb_len_raw(0x06);
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        if (r.status != kStatusGood &&
            !(r.status == kStatusCheckCondition && sn &&
              sn->key == kSenseIllegalRequest && sn->asc == 0x0e &&
              sn->ascq == 0x03))
          throw Failure{"CHECK CONDITION 0E/03 or GOOD", describe(r)};
        healthy(ctx, *s);
      });

  add("malformed.direct_descriptor_past_end",
      "READ(16) with buf_fmt direct data-in, IU cut to 56 bytes (half a "
      "descriptor)",
      "CHECK CONDITION 0E/03", "the descriptor runs past the IU", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx, [](Session &s) { return read_cmd(s, 1, 512).length_raw(56); },
            "direct descriptor past the end");
      });

  add("malformed.direct_count_2",
      "READ(16), direct data-in descriptor, data_in_desc_cnt 2",
      "CHECK CONDITION 0E/03", "a direct format has exactly one descriptor",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx, [](Session &s) { return read_cmd(s, 1, 512).in_count_raw(2); },
            "direct format with count 2");
      });

  add("malformed.direct_other_direction_count",
      "READ(16), direct data-in, data_out_desc_cnt 1 (no data-out format)",
      "CHECK CONDITION 0E/03", "a count for a direction without descriptors",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &s) { return read_cmd(s, 1, 512).out_count_raw(1); },
            "count for the unused direction");
      });

  auto indirect_read = [](Session &s, unsigned n) {
    std::vector<DirectDesc> d;
    for (unsigned i = 0; i < n; i++) d.push_back(buf(s, i * 8192, 512));
    CmdBuilder b;
    b.cdb(cdb::read16(0, n)).indirect(DataDir::kIn, d);
    return b;
  };

  add("malformed.indirect_header_past_end",
      "READ(16) with indirect data-in, IU cut to 60 bytes (12 of the 20-byte "
      "table header)",
      "CHECK CONDITION 0E/03", "the indirect header runs past the IU",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx, [&](Session &s) { return indirect_read(s, 1).length_raw(60); },
            "indirect header past the end");
      });

  add("malformed.indirect_count_past_end",
      "indirect READ(16) with 2 descriptors in the IU, data_in_desc_cnt 8, "
      "table length 128",
      "CHECK CONDITION 0E/03", "the counted descriptors run past the IU",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) {
              return indirect_read(s, 2).in_count_raw(8).table_len_raw(128);
            },
            "descriptor count past the end");
      });

  add("malformed.indirect_table_len_not_multiple_of_16",
      "indirect READ(16), 2 descriptors, table descriptor length 40",
      "CHECK CONDITION 0E/03", "a table holds whole 16-byte descriptors",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).table_len_raw(40); },
            "table length 40");
      });

  add("malformed.indirect_table_len_zero",
      "indirect READ(16), 2 descriptors, table descriptor length 0",
      "CHECK CONDITION 0E/03", "an empty table with a non-zero count",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).table_len_raw(0); },
            "table length 0");
      });

  add("malformed.indirect_table_shorter_than_count",
      "indirect READ(16), 2 descriptors counted, table length 16",
      "CHECK CONDITION 0E/03", "the table cannot hold the counted descriptors",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).table_len_raw(16); },
            "table shorter than the count");
      });

  add("malformed.indirect_total_len_mismatch",
      "indirect READ(16), 2 x 512-byte descriptors, total length 2048",
      "CHECK CONDITION 0E/03",
      "the total must equal the sum of the descriptors", kNeedsLogin,
      [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).total_len_raw(2048); },
            "total length mismatch");
      });

  add("malformed.indirect_external_table",
      "indirect READ(16): 1 descriptor in the IU, table descriptor (48 bytes, "
      "3 descriptors) pointing at a valid table in registered memory",
      "CHECK CONDITION ILLEGAL REQUEST (external tables unsupported, as in "
      "this target), or GOOD with the data of a plain read",
      "SRP r16a allows fetching the table with RDMA READ; a target may "
      "refuse",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(3, xfer_blocks(f));
        const Bytes want = read_blocks(ctx, *s, 0, n, Layout::kDirect);
        auto d = scatter(*s, 1 << 20, want.size(), 3);
        fill(*s, d, 0xee);
        const size_t tbl = 3u << 20;
        Bytes t;
        for (size_t i = 0; i < d.size(); i++) {
          put_be64(t, i * 16, d[i].va);
          put_be32(t, i * 16 + 8, d[i].rkey);
          put_be32(t, i * 16 + 12, d[i].len);
        }
        std::copy(t.begin(), t.end(), s->channel().data() + tbl);
        CmdBuilder b;
        b.cdb(cdb::read16(0, n))
            .indirect(DataDir::kIn, {d[0]}, buf(*s, tbl, 48))
            .table_len_raw(48)
            .total_len_raw(static_cast<uint32_t>(want.size()));
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        if (r.status == kStatusGood) {
          expect_same(want, gather(*s, d), "external table read");
        } else if (!(r.status == kStatusCheckCondition && sn &&
                     sn->key == kSenseIllegalRequest)) {
          throw Failure{"CHECK CONDITION ILLEGAL REQUEST or GOOD", describe(r)};
        }
        healthy(ctx, *s);
      });

  add("malformed.immediate_not_negotiated",
      "login without IMMED; WRITE(16) of 1 block as immediate data (buf_fmt "
      "0x30)",
      "CHECK CONDITION 0E/03; nothing written",
      "SRP-2: immediate data only after it was negotiated",
      kNeedsLogin | kNeedsWrite, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .immediate(pattern(f.block_size, 3), kLinuxImmDataOffset);
        expect_malformed(ctx, *s, b, "immediate data not negotiated");
      });

  add("malformed.immediate_len_overflows_u32",
      "login with IMMED; WRITE(16) with immediate length 0xfffffff0",
      "CHECK CONDITION 0E/03",
      "offset + length overflows 32 bits and lies outside the IU",
      kNeedsLogin | kNeedsWrite | kNeedsImmediate, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = login_with_imm(ctx);
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .immediate(pattern(64, 4), s->login_req().imm_data_offset)
            .imm_len_raw(0xfffffff0u);
        expect_malformed(ctx, *s, b, "immediate length overflow");
      });

  add("malformed.immediate_len_past_end",
      "login with IMMED; WRITE(16) whose immediate length is 4096 but the IU "
      "carries 100 bytes",
      "CHECK CONDITION 0E/03", "immediate data must lie inside the received IU",
      kNeedsLogin | kNeedsWrite | kNeedsImmediate, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = login_with_imm(ctx);
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .immediate(pattern(100, 5), s->login_req().imm_data_offset)
            .imm_len_raw(4096);
        expect_malformed(ctx, *s, b, "immediate data past the end");
      });

  add("malformed.immediate_for_data_in",
      "READ(16) with buf_fmt 0x03 (immediate format for data-in)",
      "CHECK CONDITION 0E/03", "SRP-2 defines immediate data for data-out only",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &) {
              CmdBuilder b;
              b.cdb(cdb::read16(0, 1)).buf_fmt_raw(0x03).length_raw(52);
              return b;
            },
            "immediate data-in");
      });

  add("malformed.buf_fmt_undefined_out",
      "TEST UNIT READY with buf_fmt 0x40 (data-out format 4), 64-byte IU",
      "CHECK CONDITION 0E/03", "descriptor format 4 is undefined", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &) {
              return tur_cmd().buf_fmt_raw(0x40).length_raw(64);
            },
            "undefined data-out format");
      });

  add("malformed.buf_fmt_undefined_in",
      "TEST UNIT READY with buf_fmt 0x0f (data-in format 15), 64-byte IU",
      "CHECK CONDITION 0E/03", "descriptor format 15 is undefined", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &) {
              return tur_cmd().buf_fmt_raw(0x0f).length_raw(64);
            },
            "undefined data-in format");
      });

  add("malformed.bidirectional",
      "READ(16) with buf_fmt 0x11 (direct data-out and direct data-in), two "
      "descriptors",
      "CHECK CONDITION ILLEGAL REQUEST 24/00 (INVALID FIELD IN CDB)",
      "bidirectional commands are not supported", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &s) {
              CmdBuilder b = read_cmd(s, 1, 512);
              b.buf_fmt_raw(0x11).length_raw(80);
              return b;
            },
            "bidirectional command", 0x24, 0x00);
      });

  for (uint8_t attr : {uint8_t{3}, uint8_t{0xff}}) {
    const bool three = attr == 3;
    add(three ? "malformed.task_attr_3" : "malformed.task_attr_ff",
        three ? "TEST UNIT READY with task attribute 3 (undefined)"
              : "TEST UNIT READY with task attribute 0xff",
        "CHECK CONDITION 0E/03", "defined task attributes are 0, 1, 2 and 4",
        kNeedsLogin, [attr](Context &ctx) {
          malformed_case(
              ctx, [&](Session &) { return tur_cmd().task_attr(attr); },
              "undefined task attribute");
        });
  }

  add("malformed.unknown_opcode", "48-byte IU with opcode 0x7f",
      "SRP_T_LOGOUT with reason 02h (invalid IU type), then the target "
      "disconnects; a new login works",
      "SRP r16a: a target may log an initiator out, saying why", kNeedsLogin,
      [](Context &ctx) {
        t_logout_case(ctx, [](Session &s) {
          return tur_cmd().opcode_raw(0x7f).tag(s.new_tag()).build();
        });
      });

  add("malformed.zero_length_iu", "a SEND of 0 bytes",
      "SRP_T_LOGOUT with reason 02h (invalid IU type), then the target "
      "disconnects; a new login works",
      "an empty IU has no opcode", kNeedsLogin, [](Context &ctx) {
        t_logout_case(ctx, [](Session &) { return Bytes{}; });
      });

  add("malformed.tsk_mgmt_short",
      "SRP_TSK_MGMT (ABORT TASK SET) cut to 20 bytes",
      "SRP_RSP with RSPVALID, response code 02h (request fields invalid), "
      "tagged with the request's tag (the 20 bytes hold it)",
      "an SRP_TSK_MGMT is 48 bytes", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        TskMgmt t;
        t.tag = s->new_tag();
        t.lun = encode_lun(ctx.opt().lun);
        t.function = kTmfAbortTaskSet;
        Bytes iu = encode_tsk_mgmt(t);
        iu.resize(20);
        send_iu(ctx, *s, iu, Credit::kConsume);
        auto r = s->wait_any_rsp(deadline_in(ctx.timeout()));
        if (!r)
          throw Failure{"SRP_RSP with response code 02h",
                        s->closed() ? "channel closed" : "no response"};
        if (r->tag != t.tag)
          throw Failure{"tag " + hex64(t.tag), "tag " + hex64(r->tag)};
        if (r->tmf_code() != std::optional<uint8_t>(kTmfRspInvalidFields))
          throw Failure{"response code 02h", describe(*r)};
        healthy(ctx, *s);
      });

  struct Tmf {
    const char *name;
    uint8_t func;
  };
  for (Tmf t : {Tmf{"malformed.tmf_unknown_function", 0x7f},
                Tmf{"malformed.tmf_function_zero", 0x00}}) {
    add(t.name, "SRP_TSK_MGMT with an undefined function code",
        "SRP_RSP with RSPVALID and response code 02h in byte 3 of the response "
        "data",
        "SRP r16a: invalid request fields", kNeedsLogin, [t](Context &ctx) {
          auto s = ctx.login();
          expect_tmf(ctx, *s, t.func, {kTmfRspInvalidFields});
          healthy(ctx, *s);
        });
  }

  add("malformed.iu_longer_than_max_it_iu_len",
      "login with req_it_iu_len 128; a TEST UNIT READY padded to 192 bytes",
      "CHECK CONDITION 0E/03",
      "the IU exceeds the negotiated maximum (but fits the target's buffers)",
      kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_it_iu_len = 128;
        auto s = ctx.login(r);
        expect_malformed(ctx, *s, tur_cmd().length_raw(192), "IU too long");
      });

  add("malformed.iu_exceeds_target_buffer",
      "a TEST UNIT READY padded to --target-max-it-iu + 64 bytes",
      "the channel is closed by the target (the receive fails) or CHECK "
      "CONDITION; never GOOD; a new login works afterwards",
      "the IU exceeds both the negotiated maximum and the receive buffer",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        const uint64_t tag = send_cmd(
            ctx, *s, tur_cmd().length_raw(ctx.opt().target_max_it_iu + 64));
        auto r = s->wait_rsp(tag, deadline_in(ctx.timeout()));
        if (r && r->status == kStatusGood)
          throw Failure{"channel closed or CHECK CONDITION", describe(*r)};
        if (!r && !s->closed())
          throw Failure{"channel closed or CHECK CONDITION",
                        "nothing within the timeout, channel up"};
      });

  struct Bad {
    const char *name, *sends;
    bool write, bad_key;
  };
  for (Bad b : {Bad{"malformed.invalid_rkey_read",
                    "READ(16) of 1 block whose descriptor has an invalid rkey",
                    false, true},
                Bad{"malformed.va_outside_mr",
                    "READ(16) of 1 block into an address past the end of the "
                    "registered buffer",
                    false, false},
                Bad{"malformed.invalid_rkey_write",
                    "WRITE(16) of 1 block whose descriptor has an invalid rkey",
                    true, true}}) {
    add(b.name, b.sends,
        "the RDMA fails and the target closes the channel (no GOOD status "
        "before); a new login works afterwards",
        "an RDMA protection error puts the QP in the error state: nothing "
        "more gets through, so the target must not keep the channel (its "
        "LIO session, reservations) as if it were live",
        kNeedsLogin | (b.write ? kNeedsWrite : 0u), [b](Context &ctx) {
          const auto &f = ctx.facts();
          auto s = ctx.login();
          DirectDesc d = buf(*s, 0, f.block_size);
          if (b.bad_key)
            d.rkey = ~d.rkey;
          else
            d.va = s->channel().data_va(s->channel().data_size()) + (1u << 20);
          CmdBuilder c;
          if (b.write) {
            c.cdb(cdb::write16(f.scratch_lba, 1)).direct(DataDir::kOut, d);
            ctx.mark_scratch_dirty();
          } else {
            c.cdb(cdb::read16(0, 1)).direct(DataDir::kIn, d);
          }
          const uint64_t tag = send_cmd(ctx, *s, c);
          expect_failed_or_closed(ctx, *s, tag, "bad RDMA descriptor");
          if (!s->wait_closed(deadline_in(ctx.timeout())))
            throw Failure{"the target closes the channel",
                          "the channel is still up"};
        });
  }
}

// How long a vanished initiator may wait for the target's DREQ with the
// target's defaults: up to 45 s until the next keepalive probe (30 s period,
// checked every 15 s), then up to 45 s until the unacknowledged probe times
// out, with room for TCG. (The guest suite sets keepalive_secs to 5.)
constexpr Millis kVanishWait{120000};

// How long a target with finite transport retries may take to end the
// channel of an initiator that vanished mid-transfer: its retries (about a
// second each) fail, nothing waits for a keepalive.
constexpr Millis kFiniteRetryWait{30000};

// Moves @s's QP to the error state without any CM message, waits for the
// target's DREQ (@expected names that in a failure; at most @wait) and
// checks that a new login works and answers TEST UNIT READY.
void vanish_and_relogin(Context &ctx, Session &s, const char *expected,
                        Millis wait = kVanishWait) {
  std::string why;
  if (!s.channel().vanish(&why))
    throw Failure{"the initiator's QP goes to the error state", why};
  if (!s.channel().wait_target_disconnect(
          deadline_in(std::max(ctx.timeout(), wait))))
    throw Failure{expected,
                  "no DREQ within " + std::to_string(wait.count() / 1000) +
                      " s"};
  auto t = ctx.login();
  healthy(ctx, *t);
}

void protocol_cases() {
  add("protocol.fill_credit_window",
      "as many TEST UNIT READYs as the login granted credits, without "
      "waiting, then all responses",
      "every command GOOD; credits back at the initial grant",
      "the request limit is the flow control: within it nothing is refused",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        const int64_t n = std::min<int64_t>(s->initial_credits(), 240);
        std::vector<uint64_t> tags;
        for (int64_t i = 0; i < n; i++)
          tags.push_back(send_cmd(ctx, *s, tur_cmd()));
        for (uint64_t t : tags) expect_good(wait_for(ctx, *s, t), "TUR");
        healthy(ctx, *s);
      });

  add("protocol.past_credit_limit",
      "credits + 4 READ(16)s of 64 KiB without waiting (4 beyond the "
      "request limit; reads, so that the target is still busy with the "
      "first ones when the last arrive)",
      "every command answered within the timeout, GOOD, BUSY or TASK SET "
      "FULL; the channel stays up; credits back at the initial grant",
      "SRP r16a: the initiator must not exceed the limit; the target must "
      "survive one that does",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        const int64_t n = s->initial_credits() + 4;
        if (n > 240)
          throw Skip{"the target grants " +
                     std::to_string(s->initial_credits()) +
                     " credits, more than this client queues"};
        const uint32_t bs = ctx.facts().block_size;
        const uint32_t blocks = std::max<uint32_t>(1, (64u << 10) / bs);
        std::vector<uint64_t> tags;
        for (int64_t i = 0; i < n; i++)
          tags.push_back(send_cmd(ctx, *s, read_cmd(*s, blocks, bs),
                                  Credit::kConsumeForce));
        for (uint64_t t : tags) {
          Rsp r = wait_for(ctx, *s, t);
          if (!status_in(r.status,
                         {kStatusGood, kStatusBusy, kStatusTaskSetFull}))
            throw Failure{"GOOD, BUSY or TASK SET FULL", describe(r)};
        }
        healthy(ctx, *s);
      });

  add("protocol.tag_reuse_in_flight",
      "two READ(16)s of 1 MiB with the same tag, back to back",
      "one or two SRP_RSPs for the tag, each GOOD, CHECK CONDITION, BUSY, "
      "TASK SET FULL or TASK ABORTED; the channel stays up; credits back",
      "SAM-5 overlapped commands: the target may refuse but must survive",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(1, (1u << 20) / f.block_size);
        const uint64_t tag = s->new_tag();
        for (size_t i = 0; i < 2; i++) {
          CmdBuilder b;
          b.cdb(cdb::read16(0, n))
              .direct(DataDir::kIn, buf(*s, i << 20, n * f.block_size))
              .tag(tag)
              .lun(encode_lun(ctx.opt().lun));
          send_iu(ctx, *s, b.build(), Credit::kConsume);
        }
        auto ok = [](const Rsp &r) {
          return status_in(r.status,
                           {kStatusGood, kStatusCheckCondition, kStatusBusy,
                            kStatusTaskSetFull, kStatusTaskAborted});
        };
        Rsp first = wait_for(ctx, *s, tag);
        if (!ok(first)) throw Failure{"an acceptable status", describe(first)};
        auto second = s->wait_rsp(tag, deadline_in(ctx.timeout()));
        if (second && !ok(*second))
          throw Failure{"an acceptable status", describe(*second)};
        healthy(ctx, *s);
      });

  add("protocol.tag_reuse_after_completion",
      "TEST UNIT READY with tag T, then again with tag T after the first "
      "completed",
      "both GOOD", "a tag is free again once its command completed",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        const uint64_t tag = s->new_tag();
        for (int i = 0; i < 2; i++) {
          send_iu(ctx, *s,
                  tur_cmd().tag(tag).lun(encode_lun(ctx.opt().lun)).build(),
                  Credit::kConsume);
          expect_good(wait_for(ctx, *s, tag), "TUR");
        }
        healthy(ctx, *s);
      });

  add("protocol.i_logout_idle", "SRP_I_LOGOUT on an idle channel",
      "no SRP_RSP; the target disconnects within the timeout",
      "SRP r16a SRP_I_LOGOUT ends the channel", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        send_iu(ctx, *s, encode_i_logout(s->new_tag()), Credit::kConsume);
        expect_closed(ctx, *s, "the target disconnects after SRP_I_LOGOUT");
        auto extra = s->take_unclaimed();
        if (!extra.empty())
          throw Failure{"no response to SRP_I_LOGOUT", describe(extra.front())};
      });

  add("protocol.i_logout_with_commands_in_flight",
      "8 READ(16)s of 128 KiB, then SRP_I_LOGOUT at once",
      "the target disconnects within the timeout (responses for some reads "
      "may come first); a new login works",
      "logout must not wait forever for, or crash on, outstanding commands",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(1, (128u << 10) / f.block_size);
        for (size_t i = 0; i < 8; i++) {
          CmdBuilder b;
          b.cdb(cdb::read16(0, n))
              .direct(DataDir::kIn,
                      buf(*s, i * (n * f.block_size), n * f.block_size));
          send_cmd(ctx, *s, b);
        }
        send_iu(ctx, *s, encode_i_logout(s->new_tag()), Credit::kConsume);
        expect_closed(ctx, *s, "the target disconnects after SRP_I_LOGOUT");
      });

  for (bool write : {false, true}) {
    add(write ? "protocol.disconnect_mid_write"
              : "protocol.disconnect_mid_read",
        write
            ? "8 WRITE(16)s of 128 KiB, then the initiator disconnects at once"
            : "8 READ(16)s of 256 KiB, then the initiator disconnects at once",
        "a new login right after works and answers TUR",
        "the target must clean up transfers of a vanished initiator",
        kNeedsLogin | (write ? kNeedsWrite : 0u), [write](Context &ctx) {
          const auto &f = ctx.facts();
          auto s = ctx.login();
          const uint32_t bytes = write ? 128u << 10 : 256u << 10;
          const uint32_t n = std::max<uint32_t>(1, bytes / f.block_size);
          const uint32_t len = n * f.block_size;
          const uint32_t lim = std::max<uint32_t>(1, f.scratch_blocks / n);
          for (uint32_t i = 0; i < 8; i++) {
            CmdBuilder b;
            if (write) {
              b.cdb(cdb::write16(f.scratch_lba + (i % lim) * n, n))
                  .direct(DataDir::kOut, buf(*s, i * len, len));
              ctx.mark_scratch_dirty();
            } else {
              b.cdb(cdb::read16(0, n))
                  .direct(DataDir::kIn, buf(*s, i * len, len));
            }
            send_cmd(ctx, *s, b);
          }
          s->disconnect();
          auto t = ctx.login();
          healthy(ctx, *t);
        });
  }

  struct Vanish {
    const char *name, *expected;
    bool finite;
  };
  for (Vanish v :
       {Vanish{"protocol.vanish_mid_read",
               "the target's transfers (or, if it had finished, its "
               "keepalive probe) fail and it ends the channel on its own "
               "(DREQ within 120 s); a new login right after works and "
               "answers TUR",
               false},
        Vanish{"protocol.vanish_mid_read_finite_retry",
               "with a transport retry count below 7 (--retry-count) the "
               "target's RDMA WRITEs fail with an error completion and it "
               "ends the channel at once (DREQ within 30 s, without waiting "
               "for a keepalive); a new login right after works",
               true}}) {
    add(v.name,
        "8 READ(16)s of 512 KiB; once the target has received them, the "
        "initiator's QP goes to the error state without any CM message (a "
        "crashed initiator, a lost port)",
        v.expected,
        "without a DREQ only failing transfers tell the target; it must not "
        "hold the channel and its LIO session forever",
        kNeedsLogin, [v](Context &ctx) {
          if (v.finite && ctx.opt().retry_count >= 7)
            throw Skip{"needs --retry-count below 7 (and the target's "
                       "keepalive off, to see the error path alone)"};
          const auto &f = ctx.facts();
          auto s = ctx.login();
          const uint32_t n =
              std::max<uint32_t>(1, (512u << 10) / f.block_size);
          const uint32_t len = n * f.block_size;
          for (uint32_t i = 0; i < 8; i++) {
            CmdBuilder b;
            b.cdb(cdb::read16(0, n))
                .direct(DataDir::kIn, buf(*s, (i * len) % (4u << 20), len));
            send_cmd(ctx, *s, b);
          }
          // Vanish only after the target acknowledged the 8 requests: sends
          // still queued here would be flushed and never reach it.
          const Deadline acked = deadline_in(ctx.timeout());
          while (!s->delivered(s->last_send_seq()) && Clock::now() < acked)
            s->pump_until(deadline_in(Millis(5)));
          if (!s->delivered(s->last_send_seq()))
            throw Failure{"the target acknowledges the 8 READs",
                          "not acknowledged in time"};
          vanish_and_relogin(ctx, *s,
                             "the target ends the channel of a vanished "
                             "initiator",
                             v.finite ? kFiniteRetryWait : kVanishWait);
        });
  }

  add("protocol.vanish_idle",
      "an idle channel (TEST UNIT READY answered, nothing in flight); the "
      "initiator's QP goes to the error state without any CM message",
      "the target's keepalive (a zero-length RDMA WRITE every keepalive_secs, "
      "default 30) is not acknowledged and it ends the channel (DREQ within "
      "120 s); a new login right after works and answers TUR",
      "an idle channel has no transfer that could fail: without a probe of "
      "its own the target would keep it and its LIO session until the "
      "module is unloaded",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        healthy(ctx, *s);
        vanish_and_relogin(ctx, *s,
                           "the target ends the idle channel of a vanished "
                           "initiator");
      });

  struct Odd {
    const char *name, *sends;
    uint8_t op;
    size_t len;
  };
  for (Odd o :
       {Odd{"protocol.srp_rsp_to_target", "an SRP_RSP (36 bytes)", kOpRsp, 36},
        Odd{"protocol.login_rsp_to_target", "an SRP_LOGIN_RSP (52 bytes)",
            kOpLoginRsp, 52},
        Odd{"protocol.login_rej_to_target", "an SRP_LOGIN_REJ (32 bytes)",
            kOpLoginRej, 32},
        Odd{"protocol.t_logout_to_target", "an SRP_T_LOGOUT (16 bytes)",
            kOpTLogout, 16},
        Odd{"protocol.cred_req_to_target", "an SRP_CRED_REQ (16 bytes)",
            kOpCredReq, 16},
        Odd{"protocol.aer_req_to_target", "an SRP_AER_REQ (36 bytes)",
            kOpAerReq, 36}}) {
    add(o.name, o.sends,
        "SRP_T_LOGOUT with reason 02h (invalid IU type), then the target "
        "disconnects; a new login works",
        "target-to-initiator IUs are not requests", kNeedsLogin,
        [o](Context &ctx) {
          t_logout_case(ctx, [o](Session &s) {
            Bytes iu(o.len, 0);
            put_u8(iu, 0, o.op);
            put_be64(iu, 8, s.new_tag());
            return iu;
          });
        });
  }

  add("protocol.login_req_in_band",
      "an SRP_LOGIN_REQ (64 bytes, T10 layout) sent as an IU on a live channel",
      "SRP_T_LOGOUT with reason 02h (invalid IU type), then the target "
      "disconnects; a new login works",
      "a login only comes with a connection request", kNeedsLogin,
      [](Context &ctx) {
        t_logout_case(ctx, [&ctx](Session &) {
          return encode_login_req(ctx.default_login());
        });
      });

  for (bool cred : {true, false}) {
    add(cred ? "protocol.cred_rsp_unsolicited" : "protocol.aer_rsp_unsolicited",
        cred ? "an SRP_CRED_RSP without a preceding SRP_CRED_REQ"
             : "an SRP_AER_RSP without a preceding SRP_AER_REQ",
        "ignored: no response; channel up; TUR GOOD; credits unchanged "
        "(an initiator spends no credit on a response IU, as ib_srp does)",
        "SRP r16a: SRP_CRED_RSP/SRP_AER_RSP only answer target requests and "
        "are not counted against the request limit",
        kNeedsLogin, [cred](Context &ctx) {
          ignored_case(
              ctx,
              [cred](Session &s) {
                return cred ? encode_cred_rsp(s.new_tag())
                            : encode_aer_rsp(s.new_tag());
              },
              Credit::kNone);
        });
  }

  add("protocol.abort_task_set_with_commands",
      "8 READ(16)s of 128 KiB in flight, then SRP_TSK_MGMT ABORT TASK SET",
      "TMF response code 00h, or 04h where ABORT TASK SET is not supported "
      "(LIO); every READ answered or silently aborted; credits back at the "
      "initial grant",
      "SAM-5 ABORT TASK SET; aborted commands' credits must come back",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(1, (128u << 10) / f.block_size);
        std::vector<uint64_t> tags;
        for (size_t i = 0; i < 8; i++) {
          CmdBuilder b;
          b.cdb(cdb::read16(0, n))
              .direct(DataDir::kIn,
                      buf(*s, i * (n * f.block_size), n * f.block_size));
          tags.push_back(send_cmd(ctx, *s, b));
        }
        expect_tmf(ctx, *s, kTmfAbortTaskSet,
                   {kTmfRspComplete, kTmfRspNotSupported});
        const Deadline d = deadline_in(ctx.quiet());
        for (uint64_t t : tags) s->wait_rsp(t, d);
        healthy(ctx, *s);
      });

  add("protocol.pipelined_reads",
      "up to 32 READ(16)s of 16 KiB at once (within the credits), each into "
      "its own buffer",
      "all GOOD, every buffer identical to a single reference read",
      "independent commands in flight together", kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = xfer_blocks(f);
        const size_t len = size_t(n) * f.block_size;
        const Bytes want = read_blocks(ctx, *s, 0, n, Layout::kDirect);
        const int64_t count = std::min<int64_t>(32, s->initial_credits());
        const size_t stride = len + 4096;
        if (stride * static_cast<size_t>(count) > s->channel().data_size())
          throw Skip{"--data-size too small"};
        std::vector<uint64_t> tags;
        for (int64_t i = 0; i < count; i++) {
          CmdBuilder b;
          b.cdb(cdb::read16(0, n))
              .direct(DataDir::kIn, buf(*s, static_cast<size_t>(i) * stride,
                                        static_cast<uint32_t>(len)));
          tags.push_back(send_cmd(ctx, *s, b));
        }
        for (size_t i = 0; i < tags.size(); i++) {
          expect_good(wait_for(ctx, *s, tags[i]), "READ(16)");
          const uint8_t *p = s->channel().data() + i * stride;
          expect_same(want, Bytes(p, p + len), "pipelined read");
        }
        healthy(ctx, *s);
      });
}

}  // namespace

const std::vector<Case> &catalogue() {
  if (g_cases.empty()) {
    login_cases();
    scsi_cases();
    malformed_cases();
    protocol_cases();
    hostile::add_cases(g_cases);
  }
  return g_cases;
}

}  // namespace srp
