// SPDX-License-Identifier: GPL-2.0-only
#include "rdma_conn.h"

#include <endian.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace srp::rdma {

namespace {

constexpr uint64_t kRecvFlag = 1ull << 63;
constexpr uint64_t kBigFlag = 1ull << 62;

int remaining_ms(Deadline d) {
  const auto r = std::chrono::duration_cast<Millis>(d - Clock::now()).count();
  if (r <= 0) return 0;
  return r > INT_MAX ? INT_MAX : static_cast<int>(r);
}

bool set_nonblock(int fd) {
  const int f = fcntl(fd, F_GETFL);
  return f >= 0 && fcntl(fd, F_SETFL, f | O_NONBLOCK) == 0;
}

std::string errno_text(const std::string &what, int err) {
  return what + ": " + std::strerror(err);
}

struct AddrInfoDeleter {
  void operator()(addrinfo *p) const noexcept { freeaddrinfo(p); }
};

std::string cm_event_text(const rdma_cm_event &ev) {
  return std::string(rdma_event_str(ev.event)) + " (status " +
         std::to_string(ev.status) + ")";
}

}  // namespace

// ---------------------------------------------------------------------------
// RAII helpers
// ---------------------------------------------------------------------------

Cq &Cq::operator=(Cq &&o) noexcept {
  if (this != &o) {
    reset();
    cq_ = o.cq_;
    unacked_ = o.unacked_;
    o.cq_ = nullptr;
    o.unacked_ = 0;
  }
  return *this;
}

void Cq::got_event() {
  // Acknowledge in batches; ibv_ack_cq_events() takes a mutex.
  if (++unacked_ >= 64) {
    ibv_ack_cq_events(cq_, unacked_);
    unacked_ = 0;
  }
}

void Cq::reset() {
  if (!cq_) return;
  if (unacked_) ibv_ack_cq_events(cq_, unacked_);
  ibv_destroy_cq(cq_);
  cq_ = nullptr;
  unacked_ = 0;
}

bool CmQp::create(rdma_cm_id *id, ibv_pd *pd, ibv_qp_init_attr *attr) {
  reset();
  if (rdma_create_qp(id, pd, attr)) return false;
  id_ = id;
  return true;
}

void CmQp::reset() {
  if (id_) rdma_destroy_qp(id_);
  id_ = nullptr;
}

// ---------------------------------------------------------------------------
// Channel set-up
// ---------------------------------------------------------------------------

RdmaChannel::~RdmaChannel() {
  // Only an established connection has a DISCONNECTED event to wait for;
  // after a reject or a failed connect there is none (waiting for it cost
  // every refused login a second).
  if (qp_.get() && established_ && !disconnected_)
    disconnect(deadline_in(Millis(1000)));
}

bool RdmaChannel::setup_id(std::string *why) {
  ec_.reset(rdma_create_event_channel());
  if (!ec_) {
    *why = errno_text("rdma_create_event_channel", errno);
    return false;
  }
  if (!set_nonblock(ec_->fd)) {
    *why = errno_text("fcntl(O_NONBLOCK) on the CM event channel", errno);
    return false;
  }
  rdma_cm_id *id = nullptr;
  if (rdma_create_id(ec_.get(), &id, nullptr, RDMA_PS_TCP)) {
    *why = errno_text("rdma_create_id", errno);
    return false;
  }
  id_.reset(id);
  return true;
}

CmEventPtr RdmaChannel::get_cm_event(Deadline d) {
  for (;;) {
    rdma_cm_event *ev = nullptr;
    if (rdma_get_cm_event(ec_.get(), &ev) == 0) return CmEventPtr(ev);
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return nullptr;
    const int ms = remaining_ms(d);
    if (ms == 0) return nullptr;
    pollfd p{ec_->fd, POLLIN, 0};
    const int r = poll(&p, 1, ms);
    if (r == 0) return nullptr;
    if (r < 0 && errno != EINTR) return nullptr;
  }
}

