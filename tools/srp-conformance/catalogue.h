// SPDX-License-Identifier: GPL-2.0-only
//
// The parts of the case catalogue (catalogue_*.cpp) and the helpers they
// share (catalogue.cpp); internal header. catalogue() (cases.h) calls the
// parts in the order below, which is the catalogue's order.
#ifndef SRP_CLIENT_CATALOGUE_H
#define SRP_CLIENT_CATALOGUE_H

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cases.h"

namespace srp::cat {

// Appends a case to the catalogue.
void add(const char *name, const char *sends, const char *expected,
         const char *reason, unsigned needs,
         std::function<void(Context &)> run);

// The parts, in catalogue order.
void login_cases();      // login.*, acl.*: catalogue_login.cpp
void scsi_cases();       // scsi.*: catalogue_scsi.cpp
void malformed_cases();  // malformed.*: catalogue_malformed.cpp
void protocol_cases();   // protocol.*: catalogue_protocol.cpp
void sendq_cases();      // sendq.*: catalogue_sendq.cpp
// (then hostile.*: catalogue_hostile.cpp, hostile.h)

// ---- helpers shared by the parts --------------------------------------

// A direct descriptor of @len bytes at offset @off of the data buffer.
DirectDesc buf(Session &s, size_t off, uint32_t len);
CmdBuilder tur_cmd();
// READ(16) of @blocks blocks of @bs bytes into the start of the buffer.
CmdBuilder read_cmd(Session &s, uint32_t blocks, uint32_t bs);
// Blocks of a 16 KiB transfer (at least one).
uint32_t xfer_blocks(const TargetFacts &f);
// The default login asking for immediate data at @offset.
LoginReq imm_login(Context &ctx, uint16_t offset = kLinuxImmDataOffset);
// Logs in with imm_login(); Skip if the target does not enable it.
std::unique_ptr<Session> login_with_imm(Context &ctx);

// Sends @iu, which no target can take as a request, and expects the target
// to log the channel out: an SRP_T_LOGOUT with reason 02h, no SRP_RSP, then
// the disconnect (a new login must then work: the runner's alive check).
void t_logout_case(Context &ctx, const std::function<Bytes(Session &)> &mk);

// A task management function @func (of @task_tag, on @lun or the tested
// LUN) whose response code must be one of @ok.
void expect_tmf(Context &ctx, Session &s, uint8_t func, std::vector<uint8_t> ok,
                uint64_t task_tag = 0,
                std::optional<uint64_t> lun = std::nullopt);

// The target closes @s within the timeout; else a Failure expecting @what.
void expect_closed(Context &ctx, Session &s, const std::string &what);

}  // namespace srp::cat

#endif  // SRP_CLIENT_CATALOGUE_H
