// SPDX-License-Identifier: GPL-2.0-only
//
// Device-management Gets from a UD QP of srp-dm's own (libibverbs), for
// destinations the kernel's MAD layer cannot serve: on RoCE v2 with an
// IPv4 GID, ib_mad pairs an answer with its request by the GID in the
// answer's GRH, and there the 40-byte header holds an IPv4 header instead,
// so every answer is dropped and the Get times out (rcv_has_same_gid() in
// drivers/infiniband/core/mad.c).  A request to QP1 may come from any QP;
// the target answers to the QP it came from, so the answer lands here and
// is paired by TID alone.
#ifndef SRP_DM_UD_MAD_H
#define SRP_DM_UD_MAD_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct ibv_context;
struct ibv_pd;
struct ibv_cq;
struct ibv_qp;
struct ibv_mr;
struct ibv_ah;

namespace srp::dm {

class UdMad {
 public:
  UdMad() = default;
  UdMad(const UdMad &) = delete;
  UdMad &operator=(const UdMad &) = delete;
  ~UdMad();

  // Opens @device, creates the QP on @port with the GSI Q_Key (which a
  // UD QP may only take with CAP_NET_RAW) and an address handle to @dgid
  // from GID index @sgid_index.  False with *err on failure.
  bool open(const std::string &device, int port,
            const std::vector<uint8_t> &dgid, int sgid_index, std::string *err);

  uint32_t qp_num() const;

  // Sends @mad (256 bytes) to QP1 and waits @timeout_ms for the answer
  // with the same TID, @retries more times.  The answer's 256 bytes, or
  // nullopt with *err.
  std::optional<std::vector<uint8_t>> exchange(const std::vector<uint8_t> &mad,
                                               int timeout_ms, int retries,
                                               std::string *err);

 private:
  bool post_recv(unsigned slot, std::string *err);

  ibv_context *ctx_ = nullptr;
  ibv_pd *pd_ = nullptr;
  ibv_cq *cq_ = nullptr;
  ibv_qp *qp_ = nullptr;
  ibv_mr *mr_ = nullptr;
  ibv_ah *ah_ = nullptr;
  std::vector<uint8_t> buf_;  // receive slots, then the send buffer
};

}  // namespace srp::dm

#endif  // SRP_DM_UD_MAD_H
