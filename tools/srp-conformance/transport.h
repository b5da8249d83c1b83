// SPDX-License-Identifier: GPL-2.0-only
//
// The transport seen by the SRP logic: a connector that logs in (connection
// request with the SRP_LOGIN_REQ as private data) and a channel that sends
// IUs and delivers what the target sends. rdma_conn.h implements it with
// librdmacm/libibverbs; the unit tests implement it with an in-process model
// of a target so that the whole case catalogue can run without RDMA.
#ifndef SRP_CLIENT_TRANSPORT_H
#define SRP_CLIENT_TRANSPORT_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "srp_iu.h"

namespace srp {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;
using Millis = std::chrono::milliseconds;

inline Deadline deadline_in(Millis ms) { return Clock::now() + ms; }

// Something that happened on a channel.
struct Event {
  enum class Kind {
    kIu,            // the target sent an IU (bytes in iu)
    kDisconnected,  // the connection ended (CM disconnect)
    kError,         // a work completion failed: the QP is in error
  };
  Kind kind = Kind::kIu;
  Bytes iu;
  std::string what;
};

// One connected RC channel.
class Channel {
 public:
  virtual ~Channel() = default;

  // Called once the login response is known: allocates and posts @count
  // receive buffers of @size bytes (max_ti_iu_len).
  virtual bool start(uint32_t size, uint32_t count, std::string *why) = 0;

  // Registered memory the target may RDMA READ and WRITE.
  virtual uint8_t *data() = 0;
  virtual size_t data_size() const = 0;
  virtual uint64_t data_va(size_t offset) const = 0;
  virtual uint32_t data_rkey() const = 0;

  // Posts a SEND of @iu. False (with @why) if it could not be posted; a
  // failed completion arrives later as an Event::Kind::kError.
  virtual bool send(ByteView iu, std::string *why) = 0;

  // Sends whose completion said they reached the target: an RC SEND
  // completes successfully once the target acknowledged it; the first one
  // that fails other than by a flush counts too (the target refused it, or
  // it got no answer at all). Sends complete in the order they were posted,
  // so the first sends_ok() posted sends are exactly the delivered ones.
  virtual uint64_t sends_ok() const = 0;
  // After the channel ended: waits (bounded) until every posted send has
  // completed, so that sends_ok() is final.
  virtual void drain_sends(Deadline deadline) = 0;

  // The next event before @deadline, or nullopt on timeout.
  virtual std::optional<Event> next_event(Deadline deadline) = 0;

  // Ends the connection and waits (bounded by @deadline) for the end.
  virtual void disconnect(Deadline deadline) = 0;

  // Moves the local QP to the error state without any CM message, as a
  // crashed initiator or one that lost its port would: the target learns
  // it only from its own failing transfers. False (with @why) if the
  // transport cannot.
  virtual bool vanish(std::string *why) {
    if (why) *why = "not supported by this transport";
    return false;
  }
  // After vanish(): true once the target ended the connection (its DREQ)
  // before @deadline. Also after pause_receives().
  virtual bool wait_target_disconnect(Deadline) { return false; }

  // Stops reposting receive buffers, as an initiator that stopped
  // processing would: those posted still take IUs in, and once they are
  // used up the target's next SEND finds none (an RNR NAK, retried for as
  // long as the connection's RNR retry count says: 7 is for ever). False
  // (with @why) if the transport cannot.
  virtual bool pause_receives(std::string *why) {
    if (why) *why = "not supported by this transport";
    return false;
  }
  // Reposts every receive buffer taken in since pause_receives().
  virtual bool resume_receives(std::string *why) {
    if (why) *why = "not supported by this transport";
    return false;
  }
  // Receive buffers posted and not yet used.
  virtual uint32_t receives_posted() const { return 0; }
};

struct ConnectResult {
  enum class Kind {
    kAccepted,  // REP received; private_data holds the SRP_LOGIN_RSP
    kRejected,  // REJ received; private_data holds what came with it
    kError,     // no answer, unreachable, local failure (see what)
  };
  Kind kind = Kind::kError;
  Bytes private_data;
  int cm_status = 0;  // CM reject status (IB: 28 = consumer defined)
  std::string what;
  std::unique_ptr<Channel> channel;  // kAccepted only
};

class Connector {
 public:
  virtual ~Connector() = default;

  // Connects with @private_data (the login request) and waits for the
  // target's answer until @deadline. @data_size bytes of RDMA-accessible
  // memory are registered for the new channel.
  virtual ConnectResult connect(const Bytes &private_data, size_t data_size,
                                Deadline deadline) = 0;

  // IB and RoCE carry 56 bytes of REQ private data after the RDMA/CM header
  // and the target always sees 56 (shorter data is zero padded); iWARP
  // delivers the exact length.
  virtual bool exact_private_data_length() const = 0;

  // The 8-byte interface ID (port GUID) that goes into the second half of
  // the initiator port ID, as ib_srp does (GID index 0 of the port).
  virtual uint64_t local_interface_id() const = 0;

  // The RDMA READs the target may have outstanding on the next channels
  // (the connection request's responder resources); nullopt: as many as
  // the local device allows, at most 16, like ib_srp.
  std::optional<uint8_t> responder_resources;
};

}  // namespace srp

#endif  // SRP_CLIENT_TRANSPORT_H
