// SPDX-License-Identifier: GPL-2.0-only
#include "flood.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>
#include <set>
#include <thread>
#include <vector>

#include "case_util.h"

namespace srp::flood {

namespace {

struct Chan {
  std::unique_ptr<Session> s;
  std::set<uint64_t> tags;   // WRITEs sent and not answered yet
  bool closed = false;       // the target ended it (counted)
  bool send_failed = false;  // a failed post was reported
};

// Responses the first lines of which are worth a log line each.
constexpr unsigned kReportOther = 5;

class Flood {
 public:
  Flood(Context &ctx, std::ostream &log) : ctx_(ctx), log_(log) {}

  int run(std::ostream &out);

 private:
  void login_all();
  bool probe_lun();
  bool send_one(Chan &c);
  // Takes in every response already there; true if there was one.
  bool collect(Chan &c);
  void note_closed(Chan &c, size_t idx);
  void logout_all();

  Context &ctx_;
  std::ostream &log_;
  Counts n_;
  std::vector<Chan> chans_;
  uint32_t blocks_ = 0;
  unsigned others_reported_ = 0;
};

void Flood::login_all() {
  const Options &o = ctx_.opt();
  Connector &conn = ctx_.connector();
  struct Restore {
    Connector &c;
    ~Restore() { c.responder_resources.reset(); }
  } restore{conn};
  if (o.flood_rr0) conn.responder_resources = 0;
  for (uint32_t i = 0; i < o.flood_channels; i++) {
    LoginReq r = ctx_.default_login();
    // MULTI: every channel of this initiator port stays.
    r.req_flags = kMultichanMulti;
    r.tag = 0x464c4f4f44000000ull + i;  // "FLOOD" + number
    Context::Attempt a = ctx_.try_login(r, nullptr, o.flood_len);
    switch (a.kind) {
      case ConnectResult::Kind::kAccepted:
        n_.channels++;
        chans_.push_back(Chan{std::move(a.session), {}, false, false});
        break;
      case ConnectResult::Kind::kRejected:
        n_.rejected_logins++;
        log_ << "flood: login " << i + 1 << " refused: " << describe_attempt(a)
             << "\n";
        break;
      case ConnectResult::Kind::kError:
        n_.login_errors++;
        log_ << "flood: login " << i + 1 << ": " << describe_attempt(a) << "\n";
        break;
    }
  }
  log_ << "flood: " << n_.channels << " of " << o.flood_channels
       << " logins accepted (" << o.flood_len << " bytes registered each"
       << (o.flood_rr0 ? ", responder resources 0" : "") << ")" << std::endl;
}

// Block size and capacity from the first channel; every channel's
// UNIT ATTENTION out of the way.
bool Flood::probe_lun() {
  const Options &o = ctx_.opt();
  Session &s = *chans_.front().s;
  try {
    CmdBuilder b;
    b.cdb(cdb::read_capacity16(32))
        .direct(DataDir::kIn,
                {s.channel().data_va(0), s.channel().data_rkey(), 32});
    Rsp r = exec(ctx_, s, b);
    if (r.status == kStatusCheckCondition) r = exec(ctx_, s, b);
    expect_good(r, "READ CAPACITY(16)");
    auto cap = decode_read_capacity16(ByteView(s.channel().data(), 32));
    if (!cap || cap->block_size == 0) {
      log_ << "flood: unusable READ CAPACITY(16) data\n";
      return false;
    }
    const uint64_t bytes = (cap->last_lba + 1) * cap->block_size;
    if (o.flood_len % cap->block_size || o.flood_len > bytes) {
      log_ << "flood: --flood-len " << o.flood_len
           << " is not whole blocks of LUN " << o.lun << " (" << bytes
           << " bytes in blocks of " << cap->block_size << ")\n";
      return false;
    }
    blocks_ = static_cast<uint32_t>(o.flood_len / cap->block_size);
  } catch (const Failure &f) {
    log_ << "flood: " << f.expected << ", got " << f.got << "\n";
    return false;
  }
  for (auto &c : chans_) {
    try {
      tur_ok(ctx_, *c.s);
    } catch (const Failure &f) {
      log_ << "flood: TEST UNIT READY: " << f.got << "\n";
    }
  }
  return true;
}

bool Flood::send_one(Chan &c) {
  Session &s = *c.s;
  const uint64_t tag = s.new_tag();
  CmdBuilder b;
  b.cdb(cdb::write16(0, blocks_))
      .direct(DataDir::kOut, {s.channel().data_va(0), s.channel().data_rkey(),
                              static_cast<uint32_t>(ctx_.opt().flood_len)})
      .tag(tag)
      .lun(encode_lun(ctx_.opt().lun));
  std::string why;
  if (!s.send(b.build(), Credit::kConsume, &why)) {
    if (!s.closed() && !c.send_failed) {
      c.send_failed = true;
      log_ << "flood: send failed: " << why << "\n";
    }
    return false;
  }
  c.tags.insert(tag);
  n_.sent++;
  return true;
}

bool Flood::collect(Chan &c) {
  bool any = false;
  while (auto r = c.s->wait_any_rsp(Clock::now())) {
    any = true;
    const bool ours = c.tags.erase(r->tag) > 0;
    if (ours && r->status == kStatusGood) {
      n_.good++;
    } else if (ours && r->status == kStatusTaskSetFull) {
      n_.task_set_full++;
    } else if (ours && r->status == kStatusBusy) {
      n_.busy++;
    } else {
      n_.other++;
      if (others_reported_++ < kReportOther)
        log_ << "flood: " << (ours ? "" : "unknown tag: ") << describe(*r)
             << "\n";
    }
  }
  return any;
}

void Flood::note_closed(Chan &c, size_t idx) {
  if (c.closed || !c.s->closed()) return;
  c.closed = true;
  n_.closed_channels++;
  log_ << "flood: channel " << idx + 1 << " closed by the target ("
       << c.s->close_reason() << ") with " << c.tags.size()
       << " WRITEs unanswered\n";
}

void Flood::logout_all() {
  size_t violations = 0;
  for (auto &c : chans_) {
    for (const auto &v : c.s->violations())
      if (violations++ < kReportOther)
        log_ << "flood: protocol violation: " << v << "\n";
    c.s->disconnect();
  }
  if (violations > kReportOther)
    log_ << "flood: " << violations << " protocol violations in all\n";
}

int Flood::run(std::ostream &out) {
  const Options &o = ctx_.opt();
  login_all();
  if (chans_.empty() && n_.rejected_logins == 0) {
    log_ << "flood: no login was answered\n";
    return 2;
  }
  if (!chans_.empty() && !probe_lun()) {
    logout_all();
    return 2;
  }

  const auto start = Clock::now();
  const Deadline end = start + std::chrono::seconds(o.flood_secs);
  bool first = true;  // --flood-secs 0: one round
  for (;;) {
    const bool sending = first || Clock::now() < end;
    first = false;
    bool progress = false, open = false;
    for (size_t i = 0; i < chans_.size(); i++) {
      Chan &c = chans_[i];
      if (c.closed) continue;
      if (collect(c)) progress = true;
      while (sending && !c.s->closed() && c.tags.size() < o.flood_cmds &&
             c.s->credits() > 0 && send_one(c))
        progress = true;
      note_closed(c, i);
      open = open || !c.closed;
    }
    if (!open || !sending) break;
    if (!progress) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  n_.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // The answers still due, within a bound.
  const Deadline drain =
      Clock::now() + std::max(Millis(15000), 3 * ctx_.timeout());
  for (;;) {
    bool progress = false, waiting = false;
    for (size_t i = 0; i < chans_.size(); i++) {
      Chan &c = chans_[i];
      if (c.closed) continue;
      if (collect(c)) progress = true;
      note_closed(c, i);
      waiting = waiting || (!c.closed && !c.tags.empty());
    }
    if (!waiting || Clock::now() >= drain) break;
    if (!progress) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (const auto &c : chans_) n_.lost += c.tags.size();
  logout_all();

  char buf[200];
  std::snprintf(buf, sizeof(buf), "%.1f", n_.seconds);
  log_ << "flood: " << n_.channels << " channels for " << buf
       << " s: " << n_.sent << " WRITEs of " << o.flood_len << " bytes, "
       << n_.good << " GOOD, " << n_.task_set_full << " TASK SET FULL, "
       << n_.busy << " BUSY, " << n_.other << " other, " << n_.lost
       << " unanswered; " << n_.closed_channels
       << " channels closed by the target, " << n_.rejected_logins
       << " logins refused" << std::endl;
  out << to_json(n_) << std::endl;
  return 0;
}

}  // namespace

std::string to_json(const Counts &c) {
  char buf[512];
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::snprintf(buf, sizeof(buf),
                "{\"channels\":%llu,\"sent\":%llu,\"good\":%llu,"
                "\"task_set_full\":%llu,\"busy\":%llu,\"other\":%llu,"
                "\"lost\":%llu,\"rejected_logins\":%llu,"
                "\"closed_channels\":%llu,\"login_errors\":%llu,"
                "\"seconds\":%.1f}",
                u(c.channels), u(c.sent), u(c.good), u(c.task_set_full),
                u(c.busy), u(c.other), u(c.lost), u(c.rejected_logins),
                u(c.closed_channels), u(c.login_errors), c.seconds);
  return buf;
}

int run(Context &ctx, std::ostream &out, std::ostream &log) {
  return Flood(ctx, log).run(out);
}

}  // namespace srp::flood
