// SPDX-License-Identifier: GPL-2.0-only
#include "merge.h"

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "cases.h"

namespace srp::merge {

namespace {

// A small JSON reader: enough for the reports (objects, arrays, strings,
// numbers, literals); strings are kept, everything else is skipped.
class Reader {
 public:
  explicit Reader(const std::string &s) : s_(s) {}

  bool report(std::vector<Entry> *out) {
    ws();
    if (!eat('{')) return err("expected '{'");
    bool saw_results = false;
    if (peek('}')) return eat('}') && end();
    for (;;) {
      std::string key;
      ws();
      if (!string(&key)) return false;
      ws();
      if (!eat(':')) return err("expected ':'");
      ws();
      if (key == "results") {
        if (!results(out)) return false;
        saw_results = true;
      } else if (!skip_value()) {
        return false;
      }
      ws();
      if (eat(',')) continue;
      if (eat('}')) break;
      return err("expected ',' or '}'");
    }
    if (!saw_results) return err("no \"results\"");
    return end();
  }

  std::string error() const { return error_; }

 private:
  bool end() {
    ws();
    return pos_ == s_.size() || err("trailing characters");
  }
  bool results(std::vector<Entry> *out) {
    if (!eat('[')) return err("\"results\" is not an array");
    ws();
    if (eat(']')) return true;
    for (;;) {
      ws();
      Entry e;
      if (!entry(&e)) return false;
      out->push_back(std::move(e));
      ws();
      if (eat(',')) continue;
      if (eat(']')) return true;
      return err("expected ',' or ']'");
    }
  }
  bool entry(Entry *e) {
    if (!eat('{')) return err("a result is not an object");
    ws();
    if (eat('}')) return err("a result without a name");
    for (;;) {
      std::string key;
      ws();
      if (!string(&key)) return false;
      ws();
      if (!eat(':')) return err("expected ':'");
      ws();
      std::string *dst = key == "name"       ? &e->name
                         : key == "status"   ? &e->status
                         : key == "expected" ? &e->expected
                         : key == "got"      ? &e->got
                         : key == "reason"   ? &e->reason
                                             : nullptr;
      if (dst && peek('"')) {
        if (!string(dst)) return false;
      } else if (!skip_value()) {
        return false;
      }
      ws();
      if (eat(',')) continue;
      if (eat('}')) break;
      return err("expected ',' or '}'");
    }
    if (e->name.empty() || e->status.empty())
      return err("a result without name or status");
    return true;
  }
  bool skip_value() {
    ws();
    if (pos_ >= s_.size()) return err("value expected");
    const char c = s_[pos_];
    if (c == '"') {
      std::string dummy;
      return string(&dummy);
    }
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      pos_++;
      ws();
      if (eat(close)) return true;
      for (;;) {
        ws();
        if (c == '{') {
          std::string k;
          if (!string(&k)) return false;
          ws();
          if (!eat(':')) return err("expected ':'");
        }
        if (!skip_value()) return false;
        ws();
        if (eat(',')) continue;
        if (eat(close)) return true;
        return err("unterminated object or array");
      }
    }
    // number or literal
    const size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
            s_[pos_] == '-' || s_[pos_] == '+' || s_[pos_] == '.'))
      pos_++;
    return pos_ > start || err("unexpected character");
  }
  bool string(std::string *out) {
    if (!eat('"')) return err("expected a string");
    out->clear();
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return true;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
      const char e = s_[pos_++];
      switch (e) {
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return err("short \\u escape");
          unsigned v = 0;
          for (int k = 0; k < 4; k++) {
            const char h = s_[pos_++];
            if (!std::isxdigit(static_cast<unsigned char>(h)))
              return err("bad \\u escape");
            v = v * 16 + static_cast<unsigned>(std::isdigit(
                             static_cast<unsigned char>(h))
                                                   ? h - '0'
                                                   : (h | 0x20) - 'a' + 10);
          }
          // UTF-8 (surrogates are kept as they are: reports are ASCII).
          if (v < 0x80) {
            out->push_back(static_cast<char>(v));
          } else if (v < 0x800) {
            out->push_back(static_cast<char>(0xc0 | (v >> 6)));
            out->push_back(static_cast<char>(0x80 | (v & 0x3f)));
          } else {
            out->push_back(static_cast<char>(0xe0 | (v >> 12)));
            out->push_back(static_cast<char>(0x80 | ((v >> 6) & 0x3f)));
            out->push_back(static_cast<char>(0x80 | (v & 0x3f)));
          }
          break;
        }
        default:  // " \ /
          out->push_back(e);
      }
    }
    return err("unterminated string");
  }
  void ws() {
    while (pos_ < s_.size() &&
           std::isspace(static_cast<unsigned char>(s_[pos_])))
      pos_++;
  }
  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    pos_++;
    return true;
  }
  bool err(const std::string &what) {
    if (error_.empty())
      error_ = what + " at offset " + std::to_string(pos_);
    return false;
  }

  const std::string &s_;
  size_t pos_ = 0;
  std::string error_;
};

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
  Reader r(json);
  std::vector<Entry> v;
  if (!r.report(&v)) {
    if (why) *why = r.error();
    return std::nullopt;
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
