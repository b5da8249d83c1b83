// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include "cli.h"

using namespace srp;

namespace {
std::vector<std::string> base() {
  return {"--target",        "10.99.0.1:5000",
          "--id-ext",        "0x0002c903000a0b0c",
          "--ioc-guid",      "0002:c903:000a:0b0c",
          "--initiator-ext", "1"};
}
}  // namespace

TEST(Cli, Required) {
  auto r = parse_args(base());
  ASSERT_TRUE(r.options) << r.error;
  const Options &o = *r.options;
  EXPECT_EQ(o.host, "10.99.0.1");
  EXPECT_EQ(o.port, "5000");
  EXPECT_EQ(o.id_ext, 0x0002c903000a0b0cull);
  EXPECT_EQ(o.ioc_guid, 0x0002c903000a0b0cull);
  EXPECT_EQ(o.initiator_ext, 1u);
  EXPECT_EQ(o.timeout_ms, 5000u);
  EXPECT_EQ(o.iterations, 1u);
  EXPECT_FALSE(o.fuzz);
  EXPECT_TRUE(o.case_globs.empty());
}

TEST(Cli, MissingRequired) {
  for (size_t drop = 0; drop < 8; drop += 2) {
    auto a = base();
    a.erase(a.begin() + static_cast<long>(drop),
            a.begin() + static_cast<long>(drop) + 2);
    auto r = parse_args(a);
    EXPECT_FALSE(r.options) << "without " << base()[drop];
    EXPECT_NE(r.error.find("required"), std::string::npos);
  }
}

TEST(Cli, ListAndHelpNeedNothing) {
  EXPECT_TRUE(parse_args({"--list"}).options->list);
  EXPECT_TRUE(parse_args({"--list-markdown"}).options->list_markdown);
  EXPECT_TRUE(parse_args({"--help"}).options->help);
  EXPECT_TRUE(parse_args({"-h"}).options->help);
}

TEST(Cli, AllOptions) {
  auto a = base();
  for (const char *s : {"--cases",
                        "login.*,malformed.imm_*,,",
                        "--seed",
                        "42",
                        "--iterations",
                        "7",
                        "--fuzz",
                        "--json",
                        "out.json",
                        "--timeout-ms",
                        "250",
                        "--lun",
                        "3",
                        "--verbose",
                        "--acl-denied",
                        "--no-write",
                        "--it-iu-len=4096",
                        "--target-max-it-iu",
                        "16384",
                        "--data-size",
                        "0x800000",
                        "--fuzz-from",
                        "12"})
    a.push_back(s);
  auto r = parse_args(a);
  ASSERT_TRUE(r.options) << r.error;
  const Options &o = *r.options;
  EXPECT_EQ(o.case_globs,
            (std::vector<std::string>{"login.*", "malformed.imm_*"}));
  EXPECT_EQ(o.seed, 42u);
  EXPECT_TRUE(o.seed_given);
  EXPECT_EQ(o.iterations, 7u);
  EXPECT_TRUE(o.fuzz);
  EXPECT_EQ(o.json_path, "out.json");
  EXPECT_EQ(o.timeout_ms, 250u);
  EXPECT_EQ(o.lun, 3u);
  EXPECT_TRUE(o.verbose);
  EXPECT_TRUE(o.acl_denied);
  EXPECT_TRUE(o.no_write);
  EXPECT_EQ(o.it_iu_len, 4096u);
  EXPECT_EQ(o.target_max_it_iu, 16384u);
  EXPECT_EQ(o.data_size, 0x800000u);
  EXPECT_EQ(o.fuzz_from, 12u);
}

TEST(Cli, FuzzDefaultsToThousandIterations) {
  auto a = base();
  a.push_back("--fuzz");
  EXPECT_EQ(parse_args(a).options->iterations, 1000u);
}

