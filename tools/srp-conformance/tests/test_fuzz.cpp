// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fuzz.h"
#include "scsi.h"

using namespace srp;
using namespace srp::fuzz;

namespace {
BaseParams params() {
  BaseParams p;
  p.lun = encode_lun(1);
  p.tag = 77;
  p.data_va = 0x7f0000001000ull;
  p.rkey = 0x1234;
  p.block_size = 512;
  p.scratch_lba = 1000;
  p.immediate = true;
  p.allow_write = true;
  return p;
}
Bytes login_pd() {
  LoginReq r;
  r.target_port_id = make_port_id(1, 2);
  return encode_login_req_rdma(r);
}
}  // namespace

TEST(Fuzz, IterationSeedsDiffer) {
  EXPECT_EQ(iteration_seed(1, 5), iteration_seed(1, 5));
  EXPECT_NE(iteration_seed(1, 5), iteration_seed(1, 6));
  EXPECT_NE(iteration_seed(1, 5), iteration_seed(2, 5));
}

TEST(Fuzz, PlanIsDeterministic) {
  for (uint64_t i = 0; i < 300; i++) {
    Step a = plan(0xC0FFEE, i, params(), login_pd());
    Step b = plan(0xC0FFEE, i, params(), login_pd());
    ASSERT_EQ(a.login, b.login);
    ASSERT_EQ(a.bytes, b.bytes) << "iteration " << i;
    ASSERT_EQ(a.ops, b.ops);
  }
}

TEST(Fuzz, FixedSeedGivesFixedFirstSteps) {
  // std::mt19937_64 is fully specified and below() uses only its raw
  // output, so a seed gives the same plan with every C++ library.
  std::vector<std::string> first;
  for (uint64_t i = 0; i < 20; i++)
    first.push_back(plan(42, i, params(), login_pd()).describe());
  for (uint64_t i = 0; i < 20; i++)
    EXPECT_EQ(first[i], plan(42, i, params(), login_pd()).describe());
  // Some variety over a few hundred iterations.
  bool logins = false, cmds = false;
  for (uint64_t i = 0; i < 300; i++) {
    Step s = plan(42, i, params(), login_pd());
    logins |= s.login;
    cmds |= !s.login;
  }
  EXPECT_TRUE(logins);
  EXPECT_TRUE(cmds);
}

TEST(Fuzz, SeedsDiffer) {
  int same = 0;
  for (uint64_t i = 0; i < 50; i++)
    same += plan(1, i, params(), login_pd()).bytes ==
            plan(2, i, params(), login_pd()).bytes;
  EXPECT_LT(same, 25);
}

TEST(Fuzz, CommandMutationsKeepTagLunCdb) {
  const BaseParams p = params();
  for (uint64_t i = 0; i < 2000; i++) {
    Step s = plan(7, i, p, login_pd());
    if (s.login) {
      EXPECT_LE(s.bytes.size(), kLoginReqRdmaSize);
      continue;
    }
    const Bytes base = make_base(s.base, p);
    EXPECT_LE(s.bytes.size(), p.max_it_iu_len + 64u);
    EXPECT_FALSE(s.ops.empty());
    // Only explicit field mutations may change protected bytes; none
    // targets the tag, the LUN or the CDB.
    for (size_t k = 0; k < s.bytes.size() && k < base.size(); k++) {
      const bool prot =
          (k >= 8 && k < 16) || (k >= 20 && k < 28) || (k >= 32 && k < 48);
      if (prot) {
        ASSERT_EQ(s.bytes[k], base[k])
            << "iteration " << i << " byte " << k << ": " << s.describe();
      }
    }
  }
}

TEST(Fuzz, MutatorIsDeterministicAndBounded) {
  Mutator a(99), b(99);
  for (int i = 0; i < 500; i++) {
    Bytes x = make_base(Base::kReadIndirect, params());
    Bytes y = x;
    EXPECT_EQ(a.mutate_cmd(x, 200), b.mutate_cmd(y, 200));
    EXPECT_EQ(x, y);
    EXPECT_LE(x.size(), 200u);
    Bytes l = login_pd(), m = l;
    EXPECT_EQ(a.mutate_login(l), b.mutate_login(m));
    EXPECT_EQ(l, m);
    EXPECT_LE(l.size(), 56u);
  }
}

