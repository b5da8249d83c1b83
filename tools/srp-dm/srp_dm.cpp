// SPDX-License-Identifier: GPL-2.0-only
//
// srp-dm: ask one port for its SRP I/O controllers with device-management
// Gets sent from the GSI QP through libibumad, the way srp_daemon/ibsrpdm
// query a port they found through the subnet administrator, but without
// one: the destination is given (or is the local port itself), so it works
// on RoCE, where there is no SA, as well.  To an IPv4 RoCE v2 GID the Gets
// go from a UD QP of srp-dm's own instead (ud_mad.h says why).
//
//   srp-dm --device rxe0 [--port 1] [--dgid GID] [--dlid LID]
//          [--gid-index N] [--timeout-ms N] [--retries N]
//          [--ud] [-c] [--login[=PATH]] [--initiator-ext HEX]
//          [--opt KEY=VALUE]
//
// Prints IOUnitInfo, every present slot's IOControllerProfile and its
// ServiceEntries as "key: value" lines, then for every SRP target port the
// line for ib_srp's add_target file ("add_target: ..."): RDMA/CM with the
// address of the GID asked when the target names its RDMA/CM port in the
// controller's ID string (ib_srpt's "rdma_cm_port=N"), else IB/CM.  -c
// prints only those lines; --login writes them to ib_srp.  Exit status: 0
// if at least one SRP controller (I/O class 0x0100) with a service entry
// was found (and, with --login, every line was taken), 1 if a query or a
// login failed or none was found, 2 on a usage error.
#include <infiniband/umad.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "add_target.h"
#include "cli.h"
#include "cli_parse.h"
#include "dm.h"
#include "ud_mad.h"

