// SPDX-License-Identifier: GPL-2.0-only
//
// The catalogue run end to end against the in-process target model: a
// conforming model passes every case; a misbehaving one makes the matching
// cases fail.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "cases.h"
#include "fake_target.h"
#include "fuzz.h"
#include "report.h"

using namespace srp;
using namespace srp::test;

namespace {

Options opts() {
  Options o;
  o.host = "fake";
  o.port = "1";
  o.id_ext = 0x0002c903000a0b0cull;
  o.ioc_guid = 0x0002c903000a0b0dull;
  o.initiator_ext = 0x1122;
  o.timeout_ms = 100;
  return o;
}

// Options of a fuzz run with @seed (given on the command line) and
// @iterations.
Options fuzz_opts(uint64_t seed, uint64_t iterations) {
  Options o = opts();
  o.fuzz = true;
  o.seed = seed;
  o.seed_given = true;
  o.iterations = iterations;
  return o;
}

FakeConfig config(const Options &o) {
  FakeConfig c;
  c.target_port_id = make_port_id(o.id_ext, o.ioc_guid);
  return c;
}

std::map<std::string, CaseResult> run_all(FakeTarget &t, const Options &o,
                                          const std::string &glob = "") {
  Context ctx(t, o, nullptr);
  std::map<std::string, CaseResult> m;
  for (const Case *c :
       select_cases(glob.empty() ? std::vector<std::string>{}
                                 : std::vector<std::string>{glob}))
    m[c->name] = run_case(ctx, *c);
  ctx.restore_scratch();
  return m;
}

std::string failures(const std::map<std::string, CaseResult> &m) {
  std::string s;
  for (const auto &kv : m)
    if (kv.second.status == CaseResult::Status::kFail)
      s += result_line(kv.second) + "\n";
  return s;
}

}  // namespace

TEST(Catalogue, Shape) {
  const auto &cs = catalogue();
  EXPECT_GE(cs.size(), 60u);
  std::set<std::string> names;
  std::set<std::string> groups;
  for (const auto &c : cs) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate " << c.name;
    groups.insert(c.group());
    EXPECT_FALSE(c.sends.empty()) << c.name;
    EXPECT_FALSE(c.expected.empty()) << c.name;
    EXPECT_FALSE(c.reason.empty()) << c.name;
    EXPECT_TRUE(c.run) << c.name;
    EXPECT_TRUE((c.needs & (kNeedsLogin | kNeedsAclDenied |
                            kNeedsTpgDisabled)) != 0)
        << c.name;
  }
  for (const char *g : {"login", "acl", "scsi", "malformed", "protocol"})
    EXPECT_TRUE(groups.count(g)) << g;
}

TEST(Catalogue, Selection) {
  EXPECT_EQ(select_cases({}).size(), catalogue().size());
  auto l = select_cases({"login.*"});
  EXPECT_GE(l.size(), 15u);
  for (const Case *c : l) EXPECT_EQ(c->group(), "login");
  EXPECT_EQ(select_cases({"scsi.inquiry", "scsi.inquiry"}).size(), 1u);
  EXPECT_TRUE(select_cases({"nothing.*"}).empty());
}

TEST(Catalogue, AllPassAgainstConformingModel) {
  Options o = opts();
  FakeTarget t(config(o));
  auto m = run_all(t, o);
  EXPECT_EQ(failures(m), "");
  size_t skipped = 0;
  for (const auto &kv : m) {
    if (kv.second.status == CaseResult::Status::kSkip) {
      skipped++;
      EXPECT_EQ(kv.first.rfind("acl.", 0), 0u) << result_line(kv.second);
    }
  }
  EXPECT_EQ(skipped, 4u);
  EXPECT_EQ(t.live_channels(), 0u);
}

TEST(Catalogue, ScratchAreaRestored) {
  Options o = opts();
  FakeTarget t(config(o));
  Context probe(t, o, nullptr);
  probe.facts();
  const Bytes before = t.disk();
  auto m = run_all(t, o, "scsi.write_*");
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(t.disk(), before);
}