TEST(Fuzz, BasesAreValid) {
  const BaseParams p = params();
  EXPECT_EQ(make_base(Base::kTur, p).size(), 48u);
  Bytes rd = make_base(Base::kReadDirect, p);
  EXPECT_EQ(rd.size(), 64u);
  EXPECT_EQ(rd[5], 0x01);
  Bytes ri = make_base(Base::kReadIndirect, p);
  EXPECT_EQ(ri.size(), 48u + 20u + 48u);
  EXPECT_EQ(ri[7], 3);
  Bytes wi = make_base(Base::kWriteImmediate, p);
  EXPECT_EQ(wi[5], 0x30);
  EXPECT_EQ(wi.size(), 68u + 4096u);
  EXPECT_EQ(get_be64(ByteView(wi), 8), 77u);
  // The write goes to the scratch LBA.
  EXPECT_EQ(get_be64(ByteView(make_base(Base::kWriteDirect, p)), 34), 1000u);
}

TEST(Fuzz, LoginShare) {
  BaseParams p = params();
  for (unsigned pct : {0u, 5u, 100u}) {
    p.login_percent = pct;
    unsigned logins = 0;
    for (uint64_t i = 0; i < 2000; i++) logins += plan(7, i, p, login_pd()).login;
    if (pct == 0) {
      EXPECT_EQ(logins, 0u);
    }
    if (pct == 100) {
      EXPECT_EQ(logins, 2000u);
    }
    if (pct == 5) {
      EXPECT_GT(logins, 60u);
      EXPECT_LT(logins, 140u);
    }
  }
}

TEST(Fuzz, NoWritesWhenNotAllowed) {
  BaseParams p = params();
  p.allow_write = false;
  for (uint64_t i = 0; i < 500; i++) {
    Step s = plan(5, i, p, login_pd());
    if (!s.login) {
      EXPECT_NE(s.base, Base::kWriteDirect);
      EXPECT_NE(s.base, Base::kWriteIndirect);
      EXPECT_NE(s.base, Base::kWriteImmediate);
    }
  }
}

// Pinned plans: a change here breaks the reproduction of every seed that
// was ever reported, so it must be deliberate.
TEST(Fuzz, PinnedPlanForSeed42) {
  const char *want[] = {
      ("C 3 144 [buf_fmt = 0x33] [extend by 28 random bytes] "
       "[be32 at 64 = 0x91]"),
      "C 6 4164 [flip byte 2855 bit 5] [flip byte 2368 bit 3]",
      "C 6 4177 [extend by 13 zero bytes]",
      "L 0 56 [imm_data_offset = 22101] [req_it_iu_len = 834090]",
      "C 1 64 [data_out_desc_cnt = 127] [flip byte 60 bit 7]",
      "C 3 116 [add_cdb_len = 252] [be32 at 48 = 0x75]",
  };
  for (uint64_t i = 0; i < 6; i++) {
    Step s = plan(42, i, params(), login_pd());
    std::string got = std::string(s.login ? "L" : "C") + " " +
                      std::to_string(static_cast<int>(s.base)) + " " +
                      std::to_string(s.bytes.size());
    for (const auto &o : s.ops) got += " [" + o + "]";
    EXPECT_EQ(got, want[i]) << "iteration " << i;
  }
  Mutator m(5489);
  EXPECT_EQ(m.below(1000), 30u);
  EXPECT_EQ(m.below(1000), 908u);
}

namespace {

BaseParams scsi_params() {
  BaseParams p = params();
  p.scsi = true;
  p.scratch_lba = 6000;
  p.scratch_blocks = 2048;
  return p;
}

struct Described {
  DataDir dir = DataDir::kNone;
  std::vector<DirectDesc> descs;
  Bytes imm;
};

// The data buffer an SRP_CMD describes, read at the offsets of SRP r16a.
Described described(const Bytes &iu) {
  Described d;
  const ByteView v(iu);
  const size_t off = kCmdSize + iu[31];
  const uint8_t out = iu[5] >> 4, in = iu[5] & 0xf;
  const uint8_t fmt = out ? out : in;
  d.dir = out ? DataDir::kOut : in ? DataDir::kIn : DataDir::kNone;
  auto at = [&](size_t p) {
    return DirectDesc{get_be64(v, p), get_be32(v, p + 8), get_be32(v, p + 12)};
  };
  if (fmt == kDescDirect) d.descs.push_back(at(off));
  if (fmt == kDescIndirect)
    for (size_t i = 0; i < (out ? iu[6] : iu[7]); i++)
      d.descs.push_back(at(off + kIndirectHdrSize + 16 * i));
  if (fmt == kDescImmediate) {
    const uint32_t n = get_be32(v, off);
    d.imm.assign(iu.begin() + kLinuxImmDataOffset,
                 iu.begin() + kLinuxImmDataOffset + n);
  }
  return d;
}

}  // namespace

