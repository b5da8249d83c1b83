// SPDX-License-Identifier: GPL-2.0-only
//
// Seeded fuzzing of SRP_CMD IUs and login requests. The plan of every
// iteration (which IU, which mutations) is a pure function of the seed and
// the iteration number, so a failure is reproduced with
// --seed S --fuzz-from I --iterations 1.
//
// Mutations never touch the tag (bytes 8..15), the LUN (20..27) or the CDB
// (32..47) of an SRP_CMD: responses stay matchable, and writes stay on the
// tested LUN's scratch area.
//
// The SCSI mode (--fuzz-scsi) fuzzes the layer above instead: every
// SRP_CMD iteration builds a well-formed SRP_CMD (tag and LUN as given)
// around a mutated CDB: one of scsi::commands() with a length field from
// a list of edge values, a variable-length CDB whose own length disagrees
// with the IU, or a random operation code; random bits, bytes and service
// actions; a data buffer of 0 bytes to 256 KiB (data-in rarely past the
// registered memory), in the command's direction, the opposite one or
// none, as a direct descriptor, an indirect table or immediate data. Then
// scsi::confine() keeps medium writes on the scratch area, and data-out
// buffers are in a region of zeros (kScsiRegion), so that no parameter
// list sets a reservation, an ALUA state or unmaps a block outside it.
#ifndef SRP_CLIENT_FUZZ_H
#define SRP_CLIENT_FUZZ_H

#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

#include "cases.h"
#include "srp_iu.h"

namespace srp::fuzz {

// splitmix64-based seed of one iteration.
uint64_t iteration_seed(uint64_t seed, uint64_t iteration);

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  // 1 to 3 mutations of an SRP_CMD; the IU never grows past @max_len.
  // Returns a description of each mutation.
  std::vector<std::string> mutate_cmd(Bytes &iu, size_t max_len);
  // 1 to 3 mutations of a 56-byte RDMA/CM login request (never longer).
  std::vector<std::string> mutate_login(Bytes &pd);

  uint64_t below(uint64_t n);  // uniform in [0, n)

 private:
  size_t cmd_position(size_t len);
  std::mt19937_64 rng_;
};

enum class Base {
  kTur,
  kInquiry,
  kReadDirect,
  kReadIndirect,
  kWriteDirect,
  kWriteIndirect,
  kWriteImmediate,
  kScsi,  // the SCSI mode's command (see above)
};
const char *base_name(Base b);

struct BaseParams {
  Lun lun{};
  uint64_t tag = 1;
  uint64_t data_va = 0;
  uint32_t rkey = 0;
  uint32_t block_size = 512;
  uint64_t scratch_lba = 0;
  uint16_t imm_data_offset = kLinuxImmDataOffset;
  bool immediate = false;  // the channel negotiated immediate data
  bool allow_write = false;
  uint32_t max_it_iu_len = 8260;
  unsigned login_percent = 15;  // share of iterations that mutate a login
  bool scsi = false;            // the SCSI mode
  uint64_t scratch_blocks = 0;  // the scratch area: scratch_lba + this
};

// SCSI mode: data-out buffers lie in the first kScsiRegion bytes of the
// registered memory, which stay zero (no command writes there: data-in
// buffers lie in the next kScsiRegion bytes); kScsiDataSize is registered.
constexpr size_t kScsiRegion = 320u << 10;
constexpr size_t kScsiDataSize = 2 * kScsiRegion;
constexpr size_t kScsiMaxOut = 256u << 10;  // largest data-out buffer

// A valid SRP_CMD of kind @b.
Bytes make_base(Base b, const BaseParams &p);

struct Step {
  bool login = false;  // a login request (else an SRP_CMD)
  Base base = Base::kTur;
  Bytes bytes;
  std::vector<std::string> ops;
  // kScsi: the data buffer the SRP_CMD describes.
  DataDir buf_dir = DataDir::kNone;
  uint64_t buf_len = 0;
  std::string describe() const;
};

// The deterministic plan of iteration @iteration.
Step plan(uint64_t seed, uint64_t iteration, const BaseParams &p,
          const Bytes &login_pd);

// Runs the fuzzer; prints one result line and returns the result.
CaseResult run(Context &ctx, std::ostream &out);

}  // namespace srp::fuzz

#endif  // SRP_CLIENT_FUZZ_H
