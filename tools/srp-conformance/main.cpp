// SPDX-License-Identifier: GPL-2.0-only
//
// srp-conformance: SRP initiator conformance and fuzz client.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cases.h"
#include "cli.h"
#include "flood.h"
#include "fuzz.h"
#include "merge.h"
#include "rdma_conn.h"
#include "report.h"

namespace {

// --merge / --compare: read reports, no target.
int reports(const srp::Options &opt) {
  namespace m = srp::merge;
  std::string why;
  if (!opt.merge_files.empty()) {
    auto merged = m::merge_files(opt.merge_files, &why);
    if (!merged) {
      std::cerr << "srp-conformance: " << why << "\n";
      return 2;
    }
    bool bad = false;
    for (const auto &kv : *merged) {
      const m::Entry &e = kv.second;
      std::string line = e.status == "pass"   ? "PASS " + e.name
                         : e.status == "skip" ? "SKIP " + e.name + ": " + e.reason
                                              : "FAIL " + e.name + " (" +
                                                    e.status + "): expected " +
                                                    e.expected + ", got " +
                                                    e.got;
      if (m::severity(e.status) > m::severity("pass")) bad = true;
      std::cout << line << "\n";
    }
    std::cout << "merged " << opt.merge_files.size()
              << " reports: " << m::counts(*merged) << std::endl;
    return bad ? 1 : 0;
  }
  std::vector<m::Column> cols;
  for (const auto &c : opt.compare) {
    auto merged = m::merge_files(c.second, &why);
    if (!merged) {
      std::cerr << "srp-conformance: " << why << "\n";
      return 2;
    }
    cols.emplace_back(c.first, std::move(*merged));
  }
  std::cout << m::compare_table(cols);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  srp::ParseResult pr = srp::parse_args(args);
  if (!pr.options) {
    std::cerr << "srp-conformance: " << pr.error << "\n"
              << "Try 'srp-conformance --help'.\n";
    return 2;
  }
  srp::Options opt = *pr.options;
  if (opt.fuzz && !opt.seed_given) {
    opt.seed =
        static_cast<uint64_t>(srp::Clock::now().time_since_epoch().count());
    opt.seed_given = true;
  }
  if (opt.help) {
    std::cout << srp::usage();
    return 0;
  }
  if (opt.list || opt.list_markdown) {
    std::cout << srp::list_cases(opt.list_markdown);
    return 0;
  }
  if (!opt.merge_files.empty() || !opt.compare.empty()) return reports(opt);

  const auto selected = srp::select_cases(opt.case_globs);
  if (!opt.fuzz && !opt.flood_channels && selected.empty()) {
    std::cerr << "srp-conformance: no case matches --cases\n";
    return 2;
  }

  srp::rdma::RdmaOptions ro;
  ro.host = opt.host;
  ro.port = opt.port;
  ro.send_wait = srp::Millis(opt.timeout_ms);
  ro.verbose = opt.verbose;
  ro.retry_count = opt.retry_count;
  srp::rdma::RdmaConnector conn(ro);
  std::string why;
  if (!conn.probe(srp::deadline_in(srp::Millis(opt.timeout_ms)), &why)) {
    std::cerr << "srp-conformance: cannot reach " << opt.host << ":" << opt.port
              << " over RDMA: " << why << "\n";
    return 2;
  }
  if (opt.verbose)
    std::cerr << "using RDMA device " << conn.device_name() << ", "
              << (conn.exact_private_data_length() ? "iWARP" : "IB/RoCE")
              << "\n";

  srp::Context ctx(conn, opt, &std::cerr);
  if (opt.flood_channels) return srp::flood::run(ctx, std::cout, std::cerr);
  std::vector<srp::CaseResult> results;
  if (opt.fuzz) {
    srp::CaseResult r = srp::fuzz::run(ctx, std::cout);
    std::cout << srp::result_line(r) << std::endl;
    results.push_back(r);
  } else {
    for (uint64_t it = 0; it < opt.iterations; it++) {
      for (const srp::Case *c : selected) {
        if (opt.verbose) std::cerr << "== " << c->name << "\n";
        srp::CaseResult r = srp::run_case(ctx, *c);
        r.iteration = it;
        std::cout << srp::result_line(r) << std::endl;
        results.push_back(r);
      }
    }
  }
  ctx.restore_scratch();

  if (!opt.json_path.empty()) {
    std::ofstream j(opt.json_path);
    j << srp::to_json(opt, results, opt.fuzz ? "fuzz" : "conformance");
    if (!j) {
      std::cerr << "srp-conformance: cannot write " << opt.json_path << "\n";
      std::cout << srp::summary_line(results) << std::endl;
      return 2;
    }
  }
  std::cout << srp::summary_line(results) << std::endl;
  for (const auto &r : results)
    if (r.status == srp::CaseResult::Status::kFail) return 1;
  return 0;
}
