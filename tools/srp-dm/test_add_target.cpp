// SPDX-License-Identifier: GPL-2.0-only
//
// srp-dm's add_target lines (add_target.cpp): the RDMA/CM port read from
// the ID string, also as the target's own builder (src/srpt_dm.c) writes
// it; GIDs and their addresses; the source GID choice on RoCE; the lines
// ib_srp takes; and the writes to its add_target file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "add_target.h"
#include "dm.h"
#include "srpt_dm.h"

namespace fs = std::filesystem;
using srp::dm::Gid;

namespace {

Gid gid(const std::string &s) {
  auto g = srp::dm::parse_dgid(s);
  EXPECT_TRUE(g) << s;
  return g.value_or(Gid(16, 0));
}

// A directory of its own under TMPDIR, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "srp-dm-test.XXXXXX").string();
    std::vector<char> b(t.begin(), t.end());
    b.push_back('\0');
    EXPECT_NE(mkdtemp(b.data()), nullptr);
    path_ = b.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path &path() const { return path_; }

 private:
  fs::path path_;
};

std::string slurp(const fs::path &p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST(RdmaCmPort, FromIdString) {
  using srp::dm::rdma_cm_port_of;
  EXPECT_EQ(rdma_cm_port_of("Linux SRP target ib_srpt 0.1.0 rdma_cm_port=5000"),
            5000);
  EXPECT_EQ(rdma_cm_port_of("rdma_cm_port=1"), 1);
  EXPECT_EQ(rdma_cm_port_of("rdma_cm_port=65535 more words"), 65535);
  EXPECT_EQ(rdma_cm_port_of("a\trdma_cm_port=4420\n"), 4420);
  EXPECT_EQ(rdma_cm_port_of("x rdma_cm_port=05000"), 5000);
  // None, or not a port.
  EXPECT_FALSE(rdma_cm_port_of("Linux SRP target ib_srpt 0.1.0"));
  EXPECT_FALSE(rdma_cm_port_of(""));
  EXPECT_FALSE(rdma_cm_port_of("rdma_cm_port="));
  EXPECT_FALSE(rdma_cm_port_of("rdma_cm_port=0"));
  EXPECT_FALSE(rdma_cm_port_of("rdma_cm_port=65536"));
  EXPECT_FALSE(rdma_cm_port_of("rdma_cm_port=123456"));
  EXPECT_FALSE(rdma_cm_port_of("rdma_cm_port=50x0"));
  EXPECT_FALSE(rdma_cm_port_of("rdma_cm_port=-1"));
  EXPECT_FALSE(rdma_cm_port_of("xrdma_cm_port=5000"));
  EXPECT_FALSE(rdma_cm_port_of("rdma_cm_port 5000"));
}

// What the target sends (srpt_dm.c) is what srp-dm reads, for every kind
// of description, the long ones the port word shortens included.
TEST(RdmaCmPort, ReadsTheTargetsIdString) {
  const std::string longdesc =
      "Linux SRP target ib_srpt 0.1.0+git20261204.123.0123abcdef";
  const char *descs[] = {"Linux SRP target ib_srpt 0.1.0", longdesc.c_str(), "",
                         nullptr};
  for (const char *desc : descs) {
    for (unsigned port : {0u, 1u, 9u, 10u, 5000u, 65535u}) {
      srpt_dm_params p{};
      p.ioc_guid = p.id_ext = p.service_id = 0x0002c90300001234ull;
      p.rdma_cm_port = uint16_t(port);
      p.id_string = desc;
      uint8_t req[SRPT_MAD_SIZE] = {}, rsp[SRPT_MAD_SIZE];
      auto get = srp::dm::get_request(srp::dm::kAttrIocProfile, 1, 7);
      memcpy(req, get.data(), get.size());
      ASSERT_EQ(srpt_dm_respond(req, sizeof(req), &p, rsp), 0);
      auto h = srp::dm::decode_header(rsp, sizeof(rsp));
      ASSERT_TRUE(h);
      ASSERT_EQ(h->status, 0);
      auto ioc = srp::dm::decode_ioc_profile(rsp + srp::dm::kDataOffset,
                                             srp::dm::kDataSize);
      ASSERT_TRUE(ioc);
      auto got = srp::dm::rdma_cm_port_of(ioc->id_string);
      SCOPED_TRACE(std::string("desc '") + (desc ? desc : "(null)") +
                   "' port " + std::to_string(port) + ": '" + ioc->id_string +
                   "'");
      if (port) {
        EXPECT_EQ(got, port);
      } else {
        EXPECT_FALSE(got);
      }
      EXPECT_LE(ioc->id_string.size(), 63u);
      if (desc && *desc) {
        EXPECT_EQ(ioc->id_string.compare(0, 16, desc, 16), 0)
            << "the description comes first";
      }
    }
  }
}

TEST(Gids, Parse) {
  Gid v4 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 1};
  EXPECT_EQ(gid("0000:0000:0000:0000:0000:ffff:0a63:0001"), v4) << "sysfs";
  EXPECT_EQ(gid("00000000000000000000ffff0a630001"), v4) << "32 hex digits";
  EXPECT_EQ(gid("::ffff:10.99.0.1"), v4) << "IPv4-mapped IPv6";
  EXPECT_EQ(gid("10.99.0.1"), v4) << "IPv4";
  Gid ll = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 1};
  EXPECT_EQ(gid("fe80::ff:fe00:1"), ll);
  EXPECT_EQ(gid("fe80000000000000000000fffe000001"), ll);
  EXPECT_EQ(gid("fd00:99::1")[0], 0xfd);
  for (const char *bad : {"", "10.99.0", "10.99.0.256", "fe80::1::2", "xyz",
                          "fe80:0000", "0x10", "[fd00::1]"})
    EXPECT_FALSE(srp::dm::parse_dgid(bad)) << bad;
}