TEST(Cli, Errors) {
  struct {
    std::vector<std::string> extra;
    const char *msg;
  } bad[] = {
      {{"--bogus"}, "unknown option"},
      {{"--timeout-ms", "0"}, "--timeout-ms"},
      {{"--timeout-ms", "abc"}, "--timeout-ms"},
      {{"--iterations", "0"}, "--iterations"},
      {{"--it-iu-len", "63"}, "--it-iu-len"},
      {{"--seed"}, "--seed"},
      {{"--cases", ","}, "--cases"},
      {{"--id-ext", "xyz"}, "--id-ext"},
      {{"--ioc-guid", "0x12345678901234567"}, "--ioc-guid"},
      {{"--target", "nohostport"}, "--target"},
      {{"--target", "host:0"}, "--target"},
      {{"--target", "host:70000"}, "--target"},
      {{"--target", "fe80::1:5000"}, "--target"},
      {{"--data-size", "10"}, "--data-size"},
      {{"--fuzz=1"}, "fuzz"},
      {{"--json="}, "--json"},
      {{"--json", ""}, "--json"},
      {{"--cases"}, "--cases"},
      {{"--retry-count", "8"}, "--retry-count"},
      {{"--lun", "0x100000000"}, "--lun"},
      {{"--fuzz-login-percent", "101"}, "--fuzz-login-percent"},
      {{"--target-max-it-iu", "0xffffffff"}, "--target-max-it-iu"},
      {{"positional"}, "unknown option 'positional'"},
      {{"--"}, "unknown option '--'"},
      {{"-x"}, "unknown option '-x'"},
      {{"--verb"}, "unknown option '--verb'"},
      {{"--lun", "x", "--lun", "1"}, "--lun"},
  };
  for (auto &b : bad) {
    auto a = base();
    a.insert(a.end(), b.extra.begin(), b.extra.end());
    auto r = parse_args(a);
    EXPECT_FALSE(r.options) << b.extra[0];
    EXPECT_NE(r.error.find(b.msg), std::string::npos) << r.error;
  }
}

// The options and spellings tests/guest and scripts/ use.
TEST(Cli, GuestScripts) {
  auto a = base();
  for (const char *s :
       {"--retry-count", "1", "--cases",
        "protocol.vanish_mid_read_finite_retry,malformed.invalid_rkey_*",
        "--cases", "acl.*", "--tpg-disabled", "--json", "r.json",
        "--target-max-it-iu", "0x2044", "--lun", "1"})
    a.push_back(s);
  auto r = parse_args(a);
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->retry_count, 1u);
  EXPECT_EQ(r.options->case_globs,
            (std::vector<std::string>{"protocol.vanish_mid_read_finite_retry",
                                      "malformed.invalid_rkey_*", "acl.*"}));
  EXPECT_TRUE(r.options->tpg_disabled);
  EXPECT_EQ(r.options->json_path, "r.json");
  EXPECT_EQ(r.options->target_max_it_iu, 0x2044u);
  EXPECT_EQ(r.options->lun, 1u);

  a = base();
  for (const char *s :
       {"--lun", "2", "--fuzz-scsi", "--seed", "20261203", "--iterations", "50",
        "--acl-denied", "--cases", "!hostile.*", "--it-iu-len", "8260"})
    a.push_back(s);
  r = parse_args(a);
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_TRUE(r.options->fuzz);
  EXPECT_TRUE(r.options->fuzz_scsi);
  EXPECT_EQ(r.options->seed, 20261203u);
  EXPECT_TRUE(r.options->seed_given);
  EXPECT_EQ(r.options->iterations, 50u);
  EXPECT_TRUE(r.options->iterations_given);
  EXPECT_TRUE(r.options->acl_denied);
  EXPECT_EQ(r.options->case_globs, (std::vector<std::string>{"!hostile.*"}));

  // A value is the next argument whatever it looks like; the last use of
  // an option counts.
  r = parse_args({"--list", "--json", "--fuzz", "--lun", "1", "--lun=2"});
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->json_path, "--fuzz");
  EXPECT_FALSE(r.options->fuzz);
  EXPECT_EQ(r.options->lun, 2u);
  EXPECT_FALSE(r.options->seed_given);
  EXPECT_EQ(r.options->iterations, 1u);
}

TEST(Cli, HostPort) {
  std::string h, p;
  EXPECT_TRUE(split_host_port("[fe80::1%eth0]:5000", &h, &p));
  EXPECT_EQ(h, "fe80::1%eth0");
  EXPECT_EQ(p, "5000");
  EXPECT_TRUE(split_host_port("target.example:65535", &h, &p));
  EXPECT_EQ(h, "target.example");
  EXPECT_FALSE(split_host_port("[::1]5000", &h, &p));
  EXPECT_FALSE(split_host_port(":5000", &h, &p));
  EXPECT_FALSE(split_host_port("h:", &h, &p));
  EXPECT_FALSE(split_host_port("h:5x", &h, &p));
}

TEST(Cli, Numbers) {
  EXPECT_EQ(parse_hex64("ffffffffffffffff"), 0xffffffffffffffffull);
  EXPECT_EQ(parse_hex64("0XAbC"), 0xabcu);
  EXPECT_EQ(parse_hex64("fe80:0000:0000:0001"), 0xfe80000000000001ull);
  EXPECT_FALSE(parse_hex64(""));
  EXPECT_FALSE(parse_hex64("0x"));
  EXPECT_FALSE(parse_hex64("12g"));
  EXPECT_EQ(parse_u64("18446744073709551615"), 18446744073709551615ull);
  EXPECT_FALSE(parse_u64("18446744073709551616"));
  EXPECT_EQ(parse_u64("0x10"), 16u);
  EXPECT_FALSE(parse_u64("-1"));
}

