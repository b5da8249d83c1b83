// SPDX-License-Identifier: GPL-2.0-only
//
// The conformance case catalogue and the helpers the cases are written
// with. A case logs in, sends something, and checks what comes back against
// a written expectation; failing checks throw Failure (expected vs got),
// cases that cannot run here throw Skip. After every case the runner checks
// the "target alive" invariant: a fresh login and TEST UNIT READY work.
#ifndef SRP_CLIENT_CASES_H
#define SRP_CLIENT_CASES_H

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "session.h"
#include "srp_iu.h"
#include "transport.h"

namespace srp {

struct Failure {
  std::string expected;
  std::string got;
};

struct Skip {
  std::string reason;
};

// What a case needs from the set-up.
enum Needs : unsigned {
  kNeedsLogin = 1u << 0,      // an accepted login (not with --acl-denied)
  kNeedsAclDenied = 1u << 1,  // a target without our ACL (--acl-denied)
  kNeedsWrite = 1u << 2,      // writes to the LUN (not with --no-write)
  kNeedsImmediate = 1u << 3,  // the target offers immediate data
  kNeedsTpgDisabled = 1u << 4,  // the portal group is disabled (--tpg-disabled)
};

struct TargetFacts {
  bool known = false;
  uint32_t block_size = 512;
  uint64_t last_lba = 0;
  bool immediate = false;  // SRP_LOGIN_RSP offered immediate data
  uint64_t scratch_lba = 0;
  uint32_t scratch_blocks = 0;
  Bytes scratch_saved;  // original contents, written back at the end
  bool scratch_dirty = false;
};

class Context {
 public:
  Context(Connector &conn, const Options &opt, std::ostream *log);

  const Options &opt() const { return opt_; }
  Connector &connector() { return conn_; }
  Millis timeout() const { return Millis(opt_.timeout_ms); }
  // How long "no response" is waited for.
  Millis quiet() const;
  void log(const std::string &s) const;

  PortId target_port_id() const;
  PortId initiator_port_id() const;
  LoginReq default_login() const;

  struct Attempt {
    ConnectResult::Kind kind = ConnectResult::Kind::kError;
    std::unique_ptr<Session> session;  // accepted
    std::optional<LoginRsp> rsp;       // accepted
    std::optional<LoginRej> rej;       // rejected with an SRP_LOGIN_REJ
    int cm_status = 0;
    std::string what;  // errors, undecodable private data
  };
  // Logs in with @r encoded in the RDMA/CM layout, or with @raw as the
  // private data when given.
  // @data_size: bytes registered for the target's RDMA (0: --data-size).
  Attempt try_login(const LoginReq &r, const Bytes *raw = nullptr,
                    size_t data_size = 0);
  // Like try_login() but a rejection or error is a Failure.
  std::unique_ptr<Session> login(const LoginReq &r);
  std::unique_ptr<Session> login() { return login(default_login()); }
  // Expects an SRP_LOGIN_REJ with @reason (and the request's tag).
  void expect_reject(const LoginReq &r, uint32_t reason,
                     const Bytes *raw = nullptr);

  // Block size, capacity, immediate data support and the scratch area,
  // learned once.
  const TargetFacts &facts();
  // Writes the saved scratch contents back (end of the run).
  void restore_scratch();
  void mark_scratch_dirty();
  // Fresh login + TEST UNIT READY (or, with --acl-denied, a well-formed
  // SRP_LOGIN_REJ). Empty string if alive, else what went wrong.
  std::string check_alive();

 private:
  Connector &conn_;
  const Options &opt_;
  std::ostream *log_;
  TargetFacts facts_;
};

struct Case {
  std::string name;      // group.case
  std::string sends;     // what it sends
  std::string expected;  // expected outcome
  std::string reason;    // spec reason
  unsigned needs = 0;
  std::function<void(Context &)> run;

  std::string group() const { return name.substr(0, name.find('.')); }
};

const std::vector<Case> &catalogue();

struct CaseResult {
  enum class Status { kPass, kFail, kSkip };
  std::string name;
  Status status = Status::kPass;
  std::string expected;
  std::string got;     // failure details
  std::string reason;  // skip reason
  double seconds = 0;
  uint64_t iteration = 0;
};

// The cases selected by @globs (all if empty or all exclusions), in
// catalogue order; a glob "!GLOB" excludes what GLOB matches.
std::vector<const Case *> select_cases(const std::vector<std::string> &globs);

// Runs one case with its skip rules and the alive check.
CaseResult run_case(Context &ctx, const Case &c);

// ---------------------------------------------------------------------------
// Helpers for cases (also used by the fuzzer)
// ---------------------------------------------------------------------------

// Sends @b (tag and LUN filled in) and waits for its SRP_RSP; a missing
// response is a Failure.
Rsp exec(Context &ctx, Session &s, CmdBuilder b);
void expect_good(const Rsp &r, const std::string &what);
void expect_sense(const Rsp &r, uint8_t key, uint8_t asc, uint8_t ascq,
                  const std::string &what);
// TEST UNIT READY until GOOD, retrying UNIT ATTENTION up to 3 times.
void tur_ok(Context &ctx, Session &s);
// TUR, then the credits must be back at the initial request limit.
void credits_restored(Context &ctx, Session &s);
void no_violations(const Session &s);
std::string describe(const Rsp &r);

}  // namespace srp

#endif  // SRP_CLIENT_CASES_H