TEST(Gids, Kinds) {
  EXPECT_TRUE(srp::dm::gid_is_v4mapped(gid("::ffff:1.2.3.4")));
  EXPECT_FALSE(srp::dm::gid_is_v4mapped(gid("::1.2.3.4")));
  EXPECT_FALSE(srp::dm::gid_is_v4mapped(gid("fe80::1")));
  EXPECT_TRUE(srp::dm::gid_is_link_local(gid("fe80::1")));
  EXPECT_TRUE(srp::dm::gid_is_link_local(gid("febf::1")));
  EXPECT_FALSE(srp::dm::gid_is_link_local(gid("fec0::1")));
  EXPECT_FALSE(srp::dm::gid_is_link_local(gid("fd00::1")));
  EXPECT_TRUE(srp::dm::gid_is_zero(Gid(16, 0)));
  EXPECT_FALSE(srp::dm::gid_is_zero(gid("::1")));
}

TEST(Gids, DestAddress) {
  using srp::dm::dest_address;
  EXPECT_EQ(dest_address(gid("::ffff:10.99.0.1")), "10.99.0.1");
  EXPECT_EQ(dest_address(gid("::ffff:10.99.0.1"), "dummy0"), "10.99.0.1")
      << "IPv4 takes no zone";
  EXPECT_EQ(dest_address(gid("fd00:99::1")), "[fd00:99::1]");
  EXPECT_EQ(dest_address(gid("2001:db8:0:0:1:0:0:1"), "eth0"),
            "[2001:db8::1:0:0:1]")
      << "a global address takes no zone";
  EXPECT_EQ(dest_address(gid("fe80::ff:fe00:1"), "dummy0"),
            "[fe80::ff:fe00:1%dummy0]");
  EXPECT_EQ(dest_address(gid("fe80::ff:fe00:1")), "[fe80::ff:fe00:1]");
  EXPECT_FALSE(dest_address(Gid(16, 0)));
  EXPECT_FALSE(dest_address(gid("ff02::1")));
  EXPECT_FALSE(dest_address(Gid(4, 1)));
}

