// SPDX-License-Identifier: GPL-2.0-only
//
// The flood mode (--flood CHANNELS): a memory attack on the target by an
// initiator it has an ACL for. It logs in CHANNELS channels (MULTI, all
// with the same initiator port ID), each registering --flood-len bytes,
// and keeps --flood-cmds WRITE(16) commands of --flood-len bytes each
// outstanding on every channel for --flood-secs seconds (a direct
// descriptor to the channel's registered memory, LBA 0 of --lun: the
// first --flood-len bytes of the LUN are overwritten with zeros), sending
// each again as soon as its response is in. A target that allocated the
// data buffer of every command it received would need CHANNELS x
// --flood-cmds x --flood-len bytes; one that bounds them answers the
// excess TASK SET FULL or makes it wait. Then it waits (bounded) for the
// outstanding responses, logs out and prints one JSON line of counts. It
// judges nothing: the caller compares the counts with what the target's
// bounds allow.
#ifndef SRP_CLIENT_FLOOD_H
#define SRP_CLIENT_FLOOD_H

#include <cstdint>
#include <iosfwd>
#include <string>

#include "cases.h"

namespace srp::flood {

struct Counts {
  uint64_t channels = 0;         // logins accepted
  uint64_t sent = 0;             // WRITEs posted
  uint64_t good = 0;             // answered GOOD
  uint64_t task_set_full = 0;    // answered TASK SET FULL (28h)
  uint64_t busy = 0;             // answered BUSY (08h)
  uint64_t other = 0;            // any other answer, or an unknown tag
  uint64_t lost = 0;             // no answer by the end
  uint64_t rejected_logins = 0;  // SRP_LOGIN_REJ (or a REJ without one)
  uint64_t closed_channels = 0;  // channels the target ended
  uint64_t login_errors = 0;     // logins without an answer
  double seconds = 0;            // time the commands were kept outstanding
};

// The one-line JSON object of @c: {"channels":N,"sent":N,"good":N,
// "task_set_full":N,"busy":N,"other":N,"lost":N,"rejected_logins":N,
// "closed_channels":N,"login_errors":N,"seconds":S}.
std::string to_json(const Counts &c);

// Runs the flood with ctx.opt()'s --flood* options and --lun; prints the
// JSON line to @out and progress to @log. Returns the exit status: 0 if
// it ran (whatever the counts), 2 if it could not (no login answered at
// all, the LUN too small for --flood-len or not in whole blocks). With
// --flood-rr0 the connection requests offer responder resources 0 (the
// target may not RDMA READ); a target should refuse those logins.
int run(Context &ctx, std::ostream &out, std::ostream &log);

}  // namespace srp::flood

#endif  // SRP_CLIENT_FLOOD_H