bool RdmaChannel::resolve(Deadline d, std::string *why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *res = nullptr;
  const int rc =
      getaddrinfo(opt_.host.c_str(), opt_.port.c_str(), &hints, &res);
  if (rc) {
    *why = "cannot resolve " + opt_.host + ":" + opt_.port + ": " +
           gai_strerror(rc);
    return false;
  }
  std::unique_ptr<addrinfo, AddrInfoDeleter> ai(res);

  const int ms = std::max(1, remaining_ms(d));
  if (rdma_resolve_addr(id_.get(), nullptr, ai->ai_addr, ms)) {
    *why = errno_text("rdma_resolve_addr", errno);
    return false;
  }
  {
    CmEventPtr ev = get_cm_event(d);
    if (!ev) {
      *why = "address resolution timed out";
      return false;
    }
    if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
      *why = "address resolution failed: " + cm_event_text(*ev);
      return false;
    }
  }
  if (rdma_resolve_route(id_.get(), std::max(1, remaining_ms(d)))) {
    *why = errno_text("rdma_resolve_route", errno);
    return false;
  }
  CmEventPtr ev = get_cm_event(d);
  if (!ev) {
    *why = "route resolution timed out";
    return false;
  }
  if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) {
    *why = "route resolution failed: " + cm_event_text(*ev);
    return false;
  }
  if (!id_->verbs) {
    *why = "no RDMA device for " + opt_.host;
    return false;
  }
  return true;
}

bool RdmaChannel::create_resources(size_t data_size, std::string *why) {
  ibv_context *ctx = id_->verbs;
  ibv_device_attr attr{};
  if (int e = ibv_query_device(ctx, &attr)) {
    *why = errno_text("ibv_query_device", e);
    return false;
  }
  pd_.reset(ibv_alloc_pd(ctx));
  if (!pd_) {
    *why = errno_text("ibv_alloc_pd", errno);
    return false;
  }
  comp_.reset(ibv_create_comp_channel(ctx));
  if (!comp_ || !set_nonblock(comp_->fd)) {
    *why = errno_text("ibv_create_comp_channel", errno);
    return false;
  }

  const uint32_t max_wr = static_cast<uint32_t>(std::max(attr.max_qp_wr, 16));
  max_send_wr_ = std::min(opt_.send_slots + 16, max_wr);
  max_recv_wr_ = std::min(opt_.max_recv, max_wr);
  const int cqe = std::min<int>(
      static_cast<int>(max_send_wr_ + max_recv_wr_ + 16), attr.max_cqe);
  cq_ = Cq(ibv_create_cq(ctx, cqe, nullptr, comp_.get(), 0));
  if (!cq_.get()) {
    *why = errno_text("ibv_create_cq", errno);
    return false;
  }
  if (int e = ibv_req_notify_cq(cq_.get(), 0)) {
    *why = errno_text("ibv_req_notify_cq", e);
    return false;
  }

  ibv_qp_init_attr qa{};
  qa.send_cq = cq_.get();
  qa.recv_cq = cq_.get();
  qa.qp_type = IBV_QPT_RC;
  qa.cap.max_send_wr = max_send_wr_;
  qa.cap.max_recv_wr = max_recv_wr_;
  qa.cap.max_send_sge = 1;
  qa.cap.max_recv_sge = 1;
  qa.sq_sig_all = 0;
  if (!qp_.create(id_.get(), pd_.get(), &qa)) {
    *why = errno_text("rdma_create_qp", errno);
    return false;
  }
  max_send_wr_ = std::min(max_send_wr_, qa.cap.max_send_wr);
  max_recv_wr_ = std::min(max_recv_wr_, qa.cap.max_recv_wr);

  data_.buf.assign(std::max<size_t>(data_size, 4096), 0);
  data_.mr.reset(ibv_reg_mr(pd_.get(), data_.buf.data(), data_.buf.size(),
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                                IBV_ACCESS_REMOTE_WRITE));
  if (!data_.mr) {
    *why = errno_text("ibv_reg_mr (data buffer)", errno);
    return false;
  }

  const uint32_t slots =
      std::max<uint32_t>(1, std::min(opt_.send_slots, max_send_wr_ - 8));
  send_pool_.buf.assign(static_cast<size_t>(slots) * opt_.send_slot_size, 0);
  send_pool_.mr.reset(ibv_reg_mr(pd_.get(), send_pool_.buf.data(),
                                 send_pool_.buf.size(),
                                 IBV_ACCESS_LOCAL_WRITE));
  if (!send_pool_.mr) {
    *why = errno_text("ibv_reg_mr (send buffers)", errno);
    return false;
  }
  free_slots_.clear();
  for (uint32_t i = slots; i > 0; i--) free_slots_.push_back(i - 1);
  return true;
}

