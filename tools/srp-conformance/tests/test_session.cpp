// SPDX-License-Identifier: GPL-2.0-only
//
// Credit accounting and target requests in Session, with a scripted channel.
#include <gtest/gtest.h>

#include <deque>

#include "session.h"

using namespace srp;

namespace {

class ScriptChannel : public Channel {
 public:
  std::deque<Event> events;
  std::vector<Bytes> sent;
  uint8_t buf[4096] = {};
  bool start(uint32_t, uint32_t, std::string *) override { return true; }
  uint8_t *data() override { return buf; }
  size_t data_size() const override { return sizeof(buf); }
  uint64_t data_va(size_t o) const override { return 0x1000 + o; }
  uint32_t data_rkey() const override { return 1; }
  bool send(ByteView iu, std::string *) override {
    sent.emplace_back(iu.data, iu.data + iu.size);
    return true;
  }
  std::optional<Event> next_event(Deadline) override {
    if (events.empty()) return std::nullopt;
    Event e = events.front();
    events.pop_front();
    return e;
  }
  void disconnect(Deadline) override {}
  uint64_t sends_ok() const override { return sent.size(); }
  void drain_sends(Deadline) override {}
};

Event iu(Bytes b) {
  Event e;
  e.kind = Event::Kind::kIu;
  e.iu = std::move(b);
  return e;
}

Bytes rsp(uint64_t tag, int32_t delta, uint8_t status = 0) {
  Bytes b(36, 0);
  b[0] = kOpRsp;
  put_be32(b, 4, static_cast<uint32_t>(delta));
  put_be64(b, 8, tag);
  b[19] = status;
  return b;
}

struct Fixture {
  ScriptChannel *ch;
  std::unique_ptr<Session> s;
  explicit Fixture(int32_t credits) {
    auto c = std::make_unique<ScriptChannel>();
    ch = c.get();
    LoginRsp r;
    r.req_lim_delta = credits;
    r.max_ti_iu_len = 256;
    r.max_it_iu_len = 8260;
    s = std::make_unique<Session>(std::move(c), LoginReq{}, r, Millis(10));
  }
};

}  // namespace

TEST(Session, CreditsAndMatching) {
  Fixture f(2);
  const uint64_t t1 = f.s->new_tag(), t2 = f.s->new_tag();
  EXPECT_NE(t1, 0u);
  EXPECT_TRUE(f.s->send(Bytes(48, 0), Credit::kConsume));
  EXPECT_TRUE(f.s->send(Bytes(48, 0), Credit::kConsume));
  EXPECT_EQ(f.s->credits(), 0);
  std::string why;
  EXPECT_FALSE(f.s->send(Bytes(48, 0), Credit::kConsume, &why));
  EXPECT_NE(why.find("no credit"), std::string::npos);
  EXPECT_TRUE(f.s->send(Bytes(48, 0), Credit::kConsumeForce));
  EXPECT_EQ(f.s->credits(), -1);
  f.ch->events.push_back(iu(rsp(t2, 1)));
  f.ch->events.push_back(iu(rsp(t1, 2)));
  auto r1 = f.s->wait_rsp(t1);
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->tag, t1);
  auto r2 = f.s->wait_rsp(t2);
  ASSERT_TRUE(r2);
  EXPECT_EQ(f.s->credits(), 2);
  EXPECT_TRUE(f.s->violations().empty());
  EXPECT_FALSE(f.s->wait_rsp(99));
}

TEST(Session, OverGrantIsAViolation) {
  Fixture f(1);
  f.s->send(Bytes(48, 0), Credit::kConsume);
  f.ch->events.push_back(iu(rsp(1, 3)));
  f.s->wait_rsp(1);
  EXPECT_EQ(f.s->credits(), 3);
  ASSERT_EQ(f.s->violations().size(), 1u);
  EXPECT_NE(f.s->violations()[0].find("exceed"), std::string::npos);
}

TEST(Session, AnswersCredReqAndAerReq) {
  Fixture f(4);
  Bytes c(16, 0);
  c[0] = kOpCredReq;
  put_be32(c, 4, 0);
  put_be64(c, 8, 0xabc);
  Bytes a(36, 0);
  a[0] = kOpAerReq;
  put_be64(a, 8, 0xdef);
  f.ch->events.push_back(iu(c));
  f.ch->events.push_back(iu(a));
  f.s->pump_until(deadline_in(Millis(1)));
  EXPECT_EQ(f.s->cred_reqs(), 1u);
  EXPECT_EQ(f.s->aer_reqs(), 1u);
  ASSERT_EQ(f.ch->sent.size(), 2u);
  EXPECT_EQ(f.ch->sent[0], encode_cred_rsp(0xabc));
  EXPECT_EQ(f.ch->sent[1], encode_aer_rsp(0xdef));
  EXPECT_EQ(f.s->credits(), 4);  // responses do not use credits
}

TEST(Session, TLogoutDisconnectAndBadIus) {
  Fixture f(4);
  Bytes t(16, 0);
  t[0] = kOpTLogout;
  put_be32(t, 4, 0x10000);
  f.ch->events.push_back(iu(t));
  f.ch->events.push_back(iu(Bytes(300, 0xc1)));  // too long and malformed
  f.ch->events.push_back(iu(Bytes{0x55}));
  Event d;
  d.kind = Event::Kind::kDisconnected;
  d.what = "target disconnected";
  f.ch->events.push_back(d);
  EXPECT_TRUE(f.s->wait_closed(deadline_in(Millis(1))));
  ASSERT_TRUE(f.s->t_logout());
  EXPECT_EQ(f.s->t_logout()->reason, 0x10000u);
  EXPECT_EQ(f.s->close_reason(), "target disconnected");
  EXPECT_EQ(f.s->violations().size(), 3u);  // length, malformed, opcode
  EXPECT_FALSE(f.s->send(Bytes(48, 0), Credit::kConsume));
}

TEST(Session, UnclaimedResponses) {
  Fixture f(4);
  f.ch->events.push_back(iu(rsp(7, 0)));
  f.ch->events.push_back(iu(rsp(8, 0)));
  auto any = f.s->wait_any_rsp(deadline_in(Millis(1)));
  ASSERT_TRUE(any);
  EXPECT_EQ(any->tag, 7u);
  f.s->pump_until(deadline_in(Millis(1)));
  auto rest = f.s->take_unclaimed();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].tag, 8u);
}
