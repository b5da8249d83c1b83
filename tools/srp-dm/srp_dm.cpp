// SPDX-License-Identifier: GPL-2.0-only
//
// srp-dm: ask one port for its SRP I/O controllers with device-management
// Gets sent from the GSI QP through libibumad, the way srp_daemon/ibsrpdm
// query a port they found through the subnet administrator, but without
// one: the destination is given (or is the local port itself), so it works
// on RoCE, where there is no SA, as well.
//
//   srp-dm --device rxe0 [--port 1] [--dgid GID] [--dlid LID]
//          [--gid-index N] [--timeout-ms N] [--retries N]
//
// Prints IOUnitInfo, every present slot's IOControllerProfile and its
// ServiceEntries as "key: value" lines.  Exit status: 0 if at least one
// SRP controller (I/O class 0x0100) with a service entry was found, 1 if a
// query failed or none was found, 2 on a usage error.
#include <infiniband/umad.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"
#include "cli_parse.h"
#include "dm.h"

namespace {

struct DmOptions {
  std::string device;
  int port = 1;
  std::optional<std::vector<uint8_t>> dgid;
  std::optional<uint16_t> dlid;
  int gid_index = 0;
  int timeout_ms = 1000;
  int retries = 3;
  std::optional<std::pair<uint16_t, uint32_t>> query;  // --query ATTR,MOD
};

const char kUsage[] =
    "usage: srp-dm --device DEV [--port N] [--dgid GID] [--dlid LID]\n"
    "              [--gid-index N] [--timeout-ms N] [--retries N]\n"
    "              [--query ATTR,MOD]\n"
    "Sends device-management Gets (IOUnitInfo, IOControllerProfile,\n"
    "ServiceEntries) from DEV's port N to the port with GID GID (default:\n"
    "the local port's GID at --gid-index, i.e. the port itself) or, on\n"
    "InfiniBand without --dgid, to LID LID (default: the local LID).\n"
    "--query sends one Get of attribute ATTR with modifier MOD (decimal or\n"
    "0x-hex) and prints the answer's status; exit 0 if any answer came.\n";

std::optional<DmOptions> parse(int argc, char **argv, std::string *err) {
  DmOptions o;
  bool help = false;
  std::string bad;  // the first value that is wrong
  auto complain = [&bad](const std::string &e) {
    if (bad.empty()) bad = e;
  };
  CLI::App app{"srp-dm"};
  app.set_help_flag();  // kUsage is the help
  app.allow_extras();   // reported as "unknown option"
  srp::cli::flag(app, "-h,--help", &help);
  srp::cli::value(app, "--device", [&](const std::string &v) { o.device = v; });
  srp::cli::value(app, "--dgid", [&](const std::string &v) {
    o.dgid = srp::dm::parse_gid(v);
    if (!o.dgid) complain("bad GID '" + v + "'");
  });
  srp::cli::value(app, "--query", [&](const std::string &v) {
    auto comma = v.find(',');
    auto attr = srp::parse_u64(v.substr(0, comma));
    auto mod = comma == std::string::npos ? std::nullopt
                                          : srp::parse_u64(v.substr(comma + 1));
    if (!attr || !mod || *attr > 0xffff || *mod > 0xffffffff)
      complain("bad --query '" + v + "' (want ATTR,MOD)");
    else
      o.query = std::make_pair(uint16_t(*attr), uint32_t(*mod));
  });
  // Decimal or 0x-hex numbers up to @max.
  auto number = [&](const char *name, uint64_t max,
                    std::function<void(uint64_t)> set) {
    srp::cli::value(app, name, [=, &complain](const std::string &v) {
      auto n = srp::parse_u64(v);
      if (!n || *n > max)
        complain(std::string("bad argument ") + name + " " + v);
      else
        set(*n);
    });
  };
  number("--port", UINT64_MAX, [&](uint64_t n) { o.port = int(n); });
  number("--dlid", 0xffff, [&](uint64_t n) { o.dlid = uint16_t(n); });
  number("--gid-index", UINT64_MAX, [&](uint64_t n) { o.gid_index = int(n); });
  number("--timeout-ms", UINT64_MAX,
         [&](uint64_t n) { o.timeout_ms = int(n); });
  number("--retries", UINT64_MAX, [&](uint64_t n) { o.retries = int(n); });

  *err = srp::cli::parse(app, std::vector<std::string>(argv + 1, argv + argc));
  if (help) {
    std::cout << kUsage;
    exit(0);
  }
  if (err->empty()) *err = bad;
  if (err->empty() && o.device.empty()) *err = "--device is required";
  if (!err->empty()) return std::nullopt;
  return o;
}

// One port opened through libibumad with an agent for class 6 version 1
// (no unsolicited methods: it only receives the answers to its Gets).
class DmPort {
 public:
  bool open(const DmOptions &o, std::string *err) {
    opt_ = o;
    if (umad_init() < 0) {
      *err = "umad_init failed";
      return false;
    }
    umad_port_t port;
    if (umad_get_port(o.device.c_str(), o.port, &port) < 0) {
      *err = "no umad port " + o.device + ":" + std::to_string(o.port) +
             " (is ib_umad loaded?)";
      return false;
    }
    ethernet_ = std::string(port.link_layer) == "Ethernet";
    local_lid_ = uint16_t(port.base_lid);
    umad_release_port(&port);

    fd_ = umad_open_port(o.device.c_str(), o.port);
    if (fd_ < 0) {
      *err = "umad_open_port: " + std::string(strerror(-fd_));
      return false;
    }
    agent_ = umad_register(fd_, srp::dm::kMgmtClass, srp::dm::kClassVersion, 0,
                           nullptr);
    if (agent_ < 0) {
      *err = "umad_register(class 6, version 1): " +
             std::string(strerror(-agent_));
      return false;
    }

    if (o.dgid) {
      dgid_ = *o.dgid;
    } else if (ethernet_ || !o.dlid) {
      // The local port's own GID: ask ourselves.
      std::string path = "/sys/class/infiniband/" + o.device + "/ports/" +
                         std::to_string(o.port) + "/gids/" +
                         std::to_string(o.gid_index);
      std::ifstream f(path);
      std::string s;
      auto g = (f >> s) ? srp::dm::parse_gid(s) : std::nullopt;
      if (!g) {
        *err = "cannot read the local GID from " + path;
        return false;
      }
      dgid_ = *g;
    }
    // InfiniBand: route by LID (no GRH) unless a GID was asked for.
    use_grh_ = ethernet_ || o.dgid.has_value();
    dlid_ = o.dlid.value_or(local_lid_);
    return true;
  }

