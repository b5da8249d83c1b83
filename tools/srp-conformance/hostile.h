// SPDX-License-Identifier: GPL-2.0-only
//
// The hostile.* cases (catalogue_hostile.cpp): adversarial SCSI commands in
// well-formed SRP_CMDs. What an answer to one must look like, and the
// clean-up of the reservations such commands may leave behind; the SCSI
// fuzz mode uses both. Internal header.
#ifndef SRP_CLIENT_HOSTILE_H
#define SRP_CLIENT_HOSTILE_H

#include <string>
#include <vector>

#include "cases.h"

namespace srp::hostile {

// What a command asked for and how its data buffer was described.
struct Shot {
  DataDir cmd_dir = DataDir::kNone;  // the direction the CDB transfers
  uint64_t cdb_bytes = 0;            // the bytes the CDB asks to transfer
  DataDir buf_dir = DataDir::kNone;  // the descriptors' direction
  uint64_t buf_len = 0;              // their total length
};

// The answers accepted besides the residual rules (see judge()).
struct Accept {
  bool good = true;           // status GOOD
  std::vector<Sense> senses;  // CHECK CONDITION with one of these
  bool any_sense = false;     // CHECK CONDITION with any valid sense data
  bool conflict = false;      // RESERVATION CONFLICT
};

// Empty if @r answers @shot acceptably, else what is wrong with it:
// - status GOOD, CHECK CONDITION with valid (decodable) sense data that
//   @a accepts, or RESERVATION CONFLICT where accepted; without a data
//   buffer, or with one whose length or direction is not the CDB's, also
//   TASK SET FULL and NOT READY 08/00 (LOGICAL UNIT COMMUNICATION
//   FAILURE): LIO's answers where a command it emulates maps a buffer that
//   is not there, or fileio does I/O of another size than the buffer
//   (wrong of the SCSI core, e.g. for an allocation length of 0, which
//   SPC-4 makes no error, but not of the transport);
// - residuals: no UNDER and OVER flag for one direction together, an UNDER
//   count of at most the buffer of that direction (so none without a
//   buffer), no OVER with a count of 0;
// - GOOD for a data-in command with a data-in buffer: no more data-in
//   reported than the CDB asked for, and an OVER count only if the CDB
//   asked for more than the buffer, by at most the difference.
std::string judge(const Shot &shot, const Accept &a, const Rsp &r);

// Bytes of data-in the response says arrived in the data-in buffer.
uint64_t data_in_arrived(const Shot &shot, const Rsp &r);

// "GOOD or CHECK CONDITION with ILLEGAL REQUEST 24/00, ..."
std::string accepted_text(const Accept &a);

// Releases what reservation state the initiator may hold on the LUN: an
// SPC-2 reservation (RELEASE(10)), then PERSISTENT RESERVE OUT REGISTER AND
// IGNORE EXISTING KEY and CLEAR, which remove every registration and the
// persistent reservation. A target without persistent reservations
// (INVALID COMMAND OPERATION CODE) has none. Empty, or what failed.
std::string clear_reservations(Context &ctx, Session &s);

// The registration keys of the LUN (PERSISTENT RESERVE IN, READ KEYS);
// nullopt if the target does not support it.
std::optional<std::vector<uint64_t>> registration_keys(Context &ctx,
                                                       Session &s);

// Appends the hostile.* cases to @out.
void add_cases(std::vector<Case> &out);

}  // namespace srp::hostile

#endif  // SRP_CLIENT_HOSTILE_H
