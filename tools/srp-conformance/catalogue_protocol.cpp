// SPDX-License-Identifier: GPL-2.0-only
//
// The protocol.* cases: the credit window, tag reuse, initiator logouts,
// IUs the target must ignore or answer with SRP_T_LOGOUT, initiators that
// vanish, and task management and pipelined transfers on a busy channel.
#include <algorithm>
#include <cstring>
#include <functional>

#include "case_util.h"
#include "cases.h"
#include "catalogue.h"

namespace srp::cat {

namespace {

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

bool status_in(uint8_t st, std::initializer_list<uint8_t> ok) {
  return std::find(ok.begin(), ok.end(), st) != ok.end();
}

}  // namespace

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

}  // namespace srp::cat
