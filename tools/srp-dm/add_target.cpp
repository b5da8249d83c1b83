// SPDX-License-Identifier: GPL-2.0-only
//
// add_target lines for ib_srp (see add_target.h).
#include "add_target.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "dm.h"

namespace srp::dm {
namespace {

std::string hex(uint64_t v, int width) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%0*llx", width,
           static_cast<unsigned long long>(v));
  return buf;
}

bool is_v4mapped(const uint8_t *g) {
  static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return memcmp(g, prefix, sizeof(prefix)) == 0;
}

// The login fields of the target's side: filled in by srp-dm, never taken
// from --opt.
const char *const kTargetKeys[] = {"id_ext",     "ioc_guid", "dgid",    "pkey",
                                   "service_id", "dest",     "io_class"};
// What ib_srp's srp_parse_options() takes besides them.
const char *const kInitiatorKeys[] = {"max_sect",         "max_cmd_per_lun",
                                      "target_can_queue", "cmd_sg_entries",
                                      "allow_ext_sg",     "sg_tablesize",
                                      "comp_vector",      "tl_retry_count",
                                      "queue_size",       "src",
                                      "max_it_iu_size",   "ch_count"};

template <size_t N>
bool listed(const char *const (&keys)[N], const std::string &k) {
  return std::find(std::begin(keys), std::end(keys), k) != std::end(keys);
}

// Why a write of an add_target line failed, in words, for the errnos
// ib_srp's add_target_store() returns.
std::string write_hint(int err) {
  switch (err) {
    case EEXIST:
      return " (ib_srp is already logged in to this target port)";
    case EINVAL:
      return " (ib_srp refused the line: the initiator's kernel log says "
             "which field)";
    case ENOMEM:
      return "";
    default:
      return " (the login failed: the kernel logs of the initiator and the "
             "target say why)";
  }
}

}  // namespace