// ---------------------------------------------------------------------------
// Connector
// ---------------------------------------------------------------------------

bool RdmaConnector::probe(Deadline d, std::string *why) {
  auto ch = std::make_unique<RdmaChannel>(RdmaChannel::Key{}, opt_);
  if (!ch->setup_id(why) || !ch->resolve(d, why)) return false;
  ibv_context *ctx = ch->id_->verbs;
  iwarp_ = ctx->device->transport_type == IBV_TRANSPORT_IWARP;
  device_ = ibv_get_device_name(ctx->device);
  ibv_gid gid{};
  if (ibv_query_gid(ctx, ch->id_->port_num, 0, &gid) == 0)
    interface_id_ = be64toh(gid.global.interface_id);
  return true;
}

ConnectResult RdmaConnector::connect(const Bytes &private_data,
                                     size_t data_size, Deadline deadline) {
  ConnectResult res;
  auto ch = std::make_unique<RdmaChannel>(RdmaChannel::Key{}, opt_);
  std::string why;
  if (!ch->setup_id(&why) || !ch->resolve(deadline, &why) ||
      !ch->create_resources(data_size, &why)) {
    res.what = why;
    return res;
  }
  if (private_data.size() > 255) {
    res.what = "private data longer than 255 bytes";
    return res;
  }

  ibv_device_attr attr{};
  ibv_query_device(ch->id_->verbs, &attr);
  rdma_conn_param p{};
  p.private_data = private_data.empty() ? nullptr : private_data.data();
  p.private_data_len = static_cast<uint8_t>(private_data.size());
  // The target RDMA READs the data of writes from us.
  p.responder_resources =
      responder_resources
          ? *responder_resources
          : static_cast<uint8_t>(std::clamp(attr.max_qp_rd_atom, 1, 16));
  p.initiator_depth =
      static_cast<uint8_t>(std::clamp(attr.max_qp_init_rd_atom, 1, 16));
  // The target's QP takes its retry count from the connection request.
  p.retry_count = opt_.retry_count;
  p.rnr_retry_count = 7;
  p.flow_control = 1;
  if (rdma_connect(ch->id_.get(), &p)) {
    res.what = errno_text("rdma_connect", errno);
    return res;
  }

  for (;;) {
    CmEventPtr ev = ch->get_cm_event(deadline);
    if (!ev) {
      res.what = "no answer to the connection request within the timeout";
      return res;
    }
    const auto *pd = static_cast<const uint8_t *>(ev->param.conn.private_data);
    const size_t len = pd ? ev->param.conn.private_data_len : 0;
    switch (ev->event) {
      case RDMA_CM_EVENT_ESTABLISHED:
        ch->established_ = true;
        res.kind = ConnectResult::Kind::kAccepted;
        res.private_data.assign(pd, pd + len);
        ev.reset();
        res.channel = std::move(ch);
        return res;
      case RDMA_CM_EVENT_REJECTED:
        res.kind = ConnectResult::Kind::kRejected;
        res.cm_status = ev->status;
        res.private_data.assign(pd, pd + len);
        res.what = cm_event_text(*ev);
        return res;
      case RDMA_CM_EVENT_CONNECT_ERROR:
      case RDMA_CM_EVENT_UNREACHABLE:
      case RDMA_CM_EVENT_DISCONNECTED:
      case RDMA_CM_EVENT_DEVICE_REMOVAL:
        res.what = "connection failed: " + cm_event_text(*ev);
        return res;
      default:
        break;  // e.g. a late ADDR_CHANGE: keep waiting
    }
  }
}