TEST(FuzzScsi, PlanIsDeterministic) {
  for (uint64_t i = 0; i < 300; i++) {
    Step a = plan(0xC0FFEE, i, scsi_params(), login_pd());
    Step b = plan(0xC0FFEE, i, scsi_params(), login_pd());
    ASSERT_EQ(a.bytes, b.bytes) << "iteration " << i;
    ASSERT_EQ(a.ops, b.ops);
    ASSERT_EQ(a.buf_len, b.buf_len);
  }
}

// Tag and LUN as given, writes on the scratch area, data-out buffers in
// the zero region, data-in buffers after it, state-changing parameter
// lists only from a data-out buffer.
TEST(FuzzScsi, StepsAreConfined) {
  const BaseParams p = scsi_params();
  const scsi::Scratch scratch{p.scratch_lba, p.scratch_blocks};
  for (uint64_t i = 0; i < 4000; i++) {
    const Step s = plan(11, i, p, login_pd());
    if (s.login) continue;
    ASSERT_EQ(s.base, Base::kScsi);
    const Bytes &iu = s.bytes;
    ASSERT_GE(iu.size(), kCmdSize);
    EXPECT_EQ(iu[0], kOpCmd);
    EXPECT_EQ(get_be64(ByteView(iu), 8), p.tag) << s.describe();
    EXPECT_TRUE(std::equal(p.lun.begin(), p.lun.end(), iu.begin() + 20));
    Bytes cdb(iu.begin() + 32, iu.begin() + 48);
    cdb.insert(cdb.end(), iu.begin() + 48, iu.begin() + 48 + iu[31]);
    ASSERT_TRUE(scsi::writes_inside(cdb, scratch)) << s.describe();
    const Described d = described(iu);
    EXPECT_EQ(d.dir, s.buf_dir) << s.describe();
    const auto f = scsi::state_parameter_list(cdb);
    if (f && d.dir != DataDir::kOut) {
      EXPECT_EQ(scsi::get(cdb, *f), 0u) << s.describe();
    }
    uint64_t total = d.imm.size();
    for (const DirectDesc &x : d.descs) {
      total += x.len;
      EXPECT_EQ(x.rkey, p.rkey);
      if (d.dir == DataDir::kOut) {
        EXPECT_GE(x.va, p.data_va);
        EXPECT_LE(x.va + x.len, p.data_va + kScsiRegion) << s.describe();
      } else {
        EXPECT_GE(x.va, p.data_va + kScsiRegion) << s.describe();
      }
    }
    EXPECT_EQ(total, s.buf_len) << s.describe();
    EXPECT_TRUE(std::all_of(d.imm.begin(), d.imm.end(),
                            [](uint8_t b) { return b == 0; }));
    if (d.dir == DataDir::kOut) {
      EXPECT_LE(s.buf_len, kScsiMaxOut);
    }
  }
}

TEST(FuzzScsi, Variety) {
  const BaseParams p = scsi_params();
  std::set<std::string> names;
  std::set<int> dirs;
  bool varlen = false, random_op = false, imm = false, indirect = false,
       huge = false, confined = false;
  for (uint64_t i = 0; i < 3000; i++) {
    const Step s = plan(5, i, p, login_pd());
    if (s.login) continue;
    names.insert(s.ops.front().substr(0, s.ops.front().find(',')));
    dirs.insert(static_cast<int>(s.buf_dir));
    varlen |= s.ops.front().rfind("7Fh", 0) == 0;
    random_op |= s.ops.front().rfind("opcode", 0) == 0;
    for (const auto &o : s.ops) {
      imm |= o.find("immediate") != std::string::npos;
      indirect |= o.find("indirect") != std::string::npos;
      confined |= o.rfind("confined", 0) == 0;
    }
    huge |= s.buf_len > kScsiRegion;
  }
  for (const auto &c : scsi::commands())
    EXPECT_TRUE(names.count(c.name)) << c.name;
  EXPECT_EQ(dirs.size(), 3u);
  EXPECT_TRUE(varlen && random_op && imm && indirect && huge && confined);
}

TEST(FuzzScsi, ClassicPlansIgnoreScsiFields) {
  // The SCSI fields of BaseParams do not change the classic plan.
  BaseParams p = params();
  p.scratch_blocks = 2048;
  for (uint64_t i = 0; i < 50; i++)
    EXPECT_EQ(plan(42, i, p, login_pd()).bytes,
              plan(42, i, params(), login_pd()).bytes);
}
