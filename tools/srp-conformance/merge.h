// SPDX-License-Identifier: GPL-2.0-only
//
// Reading --json reports back: merging the reports of several runs against
// one target (a normal run, an --acl-denied run, a --tpg-disabled run, or a
// run split case by case) and the side-by-side table of two or more targets
// (--merge, --compare).
#ifndef SRP_CLIENT_MERGE_H
#define SRP_CLIENT_MERGE_H

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace srp::merge {

// One entry of a report's "results". status is what the client writes
// (pass, fail, skip) or what a driver script records for a case it had to
// abandon (hang: the client did not finish in time; crash: the kernel
// oopsed during the case; "not run": not attempted after the target died).
struct Entry {
  std::string name;
  std::string status;
  std::string expected;
  std::string got;
  std::string reason;
};

// Parses a report (the whole JSON text, through nlohmann::json): an object
// whose "results" is an array of objects, each with string "name" and
// "status". nullopt with @why on errors.
std::optional<std::vector<Entry>> parse_report(const std::string &json,
                                               std::string *why);

// How bad a status is: crash > hang > fail > pass > skip > anything else.
int severity(const std::string &status);

// Per case name, the most severe result over all reports (so a case that
// is skipped in one mode and passes in another is a pass).
std::map<std::string, Entry> merge(const std::vector<std::vector<Entry>> &reports);

// Reads and merges files; nullopt with @why if one cannot be read or parsed.
std::optional<std::map<std::string, Entry>> merge_files(
    const std::vector<std::string> &files, std::string *why);

// "N pass, N fail, ..." over the cases of @m.
std::string counts(const std::map<std::string, Entry> &m);

using Column = std::pair<std::string, std::map<std::string, Entry>>;

// Markdown table: case, expected, one column per target, in catalogue
// order (cases in no catalogue, e.g. fuzz, last); a case missing from a
// column is "not run". Then one summary line per column.
std::string compare_table(const std::vector<Column> &cols);

}  // namespace srp::merge

#endif  // SRP_CLIENT_MERGE_H