namespace {

struct DmOptions {
  std::string device;
  int port = 1;
  std::optional<std::vector<uint8_t>> dgid;
  std::optional<uint16_t> dlid;
  std::optional<int> gid_index;  // unset: chosen (see DmPort::open())
  int timeout_ms = 1000;
  int retries = 3;
  std::optional<std::pair<uint16_t, uint32_t>> query;  // --query ATTR,MOD
  bool lines_only = false;                             // -c
  bool ud = false;  // --ud: a UD QP of our own instead of ib_umad
  std::optional<std::string> login;  // --login: the file ("" = ib_srp's)
  srp::dm::InitiatorFields initiator;
};

const char kUsage[] =
    "usage: srp-dm --device DEV [--port N] [--dgid GID] [--dlid LID]\n"
    "              [--gid-index N] [--timeout-ms N] [--retries N]\n"
    "              [--query ATTR,MOD] [--ud] [-c] [--login[=PATH]]\n"
    "              [--initiator-ext HEX] [--opt KEY=VALUE]...\n"
    "Sends device-management Gets (IOUnitInfo, IOControllerProfile,\n"
    "ServiceEntries) from DEV's port N to the port with GID GID (default:\n"
    "the local port's GID at --gid-index, i.e. the port itself) or, on\n"
    "InfiniBand without --dgid, to LID LID (default: the local LID).\n"
    "GID: 32 hex digits (with or without ':'), an IPv6 address, or an IPv4\n"
    "address (the RoCE v2 GID ::ffff:a.b.c.d). On RoCE, --dgid without\n"
    "--gid-index sends from the local GID of the same kind (IPv4-mapped or\n"
    "not, RoCE v2 first, same scope first); otherwise from GID index 0.\n"
    "The Gets go through ib_umad (QP1), but to an IPv4 GID on RoCE from a\n"
    "UD QP of srp-dm's own (libibverbs; root), since the kernel's MAD\n"
    "layer drops answers from IPv4 RoCE v2 GIDs; --ud does that for any\n"
    "RoCE destination.\n"
    "\n"
    "For every SRP target port found it prints the line for ib_srp's\n"
    "add_target file, as \"add_target: LINE\". On RoCE, when the target\n"
    "names its RDMA/CM port in its controller's ID string (rdma_cm_port=N,\n"
    "as ib_srpt does while its RDMA/CM listener is on), an RDMA/CM line\n"
    "with the IP address the GID carries:\n"
    "  id_ext=<16 hex>,ioc_guid=<16 hex>,dest=<IPv4>:<port>\n"
    "  id_ext=<16 hex>,ioc_guid=<16 hex>,dest=[<IPv6>]:<port>\n"
    "else (and on InfiniBand) the IB/CM line, which on RoCE ib_srp cannot\n"
    "use (it needs RDMA/CM there; srp-dm says so in a \"note:\" line):\n"
    "  id_ext=...,ioc_guid=...,dgid=<32 hex>,pkey=<4 hex>,service_id=<16 hex>\n"
    "  -c                   print only the add_target lines, one a target\n"
    "                       (notes go to stderr)\n"
    "  --login[=PATH]       write each line to PATH (default: ib_srp's file\n"
    "                       of DEV port N,\n"
    "                       /sys/class/infiniband_srp/srp-DEV-N/add_target):\n"
    "                       ib_srp logs in to the target\n"
    "  --initiator-ext HEX  append initiator_ext=HEX (up to 16 hex digits)\n"
    "                       to the printed and written lines\n"
    "  --opt KEY=VALUE      append another of ib_srp's initiator parameters\n"
    "                       (max_cmd_per_lun, queue_size, ch_count, src,\n"
    "                       max_it_iu_size, ...); repeatable\n"
    "--query sends one Get of attribute ATTR with modifier MOD (decimal or\n"
    "0x-hex) and prints the answer's status; exit 0 if any answer came.\n";

// Up to 16 hex digits, with or without 0x (ib_srp parses initiator_ext as
// hex whatever its form).
std::optional<uint64_t> parse_hex64(std::string s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s = s.substr(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  for (char c : s)
    if (!isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoull(s, nullptr, 16);
}

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
  srp::cli::flag(app, "-c,--add-target-lines", &o.lines_only);
  srp::cli::flag(app, "--ud", &o.ud);
  srp::cli::value(app, "--device", [&](const std::string &v) { o.device = v; });
  srp::cli::value(app, "--dgid", [&](const std::string &v) {
    o.dgid = srp::dm::parse_dgid(v);
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
  // --login alone or with a path (--login=PATH, --login PATH).
  app.add_option_function<std::vector<std::string>>(
         "--login",
         [&](const std::vector<std::string> &vs) {
           o.login = vs.empty() ? std::string() : vs.back();
         })
      ->expected(0, 1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->allow_extra_args(false);
  srp::cli::value(app, "--initiator-ext", [&](const std::string &v) {
    o.initiator.initiator_ext = parse_hex64(v);
    if (!o.initiator.initiator_ext)
      complain("bad --initiator-ext '" + v + "' (want up to 16 hex digits)");
  });
  srp::cli::value(app, "--opt", [&](const std::string &v) {
    std::string why = srp::dm::check_option(v);
    if (!why.empty())
      complain("bad --opt: " + why);
    else
      o.initiator.options.push_back(v);
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
  number("--port", 255, [&](uint64_t n) { o.port = int(n); });
  number("--dlid", 0xffff, [&](uint64_t n) { o.dlid = uint16_t(n); });
  number("--gid-index", 255, [&](uint64_t n) { o.gid_index = int(n); });
  number("--timeout-ms", 600000, [&](uint64_t n) { o.timeout_ms = int(n); });
  number("--retries", 100, [&](uint64_t n) { o.retries = int(n); });

  *err = srp::cli::parse(app, std::vector<std::string>(argv + 1, argv + argc));
  if (help) {
    std::cout << kUsage;
    exit(0);
  }
  if (err->empty()) *err = bad;
  if (err->empty() && o.device.empty()) *err = "--device is required";
  if (err->empty() && o.query && (o.lines_only || o.login))
    *err = "--query does not go with -c or --login";
  if (!err->empty()) return std::nullopt;
  return o;
}

// The first line of a sysfs file, or nullopt.
std::optional<std::string> read_sysfs(const std::string &path) {
  std::ifstream f(path);
  std::string s;
  if (!std::getline(f, s)) return std::nullopt;
  return s;
}

// The GID table of a local port, from sysfs (unused entries are the zero
// GID; their type cannot be read).
std::vector<srp::dm::LocalGid> local_gids(const std::string &dir) {
  std::vector<srp::dm::LocalGid> table;
  for (int i = 0; i < 256; i++) {
    auto s = read_sysfs(dir + "/gids/" + std::to_string(i));
    if (!s) break;
    auto g = srp::dm::parse_gid(*s);
    if (!g || srp::dm::gid_is_zero(*g)) continue;
    srp::dm::LocalGid e;
    e.index = i;
    e.gid = *g;
    e.type =
        read_sysfs(dir + "/gid_attrs/types/" + std::to_string(i)).value_or("");
    table.push_back(e);
  }
  return table;
}

std::string gid_text(const std::vector<uint8_t> &g) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < g.size(); i++) {
    snprintf(b, sizeof(b), "%02x", g[i]);
    s += b;
    if (i % 2 && i + 1 != g.size()) s += ':';
  }
  return s;
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
    if (port.pkeys && port.pkeys_size && port.pkeys[0]) pkey_ = port.pkeys[0];
    umad_release_port(&port);
    if (o.ud && !ethernet_) {
      *err = "--ud is for RoCE ports";
      return false;
    }

    std::string dir = "/sys/class/infiniband/" + o.device + "/ports/" +
                      std::to_string(o.port);
    sgid_index_ = o.gid_index.value_or(0);
    if (o.dgid) {
      dgid_ = *o.dgid;
      // RoCE v2 routes by IP: the source must be an address of the
      // destination's family.
      if (ethernet_ && !o.gid_index) {
        auto i = srp::dm::choose_sgid_index(local_gids(dir), dgid_);
        if (i)
          sgid_index_ = *i;
        else
          notes_.push_back("no local GID of the kind of " + gid_text(dgid_) +
                           ": sending from GID index 0");
      }
    } else if (ethernet_ || !o.dlid) {
      // The local port's own GID: ask ourselves.
      std::string path = dir + "/gids/" + std::to_string(sgid_index_);
      auto s = read_sysfs(path);
      auto g = s ? srp::dm::parse_gid(*s) : std::nullopt;
      if (!g) {
        *err = "cannot read the local GID from " + path;
        return false;
      }
      dgid_ = *g;
    }
    if (ethernet_)
      ndev_ =
          read_sysfs(dir + "/gid_attrs/ndevs/" + std::to_string(sgid_index_))
              .value_or("");
    // InfiniBand: route by LID (no GRH) unless a GID was asked for.
    use_grh_ = ethernet_ || o.dgid.has_value();
    dlid_ = o.dlid.value_or(local_lid_);

    // ib_mad cannot pair answers from an IPv4 RoCE v2 GID with their
    // requests (ud_mad.h): ask from a UD QP of our own then.
    use_ud_ = ethernet_ && (o.ud || srp::dm::gid_is_v4mapped(dgid_));
    if (use_ud_) return ud_.open(o.device, o.port, dgid_, sgid_index_, err);

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
    return true;
  }

  ~DmPort() {
    if (agent_ >= 0) umad_unregister(fd_, agent_);
    if (fd_ >= 0) umad_close_port(fd_);
  }

  std::string destination() const {
    return use_grh_ ? "GID " + gid_text(dgid_) : "LID " + std::to_string(dlid_);
  }

  std::string transport() const {
    return use_ud_ ? "UD QP " + std::to_string(ud_.qp_num())
                   : std::string("ib_umad (QP1)");
  }
  bool ethernet() const { return ethernet_; }
  int sgid_index() const { return sgid_index_; }
  // The destination's GID; empty when addressed by LID alone.
  const std::vector<uint8_t> &dgid() const { return dgid_; }
  // The network device of the source GID (RoCE), the zone of a link-local
  // destination.
  const std::string &netdev() const { return ndev_; }
  uint16_t pkey() const { return pkey_; }
  const std::vector<std::string> &notes() const { return notes_; }

  // Status of the last answer received (0 before any).
  uint16_t last_status() const { return last_status_; }
  bool answered() const { return answered_; }

  // Sends a Get and returns the answer's data area, or nullopt with *err.
  std::optional<std::vector<uint8_t>> get(uint16_t attr, uint32_t mod,
                                          std::string *err) {
    last_status_ = 0;
    answered_ = false;
    uint64_t tid = ++tid_;
    auto req = srp::dm::get_request(attr, mod, tid);
    auto mad = use_ud_ ? ud_.exchange(req, opt_.timeout_ms, opt_.retries, err)
                       : umad_exchange(req, tid, err);
    if (!mad) return std::nullopt;
    auto h = srp::dm::decode_header(mad->data(), mad->size());
    if (!h) {
      *err = "short answer (" + std::to_string(mad->size()) + " bytes)";
      return std::nullopt;
    }
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
    if (mad->size() < srp::dm::kMadSize) {
      *err = "short answer (" + std::to_string(mad->size()) + " bytes)";
      return std::nullopt;
    }
    return std::vector<uint8_t>(mad->begin() + srp::dm::kDataOffset,
                                mad->begin() + srp::dm::kMadSize);
  }

 private:
  // Sends @req through ib_umad and returns the answer with its TID (the
  // kernel pairs them: a send that times out comes back with a status).
  std::optional<std::vector<uint8_t>> umad_exchange(
      const std::vector<uint8_t> &req, uint64_t tid, std::string *err) {
    const size_t bufsize = umad_size() + srp::dm::kMadSize;
    std::vector<uint8_t> out(bufsize, 0), in(bufsize, 0);
    memcpy(umad_get_mad(out.data()), req.data(), req.size());
    // QP1, Q_Key 0x80010000 (the GSI's well-known key), SL 0.
    umad_set_addr(out.data(), dlid_, 1, 0, 0x80010000);
    umad_set_pkey(out.data(), 0);
    if (use_grh_) {
      auto *um = reinterpret_cast<ib_user_mad_t *>(out.data());
      um->addr.grh_present = 1;
      um->addr.gid_index = uint8_t(sgid_index_);
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
      return std::vector<uint8_t>(mad, mad + len);
    }
  }

  DmOptions opt_;
  int fd_ = -1;
  int agent_ = -1;
  bool ethernet_ = false;
  bool use_grh_ = false;
  bool use_ud_ = false;
  srp::dm::UdMad ud_;
  uint16_t local_lid_ = 0;
  uint16_t dlid_ = 0;
  uint16_t pkey_ = 0xffff;
  int sgid_index_ = 0;
  std::vector<uint8_t> dgid_;
  std::string ndev_;
  std::vector<std::string> notes_;
  uint64_t tid_ = 0x5350;
  uint16_t last_status_ = 0;
  bool answered_ = false;
};

// An SRP target port found, with what its controller said of RDMA/CM.
struct Found {
  srp::dm::SrpTarget target;
  std::optional<uint16_t> rdma_cm_port;
};

// The add_target line of one target for the port that was asked.
struct Line {
  std::string text;    // empty: none can be made
  std::string note;    // why it is not the obvious one, or empty
  bool usable = true;  // ib_srp on this link layer can log in with it
};

Line line_for(const Found &f, const DmPort &port) {
  Line l;
  const auto &g = port.dgid();
  if (g.size() != 16) {
    l.note = "addressed by LID: no GID for dgid= (give --dgid)";
    l.usable = false;
    return l;
  }
  if (port.ethernet() && f.rdma_cm_port) {
    auto a = srp::dm::dest_address(g, port.netdev());
    if (a) {
      l.text = srp::dm::rdma_cm_line(f.target, *a, *f.rdma_cm_port);
      if (srp::dm::gid_is_link_local(g) && port.netdev().empty())
        l.note =
            "link-local destination without a zone: dest= needs "
            "%<interface> of this host";
      return l;
    }
    l.note = "GID " + gid_text(g) + " carries no IP address for dest=";
  }
  l.text = srp::dm::ib_cm_line(f.target, g, port.pkey());
  if (port.ethernet()) {
    if (l.note.empty())
      l.note = "the target names no RDMA/CM port (no \"" +
               std::string(srp::dm::kRdmaCmPortWord) +
               "\" in its ID string); this IB/CM line is for InfiniBand: on "
               "RoCE ib_srp logs in over RDMA/CM only (turn the target's "
               "listener on: discovery_auth/rdma_cm_port in configfs or the "
               "rdma_cm_port module parameter)";
    l.usable = false;
  } else if (f.rdma_cm_port) {
    l.note = "the target also listens for RDMA/CM on port " +
             std::to_string(*f.rdma_cm_port) +
             ": dest=<its IPoIB address>:" + std::to_string(*f.rdma_cm_port) +
             " instead of dgid/pkey/service_id works too";
  }
  return l;
}

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
  // The report goes to stdout, or nowhere with -c (only the lines do).
  std::ostringstream discard;
  std::ostream &out = opt->lines_only ? discard : std::cout;
  out << "destination: " << port.destination() << "\n";
  out << "transport: " << port.transport() << "\n";
  if (port.ethernet() || opt->dgid)
    out << "source_gid_index: " << port.sgid_index() << "\n";
  for (const auto &n : port.notes()) std::cerr << "srp-dm: note: " << n << "\n";

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
  out << srp::dm::format_iou(*iou);

  int failed = 0;
  std::vector<Found> found;
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
    out << srp::dm::format_ioc(slot, *ioc);
    auto cm_port = srp::dm::rdma_cm_port_of(ioc->id_string);
    if (cm_port)
      out << "ioc[" << slot << "].rdma_cm_port: " << *cm_port << "\n";
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
        out << srp::dm::format_svc(unsigned(first + k), entries[k]);
        auto id_ext = srp::dm::srp_id_ext(entries[k].name);
        if (!id_ext || (ioc->io_class != srp::dm::kSrpIoClass &&
                        ioc->io_class != srp::dm::kSrpRev10IoClass))
          continue;
        Found f;
        f.target.id_ext = std::stoull(*id_ext, nullptr, 16);
        f.target.ioc_guid = ioc->guid;
        f.target.service_id = entries[k].id;
        f.target.io_class = ioc->io_class;
        f.rdma_cm_port = cm_port;
        found.push_back(f);
      }
    }
  }

