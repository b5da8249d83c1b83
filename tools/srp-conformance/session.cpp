// SPDX-License-Identifier: GPL-2.0-only
#include "session.h"

#include <cstdio>
#include <utility>

namespace srp {

Session::Session(std::unique_ptr<Channel> ch, const LoginReq &req,
                 const LoginRsp &rsp, Millis timeout)
    : ch_(std::move(ch)),
      req_(req),
      rsp_(rsp),
      timeout_(timeout),
      credits_(rsp.req_lim_delta) {}

Session::~Session() { disconnect(); }

void Session::violation(std::string s) { violations_.push_back(std::move(s)); }

void Session::add_credits(int32_t delta, const char *what) {
  credits_ += delta;
  if (credits_ > initial_credits()) {
    char buf[160];
    std::snprintf(buf, sizeof(buf),
                  "%s granted %d credit(s): %lld credits now exceed the "
                  "%lld granted at login",
                  what, delta, static_cast<long long>(credits_),
                  static_cast<long long>(initial_credits()));
    violation(buf);
  }
}

bool Session::send(const Bytes &iu, Credit c, std::string *why) {
  if (closed_) {
    if (why) *why = "channel closed (" + close_reason_ + ")";
    return false;
  }
  if (c == Credit::kConsume) {
    const Deadline d = deadline_in(timeout_);
    while (credits_ <= 0 && !closed_) {
      if (!pump_one(d)) {
        if (why) *why = "no credit (request limit 0) within the timeout";
        return false;
      }
    }
    if (closed_) {
      if (why) *why = "channel closed (" + close_reason_ + ")";
      return false;
    }
  }
  if (c != Credit::kNone) credits_--;
  std::string w;
  if (!ch_->send(ByteView(iu), &w)) {
    if (c != Credit::kNone) credits_++;
    if (why) *why = w;
    return false;
  }
  posted_++;
  return true;
}

void Session::handle_iu(const Bytes &iu) {
  std::string why;
  if (iu.size() > rsp_.max_ti_iu_len) {
    violation("target sent a " + std::to_string(iu.size()) +
              "-byte IU, more than max_ti_iu_len " +
              std::to_string(rsp_.max_ti_iu_len));
  }
  if (iu.empty()) {
    violation("target sent an empty IU");
    return;
  }
  switch (iu[0]) {
    case kOpRsp: {
      auto r = decode_rsp(ByteView(iu), &why);
      if (!r) {
        violation("malformed SRP_RSP: " + why);
        return;
      }
      add_credits(r->req_lim_delta, "SRP_RSP");
      pending_.push_back(std::move(*r));
      return;
    }
    case kOpCredReq: {
      auto r = decode_cred_req(ByteView(iu), &why);
      if (!r) {
        violation("malformed SRP_CRED_REQ: " + why);
        return;
      }
      cred_reqs_++;
      add_credits(r->req_lim_delta, "SRP_CRED_REQ");
      std::string w;
      if (!ch_->send(ByteView(encode_cred_rsp(r->tag)), &w))
        violation("could not answer SRP_CRED_REQ: " + w);
      else
        posted_++;
      return;
    }
    case kOpAerReq: {
      auto r = decode_aer_req(ByteView(iu), &why);
      if (!r) {
        violation("malformed SRP_AER_REQ: " + why);
        return;
      }
      aer_reqs_++;
      add_credits(r->req_lim_delta, "SRP_AER_REQ");
      std::string w;
      if (!ch_->send(ByteView(encode_aer_rsp(r->tag)), &w))
        violation("could not answer SRP_AER_REQ: " + w);
      else
        posted_++;
      return;
    }
    case kOpTLogout: {
      auto r = decode_t_logout(ByteView(iu), &why);
      if (!r) {
        violation("malformed SRP_T_LOGOUT: " + why);
        return;
      }
      t_logout_ = *r;
      return;
    }
    default:
      violation("target sent an unexpected IU: " + opcode_name(iu[0]));
      return;
  }
}

bool Session::pump_one(Deadline d) {
  if (closed_) return false;
  auto ev = ch_->next_event(d);
  if (!ev) return false;
  switch (ev->kind) {
    case Event::Kind::kIu:
      handle_iu(ev->iu);
      break;
    case Event::Kind::kDisconnected:
      closed_ = true;
      close_reason_ = ev->what.empty() ? "disconnected" : ev->what;
      break;
    case Event::Kind::kError:
      closed_ = true;
      close_reason_ = ev->what.empty() ? "QP error" : ev->what;
      break;
  }
  return true;
}

std::optional<Rsp> Session::wait_rsp(uint64_t tag, Deadline d) {
  for (;;) {
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->tag == tag) {
        Rsp r = std::move(*it);
        pending_.erase(it);
        return r;
      }
    }
    if (!pump_one(d)) return std::nullopt;
  }
}

std::optional<Rsp> Session::wait_any_rsp(Deadline d) {
  for (;;) {
    if (!pending_.empty()) {
      Rsp r = std::move(pending_.front());
      pending_.pop_front();
      return r;
    }
    if (!pump_one(d)) return std::nullopt;
  }
}

void Session::pump_until(Deadline d) {
  while (pump_one(d)) {
  }
}

bool Session::wait_closed(Deadline d) {
  while (!closed_) {
    if (!pump_one(d)) break;
  }
  return closed_;
}

std::vector<Rsp> Session::take_unclaimed() {
  std::vector<Rsp> v(std::make_move_iterator(pending_.begin()),
                     std::make_move_iterator(pending_.end()));
  pending_.clear();
  return v;
}

void Session::disconnect() {
  if (disconnected_ || !ch_) return;
  disconnected_ = true;
  ch_->disconnect(deadline_in(timeout_));
  if (!closed_) {
    closed_ = true;
    close_reason_ = "disconnected by the initiator";
  }
}

}  // namespace srp
