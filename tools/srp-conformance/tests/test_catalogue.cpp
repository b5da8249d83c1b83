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

// Options of a fuzz run with @seed (given on the command line) and
// @iterations.
Options fuzz_opts(uint64_t seed, uint64_t iterations) {
  Options o = model_options();
  o.fuzz = true;
  o.seed = seed;
  o.seed_given = true;
  o.iterations = iterations;
  return o;
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
  for (const char *g :
       {"login", "acl", "scsi", "malformed", "protocol", "hostile"})
    EXPECT_TRUE(groups.count(g)) << g;
}

TEST(Catalogue, Selection) {
  EXPECT_EQ(select_cases({}).size(), catalogue().size());
  auto l = select_cases({"login.*"});
  EXPECT_GE(l.size(), 15u);
  for (const Case *c : l) EXPECT_EQ(c->group(), "login");
  EXPECT_EQ(select_cases({"scsi.inquiry", "scsi.inquiry"}).size(), 1u);
  EXPECT_TRUE(select_cases({"nothing.*"}).empty());
  // Exclusions: from everything, or from what the other globs include.
  const auto no_hostile = select_cases({"!hostile.*"});
  EXPECT_EQ(no_hostile.size() + select_cases({"hostile.*"}).size(),
            catalogue().size());
  for (const Case *c : no_hostile) EXPECT_NE(c->group(), "hostile");
  EXPECT_EQ(select_cases({"scsi.*", "!scsi.inquiry*"}).size() + 3,
            select_cases({"scsi.*"}).size());
}

TEST(Catalogue, AllPassAgainstConformingModel) {
  Options o = model_options();
  FakeTarget t(model_config(o));
  auto m = run_all(t, o);
  EXPECT_EQ(failures(m), "");
  size_t skipped = 0;
  for (const auto &kv : m) {
    // With --lun 0 LUN 0 is not the virtual one: see VirtualLun0 below.
    if (kv.second.status == CaseResult::Status::kSkip &&
        kv.first != "scsi.virtual_lun0_no_stale_data") {
      skipped++;
      EXPECT_EQ(kv.first.rfind("acl.", 0), 0u) << result_line(kv.second);
    }
  }
  EXPECT_EQ(skipped, 4u);
  EXPECT_EQ(t.live_channels(), 0u);
}

// The LUN under test is 1: LUN 0 is the model's virtual one, READs of it
// must come back without stale data.
TEST(Catalogue, VirtualLun0) {
  Options o = model_options();
  o.lun = 1;
  FakeConfig c = model_config(o);
  c.lun = 1;
  FakeTarget t(c);
  auto m = run_all(t, o, "scsi.virtual_lun0_no_stale_data");
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(m.at("scsi.virtual_lun0_no_stale_data").status,
            CaseResult::Status::kPass);
}

TEST(Catalogue, ScratchAreaRestored) {
  Options o = model_options();
  FakeTarget t(model_config(o));
  Context probe(t, o, nullptr);
  probe.facts();
  const Bytes before = t.disk();
  auto m = run_all(t, o, "scsi.write_*");
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(t.disk(), before);
}

TEST(Catalogue, NoWriteSkipsWriters) {
  Options o = model_options();
  o.no_write = true;
  FakeTarget t(model_config(o));
  const auto m = run_all(t, o);
  EXPECT_EQ(failures(m), "");
  EXPECT_EQ(m.at("scsi.write_read_direct").status, CaseResult::Status::kSkip);
  EXPECT_EQ(m.at("scsi.inquiry").status, CaseResult::Status::kPass);
}

TEST(Catalogue, WithoutImmediateData) {
  Options o = model_options();
  FakeConfig c = model_config(o);
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
  Options o = model_options();
  o.acl_denied = true;
  FakeConfig c = model_config(o);
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
  Options o = model_options();
  o.tpg_disabled = true;
  FakeConfig c = model_config(o);
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
  Options o = model_options();
  o.tpg_disabled = true;
  FakeTarget t(model_config(o));  // enabled: the case must fail
  const auto m = run_all(t, o, "acl.tpg_disabled");
  EXPECT_EQ(m.at("acl.tpg_disabled").status, CaseResult::Status::kFail);
}