TEST(Gids, ChooseSourceIndex) {
  using srp::dm::choose_sgid_index;
  using srp::dm::LocalGid;
  // rdma_rxe: RoCE v2 only, link-local first.
  std::vector<LocalGid> rxe = {
      {0, gid("fe80::ff:fe00:1"), "RoCE v2"},
      {1, gid("::ffff:10.99.0.1"), "RoCE v2"},
      {2, gid("fd00:99::1"), "RoCE v2"},
  };
  EXPECT_EQ(choose_sgid_index(rxe, gid("10.99.0.1")), 1);
  EXPECT_EQ(choose_sgid_index(rxe, gid("fd00:99::1")), 2);
  EXPECT_EQ(choose_sgid_index(rxe, gid("fd00:99::2")), 2);
  EXPECT_EQ(choose_sgid_index(rxe, gid("fe80::1")), 0);
  // An HCA: each address as v1 and v2; v2 wins.
  std::vector<LocalGid> hca = {
      {0, gid("fe80::1"), "IB/RoCE v1"},
      {1, gid("fe80::1"), "RoCE v2"},
      {2, gid("::ffff:192.168.1.5"), "IB/RoCE v1"},
      {3, gid("::ffff:192.168.1.5"), "RoCE v2"},
  };
  EXPECT_EQ(choose_sgid_index(hca, gid("192.168.1.7")), 3);
  EXPECT_EQ(choose_sgid_index(hca, gid("fe80::2")), 1);
  // A global IPv6 destination with only a link-local source: still IPv6.
  EXPECT_EQ(choose_sgid_index(hca, gid("2001:db8::7")), 1);
  // No IPv4 address on the port.
  std::vector<LocalGid> v6only = {{0, gid("fe80::1"), "RoCE v2"}};
  EXPECT_FALSE(choose_sgid_index(v6only, gid("10.0.0.1")));
  // Zero entries never; ties go to the lowest index.
  std::vector<LocalGid> ties = {{4, Gid(16, 0), "RoCE v2"},
                                {6, gid("::ffff:1.1.1.1"), "RoCE v2"},
                                {5, gid("::ffff:1.1.1.2"), "RoCE v2"}};
  EXPECT_EQ(choose_sgid_index(ties, gid("1.1.1.3")), 5);
  EXPECT_FALSE(choose_sgid_index({}, gid("1.1.1.3")));
}

TEST(Lines, RdmaCm) {
  srp::dm::SrpTarget t;
  t.id_ext = 0x0002c90300001234ull;
  t.ioc_guid = 0x0002c90300001234ull;
  t.service_id = 0x0002c90300001234ull;
  t.io_class = 0x0100;
  EXPECT_EQ(srp::dm::rdma_cm_line(t, "10.99.0.1", 5000),
            "id_ext=0002c90300001234,ioc_guid=0002c90300001234,"
            "dest=10.99.0.1:5000");
  EXPECT_EQ(srp::dm::rdma_cm_line(t, "[fd00:99::1]", 1),
            "id_ext=0002c90300001234,ioc_guid=0002c90300001234,"
            "dest=[fd00:99::1]:1");
  t.id_ext = 0x1;
  t.ioc_guid = 0xfedcba9876543210ull;
  t.io_class = 0xff00;
  EXPECT_EQ(srp::dm::rdma_cm_line(t, "1.2.3.4", 65535),
            "id_ext=0000000000000001,ioc_guid=fedcba9876543210,"
            "dest=1.2.3.4:65535,io_class=ff00");
}

TEST(Lines, IbCm) {
  srp::dm::SrpTarget t;
  t.id_ext = 0x0002c90300001234ull;
  t.ioc_guid = 0x0002c90300001235ull;
  t.service_id = 0x0002c90300001236ull;
  t.io_class = 0x0100;
  EXPECT_EQ(srp::dm::ib_cm_line(t, gid("fe80::2:c903:0:1234"), 0xffff),
            "id_ext=0002c90300001234,ioc_guid=0002c90300001235,"
            "dgid=fe800000000000000002c90300001234,pkey=ffff,"
            "service_id=0002c90300001236");
  EXPECT_EQ(srp::dm::ib_cm_line(t, gid("fe80::1"), 0x8001),
            "id_ext=0002c90300001234,ioc_guid=0002c90300001235,"
            "dgid=fe800000000000000000000000000001,pkey=8001,"
            "service_id=0002c90300001236");
  t.io_class = 0xff00;
  EXPECT_EQ(srp::dm::ib_cm_line(t, gid("fe80::1"), 0x7fff),
            "id_ext=0002c90300001234,ioc_guid=0002c90300001235,"
            "dgid=fe800000000000000000000000000001,pkey=7fff,"
            "service_id=0002c90300001236,io_class=ff00");
}

TEST(Lines, InitiatorFields) {
  srp::dm::InitiatorFields f;
  EXPECT_EQ(srp::dm::with_initiator("L", f), "L");
  f.initiator_ext = 0xfe80000000000000ull;
  EXPECT_EQ(srp::dm::with_initiator("L", f),
            "L,initiator_ext=fe80000000000000");
  f.initiator_ext = 1;
  f.options = {"ch_count=2", "queue_size=128"};
  EXPECT_EQ(srp::dm::with_initiator("L", f),
            "L,initiator_ext=0000000000000001,ch_count=2,queue_size=128");
}