std::optional<uint16_t> rdma_cm_port_of(const std::string &id_string) {
  std::istringstream words(id_string);
  const std::string key = kRdmaCmPortWord;
  std::string w;
  while (words >> w) {
    if (w.compare(0, key.size(), key) != 0) continue;
    std::string n = w.substr(key.size());
    if (n.empty() || n.size() > 5) return std::nullopt;
    for (char c : n)
      if (!isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    unsigned long v = std::stoul(n);
    if (v < 1 || v > 65535) return std::nullopt;
    return uint16_t(v);
  }
  return std::nullopt;
}

std::optional<Gid> parse_dgid(const std::string &s) {
  if (auto g = parse_gid(s)) return g;
  Gid g(16, 0);
  if (inet_pton(AF_INET6, s.c_str(), g.data()) == 1) return g;
  struct in_addr a;
  if (inet_pton(AF_INET, s.c_str(), &a) == 1) {
    g[10] = g[11] = 0xff;
    memcpy(&g[12], &a, 4);
    return g;
  }
  return std::nullopt;
}

bool gid_is_v4mapped(const Gid &g) {
  return g.size() == 16 && is_v4mapped(g.data());
}

bool gid_is_link_local(const Gid &g) {
  return g.size() == 16 && g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

bool gid_is_zero(const Gid &g) {
  return std::all_of(g.begin(), g.end(), [](uint8_t b) { return b == 0; });
}

std::optional<std::string> dest_address(const Gid &g,
                                        const std::string &scope) {
  if (g.size() != 16 || gid_is_zero(g) || g[0] == 0xff) return std::nullopt;
  char buf[INET6_ADDRSTRLEN];
  if (gid_is_v4mapped(g)) {
    if (!inet_ntop(AF_INET, &g[12], buf, sizeof(buf))) return std::nullopt;
    return std::string(buf);
  }
  if (!inet_ntop(AF_INET6, g.data(), buf, sizeof(buf))) return std::nullopt;
  std::string a = buf;
  if (!scope.empty() && gid_is_link_local(g)) a += "%" + scope;
  return "[" + a + "]";
}

std::optional<int> choose_sgid_index(const std::vector<LocalGid> &table,
                                     const Gid &dgid) {
  std::optional<int> best;
  int best_score = -1;
  for (const auto &e : table) {
    if (e.gid.size() != 16 || gid_is_zero(e.gid)) continue;
    if (gid_is_v4mapped(e.gid) != gid_is_v4mapped(dgid)) continue;
    int score = (e.type == "RoCE v2" ? 2 : 0) +
                (gid_is_link_local(e.gid) == gid_is_link_local(dgid) ? 1 : 0);
    if (score > best_score || (score == best_score && e.index < *best)) {
      best = e.index;
      best_score = score;
    }
  }
  return best;
}

namespace {

std::string common(const SrpTarget &t) {
  return "id_ext=" + hex(t.id_ext, 16) + ",ioc_guid=" + hex(t.ioc_guid, 16);
}

std::string io_class_suffix(const SrpTarget &t) {
  return t.io_class == kSrpRev10IoClass ? ",io_class=" + hex(t.io_class, 4)
                                        : "";
}

}  // namespace

std::string rdma_cm_line(const SrpTarget &t, const std::string &address,
                         uint16_t port) {
  return common(t) + ",dest=" + address + ":" + std::to_string(port) +
         io_class_suffix(t);
}

std::string ib_cm_line(const SrpTarget &t, const Gid &dgid, uint16_t pkey) {
  std::string g;
  for (uint8_t b : dgid) g += hex(b, 2);
  return common(t) + ",dgid=" + g + ",pkey=" + hex(pkey, 4) +
         ",service_id=" + hex(t.service_id, 16) + io_class_suffix(t);
}

std::string check_option(const std::string &kv) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
    return "'" + kv + "' is not KEY=VALUE";
  std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
  if (k == "initiator_ext") return "use --initiator-ext for initiator_ext";
  if (listed(kTargetKeys, k))
    return k + " is the target's: srp-dm fills it in from what it found";
  if (!listed(kInitiatorKeys, k))
    return "ib_srp has no login parameter '" + k + "'";
  for (char c : v)
    if (c == ',' || isspace(static_cast<unsigned char>(c)))
      return "the value of " + k + " has a ',' or a space";
  return "";
}

std::string with_initiator(const std::string &line, const InitiatorFields &f) {
  std::string s = line;
  if (f.initiator_ext) s += ",initiator_ext=" + hex(*f.initiator_ext, 16);
  for (const auto &o : f.options) s += "," + o;
  return s;
}

std::string add_target_path(const std::string &device, int port) {
  return "/sys/class/infiniband_srp/srp-" + device + "-" +
         std::to_string(port) + "/add_target";
}

std::string write_add_target(const std::string &path, const std::string &line) {
  namespace fs = std::filesystem;
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string msg = "cannot open " + path + ": " + strerror(err);
    if (err != ENOENT) return msg;
    // Which part is missing: ib_srp itself, or the port.
    std::error_code ec;
    fs::path host = fs::path(path).parent_path();
    fs::path cls = host.parent_path();
    if (cls.filename() != "infiniband_srp" || fs::exists(host, ec)) return msg;
    if (!fs::exists(cls, ec))
      return msg + ": ib_srp is not loaded (modprobe ib_srp)";
    std::vector<std::string> ports;
    for (const auto &d : fs::directory_iterator(cls, ec))
      ports.push_back(d.path().filename().string());
    std::sort(ports.begin(), ports.end());
    msg += ": ib_srp has no port " + host.filename().string();
    if (ports.empty()) return msg + " (it has none)";
    msg += " (it has";
    for (const auto &p : ports) msg += " " + p;
    return msg + "; --login=PATH names another)";
  }
  ssize_t n = ::write(fd, line.data(), line.size());
  int err = errno;
  ::close(fd);
  if (n < 0)
    return "writing the add_target line to " + path +
           " failed: " + strerror(err) + write_hint(err);
  if (size_t(n) != line.size())
    return "short write to " + path + " (" + std::to_string(n) + " of " +
           std::to_string(line.size()) + " bytes)";
  return "";
}

}  // namespace srp::dm
