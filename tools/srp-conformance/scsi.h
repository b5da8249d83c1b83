// SPDX-License-Identifier: GPL-2.0-only
//
// The SCSI commands of the hostile.* cases and of the SCSI fuzz mode: CDB
// layouts (field offsets and widths from SPC-4, SBC-3 and SCC-2), what the
// length field of each command counts, and which commands write the medium
// or change the device's state through their parameter list. Pure
// functions over CDB bytes; test_scsi.cpp checks them byte by byte.
#ifndef SRP_CLIENT_SCSI_H
#define SRP_CLIENT_SCSI_H

#include <optional>
#include <string>
#include <vector>

#include "srp_iu.h"

namespace srp::scsi {

// A big-endian field of a CDB; width 0: the command has no such field.
struct Field {
  uint8_t off = 0;
  uint8_t width = 0;

  bool present() const { return width != 0; }
  uint64_t max() const;  // the largest value the field holds
};

// Reads @f of @cdb; bytes past the end of @cdb read as 0.
uint64_t get(const Bytes &cdb, Field f);
// Writes @v, truncated to the width of @f; bytes past the end of @cdb are
// not written.
void put(Bytes &cdb, Field f, uint64_t v);

// What the length field of a command counts.
enum class Unit {
  kBytes,      // allocation length or parameter list length
  kBlocks,     // transfer length in logical blocks
  kTwoBlocks,  // COMPARE AND WRITE: blocks compared, twice as many sent
  kOneBlock,   // WRITE SAME: blocks written; one block of data
  kNoData,     // blocks the command covers without a data transfer
};

struct Command {
  const char *name;   // case name suffix, e.g. "inquiry"
  const char *title;  // e.g. "INQUIRY"
  Bytes base;         // the CDB with every field but length and LBA set
  DataDir dir;        // the direction of the data the command transfers
  Field len;          // allocation / parameter list / transfer length
  Unit unit;
  Field lba;         // starting LBA; absent: no medium access
  const char *spec;  // where the command is defined
};

// Every command with an allocation length, a parameter list or a transfer
// length that LIO emulates (plus LOG SENSE, which it refuses), in catalogue
// order.
const std::vector<Command> &commands();
const Command &command(const std::string &name);  // throws if unknown

// The CDB of @c with @len in its length field and @lba in its LBA field.
Bytes build(const Command &c, uint64_t len, uint64_t lba = 0);

// Bytes of data the CDB of @c with @len in its length field transfers.
uint64_t data_bytes(const Command &c, uint64_t len, uint32_t block_size);

// The length field value of @c for a data buffer of @bytes: the largest
// value whose data_bytes() is at most @bytes, clamped to the field. For
// kOneBlock and kNoData commands the field does not depend on the data:
// @blocks (clamped).
uint64_t len_for(const Command &c, uint64_t bytes, uint32_t block_size,
                 uint64_t blocks);

// A command that writes the medium: where its LBA and its number of
// blocks are. @six: WRITE(6), whose LBA has 21 bits and whose length 0
// means 256 blocks.
struct MediumWrite {
  Field lba;
  Field len;
  bool six = false;
};
// The medium write @cdb describes (SBC-3/SBC-4 write commands, including
// the 32-byte ones of opcode 7Fh), or nullopt.
std::optional<MediumWrite> medium_write(const Bytes &cdb);

// Commands whose effect no LBA range bounds: FORMAT UNIT, REASSIGN BLOCKS,
// SANITIZE, WRITE BUFFER (microcode), WRITE LONG, WRITE SCATTERED, ATA
// PASS-THROUGH and the like.
bool unconfinable(const Bytes &cdb);

// The parameter list length field of a command that changes the device's
// state according to its parameter list: PERSISTENT RESERVE OUT, UNMAP,
// MAINTENANCE OUT (SET TARGET PORT GROUPS, ...), EXTENDED COPY, LOG SELECT,
// SEND DIAGNOSTIC, SECURITY PROTOCOL OUT, WRITE ATTRIBUTE. MODE SELECT is
// not one: a device either takes the pages it is sent or refuses them.
std::optional<Field> state_parameter_list(const Bytes &cdb);

// The area of the LUN that writes may touch.
struct Scratch {
  uint64_t lba = 0;
  uint64_t blocks = 0;
};

// Makes @cdb safe to send with a data buffer of direction @buf:
// - a medium write gets an LBA inside @s and a length that ends inside it
//   (a 32-byte write CDB cut to 16 bytes gets an LBA of all ones in the
//   bytes it has: out of range whatever follows);
// - an unconfinable command becomes TEST UNIT READY;
// - a state-changing parameter list command whose data buffer is not a
//   data-out buffer gets a parameter list length of 0, so that a target
//   that maps a buffer of its own (never written by the initiator) does not
//   act on whatever that memory held.
// Returns what it changed, empty if nothing.
std::string confine(Bytes &cdb, DataDir buf, Scratch s);

// Whether every medium write @cdb describes lies inside @s (true for
// commands that do not write the medium). @s must end with the medium: a
// WRITE SAME of 0 blocks runs to its end. For tests and assertions.
bool writes_inside(const Bytes &cdb, Scratch s);

}  // namespace srp::scsi

#endif  // SRP_CLIENT_SCSI_H
