// SPDX-License-Identifier: GPL-2.0-only
//
// The sendq.* cases: an initiator that stops posting receive buffers. The
// target's SENDs then meet an RNR NAK and, with the RNR retry count of 7
// this client (like ib_srp) asks for, are retried for ever; every later
// send of the channel waits behind them and the target's send queue fills.
// A response the target builds then (a CHECK CONDITION LIO sends itself)
// must not be lost, and the target must end the channel on its own.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "case_util.h"
#include "cases.h"
#include "catalogue.h"

namespace srp::cat {

namespace {

// A LUN no target maps (the highest flat LUN), as scsi.lun_not_mapped.
constexpr uint64_t kUnmappedLun = 16383;

// How long the target may take to end a stalled channel: with its
// defaults (keepalive_secs 30) up to 90 s (docs/configuration.md), with
// room for TCG. (The guest suite sets keepalive_secs lower.)
constexpr Millis kStallWait{120000};

// Pauses @s's receives and sends TEST UNIT READYs until every receive
// buffer the initiator had posted holds an IU (the target's next SEND
// finds none) and only @keep credits are left: the target then has
// responses for all the other commands to send and no way to send them.
// Returns the tags of the TEST UNIT READYs.
std::vector<uint64_t> stall(Context &ctx, Session &s, int64_t keep) {
  std::string why;
  if (!s.channel().pause_receives(&why))
    throw Skip{"the transport cannot stop posting receives: " + why};
  std::vector<uint64_t> tags;
  Deadline d = deadline_in(ctx.timeout());
  while (s.channel().receives_posted() > 0 || s.credits() > keep) {
    if (s.closed())
      throw Failure{"the channel stays up while the receive buffers run out",
                    "channel closed: " + s.close_reason()};
    if (s.credits() > keep) {
      tags.push_back(send_cmd(ctx, s, tur_cmd()));
      s.pump_until(Clock::now());  // what has arrived, without waiting
      d = deadline_in(ctx.timeout());
      continue;
    }
    if (Clock::now() >= d)
      throw Failure{
          "responses to the TEST UNIT READYs until the initiator's receive "
          "buffers are used up",
          std::to_string(tags.size()) + " sent, " +
              std::to_string(s.channel().receives_posted()) +
              " receive buffers still posted after " +
              std::to_string(ctx.opt().timeout_ms) + " ms"};
    s.pump_until(deadline_in(Millis(10)));
  }
  ctx.log("stalled: " + std::to_string(tags.size()) +
          " TEST UNIT READYs sent, no receive buffer left, " +
          std::to_string(s.credits()) + " credit(s) kept");
  return tags;
}

}  // namespace

void sendq_cases() {
  add("sendq.stalled_receiver_check_condition",
      "the initiator stops posting receive buffers and sends TEST UNIT "
      "READYs until they are used up and one credit is left (the target's "
      "SENDs now find no buffer, its send queue fills with small "
      "srp_sq_size), then a TEST UNIT READY to LUN 16383 (not mapped; LIO "
      "answers it itself before the command reaches the backend); once the "
      "target has it, the initiator posts its receive buffers again",
      "every TEST UNIT READY GOOD and the one to LUN 16383 CHECK CONDITION "
      "ILLEGAL REQUEST 25/00, all within the timeout; credits back at the "
      "initial grant",
      "a target must not drop a response because its send queue is full; a "
      "lost one also keeps its command, and the channel's logout waits for "
      "it for ever",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        const std::vector<uint64_t> tags = stall(ctx, *s, 1);
        const uint64_t bad =
            send_cmd(ctx, *s, tur_cmd(), Credit::kConsume, kUnmappedLun);
        // Delivered, and taken in by the target (a quiet period) while its
        // sends are still stalled.
        const Deadline acked = deadline_in(ctx.timeout());
        while (!s->delivered(s->last_send_seq()) && Clock::now() < acked)
          s->pump_until(deadline_in(Millis(5)));
        if (!s->delivered(s->last_send_seq()))
          throw Failure{"the target acknowledges the last TEST UNIT READY",
                        "not acknowledged in time"};
        s->pump_until(deadline_in(ctx.quiet()));
        std::string why;
        if (!s->channel().resume_receives(&why))
          throw Failure{"the receive buffers posted again", why};
        for (uint64_t t : tags) expect_good(wait_for(ctx, *s, t), "TUR");
        expect_sense(wait_for(ctx, *s, bad), kSenseIllegalRequest, 0x25, 0x00,
                     "TUR to LUN 16383");
        healthy(ctx, *s);
      });

  add("sendq.stalled_receiver_ends_channel",
      "the initiator stops posting receive buffers and sends TEST UNIT "
      "READYs until they are used up and no credit is left (the target's "
      "SENDs find no buffer and, at RNR retry count 7, are retried for "
      "ever; its send queue fills with small srp_sq_size)",
      "the target ends the channel on its own (DREQ within 120 s: a send "
      "that never completes, e.g. its keepalive probe queued behind the "
      "stalled SENDs, times out); a new login right after works and "
      "answers TUR",
      "an initiator that no longer takes responses in must not hold the "
      "channel, its commands and its LIO session for ever",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        stall(ctx, *s, 0);
        const auto t0 = Clock::now();
        const Millis wait = std::max(ctx.timeout(), kStallWait);
        if (!s->channel().wait_target_disconnect(deadline_in(wait)))
          throw Failure{
              "the target ends the stalled channel",
              "no DREQ within " + std::to_string(wait.count() / 1000) + " s"};
        const auto ms =
            std::chrono::duration_cast<Millis>(Clock::now() - t0).count();
        ctx.log("DREQ " + std::to_string(ms) + " ms after the stall");
        auto t = ctx.login();
        healthy(ctx, *t);
      });
}

}  // namespace srp::cat
