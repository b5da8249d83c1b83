// SPDX-License-Identifier: GPL-2.0-only
#include "report.h"

#include <cmath>
#include <nlohmann/json.hpp>
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

std::string to_json(const Options &o, const std::vector<CaseResult> &results,
                    const std::string &mode) {
  using nlohmann::ordered_json;
  const Counts c = count(results);
  ordered_json j;
  j["tool"] = "srp-conformance";
  j["mode"] = mode;
  j["target"] = o.host + ":" + o.port;
  j["lun"] = o.lun;
  if (o.fuzz) {
    j["seed"] = o.seed;
    j["iterations"] = o.iterations;
  }
  j["summary"] = {{"passed", c.pass}, {"failed", c.fail}, {"skipped", c.skip}};
  ordered_json rs = ordered_json::array();
  for (const CaseResult &r : results) {
    const char *st = r.status == CaseResult::Status::kPass   ? "pass"
                     : r.status == CaseResult::Status::kFail ? "fail"
                                                             : "skip";
    // Milliseconds, as the report always had them.
    rs.push_back({{"name", r.name},
                  {"status", st},
                  {"expected", r.expected},
                  {"got", r.got},
                  {"reason", r.reason},
                  {"iteration", r.iteration},
                  {"seconds", std::round(r.seconds * 1000) / 1000}});
  }
  j["results"] = std::move(rs);
  // Bytes that are not UTF-8 become U+FFFD rather than an exception.
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
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