TEST(Catalogue, ShortPrivateDataDependsOnTransport) {
  Options o = model_options();
  FakeConfig c = model_config(o);
  c.exact_private_data = true;
  FakeTarget t(c);
  const auto m = run_all(t, o, "login.private_data_short");
  EXPECT_EQ(failures(m), "");
}

struct FaultCase {
  const char *name;
  void (*set)(FakeConfig &);
  const char *must_fail;
  const char *says = "";  // in the failure
};

void PrintTo(const FaultCase &f, std::ostream *os) { *os << f.name; }

class Faults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(Faults, Detected) {
  Options o = model_options();
  FakeConfig c = model_config(o);
  GetParam().set(c);
  FakeTarget t(c);
  const auto m = run_all(t, o, GetParam().must_fail);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.begin()->second.status, CaseResult::Status::kFail)
      << result_line(m.begin()->second);
  EXPECT_NE(result_line(m.begin()->second).find(GetParam().says),
            std::string::npos)
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
        FaultCase{"opcode_ignored",
                  [](FakeConfig &c) { c.ignore_unknown_opcode = true; },
                  "malformed.unknown_opcode"},
        FaultCase{"credit",
                  [](FakeConfig &c) { c.lose_credit_on_malformed = true; },
                  "malformed.direct_count_2"},
        FaultCase{"single", [](FakeConfig &c) { c.single_keeps_others = true; },
                  "login.single_terminates_existing"},
        FaultCase{"max", [](FakeConfig &c) { c.max_req_size = 100000; },
                  "login.it_iu_len_above_target_max"},
        // SCSI level: the hostile.* cases.
        FaultCase{"overrun", [](FakeConfig &c) { c.overrun_data_in = true; },
                  "hostile.inquiry", "outside the descriptors"},
        FaultCase{"leak", [](FakeConfig &c) { c.leak_in_tail = true; },
                  "hostile.inquiry", "past the"},
        FaultCase{"crash", [](FakeConfig &c) { c.drop_large_transfers = true; },
                  "hostile.set_target_port_groups", "no SRP_RSP"},
        FaultCase{"crash_read",
                  [](FakeConfig &c) { c.drop_large_transfers = true; },
                  "hostile.read_16", "no SRP_RSP"},
        FaultCase{"sense", [](FakeConfig &c) { c.sense_missing = true; },
                  "hostile.reserved_opcodes", "without valid sense"},
        FaultCase{"varlen", [](FakeConfig &c) { c.varlen_past_iu = true; },
                  "hostile.variable_length_cdb", "21/00"},
        FaultCase{"pr", [](FakeConfig &c) { c.pr_keeps_zero_register = true; },
                  "hostile.persistent_reserve_out_register",
                  "registration keys"},
        FaultCase{"read_writes",
                  [](FakeConfig &c) { c.follow_buffer_direction = true; },
                  "hostile.read_16", "written to the medium"},
        FaultCase{"write_sends",
                  [](FakeConfig &c) { c.follow_buffer_direction = true; },
                  "hostile.write_16", "past the 0 bytes"},
        // Send queue: a stalled initiator (the sendq.* cases).
        FaultCase{"stalled_rsp_lost",
                  [](FakeConfig &c) { c.drop_rsp_when_stalled = true; },
                  "sendq.stalled_receiver_check_condition", "no SRP_RSP"},
        FaultCase{"stalled_kept",
                  [](FakeConfig &c) { c.keep_stalled_channel = true; },
                  "sendq.stalled_receiver_ends_channel", "no DREQ"}),
    [](const ::testing::TestParamInfo<FaultCase> &i) {
      return std::string(i.param.name);
    });