  ~DmPort() {
    if (agent_ >= 0) umad_unregister(fd_, agent_);
    if (fd_ >= 0) umad_close_port(fd_);
  }

  std::string destination() const {
    std::string s = use_grh_ ? "GID " : "LID " + std::to_string(dlid_);
    if (use_grh_) {
      char b[3];
      for (size_t i = 0; i < dgid_.size(); i++) {
        snprintf(b, sizeof(b), "%02x", dgid_[i]);
        s += b;
        if (i % 2 && i != 15) s += ':';
      }
    }
    return s;
  }

  // Status of the last answer received (0 before any).
  uint16_t last_status() const { return last_status_; }
  bool answered() const { return answered_; }

  // Sends a Get and returns the answer's data area, or nullopt with *err.
  std::optional<std::vector<uint8_t>> get(uint16_t attr, uint32_t mod,
                                          std::string *err) {
    last_status_ = 0;
    answered_ = false;
    const size_t bufsize = umad_size() + srp::dm::kMadSize;
    std::vector<uint8_t> out(bufsize, 0), in(bufsize, 0);
    uint64_t tid = ++tid_;
    auto req = srp::dm::get_request(attr, mod, tid);
    memcpy(umad_get_mad(out.data()), req.data(), req.size());
    // QP1, Q_Key 0x80010000 (the GSI's well-known key), SL 0.
    umad_set_addr(out.data(), dlid_, 1, 0, 0x80010000);
    umad_set_pkey(out.data(), 0);
    if (use_grh_) {
      auto *um = reinterpret_cast<ib_user_mad_t *>(out.data());
      um->addr.grh_present = 1;
      um->addr.gid_index = uint8_t(opt_.gid_index);
      um->addr.hop_limit = 64;
      memcpy(um->addr.gid, dgid_.data(), 16);
    }
    int ret = umad_send(fd_, agent_, out.data(), int(srp::dm::kMadSize),
                        opt_.timeout_ms, opt_.retries);
    if (ret < 0) {
      *err = "umad_send: " + std::string(strerror(-ret));
      return std::nullopt;
    }
    for (;;) {
      int len = int(srp::dm::kMadSize);
      ret = umad_recv(fd_, in.data(), &len,
                      opt_.timeout_ms * (opt_.retries + 1) + 1000);
      if (ret < 0) {
        *err = "umad_recv: " + std::string(strerror(-ret));
        return std::nullopt;
      }
      if (umad_status(in.data())) {
        *err = "no answer: " + std::string(strerror(umad_status(in.data())));
        return std::nullopt;
      }
      const auto *mad = static_cast<const uint8_t *>(umad_get_mad(in.data()));
      auto h = srp::dm::decode_header(mad, size_t(len));
      if (!h || (h->tid & 0xffffffff) != (tid & 0xffffffff)) continue;
      answered_ = true;
      if (h->method != srp::dm::kMethodGetResp) {
        *err = "answer has method 0x" + std::to_string(h->method);
        return std::nullopt;
      }
      last_status_ = h->status;
      if (h->status) {
        *err = srp::dm::status_name(h->status);
        return std::nullopt;
      }
      if (size_t(len) < srp::dm::kMadSize) {
        *err = "short answer (" + std::to_string(len) + " bytes)";
        return std::nullopt;
      }
      return std::vector<uint8_t>(mad + srp::dm::kDataOffset,
                                  mad + srp::dm::kMadSize);
    }
  }

