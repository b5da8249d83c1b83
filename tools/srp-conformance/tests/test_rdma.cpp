// SPDX-License-Identifier: GPL-2.0-only
//
// The RDMA transport cannot connect anywhere on a machine without an RDMA
// device (or target); these tests only check that it fails cleanly and in
// bounded time, and that the RAII wrappers tolerate empty handles.
#include <gtest/gtest.h>

#include "rdma_conn.h"

using namespace srp;
using namespace srp::rdma;

TEST(Rdma, ProbeFailsWithinDeadline) {
  RdmaOptions o;
  o.host = "127.0.0.1";
  o.port = "1";
  RdmaConnector c(o);
  std::string why;
  const auto start = Clock::now();
  const bool ok = c.probe(deadline_in(Millis(1500)), &why);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  if (!ok) {
    EXPECT_FALSE(why.empty());
  }
}

TEST(Rdma, ConnectFailsWithinDeadline) {
  RdmaOptions o;
  o.host = "127.0.0.1";
  o.port = "1";
  RdmaConnector c(o);
  const auto start = Clock::now();
  ConnectResult r = c.connect(Bytes(56, 0), 1 << 20, deadline_in(Millis(1500)));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(r.kind, ConnectResult::Kind::kAccepted);
  EXPECT_FALSE(r.what.empty());
}

TEST(Rdma, EmptyWrappers) {
  Cq cq;
  cq.reset();
  CmQp qp;
  qp.reset();
  EXPECT_EQ(qp.get(), nullptr);
  EventChannelPtr ec;
  CmIdPtr id;
  PdPtr pd;
  MrPtr mr;
  EXPECT_FALSE(ec || id || pd || mr);
}
