// SPDX-License-Identifier: GPL-2.0-only
//
// The flood mode against the in-process target model, which answers every
// command at once and bounds nothing: every WRITE comes back GOOD.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "fake_target.h"
#include "flood.h"

using namespace srp;
using namespace srp::test;

namespace {

Options flood_opts(uint32_t channels, uint64_t len, uint32_t cmds,
                   uint32_t secs) {
  Options o = model_options();
  o.flood_channels = channels;
  o.flood_len = len;
  o.flood_cmds = cmds;
  o.flood_secs = secs;
  return o;
}

// Runs the flood; @json gets stdout, the exit status is returned.
int run_flood(FakeTarget &t, const Options &o, std::string *json,
              std::string *log = nullptr) {
  Context ctx(t, o, nullptr);
  std::ostringstream out, err;
  const int rc = flood::run(ctx, out, err);
  *json = out.str();
  if (log) *log = err.str();
  return rc;
}

}  // namespace

TEST(Flood, JsonLine) {
  flood::Counts c;
  c.channels = 16;
  c.sent = 1000;
  c.good = 10;
  c.task_set_full = 985;
  c.busy = 1;
  c.other = 2;
  c.lost = 2;
  c.rejected_logins = 3;
  c.closed_channels = 1;
  c.seconds = 20.04;
  EXPECT_EQ(flood::to_json(c),
            "{\"channels\":16,\"sent\":1000,\"good\":10,\"task_set_full\":985,"
            "\"busy\":1,\"other\":2,\"lost\":2,\"rejected_logins\":3,"
            "\"closed_channels\":1,\"login_errors\":0,\"seconds\":20.0}");
}

TEST(Flood, OneRoundAllGood) {
  const Options o = flood_opts(3, 64 * 1024, 2, 0);
  FakeTarget t(model_config(o));
  std::string json, log;
  ASSERT_EQ(run_flood(t, o, &json, &log), 0) << log;
  EXPECT_EQ(json,
            "{\"channels\":3,\"sent\":6,\"good\":6,\"task_set_full\":0,"
            "\"busy\":0,\"other\":0,\"lost\":0,\"rejected_logins\":0,"
            "\"closed_channels\":0,\"login_errors\":0,\"seconds\":0.0}\n");
  EXPECT_EQ(t.live_channels(), 0u) << "channels left logged in";
  // The WRITEs wrote the registered memory (zeros) to LBA 0.
  for (size_t i = 0; i < 64 * 1024; i++) ASSERT_EQ(t.disk()[i], 0) << i;
  EXPECT_NE(t.disk()[64 * 1024 + 1], 0);
}

TEST(Flood, KeepsCommandsOutstandingForTheTime) {
  const Options o = flood_opts(2, 4096, 4, 1);
  FakeTarget t(model_config(o));
  std::string json, log;
  ASSERT_EQ(run_flood(t, o, &json, &log), 0) << log;
  // The model answers at once: many rounds in a second, all GOOD.
  unsigned long long sent = 0, good = 0;
  ASSERT_EQ(
      std::sscanf(json.c_str(), "{\"channels\":2,\"sent\":%llu,\"good\":%llu",
                  &sent, &good),
      2)
      << json;
  EXPECT_GT(sent, 8u);
  EXPECT_EQ(sent, good);
  EXPECT_NE(json.find("\"lost\":0,"), std::string::npos) << json;
  EXPECT_EQ(t.live_channels(), 0u);
}

TEST(Flood, RefusedLoginsAreCounted) {
  const Options o = flood_opts(4, 4096, 1, 0);
  FakeConfig cfg = model_config(o);
  cfg.acl_allows = false;
  FakeTarget t(cfg);
  std::string json;
  ASSERT_EQ(run_flood(t, o, &json), 0);
  EXPECT_EQ(json,
            "{\"channels\":0,\"sent\":0,\"good\":0,\"task_set_full\":0,"
            "\"busy\":0,\"other\":0,\"lost\":0,\"rejected_logins\":4,"
            "\"closed_channels\":0,\"login_errors\":0,\"seconds\":0.0}\n");
}

TEST(Flood, LunMustHoldTheLength) {
  for (uint64_t len : {uint64_t{8} << 20, uint64_t{1000}}) {
    const Options o = flood_opts(2, len, 1, 0);
    FakeTarget t(model_config(o));  // 4 MiB of 512-byte blocks
    std::string json, log;
    EXPECT_EQ(run_flood(t, o, &json, &log), 2) << len;
    EXPECT_TRUE(json.empty()) << json;
    EXPECT_NE(log.find("whole blocks"), std::string::npos) << log;
    EXPECT_EQ(t.live_channels(), 0u);
  }
}