TEST(Fuzz, RunsAgainstModel) {
  Options o = fuzz_opts(1234, 400);
  FakeTarget t(model_config(o));
  Context ctx(t, o, nullptr);
  std::ostringstream out;
  CaseResult r = fuzz::run(ctx, out);
  EXPECT_EQ(r.status, CaseResult::Status::kPass) << result_line(r);
  EXPECT_NE(out.str().find("seed 1234"), std::string::npos);
  ctx.restore_scratch();
}

TEST(Fuzz, StopsAtBrokenInvariant) {
  Options o = fuzz_opts(99, 2000);
  FakeConfig c = model_config(o);
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
  const std::string j = to_json(model_options(), {p, f}, "conformance");
  EXPECT_NE(j.find("\"failed\": 1"), std::string::npos);
  EXPECT_NE(j.find("\"name\": \"a.c\""), std::string::npos);
  const std::string md = list_cases(true);
  EXPECT_NE(md.find("| `login.valid` |"), std::string::npos);
}

TEST(Fuzz, OneByOneAndBatchedAgree) {
  for (uint32_t batch : {1u, 7u, 64u}) {
    Options o = fuzz_opts(4321, 300);
    o.fuzz_batch = batch;
    FakeTarget t(model_config(o));
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
  FakeConfig c = model_config(o);
  c.lose_credit_on_malformed = true;
  FakeTarget t(c);
  Context ctx(t, o, nullptr);
  std::ostringstream out;
  CaseResult r = fuzz::run(ctx, out);
  ASSERT_EQ(r.status, CaseResult::Status::kFail);
  EXPECT_NE(r.got.find("--seed 99 --fuzz-from "), std::string::npos) << r.got;
  EXPECT_NE(r.got.find("--fuzz-batch"), std::string::npos) << r.got;
}

// A SCSI fuzz run of 600 iterations with @seed against the model with
// @fault set.
CaseResult scsi_fuzz(uint64_t seed, bool FakeConfig::*fault) {
  Options o = fuzz_opts(seed, 600);
  o.fuzz_scsi = true;
  FakeConfig c = model_config(o);
  c.*fault = true;
  FakeTarget t(c);
  Context ctx(t, o, nullptr);
  std::ostringstream out;
  return fuzz::run(ctx, out);
}

TEST(Fuzz, ScsiLayerRunsAgainstModel) {
  Options o = fuzz_opts(2026, 600);
  o.fuzz_scsi = true;
  FakeTarget t(model_config(o));
  Context ctx(t, o, nullptr);
  Context probe(t, o, nullptr);
  const TargetFacts f = probe.facts();
  const Bytes before = t.disk();
  std::ostringstream out;
  CaseResult r = fuzz::run(ctx, out);
  EXPECT_EQ(r.status, CaseResult::Status::kPass) << result_line(r);
  EXPECT_NE(out.str().find("SCSI layer"), std::string::npos);
  EXPECT_NE(r.reason.find("SCSI answers"), std::string::npos) << r.reason;
  // Nothing written outside the scratch area; all of it restored.
  const size_t scratch = f.scratch_lba * f.block_size;
  EXPECT_TRUE(
      std::equal(before.begin(), before.begin() + scratch, t.disk().begin()));
  ctx.restore_scratch();
  EXPECT_EQ(t.disk(), before);
  EXPECT_EQ(t.registrations(), 0u);
}

TEST(Fuzz, ScsiLayerNoticesMissingResponses) {
  // No answer to large transfers.
  const CaseResult r = scsi_fuzz(2026, &FakeConfig::drop_large_transfers);
  ASSERT_EQ(r.status, CaseResult::Status::kFail);
  EXPECT_NE(r.got.find("no SRP_RSP"), std::string::npos) << r.got;
  EXPECT_NE(r.got.find("--fuzz-batch 1"), std::string::npos) << r.got;
}

TEST(Fuzz, ScsiLayerNoticesMissingSense) {
  const CaseResult r = scsi_fuzz(77, &FakeConfig::sense_missing);
  ASSERT_EQ(r.status, CaseResult::Status::kFail);
  EXPECT_NE(r.got.find("without valid sense"), std::string::npos) << r.got;
}