// ---------------------------------------------------------------------------
// Channel operation
// ---------------------------------------------------------------------------

uint64_t RdmaChannel::data_va(size_t offset) const {
  return static_cast<uint64_t>(
      reinterpret_cast<uintptr_t>(data_.buf.data() + offset));
}

bool RdmaChannel::post_recv(uint32_t slot, std::string *why) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(
      recv_pool_.buf.data() + static_cast<size_t>(slot) * recv_size_);
  sge.length = recv_size_;
  sge.lkey = recv_pool_.mr->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = kRecvFlag | slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr *bad = nullptr;
  if (int e = ibv_post_recv(qp_.get(), &wr, &bad)) {
    if (why) *why = errno_text("ibv_post_recv", e);
    return false;
  }
  recv_posted_++;
  return true;
}

bool RdmaChannel::start(uint32_t size, uint32_t count, std::string *why) {
  if (size == 0 || count == 0) {
    *why = "no receive buffers requested";
    return false;
  }
  count = std::min(count, max_recv_wr_);
  recv_size_ = size;
  recv_pool_.buf.assign(static_cast<size_t>(size) * count, 0);
  recv_pool_.mr.reset(ibv_reg_mr(pd_.get(), recv_pool_.buf.data(),
                                 recv_pool_.buf.size(),
                                 IBV_ACCESS_LOCAL_WRITE));
  if (!recv_pool_.mr) {
    *why = errno_text("ibv_reg_mr (receive buffers)", errno);
    return false;
  }
  for (uint32_t i = 0; i < count; i++)
    if (!post_recv(i, why)) return false;
  return true;
}

void RdmaChannel::error_event(std::string what) {
  if (error_) return;
  error_ = true;
  Event e;
  e.kind = Event::Kind::kError;
  e.what = std::move(what);
  queue_.push_back(std::move(e));
}

void RdmaChannel::poll_cq() {
  ibv_wc wc[16];
  int n;
  while ((n = ibv_poll_cq(cq_.get(), 16, wc)) > 0) {
    for (int i = 0; i < n; i++) {
      const ibv_wc &w = wc[i];
      if (w.wr_id & kRecvFlag) {
        const uint32_t slot = static_cast<uint32_t>(w.wr_id & ~kRecvFlag);
        if (recv_posted_) recv_posted_--;
        if (w.status != IBV_WC_SUCCESS) {
          error_event(std::string("receive completion: ") +
                      ibv_wc_status_str(w.status));
          continue;
        }
        Event e;
        e.kind = Event::Kind::kIu;
        const uint8_t *p =
            recv_pool_.buf.data() + static_cast<size_t>(slot) * recv_size_;
        e.iu.assign(p, p + std::min(w.byte_len, recv_size_));
        queue_.push_back(std::move(e));
        if (recv_paused_) {
          recv_idle_.push_back(slot);
        } else if (!error_ && !disconnected_) {
          std::string why;
          if (!post_recv(slot, &why)) error_event(why);
        }
        continue;
      }
      if (outstanding_sends_) outstanding_sends_--;
      if (w.wr_id & kBigFlag)
        big_sends_.erase(w.wr_id);
      else
        free_slots_.push_back(static_cast<uint32_t>(w.wr_id));
      if (w.status == IBV_WC_SUCCESS) {
        sends_ok_++;
      } else {
        // The first send that failed other than by a flush went out and
        // was refused (e.g. longer than the target's receive buffer), or
        // got no answer at all: not sent again either way.
        if (w.status != IBV_WC_WR_FLUSH_ERR && !send_failed_) sends_ok_++;
        send_failed_ = true;
        error_event(std::string("send completion: ") +
                    ibv_wc_status_str(w.status));
      }
    }
  }
}

