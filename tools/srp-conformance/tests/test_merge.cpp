// SPDX-License-Identifier: GPL-2.0-only
//
// Reading reports back: the JSON reader, merging and the comparison table.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "merge.h"
#include "report.h"

using namespace srp;
using namespace srp::merge;

namespace {

std::string report_of(const std::vector<CaseResult> &rs) {
  Options o;
  o.host = "10.0.0.1";
  o.port = "5000";
  return to_json(o, rs, "conformance");
}

CaseResult res(const std::string &name, CaseResult::Status st,
               const std::string &got = "") {
  CaseResult r;
  r.name = name;
  r.status = st;
  r.expected = "exp of " + name;
  r.got = got;
  if (st == CaseResult::Status::kSkip) r.reason = "why | \"quoted\"";
  return r;
}

// The keys of an object, in their order.
std::vector<std::string> keys_of(const nlohmann::ordered_json &o) {
  std::vector<std::string> keys;
  for (const auto &kv : o.items()) keys.push_back(kv.key());
  return keys;
}

}  // namespace

TEST(Merge, ReadsWhatToJsonWrites) {
  const std::string j = report_of(
      {res("login.valid", CaseResult::Status::kPass),
       res("acl.denied", CaseResult::Status::kSkip),
       res("scsi.inquiry", CaseResult::Status::kFail, "tab\there \\ \u00e9")});
  std::string why;
  auto v = parse_report(j, &why);
  ASSERT_TRUE(v) << why;
  ASSERT_EQ(v->size(), 3u);
  EXPECT_EQ((*v)[0].name, "login.valid");
  EXPECT_EQ((*v)[0].status, "pass");
  EXPECT_EQ((*v)[1].reason, "why | \"quoted\"");
  EXPECT_EQ((*v)[2].status, "fail");
  EXPECT_EQ((*v)[2].got, "tab\there \\ \u00e9");
  EXPECT_EQ((*v)[2].expected, "exp of scsi.inquiry");
}

// What scripts and the merge read: the keys in this order with these types;
// tests/guest/compare.sh edits "name": "fuzz..." in place with sed.
TEST(Report, Shape) {
  Options o;
  o.host = "10.0.0.1";
  o.port = "5000";
  o.lun = 7;
  CaseResult r =
      res("scsi.inquiry", CaseResult::Status::kFail, "q\"\\ \n\t\x01");
  r.seconds = 1.23456;
  r.iteration = 3;
  std::string j = to_json(o, {r}, "conformance");
  EXPECT_NE(j.find("\"name\": \"scsi.inquiry\""), std::string::npos) << j;
  EXPECT_NE(j.find("\\u0001"), std::string::npos) << j;
  auto v = nlohmann::ordered_json::parse(j);
  EXPECT_EQ(keys_of(v),
            (std::vector<std::string>{"tool", "mode", "target", "lun",
                                      "summary", "results"}));
  EXPECT_EQ(v["tool"], "srp-conformance");
  EXPECT_EQ(v["mode"], "conformance");
  EXPECT_EQ(v["target"], "10.0.0.1:5000");
  EXPECT_TRUE(v["lun"].is_number_unsigned());
  EXPECT_EQ(v["lun"], 7u);
  EXPECT_EQ(v["summary"].dump(), R"({"passed":0,"failed":1,"skipped":0})");
  ASSERT_EQ(v["results"].size(), 1u);
  const auto &e = v["results"][0];
  EXPECT_EQ(keys_of(e),
            (std::vector<std::string>{"name", "status", "expected", "got",
                                      "reason", "iteration", "seconds"}));
  EXPECT_EQ(e["status"], "fail");
  EXPECT_EQ(e["got"], "q\"\\ \n\t\x01");
  EXPECT_TRUE(e["iteration"].is_number_unsigned());
  EXPECT_EQ(e["iteration"], 3u);
  EXPECT_TRUE(e["seconds"].is_number_float());
  EXPECT_DOUBLE_EQ(e["seconds"].get<double>(), 1.235);

  o.fuzz = true;
  o.seed = UINT64_MAX;
  o.iterations = 1000;
  v = nlohmann::ordered_json::parse(to_json(o, {}, "fuzz"));
  EXPECT_EQ(keys_of(v),
            (std::vector<std::string>{"tool", "mode", "target", "lun", "seed",
                                      "iterations", "summary", "results"}));
  EXPECT_EQ(v["seed"], UINT64_MAX);
  EXPECT_EQ(v["iterations"], 1000u);
  EXPECT_TRUE(v["results"].is_array());
}