 private:
  DmOptions opt_;
  int fd_ = -1;
  int agent_ = -1;
  bool ethernet_ = false;
  bool use_grh_ = false;
  uint16_t local_lid_ = 0;
  uint16_t dlid_ = 0;
  std::vector<uint8_t> dgid_;
  uint64_t tid_ = 0x5350;
  uint16_t last_status_ = 0;
  bool answered_ = false;
};

}  // namespace

int main(int argc, char **argv) {
  std::string err;
  auto opt = parse(argc, argv, &err);
  if (!opt) {
    std::cerr << "srp-dm: " << err << "\n" << kUsage;
    return 2;
  }
  DmPort port;
  if (!port.open(*opt, &err)) {
    std::cerr << "srp-dm: " << err << "\n";
    return 1;
  }
  std::cout << "destination: " << port.destination() << "\n";

  if (opt->query) {
    auto data = port.get(opt->query->first, opt->query->second, &err);
    if (!port.answered()) {
      std::cerr << "srp-dm: " << err << "\n";
      return 1;
    }
    char st[8];
    snprintf(st, sizeof(st), "%04x", port.last_status());
    std::cout << "status: 0x" << st << " "
              << srp::dm::status_name(port.last_status()) << "\n";
    return 0;
  }

  auto data = port.get(srp::dm::kAttrIouInfo, 0, &err);
  if (!data) {
    std::cerr << "srp-dm: IOUnitInfo: " << err << "\n";
    return 1;
  }
  auto iou = srp::dm::decode_iou_info(data->data(), data->size());
  std::cout << srp::dm::format_iou(*iou);

  int found = 0, failed = 0;
  for (size_t i = 0; i < iou->slots.size(); i++) {
    if (iou->slots[i] != srp::dm::Slot::kPresent) continue;
    unsigned slot = unsigned(i + 1);
    data = port.get(srp::dm::kAttrIocProfile, slot, &err);
    if (!data) {
      std::cerr << "srp-dm: IOControllerProfile of slot " << slot << ": " << err
                << "\n";
      failed++;
      continue;
    }
    auto ioc = srp::dm::decode_ioc_profile(data->data(), data->size());
    std::cout << srp::dm::format_ioc(slot, *ioc);
    for (unsigned first = 0; first < ioc->num_svc_entries; first += 4) {
      unsigned last = std::min(first + 3, ioc->num_svc_entries - 1u);
      data = port.get(srp::dm::kAttrSvcEntries,
                      srp::dm::svc_entries_mod(uint16_t(slot), uint8_t(first),
                                               uint8_t(last)),
                      &err);
      if (!data) {
        std::cerr << "srp-dm: ServiceEntries " << first << ".." << last
                  << " of slot " << slot << ": " << err << "\n";
        failed++;
        continue;
      }
      auto entries = srp::dm::decode_svc_entries(data->data(), data->size(),
                                                 last - first + 1);
      for (size_t k = 0; k < entries.size(); k++) {
        std::cout << srp::dm::format_svc(unsigned(first + k), entries[k]);
        if (ioc->io_class == srp::dm::kSrpIoClass &&
            srp::dm::srp_id_ext(entries[k].name))
          found++;
      }
    }
  }
  std::cout << "srp_targets: " << found << "\n";
  return found && !failed ? 0 : 1;
}
