// SPDX-License-Identifier: GPL-2.0-only
#include "cli.h"

#include <cctype>
#include <functional>
#include <limits>

#include "cli_parse.h"

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
  --channel-limit N      the target's max_initiator_channels is N and the
                         LUN's backend holds commands (see
                         login.single_relogins_held)
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

Memory attack (instead of the cases):
  --flood CHANNELS       log in CHANNELS channels (MULTI, one initiator
                         port ID) and keep --flood-cmds WRITE(16)s of
                         --flood-len bytes outstanding on each for
                         --flood-secs seconds, each sent again as its
                         response comes; OVERWRITES the first --flood-len
                         bytes of --lun. Prints one JSON line of counts
                         (GOOD, TASK SET FULL, BUSY, other, unanswered,
                         refused logins, channels the target closed);
                         exit status 0 whatever they are
  --flood-len N          bytes of each WRITE, registered on each channel
                         (default 33554432; whole blocks, 512..1073741824)
  --flood-cmds N         WRITEs outstanding a channel (default 4, 1..64)
  --flood-secs N         seconds of flooding (default 20; 0: one round)
  --flood-rr0            connection requests with responder resources 0
                         (the target may not RDMA READ): a target should
                         refuse the logins (counted as refused)

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
  // The first complaint about a value; CLI11 reports the rest.
  std::string bad;
  auto complain = [&bad](const std::string &e) {
    if (bad.empty()) bad = e;
  };

  CLI::App app{"srp-conformance"};
  app.set_help_flag();  // usage() is the help; -h/--help is a flag below
  app.allow_extras();   // reported as "unknown option"
  auto value = [&app](const char *name,
                      std::function<void(const std::string &)> take) {
    return cli::value(app, name, std::move(take));
  };
  // A number (decimal or 0x-hex) in [min, max].
  auto number = [&](const char *name, uint64_t min, uint64_t max,
                    const std::string &msg, std::function<void(uint64_t)> set) {
    return value(name, [=, &complain](const std::string &v) {
      const auto n = parse_u64(v);
      if (!n || *n < min || *n > max)
        complain(msg);
      else
        set(*n);
    });
  };
  auto flag = [&app](const char *name, bool *b) {
    return cli::flag(app, name, b);
  };

  flag("-h,--help", &o.help);
  value("--target", [&](const std::string &v) {
    if (!split_host_port(v, &o.host, &o.port))
      complain("--target needs HOST:PORT (or [IPv6]:PORT)");
  });
  const struct {
    const char *name;
    uint64_t *dst;
  } ids[] = {{"--id-ext", &o.id_ext},
             {"--ioc-guid", &o.ioc_guid},
             {"--initiator-ext", &o.initiator_ext}};
  for (const auto &id : ids) {
    value(id.name, [&complain, id](const std::string &v) {
      const auto h = parse_hex64(v);
      if (!h)
        complain(std::string(id.name) + " needs a 64-bit hexadecimal value");
      else
        *id.dst = *h;
    });
  }
  value("--cases", [&](const std::string &v) {
    for (const auto &g : split_list(v)) o.case_globs.push_back(g);
    if (v.empty() || o.case_globs.empty())
      complain("--cases needs GLOB[,GLOB...]");
  });
  flag("--list", &o.list);
  flag("--list-markdown", &o.list_markdown);
  number("--seed", 0, UINT64_MAX, "--seed needs a number",
         [&](uint64_t n) { o.seed = n; });
  number("--iterations", 1, UINT64_MAX, "--iterations needs a number >= 1",
         [&](uint64_t n) { o.iterations = n; });
  number("--fuzz-from", 0, UINT64_MAX, "--fuzz-from needs a number",
         [&](uint64_t n) { o.fuzz_from = n; });
  flag("--fuzz", &o.fuzz);
  flag("--fuzz-scsi", &o.fuzz_scsi);
  value("--json", [&](const std::string &v) {
    if (v.empty()) complain("--json needs a file name");
    o.json_path = v;
  });
  number("--timeout-ms", 1, 3600000,
         "--timeout-ms needs a number of milliseconds (1..3600000)",
         [&](uint64_t n) { o.timeout_ms = static_cast<uint32_t>(n); });
  number("--lun", 0, 0xffffffffu, "--lun needs a number",
         [&](uint64_t n) { o.lun = n; });
  flag("--verbose", &o.verbose);
  flag("--acl-denied", &o.acl_denied);
  flag("--tpg-disabled", &o.tpg_disabled);
  number("--fuzz-batch", 1, 64, "--fuzz-batch needs a number 1..64",
         [&](uint64_t n) { o.fuzz_batch = static_cast<uint32_t>(n); });
  number("--fuzz-login-percent", 0, 100,
         "--fuzz-login-percent needs a number 0..100",
         [&](uint64_t n) { o.fuzz_login_percent = static_cast<uint32_t>(n); });
  value("--merge", [&](const std::string &v) {
    o.merge_files = split_list(v);
    if (o.merge_files.empty()) complain("--merge needs FILE[,FILE...]");
  });
  value("--compare", [&](const std::string &v) {
    const auto eq = v.find('=');
    auto files = eq == std::string::npos || eq == 0
                     ? std::vector<std::string>{}
                     : split_list(v.substr(eq + 1));
    if (files.empty())
      complain("--compare needs NAME=FILE[,FILE...]");
    else
      o.compare.emplace_back(v.substr(0, eq), std::move(files));
  });
  flag("--no-write", &o.no_write);
  number("--channel-limit", 1, 64, "--channel-limit needs 1..64",
         [&](uint64_t n) { o.channel_limit = static_cast<uint32_t>(n); });
  number("--it-iu-len", 64, 0xffffffffu, "--it-iu-len needs a number >= 64",
         [&](uint64_t n) { o.it_iu_len = static_cast<uint32_t>(n); });
  number("--target-max-it-iu", 64, 0xfffffffeu,
         "--target-max-it-iu needs a number >= 64",
         [&](uint64_t n) { o.target_max_it_iu = static_cast<uint32_t>(n); });
  number("--retry-count", 0, 7, "--retry-count needs 0..7",
         [&](uint64_t n) { o.retry_count = static_cast<uint8_t>(n); });
  number("--data-size", 1u << 20, 1ull << 30,
         "--data-size needs a number of bytes (1 MiB..1 GiB)",
         [&](uint64_t n) { o.data_size = static_cast<size_t>(n); });
  number("--flood", 1, 1024, "--flood needs a number of channels (1..1024)",
         [&](uint64_t n) { o.flood_channels = static_cast<uint32_t>(n); });
  number("--flood-len", 512, 1ull << 30,
         "--flood-len needs a number of bytes (512..1073741824)",
         [&](uint64_t n) { o.flood_len = n; });
  number("--flood-cmds", 1, 64, "--flood-cmds needs a number 1..64",
         [&](uint64_t n) { o.flood_cmds = static_cast<uint32_t>(n); });
  number("--flood-secs", 0, 86400,
         "--flood-secs needs a number of seconds (0..86400)",
         [&](uint64_t n) { o.flood_secs = static_cast<uint32_t>(n); });
  flag("--flood-rr0", &o.flood_rr0);

  auto fail = [&](const std::string &e) {
    res.error = e;
    return res;
  };
  const std::string wrong = cli::parse(app, args);
  if (!wrong.empty()) return fail(wrong);
  if (!bad.empty()) return fail(bad);

  o.fuzz = o.fuzz || o.fuzz_scsi;
  o.seed_given = app.count("--seed") > 0;
  o.iterations_given = app.count("--iterations") > 0;
  if (o.fuzz && !o.iterations_given) o.iterations = 1000;
  if (o.acl_denied && o.tpg_disabled)
    return fail("--acl-denied and --tpg-disabled exclude each other");
  if (!o.merge_files.empty() && !o.compare.empty())
    return fail("--merge and --compare exclude each other");
  if (!o.flood_channels) {
    for (const char *f :
         {"--flood-len", "--flood-cmds", "--flood-secs", "--flood-rr0"})
      if (app.count(f)) return fail(std::string(f) + " needs --flood");
  } else if (o.fuzz) {
    return fail("--flood and --fuzz exclude each other");
  } else if (o.acl_denied || o.tpg_disabled) {
    return fail(
        "--flood needs an accepted login, not --acl-denied or "
        "--tpg-disabled");
  }
  if (!o.help && !o.list && !o.list_markdown && o.merge_files.empty() &&
      o.compare.empty()) {
    if (!app.count("--target")) return fail("--target HOST:PORT is required");
    if (!app.count("--id-ext")) return fail("--id-ext is required");
    if (!app.count("--ioc-guid")) return fail("--ioc-guid is required");
    if (!app.count("--initiator-ext"))
      return fail("--initiator-ext is required");
  }
  res.options = o;
  return res;
}

}  // namespace srp
