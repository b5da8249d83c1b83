// SPDX-License-Identifier: GPL-2.0-only
//
// The hostile.* cases: the answer rules (judge()) on hand-made responses,
// and the cases against the target model, conforming and with SCSI-level
// faults each of which one case must notice.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_target.h"
#include "hostile.h"
#include "report.h"

using namespace srp;
using namespace srp::hostile;
using namespace srp::test;

namespace {

const Sense kCdb{kSenseIllegalRequest, 0x24, 0x00};

Rsp good(uint8_t flags = 0, uint32_t out_res = 0, uint32_t in_res = 0) {
  Rsp r;
  r.status = kStatusGood;
  r.flags = flags;
  r.data_out_res_cnt = out_res;
  r.data_in_res_cnt = in_res;
  return r;
}

Rsp check(uint8_t key, uint8_t asc, uint8_t ascq, bool with_sense = true) {
  Rsp r;
  r.status = kStatusCheckCondition;
  if (with_sense) {
    r.flags = kRspFlagSnsValid;
    r.sense = {0x70, 0, key, 0, 0, 0, 0, 10, 0, 0, 0, 0, asc, ascq, 0, 0, 0, 0};
  }
  return r;
}

Accept accept_cdb() {
  Accept a;
  a.senses = {kCdb};
  return a;
}

// INQUIRY allocation length 36 with an @len-byte data-in buffer.
Shot inquiry(uint64_t len) { return {DataDir::kIn, 36, DataDir::kIn, len}; }

// Runs the cases matching @glob against @t.
std::vector<CaseResult> run_cases(FakeTarget &t, const Options &o,
                                  const std::string &glob) {
  Context ctx(t, o, nullptr);
  std::vector<CaseResult> v;
  for (const Case *c : select_cases({glob})) v.push_back(run_case(ctx, *c));
  ctx.restore_scratch();
  return v;
}

}  // namespace

TEST(Judge, StatusAndSense) {
  const Accept a = accept_cdb();
  EXPECT_EQ(judge(inquiry(36), a, good()), "");
  EXPECT_EQ(judge(inquiry(36), a, check(5, 0x24, 0)), "");
  EXPECT_NE(judge(inquiry(36), a, check(5, 0x26, 0)).find("not among"),
            std::string::npos);
  EXPECT_NE(judge(inquiry(36), a, check(5, 0x24, 0, false))
                .find("without valid sense"),
            std::string::npos);
  Rsp busy;
  busy.status = kStatusBusy;
  EXPECT_NE(judge(inquiry(36), a, busy), "");
  Rsp conflict;
  conflict.status = kStatusReservationConflict;
  EXPECT_NE(judge(inquiry(36), a, conflict), "");
  Accept c = a;
  c.conflict = true;
  EXPECT_EQ(judge(inquiry(36), c, conflict), "");
  Accept refuse = a;
  refuse.good = false;
  EXPECT_NE(judge(inquiry(36), refuse, good()).find("GOOD"), std::string::npos);
  Accept any;
  any.any_sense = true;
  EXPECT_EQ(judge(inquiry(36), any, check(0xe, 0x1d, 0)), "");
  EXPECT_NE(judge(inquiry(36), any, check(0xe, 0x1d, 0, false)), "");
}

