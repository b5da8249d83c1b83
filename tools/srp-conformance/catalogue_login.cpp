// SPDX-License-Identifier: GPL-2.0-only
//
// The login.* and acl.* cases: SRP_LOGIN_REQ fields, multichannel actions,
// immediate data negotiation, and logins the target's ACLs and portal
// group refuse.
#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>

#include "case_util.h"
#include "cases.h"
#include "catalogue.h"

namespace srp::cat {

namespace {

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

}  // namespace

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

  add("login.no_rdma_read_depth",
      "SRP_LOGIN_REQ in a connection request with responder resources 0 "
      "(the target may not RDMA READ); then the same login with the "
      "default depth",
      "SRP_LOGIN_REJ 0x10000; the second login accepted",
      "SRP r16a: the target fetches write data with RDMA READs; a channel "
      "that cannot would hold every write's buffer until it ends",
      kNeedsLogin, [](Context &ctx) {
        struct Restore {
          Connector &c;
          ~Restore() { c.responder_resources.reset(); }
        } restore{ctx.connector()};
        ctx.connector().responder_resources = 0;
        ctx.expect_reject(ctx.default_login(), kRejUnableEstablish);
        ctx.connector().responder_resources.reset();
        auto s = ctx.login();
        healthy(ctx, *s);
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

  add("login.single_relogins_held",
      "SINGLE logins with the same port IDs one after the other (5; with "
      "--channel-limit N: N + 3), each channel sending a READ(16) of one "
      "block before the next login replaces it",
      "every login accepted and the channel before it disconnected by the "
      "target; with --channel-limit N (max_initiator_channels N, the "
      "backend holding the READs, so the replaced channels cannot be "
      "freed): the first N + 1 accepted (the live channel a SINGLE login "
      "replaces does not count), the others refused with 0x10006, and "
      "once the backend lets the READs go (the test's driver resumes it) "
      "a login accepted again within the timeout",
      "a channel holds its QP and buffers until it is freed: re-logins "
      "must not pile up closing channels beyond the channel limit",
      kNeedsLogin, [](Context &ctx) {
        const uint32_t limit = ctx.opt().channel_limit;
        const uint32_t n = limit ? limit + 3 : 5;
        const uint32_t bs = ctx.facts().block_size;
        std::vector<std::unique_ptr<Session>> held;
        for (uint32_t i = 0; i < n; i++) {
          Context::Attempt at = ctx.try_login(ctx.default_login());
          if (limit && i > limit) {
            if (!at.rej || at.rej->reason != kRejChannelLimit)
              throw Failure{"login " + std::to_string(i + 1) +
                                " refused with 0x10006 (" +
                                std::to_string(limit) +
                                " channels still releasing)",
                            at.session ? "accepted" : at.what};
            continue;
          }
          if (!at.session)
            throw Failure{"login " + std::to_string(i + 1) + " accepted",
                          at.rej ? "SRP_LOGIN_REJ " +
                                       std::to_string(at.rej->reason)
                                 : at.what};
          if (!held.empty() && !limit)
            expect_closed(ctx, *held.back(), "the replaced channel closed");
          CmdBuilder b;
          b.cdb(cdb::read16(0, 1)).direct(DataDir::kIn,
                                          buf(*at.session, 0, bs));
          send_cmd(ctx, *at.session, b, Credit::kConsume);
          held.push_back(std::move(at.session));
        }
        if (!limit) {
          healthy(ctx, *held.back());
          return;
        }
        held.clear();
        const Deadline d = deadline_in(ctx.timeout());
        for (;;) {
          Context::Attempt at = ctx.try_login(ctx.default_login());
          if (at.session) {
            healthy(ctx, *at.session);
            return;
          }
          if (Clock::now() > d)
            throw Failure{"a login accepted once the channels are freed",
                          at.rej ? "SRP_LOGIN_REJ " +
                                       std::to_string(at.rej->reason)
                                 : at.what};
          std::this_thread::sleep_for(Millis(200));
        }
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

}  // namespace srp::cat