// The one-result reports tests/guest/compare.sh writes itself.
TEST(Merge, ReadsShellReports) {
  std::string why;
  auto v = parse_report(
      R"({"tool": "compare.sh", "results": [{"name": "fuzz", "status": )"
      R"("hang", "expected": "", "got": "no \"report\"", "reason": ""}]})"
      "\n",
      &why);
  ASSERT_TRUE(v) << why;
  ASSERT_EQ(v->size(), 1u);
  EXPECT_EQ((*v)[0].status, "hang");
  EXPECT_EQ((*v)[0].got, "no \"report\"");
}

TEST(Merge, UnicodeEscapesAndUnknownKeys) {
  std::string why;
  auto v = parse_report(
      R"({"x": [1, {"a": null}], "results": [{"name": "a\u0041", "status": )"
      R"("hang", "extra": {"k": [true, false, -1.5e3]}}]})",
      &why);
  ASSERT_TRUE(v) << why;
  ASSERT_EQ(v->size(), 1u);
  EXPECT_EQ((*v)[0].name, "aA");
  EXPECT_EQ((*v)[0].status, "hang");
}

TEST(Merge, RejectsBrokenJson) {
  std::string why;
  EXPECT_FALSE(parse_report("", &why));
  EXPECT_FALSE(parse_report("{\"results\": [", &why));
  EXPECT_FALSE(parse_report("{\"results\": [{\"name\": \"a\"}]}", &why));
  EXPECT_FALSE(parse_report("{\"summary\": {}}", &why));
  EXPECT_NE(why, "");
  EXPECT_FALSE(parse_report("{\"results\": []} x", &why));
  EXPECT_TRUE(parse_report("{\"results\": []}", &why));
  EXPECT_FALSE(parse_report("[]", &why));
  EXPECT_FALSE(parse_report("{\"results\": {}}", &why));
  EXPECT_FALSE(parse_report("{\"results\": [1]}", &why));
  EXPECT_FALSE(parse_report(
      "{\"results\": [{\"name\": 1, \"status\": \"pass\"}]}", &why));
}

TEST(Merge, MostSevereWins) {
  std::vector<Entry> a = {{"c1", "skip", "", "", "acl"},
                          {"c2", "pass", "", "", ""},
                          {"c3", "pass", "", "", ""}};
  std::vector<Entry> b = {{"c1", "pass", "", "", ""},
                          {"c2", "fail", "", "boom", ""},
                          {"c4", "skip", "", "", ""}};
  std::vector<Entry> c = {{"c3", "hang", "", "", ""}};
  auto m = srp::merge::merge({a, b, c});
  EXPECT_EQ(m.at("c1").status, "pass");
  EXPECT_EQ(m.at("c2").status, "fail");
  EXPECT_EQ(m.at("c2").got, "boom");
  EXPECT_EQ(m.at("c3").status, "hang");
  EXPECT_EQ(m.at("c4").status, "skip");
  EXPECT_GT(severity("crash"), severity("hang"));
  EXPECT_GT(severity("fail"), severity("pass"));
  EXPECT_GT(severity("skip"), severity("not run"));
  EXPECT_EQ(counts(m), "1 pass, 1 fail, 1 hang, 0 crash, 1 skip");
}