  // The add_target lines, and with --login ib_srp logs in with them.
  std::string path;
  if (opt->login)
    path = opt->login->empty()
               ? srp::dm::add_target_path(opt->device, opt->port)
               : *opt->login;
  int logins_failed = 0;
  for (const auto &f : found) {
    Line l = line_for(f, port);
    if (!l.text.empty()) {
      std::string text = srp::dm::with_initiator(l.text, opt->initiator);
      if (opt->lines_only)
        std::cout << text << "\n";
      else
        std::cout << "add_target: " << text << "\n";
      l.text = text;
    }
    if (!l.note.empty()) {
      if (opt->lines_only)
        std::cerr << "srp-dm: note: " << l.note << "\n";
      else
        std::cout << "note: " << l.note << "\n";
    }
    if (!opt->login) continue;
    if (l.text.empty() || !l.usable) {
      char id[17];
      snprintf(id, sizeof(id), "%016" PRIx64, f.target.id_ext);
      std::cerr << "srp-dm: login: not logging in to id_ext " << id
                << ": ib_srp on this port cannot log in with "
                << (l.text.empty() ? "no line" : "this line") << "\n";
      logins_failed++;
      continue;
    }
    err = srp::dm::write_add_target(path, l.text);
    if (!err.empty()) {
      std::cerr << "srp-dm: login: " << err << "\n";
      logins_failed++;
      continue;
    }
    (opt->lines_only ? std::cerr : std::cout)
        << "login: " << path << " took " << l.text << "\n";
  }
  if (opt->login && found.empty()) {
    std::cerr << "srp-dm: login: no SRP target found to log in to\n";
    logins_failed++;
  }
  out << "srp_targets: " << found.size() << "\n";
  return !found.empty() && !failed && !logins_failed ? 0 : 1;
}
