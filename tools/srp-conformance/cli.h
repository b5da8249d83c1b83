// SPDX-License-Identifier: GPL-2.0-only
//
// Command line of srp-conformance. Parsing is a pure function so that the
// unit tests can check it.
#ifndef SRP_CLIENT_CLI_H
#define SRP_CLIENT_CLI_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace srp {

struct Options {
  std::string host;  // --target HOST:PORT
  std::string port;
  uint64_t id_ext = 0;                  // --id-ext HEX
  uint64_t ioc_guid = 0;                // --ioc-guid HEX
  uint64_t initiator_ext = 0;           // --initiator-ext HEX
  std::vector<std::string> case_globs;  // --cases GLOB,...
  bool list = false;                    // --list
  bool list_markdown = false;           // --list-markdown (the docs table)
  uint64_t seed = 0;                    // --seed N
  bool seed_given = false;
  uint64_t iterations = 1;  // --iterations N
  bool iterations_given = false;
  uint64_t fuzz_from = 0;            // --fuzz-from N (first fuzz iteration)
  bool fuzz = false;                 // --fuzz
  bool fuzz_scsi = false;            // --fuzz-scsi (implies --fuzz)
  std::string json_path;             // --json FILE
  uint32_t timeout_ms = 5000;        // --timeout-ms N
  uint64_t lun = 0;                  // --lun N
  bool verbose = false;              // --verbose
  bool help = false;                 // --help
  bool acl_denied = false;           // --acl-denied
  bool tpg_disabled = false;         // --tpg-disabled
  bool no_write = false;             // --no-write
  // --channel-limit N: the portal group's max_initiator_channels, with the
  // LUN's backend holding commands (login.single_relogins_held)
  uint32_t channel_limit = 0;
  uint32_t it_iu_len = 8260;         // --it-iu-len N
  uint32_t target_max_it_iu = 8260;  // --target-max-it-iu N
  size_t data_size = 4u << 20;       // --data-size N (registered bytes)
  uint8_t retry_count = 7;           // --retry-count N (transport retries)
  uint32_t fuzz_batch = 16;          // --fuzz-batch N (IUs per barrier)
  uint32_t fuzz_login_percent = 15;  // --fuzz-login-percent N
  // --flood CHANNELS: the memory-attack mode (flood.h) instead of cases
  uint32_t flood_channels = 0;     // 0: not this mode
  uint64_t flood_len = 32u << 20;  // --flood-len N (bytes a WRITE, a channel)
  uint32_t flood_cmds = 4;         // --flood-cmds N (outstanding a channel)
  uint32_t flood_secs = 20;        // --flood-secs N
  bool flood_rr0 = false;          // --flood-rr0 (responder resources 0)
  // --merge FILE,... : merge JSON reports of one target (no target needed)
  std::vector<std::string> merge_files;
  // --compare NAME=FILE[,FILE...] (repeatable): side-by-side Markdown table
  std::vector<std::pair<std::string, std::vector<std::string>>> compare;
};

struct ParseResult {
  std::optional<Options> options;  // set on success
  std::string error;               // set on failure
};

// Parses argv[1..] (without the program name).
ParseResult parse_args(const std::vector<std::string> &args);

// "HOST:PORT" or "[IPv6]:PORT".
bool split_host_port(const std::string &s, std::string *host,
                     std::string *port);
// Hexadecimal with or without 0x, at most 16 digits, ':' separators
// (GUID notation xxxx:xxxx:xxxx:xxxx) allowed.
std::optional<uint64_t> parse_hex64(const std::string &s);
// Decimal or 0x-hexadecimal.
std::optional<uint64_t> parse_u64(const std::string &s);

// "a,b,,c" -> {a, b, c}.
std::vector<std::string> split_list(const std::string &v);

// Shell-style glob: '*' any run, '?' one character.
bool glob_match(const std::string &pattern, const std::string &text);

std::string usage();

}  // namespace srp

#endif  // SRP_CLIENT_CLI_H