TEST(Catalogue, NoWriteSkipsWriters) {
  Options o = opts();
  o.no_write = true;
  FakeTarget t(config(o));
  const auto m = run_all(t, o);
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(m.at("scsi.write_read_direct").status, CaseResult::Status::kSkip);
  EXPECT_EQ(m.at("scsi.inquiry").status, CaseResult::Status::kPass);
}

TEST(Catalogue, WithoutImmediateData) {
  Options o = opts();
  FakeConfig c = config(o);
  c.immediate = false;
  FakeTarget t(c);
  const auto m = run_all(t, o);
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(m.at("login.immediate_offset_51").status,
            CaseResult::Status::kSkip);
  EXPECT_EQ(m.at("login.immediate_requested").status,
            CaseResult::Status::kPass);
  EXPECT_EQ(m.at("malformed.immediate_not_negotiated").status,
            CaseResult::Status::kPass);
}

TEST(Catalogue, AclDenied) {
  Options o = opts();
  o.acl_denied = true;
  FakeConfig c = config(o);
  c.acl_allows = false;
  FakeTarget t(c);
  const auto m = run_all(t, o);
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(m.at("acl.denied").status, CaseResult::Status::kPass);
  EXPECT_EQ(m.at("acl.denied_repeated").status, CaseResult::Status::kPass);
  EXPECT_EQ(m.at("login.valid").status, CaseResult::Status::kSkip);
  EXPECT_EQ(m.at("acl.tpg_disabled").status, CaseResult::Status::kSkip);
}

TEST(Catalogue, TpgDisabled) {
  Options o = opts();
  o.tpg_disabled = true;
  FakeConfig c = config(o);
  c.tpg_enabled = false;
  FakeTarget t(c);
  const auto m = run_all(t, o);
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(m.at("acl.tpg_disabled").status, CaseResult::Status::kPass);
  EXPECT_EQ(m.at("acl.tpg_disabled_repeated").status,
            CaseResult::Status::kPass);
  EXPECT_EQ(m.at("acl.denied").status, CaseResult::Status::kSkip);
  EXPECT_EQ(m.at("login.valid").status, CaseResult::Status::kSkip);
  EXPECT_EQ(t.live_channels(), 0u);
}

TEST(Catalogue, TpgDisabledNoticesAcceptedLogin) {
  Options o = opts();
  o.tpg_disabled = true;
  FakeTarget t(config(o));  // enabled: the case must fail
  const auto m = run_all(t, o, "acl.tpg_disabled");
  EXPECT_EQ(m.at("acl.tpg_disabled").status, CaseResult::Status::kFail);
}

TEST(Catalogue, ShortPrivateDataDependsOnTransport) {
  Options o = opts();
  FakeConfig c = config(o);
  c.exact_private_data = true;
  FakeTarget t(c);
  const auto m = run_all(t, o, "login.private_data_short");
  EXPECT_EQ(failures(m), "");
}

struct FaultCase {
  const char *name;
  void (*set)(FakeConfig &);
  const char *must_fail;
};

void PrintTo(const FaultCase &f, std::ostream *os) { *os << f.name; }

class Faults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(Faults, Detected) {
  Options o = opts();
  FakeConfig c = config(o);
  GetParam().set(c);
  FakeTarget t(c);
  const auto m = run_all(t, o, GetParam().must_fail);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.begin()->second.status, CaseResult::Status::kFail)
      << result_line(m.begin()->second);
}

INSTANTIATE_TEST_SUITE_P(
    Model, Faults,
    ::testing::Values(
        FaultCase{"task_attr",
                  [](FakeConfig &c) { c.accept_bad_task_attr = true; },
                  "malformed.task_attr_3"},
        FaultCase{"tmf", [](FakeConfig &c) { c.drop_unknown_tmf = true; },
                  "malformed.tmf_unknown_function"},
        FaultCase{"opcode",
                  [](FakeConfig &c) { c.close_on_unknown_opcode = true; },
                  "malformed.unknown_opcode"},
        FaultCase{"credit",
                  [](FakeConfig &c) { c.lose_credit_on_malformed = true; },
                  "malformed.direct_count_2"},
        FaultCase{"single", [](FakeConfig &c) { c.single_keeps_others = true; },
                  "login.single_terminates_existing"},
        FaultCase{"max", [](FakeConfig &c) { c.max_req_size = 100000; },
                  "login.it_iu_len_above_target_max"}),
    [](const ::testing::TestParamInfo<FaultCase> &i) {
      return std::string(i.param.name);
    });

