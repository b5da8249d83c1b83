// SPDX-License-Identifier: GPL-2.0-only
//
// The case catalogue. Each case names what it sends, the outcome it
// expects and the reason (T10 SRP r16a, SRP-2, SAM/SPC/SBC). Malformed
// SRP_CMDs expect CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN
// INFORMATION UNIT (0Eh/03h), bidirectional commands INVALID FIELD IN CDB
// (24h/00h); after each the target must answer TEST UNIT READY on the same
// channel and give back every credit.
//
// This file holds the catalogue and the helpers its parts share
// (catalogue.h); the cases are in catalogue_login.cpp (login.*, acl.*),
// catalogue_scsi.cpp, catalogue_malformed.cpp, catalogue_protocol.cpp,
// catalogue_sendq.cpp and catalogue_hostile.cpp.
#include "catalogue.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "case_util.h"
#include "cases.h"
#include "hostile.h"

namespace srp {

namespace {

std::vector<Case> g_cases;

}  // namespace

namespace cat {

void add(const char *name, const char *sends, const char *expected,
         const char *reason, unsigned needs,
         std::function<void(Context &)> run) {
  g_cases.push_back(Case{name, sends, expected, reason, needs, std::move(run)});
}

namespace {

// SRP_T_LOGOUT reason 02h: invalid information unit type (SRP r16a).
constexpr uint32_t kTLogoutInvalidIuType = 2;

uint8_t tmf(Context &ctx, Session &s, uint8_t func, uint64_t task_tag,
            std::optional<uint64_t> lun) {
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

}  // namespace

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

LoginReq imm_login(Context &ctx, uint16_t offset) {
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

void expect_tmf(Context &ctx, Session &s, uint8_t func, std::vector<uint8_t> ok,
                uint64_t task_tag, std::optional<uint64_t> lun) {
  const uint8_t code = tmf(ctx, s, func, task_tag, lun);
  if (std::find(ok.begin(), ok.end(), code) == ok.end()) {
    std::string want;
    for (uint8_t c : ok) want += (want.empty() ? "" : " or ") + hex8(c);
    throw Failure{"task management response code " + want,
                  "response code " + hex8(code)};
  }
}

void expect_closed(Context &ctx, Session &s, const std::string &what) {
  if (!s.wait_closed(deadline_in(ctx.timeout())))
    throw Failure{what, "still connected after " +
                            std::to_string(ctx.opt().timeout_ms) + " ms"};
}

}  // namespace cat

const std::vector<Case> &catalogue() {
  if (g_cases.empty()) {
    cat::login_cases();
    cat::scsi_cases();
    cat::malformed_cases();
    cat::protocol_cases();
    cat::sendq_cases();
    hostile::add_cases(g_cases);
  }
  return g_cases;
}

}  // namespace srp
