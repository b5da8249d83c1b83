// SPDX-License-Identifier: GPL-2.0-only
#include "merge.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cases.h"

namespace srp::merge {

namespace {

std::string cell(const std::string &s, size_t max) {
  std::string o;
  for (char ch : s) {
    if (o.size() >= max) {
      o += "...";
      break;
    }
    if (ch == '|')
      o += "\\|";
    else if (ch == '\n' || ch == '\r')
      o += ' ';
    else
      o += ch;
  }
  return o;
}

std::string result_cell(const std::map<std::string, Entry> &m,
                        const std::string &name) {
  auto it = m.find(name);
  if (it == m.end()) return "not run";
  const Entry &e = it->second;
  if (e.status == "pass") return "pass";
  if (e.status == "skip") return "skip: " + cell(e.reason, 80);
  std::string detail = e.got.empty() ? e.reason : e.got;
  std::string s = "**" + e.status + "**";
  if (!detail.empty()) s += ": " + cell(detail, 160);
  return s;
}

}  // namespace

std::optional<std::vector<Entry>> parse_report(const std::string &json,
                                               std::string *why) {
  auto fail = [why](const std::string &what) {
    if (why) *why = what;
    return std::nullopt;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error &e) {
    return fail(e.what());
  }
  if (!j.is_object()) return fail("the report is not an object");
  const auto results = j.find("results");
  if (results == j.end()) return fail("no \"results\"");
  if (!results->is_array()) return fail("\"results\" is not an array");
  std::vector<Entry> v;
  for (const auto &r : *results) {
    if (!r.is_object()) return fail("a result is not an object");
    // The fields that are strings; others (and other keys) are ignored.
    auto text = [&r](const char *key) {
      const auto it = r.find(key);
      return it != r.end() && it->is_string() ? it->get<std::string>()
                                              : std::string();
    };
    Entry e{text("name"), text("status"), text("expected"), text("got"),
            text("reason")};
    if (e.name.empty() || e.status.empty())
      return fail("a result without name or status");
    v.push_back(std::move(e));
  }
  return v;
}

int severity(const std::string &status) {
  if (status == "crash") return 5;
  if (status == "hang") return 4;
  if (status == "fail") return 3;
  if (status == "pass") return 2;
  if (status == "skip") return 1;
  return 0;
}

std::map<std::string, Entry> merge(
    const std::vector<std::vector<Entry>> &reports) {
  std::map<std::string, Entry> m;
  for (const auto &rep : reports)
    for (const auto &e : rep) {
      auto it = m.find(e.name);
      if (it == m.end() || severity(e.status) > severity(it->second.status))
        m[e.name] = e;
    }
  return m;
}

std::optional<std::map<std::string, Entry>> merge_files(
    const std::vector<std::string> &files, std::string *why) {
  std::vector<std::vector<Entry>> reps;
  for (const auto &f : files) {
    std::ifstream in(f);
    if (!in) {
      if (why) *why = "cannot read " + f;
      return std::nullopt;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string w;
    auto r = parse_report(ss.str(), &w);
    if (!r) {
      if (why) *why = f + ": " + w;
      return std::nullopt;
    }
    reps.push_back(std::move(*r));
  }
  return merge(reps);
}

std::string counts(const std::map<std::string, Entry> &m) {
  static const char *kOrder[] = {"pass", "fail", "hang", "crash", "skip"};
  std::map<std::string, size_t> n;
  for (const auto &kv : m) n[kv.second.status]++;
  std::string s;
  for (const char *k : kOrder) {
    s += (s.empty() ? "" : ", ") + std::to_string(n[k]) + " " + k;
    n.erase(k);
  }
  for (const auto &kv : n)
    s += ", " + std::to_string(kv.second) + " " + kv.first;
  return s;
}

std::string compare_table(const std::vector<Column> &cols) {
  std::vector<std::pair<std::string, std::string>> rows;  // name, expected
  std::set<std::string> seen;
  for (const auto &c : catalogue()) {
    rows.emplace_back(c.name, c.expected);
    seen.insert(c.name);
  }
  for (const auto &col : cols)
    for (const auto &kv : col.second)
      if (seen.insert(kv.first).second)
        rows.emplace_back(kv.first, kv.second.expected);

  std::ostringstream o;
  o << "| Case | Expected |";
  for (const auto &col : cols) o << " " << cell(col.first, 40) << " |";
  o << "\n|---|---|";
  for (size_t i = 0; i < cols.size(); i++) o << "---|";
  o << "\n";
  for (const auto &row : rows) {
    o << "| `" << row.first << "` | " << cell(row.second, 400) << " |";
    for (const auto &col : cols) o << " " << result_cell(col.second, row.first) << " |";
    o << "\n";
  }
  o << "\n";
  for (const auto &col : cols) {
    std::map<std::string, Entry> all = col.second;
    for (const auto &row : rows)
      if (!all.count(row.first)) all[row.first] = Entry{row.first, "not run", "", "", ""};
    o << "- " << col.first << ": " << counts(all) << "\n";
  }
  return o.str();
}

}  // namespace srp::merge