void RdmaChannel::poll_cm() {
  for (;;) {
    CmEventPtr ev = get_cm_event(Clock::now());
    if (!ev) return;
    switch (ev->event) {
      case RDMA_CM_EVENT_DISCONNECTED:
        if (!disconnected_) {
          // What the target sent before it disconnected (an SRP_T_LOGOUT)
          // comes first: take in the completions that are already there.
          poll_cq();
          disconnected_ = true;
          Event e;
          e.kind = Event::Kind::kDisconnected;
          e.what = we_disconnected_ ? "disconnected" : "target disconnected";
          queue_.push_back(std::move(e));
        }
        break;
      case RDMA_CM_EVENT_DEVICE_REMOVAL:
        error_event("RDMA device removed");
        break;
      default:
        break;
    }
  }
}

std::optional<Event> RdmaChannel::next_event(Deadline deadline) {
  for (;;) {
    if (!queue_.empty()) {
      Event e = std::move(queue_.front());
      queue_.pop_front();
      return e;
    }
    poll_cq();
    poll_cm();
    if (!queue_.empty()) continue;
    ibv_req_notify_cq(cq_.get(), 0);
    poll_cq();  // completions that came before the notification was armed
    if (!queue_.empty()) continue;

    const int ms = remaining_ms(deadline);
    if (ms == 0) return std::nullopt;
    pollfd fds[2] = {{comp_->fd, POLLIN, 0}, {ec_->fd, POLLIN, 0}};
    const int r = poll(fds, 2, ms);
    if (r == 0) return std::nullopt;
    if (r < 0 && errno != EINTR) return std::nullopt;
    if (fds[0].revents & POLLIN) {
      ibv_cq *cq = nullptr;
      void *ctx = nullptr;
      if (ibv_get_cq_event(comp_.get(), &cq, &ctx) == 0) cq_.got_event();
    }
  }
}

bool RdmaChannel::send(ByteView iu, std::string *why) {
  if (error_ || disconnected_) {
    *why = "channel closed";
    return false;
  }
  const bool big = iu.size > opt_.send_slot_size;
  const Deadline d = deadline_in(opt_.send_wait);
  // Wait (bounded) for a free send slot and room in the send queue.
  while ((!big && free_slots_.empty()) ||
         outstanding_sends_ + 1 >= max_send_wr_) {
    poll_cq();
    if (error_) {
      *why = "channel closed";
      return false;
    }
    if ((big || !free_slots_.empty()) && outstanding_sends_ + 1 < max_send_wr_)
      break;
    const int ms = remaining_ms(d);
    if (ms == 0) {
      *why = "no send queue entry became free within the timeout";
      return false;
    }
    ibv_req_notify_cq(cq_.get(), 0);
    poll_cq();
    pollfd p{comp_->fd, POLLIN, 0};
    if (poll(&p, 1, ms) > 0) {
      ibv_cq *cq = nullptr;
      void *ctx = nullptr;
      if (ibv_get_cq_event(comp_.get(), &cq, &ctx) == 0) cq_.got_event();
    }
  }

  ibv_sge sge{};
  ibv_send_wr wr{};
  if (big) {
    const uint64_t id = kBigFlag | next_big_++;
    Region &r = big_sends_[id];
    r.buf.assign(iu.data, iu.data + iu.size);
    r.mr.reset(ibv_reg_mr(pd_.get(), r.buf.data(), r.buf.size(),
                          IBV_ACCESS_LOCAL_WRITE));
    if (!r.mr) {
      *why = errno_text("ibv_reg_mr (large IU)", errno);
      big_sends_.erase(id);
      return false;
    }
    sge.addr = reinterpret_cast<uintptr_t>(r.buf.data());
    sge.lkey = r.mr->lkey;
    wr.wr_id = id;
  } else {
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    uint8_t *p = send_pool_.buf.data() + slot * opt_.send_slot_size;
    if (iu.size) std::memcpy(p, iu.data, iu.size);
    sge.addr = reinterpret_cast<uintptr_t>(p);
    sge.lkey = send_pool_.mr->lkey;
    wr.wr_id = slot;
  }
  sge.length = static_cast<uint32_t>(iu.size);
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = iu.size ? &sge : nullptr;
  wr.num_sge = iu.size ? 1 : 0;
  ibv_send_wr *bad = nullptr;
  if (int e = ibv_post_send(qp_.get(), &wr, &bad)) {
    if (wr.wr_id & kBigFlag)
      big_sends_.erase(wr.wr_id);
    else
      free_slots_.push_back(static_cast<uint32_t>(wr.wr_id));
    *why = errno_text("ibv_post_send", e);
    return false;
  }
  outstanding_sends_++;
  return true;
}