TEST(Judge, Residuals) {
  const Accept a = accept_cdb();
  // A 96-byte buffer for 36 bytes: 60 bytes short.
  EXPECT_EQ(judge(inquiry(96), a, good(kRspFlagDiUnder, 0, 60)), "");
  EXPECT_EQ(judge(inquiry(96), a, good(kRspFlagDiUnder, 0, 90)), "");
  // Without DIUNDER (or with too small a count) 96 bytes arrived.
  EXPECT_NE(judge(inquiry(96), a, good()), "");
  EXPECT_NE(judge(inquiry(96), a, good(kRspFlagDiUnder, 0, 59)), "");
  // UNDER beyond the buffer, or by 0.
  EXPECT_NE(judge(inquiry(96), a, good(kRspFlagDiUnder, 0, 97)), "");
  EXPECT_NE(judge(inquiry(96), a, good(kRspFlagDiUnder, 0, 0)), "");
  // UNDER and OVER together.
  EXPECT_NE(
      judge(inquiry(96), a, good(kRspFlagDiUnder | kRspFlagDiOver, 0, 60)), "");
  // A 20-byte buffer for 36 bytes: OVER by up to 16.
  EXPECT_EQ(judge(inquiry(20), a, good(kRspFlagDiOver, 0, 16)), "");
  EXPECT_EQ(judge(inquiry(20), a, good()), "");
  EXPECT_NE(judge(inquiry(20), a, good(kRspFlagDiOver, 0, 17)), "");
  EXPECT_NE(judge(inquiry(20), a, good(kRspFlagDiOver, 0, 0)), "");
  // OVER although the buffer was large enough.
  EXPECT_NE(judge(inquiry(36), a, good(kRspFlagDiOver, 0, 4)), "");
  // Flags of the direction without a buffer: data-out UNDER for a data-in
  // buffer; OVER is possible (a command that wanted data-out).
  EXPECT_NE(judge(inquiry(36), a, good(kRspFlagDoUnder, 4, 0)), "");
  EXPECT_EQ(judge({DataDir::kOut, 24, DataDir::kNone, 0}, a,
                  good(kRspFlagDoOver, 24, 0)),
            "");
  // The CHECK CONDITION residual rules are the same.
  Rsp cc = check(5, 0x24, 0);
  cc.flags |= kRspFlagDoUnder;
  cc.data_out_res_cnt = 10;
  EXPECT_NE(judge(inquiry(36), a, cc), "");
  // A data-out command with a data-in buffer: GOOD rules do not apply.
  EXPECT_EQ(judge({DataDir::kOut, 24, DataDir::kIn, 4096}, a, good()), "");
}

// Without a buffer, or with one that contradicts the CDB, LIO answers TASK
// SET FULL or NOT READY 08/00: accepted there, and only there.
TEST(Judge, OddBuffer) {
  const Accept a = accept_cdb();
  Rsp full;
  full.status = kStatusTaskSetFull;
  const Rsp comm = check(kSenseNotReady, 0x08, 0);
  const Shot none{DataDir::kIn, 0, DataDir::kNone, 0};
  const Shot reversed{DataDir::kIn, 36, DataDir::kOut, 36};
  for (const Shot &odd : {none, inquiry(37), reversed}) {
    EXPECT_EQ(judge(odd, a, full), "");
    EXPECT_EQ(judge(odd, a, comm), "");
  }
  EXPECT_NE(judge(inquiry(36), a, full), "");
  EXPECT_NE(judge(inquiry(36), a, comm), "");
  EXPECT_NE(judge(none, a, check(kSenseNotReady, 0x04, 0)), "");
}

TEST(Judge, DataInArrivedAndText) {
  EXPECT_EQ(data_in_arrived(inquiry(96), good(kRspFlagDiUnder, 0, 60)), 36u);
  EXPECT_EQ(data_in_arrived(inquiry(96), good()), 96u);
  EXPECT_EQ(data_in_arrived(inquiry(20), good(kRspFlagDiOver, 0, 16)), 20u);
  EXPECT_EQ(data_in_arrived({DataDir::kOut, 24, DataDir::kOut, 24}, good()),
            0u);
  Accept a = accept_cdb();
  a.senses.push_back({kSenseIllegalRequest, 0x20, 0});
  a.conflict = true;
  EXPECT_EQ(accepted_text(a),
            "GOOD or CHECK CONDITION with ILLEGAL REQUEST 24/00, ILLEGAL "
            "REQUEST 20/00 or RESERVATION CONFLICT");
  Accept refuse;
  refuse.good = false;
  refuse.any_sense = true;
  EXPECT_EQ(accepted_text(refuse), "CHECK CONDITION with valid sense data");
}