TEST(Cli, Glob) {
  EXPECT_TRUE(glob_match("*", "login.valid"));
  EXPECT_TRUE(glob_match("login.*", "login.valid"));
  EXPECT_FALSE(glob_match("login.*", "scsi.inquiry"));
  EXPECT_TRUE(glob_match("*.imm*_52", "login.immediate_offset_52"));
  EXPECT_TRUE(glob_match("scsi.tmf_?bort*", "scsi.tmf_abort_task_set"));
  EXPECT_FALSE(glob_match("scsi.tmf", "scsi.tmf_abort_task_set"));
  EXPECT_TRUE(glob_match("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(glob_match("a*b*c", "aXXbYY"));
  EXPECT_TRUE(glob_match("", ""));
}

TEST(Cli, UsageMentionsEveryOption) {
  const std::string u = usage();
  for (const char *o : {"--target",        "--id-ext",
                        "--ioc-guid",      "--initiator-ext",
                        "--cases",         "--list",
                        "--seed",          "--iterations",
                        "--fuzz",          "--json",
                        "--timeout-ms",    "--lun",
                        "--verbose",       "--help",
                        "--acl-denied",    "--no-write",
                        "--it-iu-len",     "--target-max-it-iu",
                        "--data-size",     "--fuzz-from",
                        "--list-markdown", "--tpg-disabled",
                        "--fuzz-scsi",     "--retry-count",
                        "--fuzz-batch",    "--fuzz-login-percent",
                        "--merge",         "--compare",
                        "--flood",         "--flood-len",
                        "--flood-cmds",    "--flood-secs",
                        "--flood-rr0"})
    EXPECT_NE(u.find(o), std::string::npos) << o;
}

TEST(Cli, Flood) {
  auto a = base();
  a.insert(a.end(), {"--flood", "16", "--lun", "1"});
  auto r = parse_args(a);
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->flood_channels, 16u);
  EXPECT_EQ(r.options->flood_len, 32u << 20);
  EXPECT_EQ(r.options->flood_cmds, 4u);
  EXPECT_EQ(r.options->flood_secs, 20u);
  EXPECT_FALSE(r.options->flood_rr0);

  a = base();
  a.insert(a.end(), {"--flood", "1", "--flood-rr0", "--flood-len", "0x10000",
                     "--flood-cmds", "64", "--flood-secs", "0"});
  r = parse_args(a);
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->flood_channels, 1u);
  EXPECT_TRUE(r.options->flood_rr0);
  EXPECT_EQ(r.options->flood_len, 0x10000u);
  EXPECT_EQ(r.options->flood_cmds, 64u);
  EXPECT_EQ(r.options->flood_secs, 0u);
  // Without --flood: the default, not this mode.
  EXPECT_EQ(parse_args(base()).options->flood_channels, 0u);

  struct {
    std::vector<std::string> extra;
    const char *msg;
  } bad[] = {
      {{"--flood", "0"}, "--flood needs"},
      {{"--flood", "1025"}, "--flood needs"},
      {{"--flood", "x"}, "--flood needs"},
      {{"--flood", "2", "--flood-len", "511"}, "--flood-len needs"},
      {{"--flood", "2", "--flood-len", "0x40000001"}, "--flood-len needs"},
      {{"--flood", "2", "--flood-cmds", "0"}, "--flood-cmds needs"},
      {{"--flood", "2", "--flood-cmds", "65"}, "--flood-cmds needs"},
      {{"--flood", "2", "--flood-secs", "-1"}, "--flood-secs needs"},
      {{"--flood-len", "4096"}, "--flood-len needs --flood"},
      {{"--flood-cmds", "2"}, "--flood-cmds needs --flood"},
      {{"--flood-secs", "2"}, "--flood-secs needs --flood"},
      {{"--flood-rr0"}, "--flood-rr0 needs --flood"},
      {{"--flood", "2", "--fuzz"}, "exclude"},
      {{"--flood", "2", "--fuzz-scsi"}, "exclude"},
      {{"--flood", "2", "--acl-denied"}, "accepted login"},
      {{"--flood", "2", "--tpg-disabled"}, "accepted login"},
      {{"--flood-rr0=1", "--flood", "2"}, "flood-rr0"},
  };
  for (auto &b : bad) {
    auto x = base();
    x.insert(x.end(), b.extra.begin(), b.extra.end());
    auto res = parse_args(x);
    EXPECT_FALSE(res.options) << b.extra[0] << " " << b.extra.back();
    EXPECT_NE(res.error.find(b.msg), std::string::npos) << res.error;
  }
}
