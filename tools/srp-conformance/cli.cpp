// SPDX-License-Identifier: GPL-2.0-only
#include "cli.h"

#include <cctype>
#include <limits>

namespace srp {

std::string usage() {
  return R"(Usage: srp-conformance --target HOST:PORT --id-ext HEX --ioc-guid HEX
                      --initiator-ext HEX [options]

SRP initiator conformance and fuzz client. Logs in to an SRP target over
RDMA/CM, sends well-formed and malformed SRP information units and reports
each case against its expected outcome.

Required (except with --list / --help):
  --target HOST:PORT     RDMA/CM address of the target ([v6addr]:port for IPv6)
  --id-ext HEX           first half of the target port ID (id_ext)
  --ioc-guid HEX         second half of the target port ID (ioc_guid)
  --initiator-ext HEX    first half of the initiator port ID; the second half
                         is the interface ID of the local port's GID 0

Selection and output:
  --cases GLOB,...       run only the cases matching one of the globs
                         (e.g. 'login.*,malformed.imm_*'); '!GLOB' leaves
                         out what GLOB matches (e.g. '!hostile.*')
  --list                 list the cases with their expected outcomes and exit
  --list-markdown        the same as a Markdown table
  --json FILE            also write the results as JSON to FILE
  --verbose              log logins, IUs and responses to stderr

Behaviour:
  --timeout-ms N         bound on every wait (default 5000)
  --lun N                LUN to test (default 0)
  --iterations N         run the selected cases N times (default 1); with
                         --fuzz, the number of fuzz iterations (default 1000)
  --acl-denied           the target has NO ACL for this initiator: run the
                         acl.denied* cases, skip those needing an accepted
                         login
  --tpg-disabled         the target port's portal group is disabled: run the
                         acl.tpg_disabled* cases, skip the others
  --no-write             skip every case that writes to the LUN
  --it-iu-len N          IT IU length requested at login (default 8260)
  --target-max-it-iu N   the target's largest IT IU (srp_max_req_size,
                         default 8260), for the "too large" cases
  --data-size N          bytes registered for the target's RDMA (default
                         4194304)
  --retry-count N        transport retry count of the connection, 0..7
                         (default 7, what ib_srp uses; soft-RoCE retries
                         for ever at 7): the *finite_retry cases need less

Fuzzing:
  --fuzz                 mutate valid SRP_CMD IUs and login requests instead
                         of running the catalogue
  --seed N               fuzz seed (default: from the clock; always printed)
  --fuzz-from N          first iteration (to reproduce one: --fuzz-from I
                         --iterations 1 with the printed seed)
  --fuzz-batch N         mutated SRP_CMDs sent back to back before the
                         TEST UNIT READY that checks the channel (default
                         16, at most 64; 1 checks after every IU)
  --fuzz-login-percent N share of the iterations that mutate a login request
                         instead of an SRP_CMD (default 15; a login costs
                         far more than an IU)
  --fuzz-scsi            fuzz the SCSI layer instead (implies --fuzz): the
                         SRP_CMD iterations send well-formed SRP_CMDs around
                         mutated CDBs (the hostile.* commands, variable
                         length CDBs, random operation codes), data lengths
                         and directions; writes confined to the scratch
                         area, parameter lists of zeros. Never against a
                         pass-through (pscsi) LUN of a real device

Reports (no target needed):
  --merge FILE,...       merge --json reports of runs against one target
                         (e.g. a normal, an --acl-denied and a --tpg-disabled
                         run): per case the most severe result (crash, hang,
                         fail, pass, skip); prints result lines and the
                         summary, exit status 1 if a case failed
  --compare NAME=FILE[,FILE...]
                         repeatable: one column per NAME, each the merge of
                         its files; prints a Markdown table case, expected,
                         NAME... for the whole catalogue

Writes go to a scratch area at the end of the LUN whose contents are read
first and written back at the end of the run.

Output: one line per case (PASS name / FAIL name: expected X, got Y /
SKIP name: reason) and a last line "N passed, N failed, N skipped".
Exit status: 0 all passed, 1 a case failed, 2 usage or setup error.
)";
}

