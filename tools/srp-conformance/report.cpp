// SPDX-License-Identifier: GPL-2.0-only
#include "report.h"

#include <cstdio>
#include <sstream>

namespace srp {

std::string result_line(const CaseResult &r) {
  switch (r.status) {
    case CaseResult::Status::kPass:
      return "PASS " + r.name + (r.reason.empty() ? "" : " (" + r.reason + ")");
    case CaseResult::Status::kFail:
      return "FAIL " + r.name + ": expected " + r.expected + ", got " + r.got;
    case CaseResult::Status::kSkip:
      return "SKIP " + r.name + ": " + r.reason;
  }
  return "";
}

namespace {
struct Counts {
  size_t pass = 0, fail = 0, skip = 0;
};
Counts count(const std::vector<CaseResult> &results) {
  Counts c;
  for (const auto &r : results) {
    if (r.status == CaseResult::Status::kPass) c.pass++;
    if (r.status == CaseResult::Status::kFail) c.fail++;
    if (r.status == CaseResult::Status::kSkip) c.skip++;
  }
  return c;
}
}  // namespace

std::string summary_line(const std::vector<CaseResult> &results) {
  const Counts c = count(results);
  return std::to_string(c.pass) + " passed, " + std::to_string(c.fail) +
         " failed, " + std::to_string(c.skip) + " skipped";
}

std::string json_escape(const std::string &s) {
  std::string o;
  for (unsigned char ch : s) {
    switch (ch) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\r':
        o += "\\r";
        break;
      case '\t':
        o += "\\t";
        break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", ch);
          o += buf;
        } else {
          o += static_cast<char>(ch);
        }
    }
  }
  return o;
}

std::string to_json(const Options &o, const std::vector<CaseResult> &results,
                    const std::string &mode) {
  auto q = [](const std::string &s) { return "\"" + json_escape(s) + "\""; };
  std::ostringstream j;
  const Counts c = count(results);
  j << "{\n  \"tool\": \"srp-conformance\",\n  \"mode\": " << q(mode)
    << ",\n  \"target\": " << q(o.host + ":" + o.port)
    << ",\n  \"lun\": " << o.lun;
  if (o.fuzz)
    j << ",\n  \"seed\": " << o.seed << ",\n  \"iterations\": " << o.iterations;
  j << ",\n  \"summary\": {\"passed\": " << c.pass << ", \"failed\": " << c.fail
    << ", \"skipped\": " << c.skip << "},\n  \"results\": [";
  for (size_t i = 0; i < results.size(); i++) {
    const CaseResult &r = results[i];
    const char *st = r.status == CaseResult::Status::kPass   ? "pass"
                     : r.status == CaseResult::Status::kFail ? "fail"
                                                             : "skip";
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%.3f", r.seconds);
    j << (i ? ",\n" : "\n") << "    {\"name\": " << q(r.name)
      << ", \"status\": \"" << st << "\", \"expected\": " << q(r.expected)
      << ", \"got\": " << q(r.got) << ", \"reason\": " << q(r.reason)
      << ", \"iteration\": " << r.iteration << ", \"seconds\": " << secs << "}";
  }
  j << "\n  ]\n}\n";
  return j.str();
}

std::string list_cases(bool markdown) {
  std::ostringstream out;
  auto needs = [](unsigned n) {
    std::string s;
    if (n & kNeedsAclDenied) s += " --acl-denied";
    if (n & kNeedsTpgDisabled) s += " --tpg-disabled";
    if (n & kNeedsWrite) s += " writes";
    if (n & kNeedsImmediate) s += " immediate-data";
    return s.empty() ? std::string("-") : s.substr(1);
  };
  auto cell = [](std::string s) {
    std::string o;
    for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return o;
  };
  if (markdown) {
    out << "| Case | Sends | Expected outcome | Spec reason | Needs |\n"
        << "|---|---|---|---|---|\n";
    for (const auto &c : catalogue())
      out << "| `" << c.name << "` | " << cell(c.sends) << " | "
          << cell(c.expected) << " | " << cell(c.reason) << " | "
          << needs(c.needs) << " |\n";
  } else {
    for (const auto &c : catalogue())
      out << c.name << "\n    sends:    " << c.sends
          << "\n    expected: " << c.expected << "\n    reason:   " << c.reason
          << "\n    needs:    " << needs(c.needs) << "\n";
    out << catalogue().size() << " cases\n";
  }
  return out.str();
}

}  // namespace srp
