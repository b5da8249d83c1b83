// SPDX-License-Identifier: GPL-2.0-only
//
// The RDMA transport: librdmacm for connection management (RDMA_PS_TCP, the
// Linux initiator's RDMA/CM login), libibverbs for an RC QP, a CQ with a
// completion channel, and registered memory. Every wait is bounded: CM
// events and completions are waited for with poll(2) on non-blocking file
// descriptors and a deadline.
#ifndef SRP_CLIENT_RDMA_CONN_H
#define SRP_CLIENT_RDMA_CONN_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "transport.h"

namespace srp::rdma {

// ---------------------------------------------------------------------------
// RAII wrappers
// ---------------------------------------------------------------------------

struct EventChannelDeleter {
  void operator()(rdma_event_channel *p) const noexcept {
    rdma_destroy_event_channel(p);
  }
};
using EventChannelPtr =
    std::unique_ptr<rdma_event_channel, EventChannelDeleter>;

struct CmIdDeleter {
  void operator()(rdma_cm_id *p) const noexcept { rdma_destroy_id(p); }
};
using CmIdPtr = std::unique_ptr<rdma_cm_id, CmIdDeleter>;

struct CmEventDeleter {
  void operator()(rdma_cm_event *p) const noexcept { rdma_ack_cm_event(p); }
};
using CmEventPtr = std::unique_ptr<rdma_cm_event, CmEventDeleter>;

struct PdDeleter {
  void operator()(ibv_pd *p) const noexcept { ibv_dealloc_pd(p); }
};
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;

struct MrDeleter {
  void operator()(ibv_mr *p) const noexcept { ibv_dereg_mr(p); }
};
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;

struct CompChannelDeleter {
  void operator()(ibv_comp_channel *p) const noexcept {
    ibv_destroy_comp_channel(p);
  }
};
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, CompChannelDeleter>;

// A CQ that acknowledges the completion events it got before it goes.
class Cq {
 public:
  Cq() = default;
  explicit Cq(ibv_cq *cq) : cq_(cq) {}
  ~Cq() { reset(); }
  Cq(const Cq &) = delete;
  Cq &operator=(const Cq &) = delete;
  Cq(Cq &&o) noexcept : cq_(o.cq_), unacked_(o.unacked_) { o.cq_ = nullptr; }
  Cq &operator=(Cq &&o) noexcept;

  ibv_cq *get() const { return cq_; }
  void got_event();  // one more event from ibv_get_cq_event()
  void reset();

 private:
  ibv_cq *cq_ = nullptr;
  unsigned unacked_ = 0;
};

// The QP of an rdma_cm_id (rdma_create_qp/rdma_destroy_qp).
class CmQp {
 public:
  CmQp() = default;
  ~CmQp() { reset(); }
  CmQp(const CmQp &) = delete;
  CmQp &operator=(const CmQp &) = delete;

  bool create(rdma_cm_id *id, ibv_pd *pd, ibv_qp_init_attr *attr);
  ibv_qp *get() const { return id_ ? id_->qp : nullptr; }
  void reset();

 private:
  rdma_cm_id *id_ = nullptr;
};

// Memory plus its registration; the registration goes first.
struct Region {
  std::vector<uint8_t> buf;
  MrPtr mr;
};

// ---------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------

struct RdmaOptions {
  std::string host;
  std::string port;
  uint32_t send_slots = 256;      // outstanding SENDs
  size_t send_slot_size = 16384;  // larger IUs get their own registration
  uint32_t max_recv = 512;        // receive WRs the QP can hold
  Millis send_wait{5000};         // bound on waiting for a free send slot
  bool verbose = false;
  uint8_t retry_count = 7;        // transport retries (the target's too)
};

class RdmaChannel;

class RdmaConnector : public Connector {
 public:
  explicit RdmaConnector(RdmaOptions o) : opt_(std::move(o)) {}

  // Resolves the target's address and route once, to learn the local
  // device: its transport (iWARP or IB/RoCE) and the port's interface ID.
  bool probe(Deadline d, std::string *why);

  ConnectResult connect(const Bytes &private_data, size_t data_size,
                        Deadline deadline) override;
  bool exact_private_data_length() const override { return iwarp_; }
  uint64_t local_interface_id() const override { return interface_id_; }
  const std::string &device_name() const { return device_; }

 private:
  RdmaOptions opt_;
  bool iwarp_ = false;
  uint64_t interface_id_ = 0;
  std::string device_;
};

class RdmaChannel : public Channel {
 public:
  // Only RdmaConnector can make the key, so only it makes channels.
  class Key {
    friend class RdmaConnector;
    explicit Key() = default;
  };
  RdmaChannel(Key, const RdmaOptions &o) : opt_(o) {}
  ~RdmaChannel() override;
  RdmaChannel(const RdmaChannel &) = delete;
  RdmaChannel &operator=(const RdmaChannel &) = delete;

  bool start(uint32_t size, uint32_t count, std::string *why) override;
  uint8_t *data() override { return data_.buf.data(); }
  size_t data_size() const override { return data_.buf.size(); }
  uint64_t data_va(size_t offset) const override;
  uint32_t data_rkey() const override { return data_.mr->rkey; }
  bool send(ByteView iu, std::string *why) override;
  uint64_t sends_ok() const override { return sends_ok_; }
  void drain_sends(Deadline deadline) override;
  std::optional<Event> next_event(Deadline deadline) override;
  void disconnect(Deadline deadline) override;
  bool vanish(std::string *why) override;
  bool wait_target_disconnect(Deadline deadline) override;
  bool pause_receives(std::string *why) override;
  bool resume_receives(std::string *why) override;
  uint32_t receives_posted() const override { return recv_posted_; }

 private:
  friend class RdmaConnector;

  bool setup_id(std::string *why);
  bool resolve(Deadline d, std::string *why);
  bool create_resources(size_t data_size, std::string *why);
  // Waits for the next CM event on this channel's event channel.
  CmEventPtr get_cm_event(Deadline d);
  void poll_cq();
  void poll_cm();
  bool post_recv(uint32_t slot, std::string *why);
  void error_event(std::string what);

  RdmaOptions opt_;
  // Declaration order is construction order; members are destroyed in
  // reverse: registrations, QP, CQ, completion channel, PD, id, channel.
  EventChannelPtr ec_;
  CmIdPtr id_;
  PdPtr pd_;
  CompChannelPtr comp_;
  Cq cq_;
  CmQp qp_;
  Region data_;
  Region send_pool_;
  Region recv_pool_;
  std::map<uint64_t, Region> big_sends_;
  uint64_t next_big_ = 0;
  std::vector<uint32_t> free_slots_;
  uint32_t max_send_wr_ = 0;
  uint32_t max_recv_wr_ = 0;
  uint32_t recv_size_ = 0;
  uint32_t recv_posted_ = 0;         // receive WRs posted, not completed
  bool recv_paused_ = false;         // pause_receives(): no reposting
  std::vector<uint32_t> recv_idle_;  // slots taken in while paused
  uint32_t outstanding_sends_ = 0;
  uint64_t sends_ok_ = 0;
  bool send_failed_ = false;
  std::deque<Event> queue_;
  bool error_ = false;
  bool disconnected_ = false;
  bool we_disconnected_ = false;
  bool established_ = false;  // ESTABLISHED seen
};

}  // namespace srp::rdma

#endif  // SRP_CLIENT_RDMA_CONN_H
