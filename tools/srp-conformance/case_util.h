// SPDX-License-Identifier: GPL-2.0-only
//
// Helpers shared by the case catalogue and the fuzzer (internal header).
#ifndef SRP_CLIENT_CASE_UTIL_H
#define SRP_CLIENT_CASE_UTIL_H

#include <optional>
#include <string>
#include <vector>

#include "cases.h"

namespace srp {

// Size of the scratch area at the end of the LUN that write cases use.
constexpr size_t kScratchBytes = 1u << 20;

std::string hex64(uint64_t v);
std::string hex8(uint8_t v);
std::string status_name(uint8_t s);
std::string describe_attempt(const Context::Attempt &a);
std::optional<Sense> rsp_sense(const Rsp &r);

// Sends a command (tag and LUN filled in) without waiting; returns its tag.
uint64_t send_cmd(Context &ctx, Session &s, CmdBuilder b,
                  Credit c = Credit::kConsume,
                  std::optional<uint64_t> lun = std::nullopt);
// Sends raw bytes; a failed post is a Failure.
void send_iu(Context &ctx, Session &s, const Bytes &iu, Credit c);
// The SRP_RSP for @tag; none within the timeout is a Failure.
Rsp wait_for(Context &ctx, Session &s, uint64_t tag);
Rsp exec_lun(Context &ctx, Session &s, CmdBuilder b, uint64_t lun);
// credits_restored() + no_violations(): the usual end of a case.
void healthy(Context &ctx, Session &s);

// Deterministic test data.
Bytes pattern(size_t n, uint64_t salt);

// How a data transfer is described in the SRP_CMD.
enum class Layout { kDirect, kDirectCount1, kIndirect, kImmediate };

// @len bytes of the data buffer from @base, split into @n descriptors with
// 4 KiB gaps between them (so they are not contiguous).
std::vector<DirectDesc> scatter(Session &s, size_t base, size_t len,
                                unsigned n);
size_t offset_of(Session &s, const DirectDesc &d);
void put_scattered(Session &s, const std::vector<DirectDesc> &d,
                   const Bytes &data);
Bytes gather(Session &s, const std::vector<DirectDesc> &d);
void fill(Session &s, const std::vector<DirectDesc> &d, uint8_t v);
CmdBuilder data_cmd(Session &s, DataDir dir, const Bytes &cdb_bytes,
                    Layout layout, const std::vector<DirectDesc> &d,
                    const Bytes *imm);

// WRITE(16) of @data (a whole number of blocks) at @lba.
Rsp write_blocks(Context &ctx, Session &s, uint64_t lba, const Bytes &data,
                 Layout layout, unsigned ndesc = 1, size_t base = 0);
// READ(16) of @blocks at @lba; the status must be GOOD.
Bytes read_blocks(Context &ctx, Session &s, uint64_t lba, uint32_t blocks,
                  Layout layout, unsigned ndesc = 1, Rsp *out = nullptr,
                  size_t base = 0);
void expect_same(const Bytes &want, const Bytes &got, const std::string &what);

}  // namespace srp

#endif  // SRP_CLIENT_CASE_UTIL_H
