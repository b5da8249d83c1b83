// SPDX-License-Identifier: GPL-2.0-only
//
// An SRP channel from the initiator's point of view: tags, credits (request
// limit), matching responses to requests, answering the target's requests
// (SRP_CRED_REQ, SRP_AER_REQ) and noticing SRP_T_LOGOUT and disconnects.
// Everything the target does wrong on the way is recorded as a violation.
#ifndef SRP_CLIENT_SESSION_H
#define SRP_CLIENT_SESSION_H

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "srp_iu.h"
#include "transport.h"

namespace srp {

// How a sent IU counts against the request limit.
enum class Credit {
  kConsume,       // wait (bounded) for a credit, then use it
  kConsumeForce,  // use one even if none is left (credit-limit misuse)
  kNone,          // does not consume one (SRP_CRED_RSP, SRP_AER_RSP)
};

class Session {
 public:
  Session(std::unique_ptr<Channel> ch, const LoginReq &req, const LoginRsp &rsp,
          Millis timeout);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  Channel &channel() { return *ch_; }
  const LoginReq &login_req() const { return req_; }
  const LoginRsp &login_rsp() const { return rsp_; }
  Millis timeout() const { return timeout_; }

  // A fresh tag (never 0: tag 0 is what a target reports for an IU too
  // short to carry one).
  uint64_t new_tag() { return next_tag_++; }
  int64_t credits() const { return credits_; }
  int64_t initial_credits() const { return rsp_.req_lim_delta; }

  // Sends @iu. False if the channel is closed, no credit came within the
  // timeout (kConsume) or the post failed; @why says which.
  bool send(const Bytes &iu, Credit c, std::string *why = nullptr);

  // Every IU this session posted (including its SRP_CRED_RSP/SRP_AER_RSP
  // answers) counts 1, 2, ...: the number of the last one sent.
  uint64_t last_send_seq() const { return posted_; }
  // Whether the IU with number @seq reached the target (see
  // Channel::sends_ok()); final only after drain_sends().
  bool delivered(uint64_t seq) const { return seq <= ch_->sends_ok(); }

  // The SRP_RSP with @tag; nullopt on timeout or when the channel closed.
  std::optional<Rsp> wait_rsp(uint64_t tag, Deadline d);
  std::optional<Rsp> wait_rsp(uint64_t tag) {
    return wait_rsp(tag, deadline_in(timeout_));
  }
  // The first SRP_RSP that nobody claimed yet.
  std::optional<Rsp> wait_any_rsp(Deadline d);
  // Processes events until @d (a quiet period).
  void pump_until(Deadline d);
  // Waits until the channel is closed by the target; true if it was.
  bool wait_closed(Deadline d);
  // Responses received but not claimed by wait_rsp(); cleared.
  std::vector<Rsp> take_unclaimed();

  bool closed() const { return closed_; }
  const std::string &close_reason() const { return close_reason_; }
  std::optional<TLogout> t_logout() const { return t_logout_; }
  unsigned cred_reqs() const { return cred_reqs_; }
  unsigned aer_reqs() const { return aer_reqs_; }

  // Protocol errors of the target seen so far (over-granted credits,
  // oversized or malformed IUs, unexpected opcodes).
  const std::vector<std::string> &violations() const { return violations_; }

  void disconnect();

 private:
  bool pump_one(Deadline d);
  void handle_iu(const Bytes &iu);
  void add_credits(int32_t delta, const char *what);
  void violation(std::string s);

  std::unique_ptr<Channel> ch_;
  LoginReq req_;
  LoginRsp rsp_;
  Millis timeout_;
  uint64_t next_tag_ = 1;
  uint64_t posted_ = 0;
  int64_t credits_ = 0;
  bool closed_ = false;
  bool disconnected_ = false;
  std::string close_reason_;
  std::optional<TLogout> t_logout_;
  unsigned cred_reqs_ = 0;
  unsigned aer_reqs_ = 0;
  std::deque<Rsp> pending_;
  std::vector<std::string> violations_;
};

}  // namespace srp

#endif  // SRP_CLIENT_SESSION_H