TEST(Fuzz, RunsAgainstModel) {
  Options o = fuzz_opts(1234, 400);
  FakeTarget t(config(o));
  Context ctx(t, o, nullptr);
  std::ostringstream out;
  CaseResult r = fuzz::run(ctx, out);
  EXPECT_EQ(r.status, CaseResult::Status::kPass) << result_line(r);
  EXPECT_NE(out.str().find("seed 1234"), std::string::npos);
  ctx.restore_scratch();
}

TEST(Fuzz, StopsAtBrokenInvariant) {
  Options o = fuzz_opts(99, 2000);
  FakeConfig c = config(o);
  c.lose_credit_on_malformed = true;  // credits drain away
  FakeTarget t(c);
  Context ctx(t, o, nullptr);
  std::ostringstream out;
  CaseResult r = fuzz::run(ctx, out);
  ASSERT_EQ(r.status, CaseResult::Status::kFail);
  EXPECT_EQ(r.name.rfind("fuzz.iteration_", 0), 0u);
  EXPECT_NE(r.got.find("--seed 99 --fuzz-from "), std::string::npos) << r.got;
}

TEST(Report, Lines) {
  CaseResult p{"a.b", CaseResult::Status::kPass, "x", "", "", 0, 0};
  CaseResult f{"a.c", CaseResult::Status::kFail, "GOOD", "BUSY", "", 0, 0};
  CaseResult s{"a.d", CaseResult::Status::kSkip, "", "", "why", 0, 0};
  EXPECT_EQ(result_line(p), "PASS a.b");
  EXPECT_EQ(result_line(f), "FAIL a.c: expected GOOD, got BUSY");
  EXPECT_EQ(result_line(s), "SKIP a.d: why");
  EXPECT_EQ(summary_line({p, f, s, p}), "2 passed, 1 failed, 1 skipped");
  const std::string j = to_json(opts(), {p, f}, "conformance");
  EXPECT_NE(j.find("\"failed\": 1"), std::string::npos);
  EXPECT_NE(j.find("\"name\": \"a.c\""), std::string::npos);
  EXPECT_EQ(json_escape("a\"b\\c\n\x01"), "a\\\"b\\\\c\\n\\u0001");
  const std::string md = list_cases(true);
  EXPECT_NE(md.find("| `login.valid` |"), std::string::npos);
}

TEST(Fuzz, OneByOneAndBatchedAgree) {
  for (uint32_t batch : {1u, 7u, 64u}) {
    Options o = fuzz_opts(4321, 300);
    o.fuzz_batch = batch;
    FakeTarget t(config(o));
    Context ctx(t, o, nullptr);
    std::ostringstream out;
    CaseResult r = fuzz::run(ctx, out);
    EXPECT_EQ(r.status, CaseResult::Status::kPass) << result_line(r);
    EXPECT_NE(r.reason.find("mutated IUs"), std::string::npos) << r.reason;
    EXPECT_NE(out.str().find("batch " + std::to_string(batch)),
              std::string::npos);
    ctx.restore_scratch();
  }
}

TEST(Fuzz, BrokenInvariantInABatchNamesTheBatch) {
  Options o = fuzz_opts(99, 2000);
  o.fuzz_batch = 8;
  FakeConfig c = config(o);
  c.lose_credit_on_malformed = true;
  FakeTarget t(c);
  Context ctx(t, o, nullptr);
  std::ostringstream out;
  CaseResult r = fuzz::run(ctx, out);
  ASSERT_EQ(r.status, CaseResult::Status::kFail);
  EXPECT_NE(r.got.find("--seed 99 --fuzz-from "), std::string::npos) << r.got;
  EXPECT_NE(r.got.find("--fuzz-batch"), std::string::npos) << r.got;
}