void RdmaChannel::drain_sends(Deadline deadline) {
  poll_cm();
  // Once the target has disconnected, what is still queued can only flush:
  // move the QP to the error state so that it does at once (soft-RoCE
  // retries a peer that is gone for ever at retry count 7).
  if (disconnected_ && outstanding_sends_ && id_ && id_->qp) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_ERR;
    if (ibv_modify_qp(id_->qp, &a, IBV_QP_STATE) == 0) error_ = true;
  }
  for (;;) {
    poll_cq();
    if (outstanding_sends_ == 0) return;
    ibv_req_notify_cq(cq_.get(), 0);
    poll_cq();
    if (outstanding_sends_ == 0) return;
    const int ms = remaining_ms(deadline);
    if (ms == 0) return;
    pollfd p{comp_->fd, POLLIN, 0};
    if (poll(&p, 1, ms) > 0) {
      ibv_cq *cq = nullptr;
      void *ctx = nullptr;
      if (ibv_get_cq_event(comp_.get(), &cq, &ctx) == 0) cq_.got_event();
    }
  }
}

void RdmaChannel::disconnect(Deadline deadline) {
  if (disconnected_ || !id_) return;
  if (!established_) {
    disconnected_ = true;
    return;
  }
  we_disconnected_ = true;
  if (rdma_disconnect(id_.get())) {
    disconnected_ = true;
    return;
  }
  while (!disconnected_) {
    CmEventPtr ev = get_cm_event(deadline);
    if (!ev) break;
    if (ev->event == RDMA_CM_EVENT_DISCONNECTED) disconnected_ = true;
  }
  disconnected_ = true;
}

bool RdmaChannel::vanish(std::string *why) {
  ibv_qp *qp = id_ ? id_->qp : nullptr;
  if (!qp) {
    *why = "no QP";
    return false;
  }
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_ERR;
  if (int e = ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
    *why = errno_text("ibv_modify_qp(ERR)", e);
    return false;
  }
  // No more receives: the local flushes must not look like a target close.
  error_ = true;
  return true;
}

bool RdmaChannel::pause_receives(std::string *why) {
  if (!qp_.get()) {
    *why = "no QP";
    return false;
  }
  recv_paused_ = true;
  return true;
}

bool RdmaChannel::resume_receives(std::string *why) {
  recv_paused_ = false;
  if (error_ || disconnected_) {
    *why = "channel closed";
    return false;
  }
  std::vector<uint32_t> slots;
  slots.swap(recv_idle_);
  for (uint32_t slot : slots)
    if (!post_recv(slot, why)) return false;
  return true;
}

bool RdmaChannel::wait_target_disconnect(Deadline deadline) {
  while (!disconnected_) {
    CmEventPtr ev = get_cm_event(deadline);
    if (!ev) return false;
    if (ev->event == RDMA_CM_EVENT_DISCONNECTED) disconnected_ = true;
  }
  return true;
}

}  // namespace srp::rdma
