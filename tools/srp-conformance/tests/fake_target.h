// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests only: an in-process model of a conforming SRP target behind the
// Connector/Channel interface. It answers synchronously (every response is
// queued before send() returns), so waits never block. It is the test
// suite's own model of the protocol, not the target's code; fault switches
// make it misbehave so that tests can check that cases notice.
#ifndef SRP_CLIENT_FAKE_TARGET_H
#define SRP_CLIENT_FAKE_TARGET_H

#include <deque>
#include <map>
#include <vector>

#include "cli.h"
#include "transport.h"

namespace srp::test {

struct FakeConfig {
  PortId target_port_id{};
  uint32_t max_req_size = 8260;
  uint32_t max_ti_iu_len = 256;
  int32_t credits = 16;
  bool immediate = true;
  bool exact_private_data = false;  // iWARP-like
  bool acl_allows = true;
  bool tpg_enabled = true;  // false: every login gets 0x10001
  uint32_t block_size = 512;
  uint64_t blocks = 8192;
  uint64_t lun = 0;

  // Faults.
  bool accept_bad_task_attr = false;  // executes task attribute 3
  bool drop_unknown_tmf = false;      // no response to undefined TMFs
  bool close_on_unknown_opcode = false;  // no SRP_T_LOGOUT first
  bool ignore_unknown_opcode = false;     // keeps the channel up
  bool lose_credit_on_malformed = false;  // keeps the buffer of a bad cmd
  bool single_keeps_others = false;       // SINGLE does not terminate
  // SCSI-level faults (the hostile.* cases and the SCSI fuzz mode).
  bool overrun_data_in = false;       // writes a byte past the data-in buffer
  bool leak_in_tail = false;          // sends 5Ah past the data-in it produced
  bool drop_large_transfers = false;  // no response past 32 KiB (a crash)
  bool sense_missing = false;         // CHECK CONDITION without sense data
  bool varlen_past_iu = false;        // reads a 7Fh CDB past the IU
  bool pr_keeps_zero_register = false;  // REGISTER of key 0 registers
  // A READ given a data-out buffer writes it to the medium; a WRITE given
  // a data-in buffer sends 5Ah back (what LIO's backends do with the
  // fabric's direction).
  bool follow_buffer_direction = false;
  // Send queue faults (the sendq.* cases): a response built while the
  // initiator has no receive buffer posted is lost; a channel whose
  // initiator stopped taking IUs in is never ended.
  bool drop_rsp_when_stalled = false;
  bool keep_stalled_channel = false;
};

// Options for runs against the model: a target address nobody resolves,
// port IDs model_config() matches, a short timeout (the model answers at
// once).
Options model_options();
// A model configuration whose target port ID matches @o.
FakeConfig model_config(const Options &o);

class FakeChannel;

class FakeTarget : public Connector {
 public:
  explicit FakeTarget(FakeConfig c) : cfg_(c) {}
  ConnectResult connect(const Bytes &private_data, size_t data_size,
                        Deadline deadline) override;
  bool exact_private_data_length() const override {
    return cfg_.exact_private_data;
  }
  uint64_t local_interface_id() const override { return 0x0002c9030004a1b2ull; }

  const FakeConfig &cfg() const { return cfg_; }
  std::vector<uint8_t> &disk() { return disk_; }
  size_t live_channels() const { return channels_.size(); }
  size_t registrations() const { return pr_keys_.size(); }
  unsigned logins() const { return logins_; }

 private:
  friend class FakeChannel;
  void remove(FakeChannel *c);

  FakeConfig cfg_;
  std::vector<uint8_t> disk_;
  std::vector<FakeChannel *> channels_;
  // Persistent reservations: registration keys by initiator port.
  std::map<PortId, uint64_t> pr_keys_;
  uint32_t pr_generation_ = 0;
  unsigned logins_ = 0;
  uint32_t next_rkey_ = 0x1000;
};

class FakeChannel : public Channel {
 public:
  FakeChannel(FakeTarget &t, size_t data_size, const PortId &ini,
              uint32_t max_it, bool imm, uint16_t imm_off, uint32_t rkey);
  ~FakeChannel() override;

  bool start(uint32_t size, uint32_t count, std::string *why) override;
  uint8_t *data() override { return data_.data(); }
  size_t data_size() const override { return data_.size(); }
  uint64_t data_va(size_t offset) const override;
  uint32_t data_rkey() const override { return rkey_; }
  bool send(ByteView iu, std::string *why) override;
  uint64_t sends_ok() const override { return sends_ok_; }
  void drain_sends(Deadline) override {}
  std::optional<Event> next_event(Deadline deadline) override;
  void disconnect(Deadline deadline) override;
  // The model target notices a vanished initiator at once.
  bool vanish(std::string *) override {
    vanished_ = true;
    return true;
  }
  // ... and one whose initiator stopped taking IUs in with responses
  // waiting for them (unless keep_stalled_channel).
  bool wait_target_disconnect(Deadline d) override {
    const bool stalled = recv_paused_ && !recv_posted_ && !held_.empty() &&
                         !t_.cfg().keep_stalled_channel;
    if (vanished_ || stalled) disconnect(d);
    return vanished_ || stalled;
  }
  bool pause_receives(std::string *) override {
    recv_paused_ = true;
    return true;
  }
  bool resume_receives(std::string *) override;
  uint32_t receives_posted() const override { return recv_posted_; }

  const PortId &initiator() const { return ini_; }
  // The target closes the channel (as after SINGLE or an error).
  void close(const std::string &why);

 private:
  struct Desc {
    uint64_t va;
    uint32_t key, len;
  };
  void handle(const Bytes &iu);
  void handle_cmd(const Bytes &iu);
  void handle_tmf(const Bytes &iu);
  // PERSISTENT RESERVE OUT service action @sa; false: RESERVATION CONFLICT.
  bool pr_apply(uint8_t sa, uint64_t key, uint64_t sa_key);
  void respond(uint64_t tag, uint8_t status, const Bytes &sense, int resp_code,
               uint8_t flags, uint32_t out_res, uint32_t in_res);
  void check_condition(uint64_t tag, uint8_t key, uint8_t asc, uint8_t ascq);
  // An IU for the initiator: into one of its receive buffers, or, with
  // its receives paused and none left, held until they resume.
  void deliver(Event e);
  bool rdma(const std::vector<Desc> &d, Bytes &buf, bool to_initiator);

  FakeTarget &t_;
  std::vector<uint8_t> data_;
  PortId ini_;
  uint32_t max_it_;
  bool imm_;
  uint16_t imm_off_;
  uint32_t rkey_;
  int32_t req_lim_;
  int32_t delta_ = 0;
  bool closed_ = false;
  bool vanished_ = false;
  bool ua_ = false;
  uint64_t sends_ok_ = 0;
  std::deque<Event> q_;
  uint32_t recv_count_ = 0;   // receive buffers the initiator posted
  uint32_t recv_posted_ = 0;  // of them, not used (counted while paused)
  bool recv_paused_ = false;
  std::deque<Event> held_;  // IUs that found no receive buffer
};

}  // namespace srp::test

#endif  // SRP_CLIENT_FAKE_TARGET_H