TEST(Hostile, EveryCommandHasACase) {
  for (const auto &c : catalogue()) {
    if (c.group() != "hostile") continue;
    EXPECT_FALSE(c.sends.empty()) << c.name;
    EXPECT_NE(c.expected.find("SRP_RSP"), std::string::npos) << c.name;
  }
  for (const char *n :
       {"hostile.inquiry", "hostile.set_target_port_groups",
        "hostile.persistent_reserve_out_register", "hostile.extended_copy",
        "hostile.write_same_32", "hostile.variable_length_cdb",
        "hostile.reserved_opcodes"})
    EXPECT_EQ(select_cases({n}).size(), 1u) << n;
}

// Against the conforming model every hostile case passes, writes nothing
// outside the scratch area and leaves no registration.
TEST(Hostile, ConformingModelAndScratchArea) {
  Options o = model_options();
  FakeTarget t(model_config(o));
  Context probe(t, o, nullptr);
  const TargetFacts f = probe.facts();
  const Bytes before = t.disk();
  std::string fails;
  Context ctx(t, o, nullptr);
  for (const Case *c : select_cases({"hostile.*"})) {
    const CaseResult r = run_case(ctx, *c);
    if (r.status != CaseResult::Status::kPass) fails += result_line(r) + "\n";
  }
  EXPECT_EQ(fails, "");
  const size_t scratch = f.scratch_lba * f.block_size;
  EXPECT_TRUE(
      std::equal(before.begin(), before.begin() + scratch, t.disk().begin()))
      << "written outside the scratch area";
  EXPECT_NE(before, t.disk()) << "nothing written at all";
  ctx.restore_scratch();
  EXPECT_EQ(before, t.disk());
  EXPECT_EQ(t.registrations(), 0u);
  EXPECT_EQ(t.live_channels(), 0u);
}

TEST(Hostile, NoWriteSkipsTheWriters) {
  Options o = model_options();
  o.no_write = true;
  FakeTarget t(model_config(o));
  const Bytes before = [&] {
    Context probe(t, o, nullptr);
    probe.facts();
    return t.disk();
  }();
  for (const CaseResult &r : run_cases(t, o, "hostile.*")) {
    EXPECT_NE(r.status, CaseResult::Status::kFail) << result_line(r);
    // Writers, and what a target that writes data-out buffers to the
    // medium whatever the CDB says (LIO) turns into one.
    const bool writer = r.name.find("write") != std::string::npos ||
                        r.name.find("read_1") != std::string::npos ||
                        r.name.find("verify") != std::string::npos ||
                        r.name.find("synchronize") != std::string::npos ||
                        r.name == "hostile.unmap" ||
                        r.name == "hostile.extended_copy" ||
                        r.name == "hostile.variable_length_cdb";
    EXPECT_EQ(r.status == CaseResult::Status::kSkip, writer) << r.name;
  }
  EXPECT_EQ(t.disk(), before);
}

// The clean-up removes registrations of this initiator and of others.
TEST(Hostile, ClearReservations) {
  Options o = model_options();
  FakeTarget t(model_config(o));
  Context ctx(t, o, nullptr);
  ctx.facts();
  auto s = ctx.login();
  auto keys = registration_keys(ctx, *s);
  ASSERT_TRUE(keys);
  EXPECT_TRUE(keys->empty());
  // Register key 5 through the PR OUT REGISTER of the case's command.
  Bytes list(24, 0);
  put_be64(list, 8, 5);
  std::copy(list.begin(), list.end(), s->channel().data());
  CmdBuilder b;
  b.cdb({0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0})
      .direct(DataDir::kOut,
              {s->channel().data_va(0), s->channel().data_rkey(), 24});
  expect_good(exec(ctx, *s, b), "REGISTER");
  keys = registration_keys(ctx, *s);
  ASSERT_TRUE(keys);
  EXPECT_EQ(*keys, std::vector<uint64_t>{5});
  EXPECT_EQ(clear_reservations(ctx, *s), "");
  EXPECT_EQ(t.registrations(), 0u);
  no_violations(*s);
}
