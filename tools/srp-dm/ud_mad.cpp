// SPDX-License-Identifier: GPL-2.0-only
//
// Device-management Gets from a UD QP (see ud_mad.h).
#include "ud_mad.h"

#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "dm.h"

namespace srp::dm {
namespace {

constexpr unsigned kSlots = 8;   // receives kept posted
constexpr size_t kGrhSize = 40;  // in front of every UD receive
constexpr size_t kSlotSize = kGrhSize + kMadSize;
constexpr uint32_t kGsiQkey = 0x80010000;
constexpr uint64_t kSendId = ~0ull;

uint64_t tid_of(const uint8_t *mad) {
  uint64_t v = 0;
  for (int i = 8; i < 16; i++) v = v << 8 | mad[i];
  return v;
}

std::string errno_text(const char *what, int err) {
  return std::string(what) + ": " + strerror(err);
}

// sge_of: one scatter-gather entry of the registered buffer.
ibv_sge sge_of(const uint8_t *addr, size_t len, uint32_t lkey) {
  ibv_sge sge = {};
  sge.addr = reinterpret_cast<uintptr_t>(addr);
  sge.length = uint32_t(len);
  sge.lkey = lkey;
  return sge;
}

}  // namespace

UdMad::~UdMad() {
  if (ah_) ibv_destroy_ah(ah_);
  if (qp_) ibv_destroy_qp(qp_);
  if (cq_) ibv_destroy_cq(cq_);
  if (mr_) ibv_dereg_mr(mr_);
  if (pd_) ibv_dealloc_pd(pd_);
  if (ctx_) ibv_close_device(ctx_);
}

uint32_t UdMad::qp_num() const { return qp_ ? qp_->qp_num : 0; }

bool UdMad::open(const std::string &device, int port,
                 const std::vector<uint8_t> &dgid, int sgid_index,
                 std::string *err) {
  int n = 0;
  ibv_device **list = ibv_get_device_list(&n);
  if (!list) {
    *err = errno_text("ibv_get_device_list", errno);
    return false;
  }
  for (int i = 0; i < n && !ctx_; i++)
    if (device == ibv_get_device_name(list[i])) ctx_ = ibv_open_device(list[i]);
  ibv_free_device_list(list);
  if (!ctx_) {
    *err = "cannot open RDMA device " + device + " with libibverbs";
    return false;
  }
  pd_ = ibv_alloc_pd(ctx_);
  cq_ = pd_ ? ibv_create_cq(ctx_, 2 * kSlots, nullptr, nullptr, 0) : nullptr;
  if (!cq_) {
    *err = errno_text("ibv_alloc_pd/ibv_create_cq", errno);
    return false;
  }
  buf_.assign(kSlots * kSlotSize + kMadSize, 0);
  mr_ = ibv_reg_mr(pd_, buf_.data(), buf_.size(), IBV_ACCESS_LOCAL_WRITE);
  if (!mr_) {
    *err = errno_text("ibv_reg_mr", errno);
    return false;
  }

  ibv_qp_init_attr init = {};
  init.send_cq = cq_;
  init.recv_cq = cq_;
  init.qp_type = IBV_QPT_UD;
  init.cap.max_send_wr = 2;
  init.cap.max_recv_wr = kSlots;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  qp_ = ibv_create_qp(pd_, &init);
  if (!qp_) {
    *err = errno_text("ibv_create_qp(UD)", errno);
    return false;
  }
  ibv_qp_attr a = {};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = uint8_t(port);
  a.qkey = kGsiQkey;
  int ret = ibv_modify_qp(
      qp_, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
  if (ret) {
    *err = errno_text("UD QP to INIT with the GSI Q_Key 0x80010000", ret);
    if (ret == EPERM) *err += " (a Q_Key with bit 31 set needs CAP_NET_RAW)";
    return false;
  }
  a = {};
  a.qp_state = IBV_QPS_RTR;
  if ((ret = ibv_modify_qp(qp_, &a, IBV_QP_STATE))) {
    *err = errno_text("UD QP to RTR", ret);
    return false;
  }
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = 0;
  if ((ret = ibv_modify_qp(qp_, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))) {
    *err = errno_text("UD QP to RTS", ret);
    return false;
  }
  for (unsigned i = 0; i < kSlots; i++)
    if (!post_recv(i, err)) return false;

  ibv_ah_attr ah = {};
  ah.is_global = 1;
  memcpy(ah.grh.dgid.raw, dgid.data(), 16);
  ah.grh.sgid_index = uint8_t(sgid_index);
  ah.grh.hop_limit = 64;
  ah.port_num = uint8_t(port);
  ah_ = ibv_create_ah(pd_, &ah);
  if (!ah_) {
    *err = errno_text("ibv_create_ah (no route to the GID?)", errno);
    return false;
  }
  return true;
}

bool UdMad::post_recv(unsigned slot, std::string *err) {
  ibv_sge sge = sge_of(&buf_[slot * kSlotSize], kSlotSize, mr_->lkey);
  ibv_recv_wr wr = {}, *bad = nullptr;
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  int ret = ibv_post_recv(qp_, &wr, &bad);
  if (ret) *err = errno_text("ibv_post_recv", ret);
  return !ret;
}

std::optional<std::vector<uint8_t>> UdMad::exchange(
    const std::vector<uint8_t> &mad, int timeout_ms, int retries,
    std::string *err) {
  using clock = std::chrono::steady_clock;
  uint8_t *sbuf = &buf_[kSlots * kSlotSize];
  memcpy(sbuf, mad.data(), kMadSize);
  const uint64_t tid = tid_of(sbuf);
  bool sending = false;  // a send not yet completed owns sbuf

  for (int attempt = 0; attempt <= retries; attempt++) {
    if (!sending) {
      ibv_sge sge = sge_of(sbuf, kMadSize, mr_->lkey);
      ibv_send_wr wr = {}, *bad = nullptr;
      wr.wr_id = kSendId;
      wr.sg_list = &sge;
      wr.num_sge = 1;
      wr.opcode = IBV_WR_SEND;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.wr.ud.ah = ah_;
      wr.wr.ud.remote_qpn = 1;
      wr.wr.ud.remote_qkey = kGsiQkey;
      int ret = ibv_post_send(qp_, &wr, &bad);
      if (ret) {
        *err = errno_text("ibv_post_send", ret);
        return std::nullopt;
      }
      sending = true;
    }
    auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
    while (clock::now() < deadline) {
      ibv_wc wc[4];
      int got = ibv_poll_cq(cq_, 4, wc);
      if (got < 0) {
        *err = "ibv_poll_cq failed";
        return std::nullopt;
      }
      if (!got) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      std::optional<std::vector<uint8_t>> answer;
      for (int i = 0; i < got; i++) {
        if (wc[i].wr_id == kSendId) {
          sending = false;
          if (wc[i].status != IBV_WC_SUCCESS) {
            *err = std::string("send: ") + ibv_wc_status_str(wc[i].status);
            return std::nullopt;
          }
          continue;
        }
        unsigned slot = unsigned(wc[i].wr_id);
        const uint8_t *m = &buf_[slot * kSlotSize + kGrhSize];
        if (!answer && wc[i].status == IBV_WC_SUCCESS &&
            wc[i].byte_len >= kSlotSize && (m[3] & 0x80) && tid_of(m) == tid)
          answer.emplace(m, m + kMadSize);
        if (wc[i].status != IBV_WC_WR_FLUSH_ERR && !post_recv(slot, err))
          return std::nullopt;
      }
      if (answer) return answer;
    }
  }
  *err = "no answer in " + std::to_string(timeout_ms) + " ms (" +
         std::to_string(retries + 1) + " tries)";
  return std::nullopt;
}

}  // namespace srp::dm