TEST(Merge, FilesAndTable) {
  const std::string f1 = ::testing::TempDir() + "/merge_a.json";
  const std::string f2 = ::testing::TempDir() + "/merge_b.json";
  const std::string f3 = ::testing::TempDir() + "/merge_c.json";
  std::ofstream(f1) << report_of({res("login.valid", CaseResult::Status::kPass),
                                  res("acl.denied", CaseResult::Status::kSkip)});
  std::ofstream(f2) << report_of({res("acl.denied", CaseResult::Status::kPass)});
  std::ofstream(f3) << report_of(
      {res("login.valid", CaseResult::Status::kFail, "a|b"),
       res("fuzz", CaseResult::Status::kPass)});
  std::string why;
  auto ours = merge_files({f1, f2}, &why);
  ASSERT_TRUE(ours) << why;
  auto other = merge_files({f3}, &why);
  ASSERT_TRUE(other) << why;
  EXPECT_FALSE(merge_files({f1, "/nonexistent/x.json"}, &why));
  EXPECT_NE(why.find("/nonexistent/x.json"), std::string::npos);

  const std::string t = compare_table({{"ours", *ours}, {"in-tree", *other}});
  EXPECT_EQ(t.rfind("| Case | Expected | ours | in-tree |\n|---|---|---|---|\n",
                    0),
            0u)
      << t;
  EXPECT_NE(t.find("| `login.valid` | "), std::string::npos);
  EXPECT_NE(t.find(" | pass | **fail**: a\\|b |\n"), std::string::npos) << t;
  EXPECT_NE(t.find("| `acl.denied` | "), std::string::npos);
  // Catalogue cases nobody ran, and extra cases (fuzz) at the end.
  EXPECT_NE(t.find("| `scsi.inquiry` | "), std::string::npos);
  EXPECT_NE(t.find(" | not run | not run |\n"), std::string::npos);
  EXPECT_NE(t.find("| `fuzz` | exp of fuzz | not run | pass |\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("- ours: 2 pass, 0 fail"), std::string::npos) << t;
  EXPECT_NE(t.find("- in-tree: 1 pass, 1 fail"), std::string::npos) << t;
  std::remove(f1.c_str());
  std::remove(f2.c_str());
  std::remove(f3.c_str());
}

TEST(Merge, CliOptions) {
  auto r = parse_args({"--merge", "a.json,b.json"});
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->merge_files, (std::vector<std::string>{"a.json", "b.json"}));
  r = parse_args({"--compare", "ours=a.json,b.json", "--compare=in-tree=c.json"});
  ASSERT_TRUE(r.options) << r.error;
  ASSERT_EQ(r.options->compare.size(), 2u);
  EXPECT_EQ(r.options->compare[0].first, "ours");
  EXPECT_EQ(r.options->compare[0].second.size(), 2u);
  EXPECT_EQ(r.options->compare[1].first, "in-tree");
  EXPECT_FALSE(parse_args({"--compare", "a.json"}).options);
  EXPECT_FALSE(parse_args({"--compare", "x="}).options);
  EXPECT_FALSE(parse_args({"--merge", "a", "--compare", "x=b"}).options);
  EXPECT_FALSE(parse_args({"--merge", ","}).options);
  r = parse_args({"--target", "h:1", "--id-ext", "1", "--ioc-guid", "2",
                  "--initiator-ext", "3", "--tpg-disabled", "--fuzz-batch",
                  "4", "--fuzz-login-percent", "5"});
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_TRUE(r.options->tpg_disabled);
  EXPECT_EQ(r.options->fuzz_batch, 4u);
  EXPECT_EQ(r.options->fuzz_login_percent, 5u);
  EXPECT_FALSE(parse_args({"--target", "h:1", "--id-ext", "1", "--ioc-guid",
                           "2", "--initiator-ext", "3", "--fuzz-batch", "65"})
                   .options);
  EXPECT_FALSE(parse_args({"--target", "h:1", "--id-ext", "1", "--ioc-guid",
                           "2", "--initiator-ext", "3", "--acl-denied",
                           "--tpg-disabled"})
                   .options);
}
