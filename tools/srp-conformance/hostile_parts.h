// SPDX-License-Identifier: GPL-2.0-only
//
// What the files of the hostile.* cases share (internal header):
// hostile.cpp (hostile.h and the helpers below), catalogue_hostile.cpp (the
// data buffer of one command, the command table, the cases) and
// catalogue_hostile_runner.cpp (one command of the table, run through
// every buffer length, layout and direction).
#ifndef SRP_CLIENT_HOSTILE_PARTS_H
#define SRP_CLIENT_HOSTILE_PARTS_H

#include <cstdint>
#include <string>
#include <vector>

#include "case_util.h"
#include "hostile.h"

namespace srp::hostile {

inline const Sense kInvalidCdb{kSenseIllegalRequest, 0x24, 0x00};
inline const Sense kInvalidIu{kSenseIllegalRequest, 0x0e, 0x03};
inline const Sense kBadOpcode{kSenseIllegalRequest, 0x20, 0x00};
inline const Sense kBadList{kSenseIllegalRequest, 0x26, 0x00};
inline const Sense kListLength{kSenseIllegalRequest, 0x1a, 0x00};
inline const Sense kLbaRange{kSenseIllegalRequest, 0x21, 0x00};
inline const Sense kMiscompare{kSenseMiscompare, 0x1d, 0x00};
// LOGICAL UNIT COMMUNICATION FAILURE: LIO's answer (with TASK SET FULL)
// where its emulation maps a data buffer that is not there, or a backend
// (fileio) does I/O of another size than the buffer.
inline const Sense kOddBufferSense{kSenseNotReady, 0x08, 0x00};

inline constexpr uint8_t kFill = 0xee;  // what the initiator leaves in buffers
inline constexpr size_t kGuard =
    4096;  // checked bytes after the last descriptor
inline constexpr size_t kScatterGap =
    4096;  // scatter()'s gap between descriptors
inline constexpr size_t kRefAlloc =
    16384;  // allocation length of reference reads
// Key of the clean-up registration ("SRP_CLNU").
inline constexpr uint64_t kCleanupKey = 0x5352505f434c4e55ull;

inline const uint64_t kLengths[] = {0,     1,     511,     4095,  4096,
                                    4097,  8193,  32767,   32768, 32769,
                                    36864, 65536, 1u << 20};

bool same(const Sense &a, const Sense &b);

DataDir opposite(DataDir d);

// The command again while it gets a UNIT ATTENTION (up to 3 times), as an
// initiator retries it.
Rsp exec_ua(Context &ctx, Session &s, const CmdBuilder &b);

bool is_sense(const Rsp &r, const Sense &want);

// Sends @cdb with @len bytes of data-in into the start of the buffer.
Rsp data_in(Context &ctx, Session &s, const Bytes &cdb, uint32_t len);

// Sends @cdb with @data as a direct data-out buffer at the start of the
// buffer.
Rsp data_out(Context &ctx, Session &s, const Bytes &cdb, const Bytes &data);

Bytes first_bytes(Session &s, size_t n);

// ---- the data buffer of one command (catalogue_hostile.cpp) -------------

enum class Buf { kNone, kDirect, kIndirect, kImmediate };

// "4096-byte data-out buffer, direct descriptor"
std::string buffer_text(uint64_t n, DataDir dir, Buf b);

struct Buffer {
  std::vector<DirectDesc> d;
  size_t end = 0;  // end of the checked area: descriptors, gaps, guard
};

struct Fired {
  Rsp rsp;
  Buffer buf;
};

// Sends @cdb with an @shot.buf_len-byte buffer of direction @shot.buf_dir
// described as @b (data-out: holding @data) and checks the answer and the
// buffer; a problem is a Failure naming @what.
Fired fire(Context &ctx, Session &s, const Bytes &cdb, Buf b, const Shot &shot,
           const Accept &a, const Bytes &data, const std::string &what);

// ---- the command table (catalogue_hostile.cpp) --------------------------

// What the data-out buffer holds.
enum class Payload {
  kPattern,    // test data
  kZeros,      // all zero
  kModePages,  // header + the current caching page (MODE SENSE)
  kUnmap,      // UNMAP list: one descriptor, 1 block of the scratch area
  kCopy,       // EXTENDED COPY: 1 block, scratch LBA -> scratch LBA + 1
  kCompare,    // COMPARE AND WRITE: the block as it is, then test data
};

// What a GOOD answer is checked against, beyond judge() and the buffers.
enum class Check {
  kNone,
  kStatic,     // data-in equal to a reference read (data that does not change)
  kRead,       // data-in equal to the scratch area; a data-out buffer changes
               // nothing
  kUnchanged,  // a data-out buffer does not change the scratch area
  kWrite,      // the scratch area holds what was written
  kWriteSame,
  kCompareWrite,
  kCopy,
  kAlua,  // the ALUA states (REPORT TARGET PORT GROUPS) are unchanged
  kPr,    // no registration appears; REGISTER works; nothing left after
};

struct Spec {
  const char *name;          // of the scsi::Command
  uint64_t natural;          // usual data length; 0: from the block size
  std::vector<Sense> extra;  // accepted besides 24/00 and 0E/03
  bool optional;             // INVALID COMMAND OPERATION CODE accepted
  bool conflict;             // RESERVATION CONFLICT accepted
  Payload payload;
  Check check;
  unsigned needs;
  const char *why;  // why these outcomes
};

// The commands of scsi::commands() the hostile.* cases send, in order.
const std::vector<Spec> &specs();
// What the answers to @sp's commands may be.
Accept accept_of(const Spec &sp);

// Sends @sp's command on @s with every buffer length, CDB length field,
// layout and direction, and checks each answer, the buffers and what the
// command did (catalogue_hostile_runner.cpp).
void run_spec(Context &ctx, Session &s, const Spec &sp);

}  // namespace srp::hostile

#endif  // SRP_CLIENT_HOSTILE_PARTS_H