bool split_host_port(const std::string &s, std::string *host,
                     std::string *port) {
  std::string h, p;
  if (!s.empty() && s[0] == '[') {
    const auto close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() ||
        s[close + 1] != ':')
      return false;
    h = s.substr(1, close - 1);
    p = s.substr(close + 2);
  } else {
    const auto colon = s.rfind(':');
    if (colon == std::string::npos) return false;
    h = s.substr(0, colon);
    p = s.substr(colon + 1);
    if (h.find(':') != std::string::npos) return false;  // bare IPv6
  }
  if (h.empty() || p.empty()) return false;
  for (char c : p)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  if (p.size() > 5 || std::stoul(p) == 0 || std::stoul(p) > 65535) return false;
  *host = h;
  *port = p;
  return true;
}

std::optional<uint64_t> parse_hex64(const std::string &s) {
  std::string t = s;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
    t = t.substr(2);
  uint64_t v = 0;
  int digits = 0;
  for (char c : t) {
    if (c == ':') continue;
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    if (++digits > 16) return std::nullopt;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  if (digits == 0) return std::nullopt;
  return v;
}

std::optional<uint64_t> parse_u64(const std::string &s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return parse_hex64(s);
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10)
      return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::vector<std::string> split_list(const std::string &v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size()) {
    const auto comma = v.find(',', start);
    const std::string g = v.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!g.empty()) out.push_back(g);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool glob_match(const std::string &pattern, const std::string &text) {
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      p++;
      t++;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') p++;
  return p == pattern.size();
}

ParseResult parse_args(const std::vector<std::string> &args) {
  ParseResult res;
  Options o;
  bool have_target = false, have_id_ext = false, have_ioc = false,
       have_ini = false;

  auto fail = [&](const std::string &e) {
    res.error = e;
    return res;
  };

  for (size_t i = 0; i < args.size(); i++) {
    std::string a = args[i];
    std::string val;
    bool inline_val = false;
    if (a.rfind("--", 0) == 0) {
      const auto eq = a.find('=');
      if (eq != std::string::npos) {
        val = a.substr(eq + 1);
        a = a.substr(0, eq);
        inline_val = true;
      }
    }
    auto need = [&](std::string *out) {
      if (inline_val) {
        *out = val;
        return true;
      }
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    auto number = [&](uint64_t *out, uint64_t min, uint64_t max) {
      std::string v;
      if (!need(&v)) return false;
      auto n = parse_u64(v);
      if (!n || *n < min || *n > max) return false;
      *out = *n;
      return true;
    };
    auto flag = [&]() { return !inline_val; };

    uint64_t n = 0;
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--target") {
      std::string v;
      if (!need(&v) || !split_host_port(v, &o.host, &o.port))
        return fail("--target needs HOST:PORT (or [IPv6]:PORT)");
      have_target = true;
    } else if (a == "--id-ext" || a == "--ioc-guid" || a == "--initiator-ext") {
      std::string v;
      std::optional<uint64_t> h;
      if (!need(&v) || !(h = parse_hex64(v)))
        return fail(a + " needs a 64-bit hexadecimal value");
      if (a == "--id-ext") {
        o.id_ext = *h;
        have_id_ext = true;
      } else if (a == "--ioc-guid") {
        o.ioc_guid = *h;
        have_ioc = true;
      } else {
        o.initiator_ext = *h;
        have_ini = true;
      }
    } else if (a == "--cases") {
      std::string v;
      if (!need(&v) || v.empty()) return fail("--cases needs GLOB[,GLOB...]");
      size_t start = 0;
      while (start <= v.size()) {
        const auto comma = v.find(',', start);
        const std::string g =
            v.substr(start, comma == std::string::npos ? std::string::npos
                                                       : comma - start);
        if (!g.empty()) o.case_globs.push_back(g);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (o.case_globs.empty()) return fail("--cases needs GLOB[,GLOB...]");
    } else if (a == "--list" && flag()) {
      o.list = true;
    } else if (a == "--list-markdown" && flag()) {
      o.list_markdown = true;
    } else if (a == "--seed") {
      if (!number(&o.seed, 0, UINT64_MAX)) return fail("--seed needs a number");
      o.seed_given = true;
    } else if (a == "--iterations") {
      if (!number(&o.iterations, 1, UINT64_MAX))
        return fail("--iterations needs a number >= 1");
      o.iterations_given = true;
    } else if (a == "--fuzz-from") {
      if (!number(&o.fuzz_from, 0, UINT64_MAX))
        return fail("--fuzz-from needs a number");
    } else if (a == "--fuzz" && flag()) {
      o.fuzz = true;
    } else if (a == "--fuzz-scsi" && flag()) {
      o.fuzz = true;
      o.fuzz_scsi = true;
    } else if (a == "--json") {
      if (!need(&o.json_path) || o.json_path.empty())
        return fail("--json needs a file name");
    } else if (a == "--timeout-ms") {
      if (!number(&n, 1, 3600000))
        return fail("--timeout-ms needs a number of milliseconds (1..3600000)");
      o.timeout_ms = static_cast<uint32_t>(n);
    } else if (a == "--lun") {
      if (!number(&o.lun, 0, 0xffffffffu)) return fail("--lun needs a number");
    } else if (a == "--verbose" && flag()) {
      o.verbose = true;
    } else if (a == "--acl-denied" && flag()) {
      o.acl_denied = true;
    } else if (a == "--tpg-disabled" && flag()) {
      o.tpg_disabled = true;
    } else if (a == "--fuzz-batch") {
      if (!number(&n, 1, 64)) return fail("--fuzz-batch needs a number 1..64");
      o.fuzz_batch = static_cast<uint32_t>(n);
    } else if (a == "--fuzz-login-percent") {
      if (!number(&n, 0, 100))
        return fail("--fuzz-login-percent needs a number 0..100");
      o.fuzz_login_percent = static_cast<uint32_t>(n);
    } else if (a == "--merge") {
      std::string v;
      if (!need(&v) || (o.merge_files = split_list(v)).empty())
        return fail("--merge needs FILE[,FILE...]");
    } else if (a == "--compare") {
      std::string v;
      if (!need(&v)) return fail("--compare needs NAME=FILE[,FILE...]");
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        return fail("--compare needs NAME=FILE[,FILE...]");
      auto files = split_list(v.substr(eq + 1));
      if (files.empty()) return fail("--compare needs NAME=FILE[,FILE...]");
      o.compare.emplace_back(v.substr(0, eq), std::move(files));
    } else if (a == "--no-write" && flag()) {
      o.no_write = true;
    } else if (a == "--it-iu-len") {
      if (!number(&n, 64, 0xffffffffu))
        return fail("--it-iu-len needs a number >= 64");
      o.it_iu_len = static_cast<uint32_t>(n);
    } else if (a == "--target-max-it-iu") {
      if (!number(&n, 64, 0xfffffffeu))
        return fail("--target-max-it-iu needs a number >= 64");
      o.target_max_it_iu = static_cast<uint32_t>(n);
    } else if (a == "--retry-count") {
      if (!number(&n, 0, 7)) return fail("--retry-count needs 0..7");
      o.retry_count = static_cast<uint8_t>(n);
    } else if (a == "--data-size") {
      if (!number(&n, 1u << 20, 1ull << 30))
        return fail("--data-size needs a number of bytes (1 MiB..1 GiB)");
      o.data_size = static_cast<size_t>(n);
    } else {
      return fail("unknown option '" + args[i] + "'");
    }
  }

  if (o.fuzz && !o.iterations_given) o.iterations = 1000;
  if (o.acl_denied && o.tpg_disabled)
    return fail("--acl-denied and --tpg-disabled exclude each other");
  if (!o.merge_files.empty() && !o.compare.empty())
    return fail("--merge and --compare exclude each other");
  if (!o.help && !o.list && !o.list_markdown && o.merge_files.empty() &&
      o.compare.empty()) {
    if (!have_target) return fail("--target HOST:PORT is required");
    if (!have_id_ext) return fail("--id-ext is required");
    if (!have_ioc) return fail("--ioc-guid is required");
    if (!have_ini) return fail("--initiator-ext is required");
  }
  res.options = o;
  return res;
}

}  // namespace srp
