// SPDX-License-Identifier: GPL-2.0-only
//
// Result lines and the JSON report.
#ifndef SRP_CLIENT_REPORT_H
#define SRP_CLIENT_REPORT_H

#include <string>
#include <vector>

#include "cases.h"

namespace srp {

// "PASS name" / "FAIL name: expected X, got Y" / "SKIP name: reason".
std::string result_line(const CaseResult &r);
// "N passed, N failed, N skipped".
std::string summary_line(const std::vector<CaseResult> &results);
// The --json report (nlohmann::json; merge.h reads it back).
std::string to_json(const Options &o, const std::vector<CaseResult> &results,
                    const std::string &mode);
// The catalogue as plain text (--list) or a Markdown table.
std::string list_cases(bool markdown);

}  // namespace srp

#endif  // SRP_CLIENT_REPORT_H