TEST(Lines, CheckOption) {
  using srp::dm::check_option;
  for (const char *ok :
       {"max_sect=1024", "max_cmd_per_lun=32", "target_can_queue=64",
        "cmd_sg_entries=16", "allow_ext_sg=1", "sg_tablesize=128",
        "comp_vector=1", "tl_retry_count=7", "queue_size=128", "src=10.99.0.2",
        "max_it_iu_size=8260", "ch_count=4"})
    EXPECT_EQ(check_option(ok), "") << ok;
  EXPECT_NE(check_option("ch_count"), "");
  EXPECT_NE(check_option("=4"), "");
  EXPECT_NE(check_option("ch_count="), "");
  EXPECT_NE(check_option("bogus=1"), "");
  EXPECT_NE(check_option("ch_count=1,queue_size=2"), "") << "one a use";
  EXPECT_NE(check_option("src=1.2.3.4 x"), "");
  for (const char *theirs : {"id_ext=1", "ioc_guid=1", "dgid=1", "pkey=ffff",
                             "service_id=1", "dest=1.2.3.4:5", "io_class=ff00"})
    EXPECT_NE(check_option(theirs).find("target"), std::string::npos) << theirs;
  EXPECT_NE(check_option("initiator_ext=1").find("--initiator-ext"),
            std::string::npos);
}

TEST(AddTarget, Path) {
  EXPECT_EQ(srp::dm::add_target_path("rxe0", 1),
            "/sys/class/infiniband_srp/srp-rxe0-1/add_target");
  EXPECT_EQ(srp::dm::add_target_path("mlx5_0", 2),
            "/sys/class/infiniband_srp/srp-mlx5_0-2/add_target");
}

TEST(AddTarget, Writes) {
  TempDir d;
  fs::path host = d.path() / "infiniband_srp" / "srp-rxe0-1";
  fs::create_directories(host);
  fs::path file = host / "add_target";
  { std::ofstream(file.string()); }
  const std::string line =
      "id_ext=0002c90300001234,ioc_guid=0002c90300001234,dest=10.99.0.1:5000";
  EXPECT_EQ(srp::dm::write_add_target(file.string(), line), "");
  EXPECT_EQ(slurp(file), line) << "the line as it is, in one write";
}

TEST(AddTarget, IbSrpNotLoaded) {
  TempDir d;
  std::string p = (d.path() / "infiniband_srp/srp-rxe0-1/add_target").string();
  std::string e = srp::dm::write_add_target(p, "x");
  EXPECT_NE(e.find("No such file or directory"), std::string::npos) << e;
  EXPECT_NE(e.find("ib_srp is not loaded"), std::string::npos) << e;
}

TEST(AddTarget, NoSuchPort) {
  TempDir d;
  fs::create_directories(d.path() / "infiniband_srp/srp-rxe0-1");
  fs::create_directories(d.path() / "infiniband_srp/srp-mlx5_0-1");
  std::string p = (d.path() / "infiniband_srp/srp-rxe0-2/add_target").string();
  std::string e = srp::dm::write_add_target(p, "x");
  EXPECT_NE(e.find("ib_srp has no port srp-rxe0-2"), std::string::npos) << e;
  EXPECT_NE(e.find("srp-mlx5_0-1 srp-rxe0-1"), std::string::npos) << e;
  fs::remove(d.path() / "infiniband_srp/srp-rxe0-1");
  fs::remove(d.path() / "infiniband_srp/srp-mlx5_0-1");
  e = srp::dm::write_add_target(p, "x");
  EXPECT_NE(e.find("(it has none)"), std::string::npos) << e;
}

TEST(AddTarget, ErrnoText) {
  TempDir d;
  // Elsewhere than under infiniband_srp: the errno text alone.
  std::string p = (d.path() / "nowhere/add_target").string();
  std::string e = srp::dm::write_add_target(p, "x");
  EXPECT_EQ(e, "cannot open " + p + ": No such file or directory");
  e = srp::dm::write_add_target(d.path().string(), "x");
  EXPECT_NE(e.find("Is a directory"), std::string::npos) << e;
  // A failing write(2), as ib_srp's are when the login fails.
  if (access("/dev/full", W_OK) == 0) {
    e = srp::dm::write_add_target("/dev/full", "x");
    EXPECT_NE(e.find("writing the add_target line to /dev/full failed: No "
                     "space left on device"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("kernel logs"), std::string::npos) << e;
  }
}
