// SPDX-License-Identifier: GPL-2.0-only
#include "fake_target.h"

#include <algorithm>
#include <cstring>

namespace srp::test {

namespace {

Bytes login_rej(uint64_t tag, uint32_t reason) {
  Bytes b(kLoginRejSize, 0);
  put_u8(b, 0, kOpLoginRej);
  put_be32(b, 4, reason);
  put_be64(b, 8, tag);
  put_be16(b, 24, kBufFmtDirect | kBufFmtIndirect);
  return b;
}

Bytes fixed_sense(uint8_t key, uint8_t asc, uint8_t ascq) {
  Bytes s(18, 0);
  s[0] = 0x70;
  s[2] = key;
  s[7] = 10;
  s[12] = asc;
  s[13] = ascq;
  return s;
}

}  // namespace

Options model_options() {
  Options o;
  o.host = "fake";
  o.port = "1";
  o.id_ext = 0x0002c903000a0b0cull;
  o.ioc_guid = 0x0002c903000a0b0dull;
  o.initiator_ext = 0x1122;
  o.timeout_ms = 100;
  o.retry_count = 1;  // the model's transfers fail at once anyway
  return o;
}

FakeConfig model_config(const Options &o) {
  FakeConfig c;
  c.target_port_id = make_port_id(o.id_ext, o.ioc_guid);
  return c;
}

// ---------------------------------------------------------------------------
// Login
// ---------------------------------------------------------------------------

ConnectResult FakeTarget::connect(const Bytes &private_data, size_t data_size,
                                  Deadline) {
  ConnectResult r;
  if (disk_.empty()) {
    disk_.resize(cfg_.blocks * cfg_.block_size);
    for (size_t i = 0; i < disk_.size(); i++)
      disk_[i] = static_cast<uint8_t>(i * 7 + (i >> 9));
  }
  Bytes pd = private_data;
  auto reject = [&](uint32_t reason) {
    r.kind = ConnectResult::Kind::kRejected;
    r.cm_status = 28;
    r.private_data =
        login_rej(pd.size() >= 8 ? get_be64(ByteView(pd), 0) : 0, reason);
    r.private_data.resize(148, 0);  // IB REJ private data size
    return std::move(r);
  };
  if (cfg_.exact_private_data && pd.size() < kLoginReqRdmaSize)
    return reject(kRejUnableEstablish);
  pd.resize(kLoginReqRdmaSize, 0);  // the IB CM pads to 56 bytes
  const ByteView v(pd);
  const uint64_t tag = get_be64(v, 0);
  const uint16_t fmt = get_be16(v, 8);
  const uint8_t flags = pd[10];
  const uint32_t it = get_be32(v, 12);
  const uint16_t imm_off = get_be16(v, 48);
  PortId ini{}, tgt{};
  std::copy(pd.begin() + 16, pd.begin() + 32, ini.begin());
  std::copy(pd.begin() + 32, pd.begin() + 48, tgt.begin());

  if (!cfg_.tpg_enabled) return reject(kRejInsufficientResources);
  if (pd[11] != kOpLoginReq) return reject(kRejUnableEstablish);
  if (tgt != cfg_.target_port_id) return reject(kRejUnableAssociate);
  if (it < 64 || it > cfg_.max_req_size) return reject(kRejItIuLenTooLarge);
  if (!(fmt & (kBufFmtDirect | kBufFmtIndirect)))
    return reject(kRejUnsupportedFormat);
  if ((flags & kMultichanMask) > kMultichanMulti)
    return reject(kRejUnableEstablish);
  // No RDMA READ depth: the target could never fetch write data.
  if (responder_resources && *responder_resources == 0)
    return reject(kRejUnableEstablish);
  const bool imm = (flags & kImmedRequested) && cfg_.immediate;
  if (imm && (imm_off < kCmdSize + kImmDescSize || imm_off > it))
    return reject(kRejUnableEstablish);
  if (!cfg_.acl_allows) return reject(kRejUnableEstablish);

  uint8_t mc = kRspMultichanNoChan;
  const bool single = (flags & kMultichanMask) == kMultichanSingle;
  std::vector<FakeChannel *> same;
  for (FakeChannel *c : channels_)
    if (c->initiator() == ini) same.push_back(c);
  if (!same.empty()) {
    mc = single ? kRspMultichanTerminated : kRspMultichanMaintained;
    if (single && !cfg_.single_keeps_others)
      for (FakeChannel *c : same) c->close("target disconnected");
  }

  auto ch = std::make_unique<FakeChannel>(*this, data_size, ini, it, imm,
                                          imm ? imm_off : 0, next_rkey_++);
  channels_.push_back(ch.get());
  logins_++;

  Bytes rsp(kLoginRspSize, 0);
  put_u8(rsp, 0, kOpLoginRsp);
  put_be32(rsp, 4, static_cast<uint32_t>(cfg_.credits));
  put_be64(rsp, 8, tag);
  put_be32(rsp, 16, it);
  put_be32(rsp, 20, cfg_.max_ti_iu_len);
  put_be16(rsp, 24, fmt & (kBufFmtDirect | kBufFmtIndirect));
  put_u8(rsp, 26, static_cast<uint8_t>(mc | (imm ? kRspImmedSupported : 0)));
  rsp.resize(196, 0);  // IB REP private data size
  r.kind = ConnectResult::Kind::kAccepted;
  r.private_data = rsp;
  r.channel = std::move(ch);
  return r;
}

void FakeTarget::remove(FakeChannel *c) {
  channels_.erase(std::remove(channels_.begin(), channels_.end(), c),
                  channels_.end());
}

// ---------------------------------------------------------------------------
// Channel
// ---------------------------------------------------------------------------

FakeChannel::FakeChannel(FakeTarget &t, size_t data_size, const PortId &ini,
                         uint32_t max_it, bool imm, uint16_t imm_off,
                         uint32_t rkey)
    : t_(t),
      data_(data_size, 0),
      ini_(ini),
      max_it_(max_it),
      imm_(imm),
      imm_off_(imm_off),
      rkey_(rkey),
      req_lim_(t.cfg().credits) {}

FakeChannel::~FakeChannel() { t_.remove(this); }

bool FakeChannel::start(uint32_t, uint32_t count, std::string *) {
  recv_count_ = recv_posted_ = count;
  return true;
}

bool FakeChannel::resume_receives(std::string *) {
  recv_paused_ = false;
  recv_posted_ = recv_count_;
  while (!held_.empty()) {
    q_.push_back(std::move(held_.front()));
    held_.pop_front();
  }
  return true;
}

void FakeChannel::deliver(Event e) {
  if (recv_paused_) {
    if (!recv_posted_) {
      if (!t_.cfg().drop_rsp_when_stalled) held_.push_back(std::move(e));
      return;
    }
    recv_posted_--;
  }
  q_.push_back(std::move(e));
}

uint64_t FakeChannel::data_va(size_t offset) const {
  return static_cast<uint64_t>(
      reinterpret_cast<uintptr_t>(data_.data() + offset));
}

void FakeChannel::close(const std::string &why) {
  if (closed_) return;
  closed_ = true;
  t_.remove(this);
  Event e;
  e.kind = Event::Kind::kDisconnected;
  e.what = why;
  q_.push_back(e);
}

std::optional<Event> FakeChannel::next_event(Deadline) {
  if (q_.empty()) return std::nullopt;
  Event e = std::move(q_.front());
  q_.pop_front();
  return e;
}

void FakeChannel::disconnect(Deadline) {
  closed_ = true;
  t_.remove(this);
}

bool FakeChannel::send(ByteView iu, std::string *why) {
  if (closed_) {
    *why = "channel closed";
    return false;
  }
  const Bytes b(iu.data, iu.data + iu.size);
  if (b.size() > t_.cfg().max_req_size) {
    // The target's receive fails: it closes the channel.
    sends_ok_++;  // delivered, and refused by the receive
    close("target disconnected");
    return true;
  }
  sends_ok_++;
  // Responses to target requests spend no credit (SRP r16a; ib_srp).
  const bool response_iu =
      !b.empty() && (b[0] == kOpCredRsp || b[0] == kOpAerRsp);
  if (response_iu) return true;  // ignored; its buffer gives no credit
  if (--req_lim_ < 0) {
    delta_++;  // the buffer is reposted; req_lim_ stays negative
    if (b.size() >= 16 && b[0] == kOpCmd)
      respond(get_be64(ByteView(b), 8), kStatusBusy, {}, -1, 0, 0, 0);
    return true;
  }
  handle(b);
  return true;
}

void FakeChannel::respond(uint64_t tag, uint8_t status, const Bytes &sense,
                          int resp_code, uint8_t flags, uint32_t out_res,
                          uint32_t in_res) {
  if (closed_) return;
  Bytes r(kRspSize, 0);
  put_u8(r, 0, kOpRsp);
  put_be32(r, 4, static_cast<uint32_t>(delta_));
  req_lim_ += delta_;
  delta_ = 0;
  put_be64(r, 8, tag);
  if (resp_code >= 0) flags |= kRspFlagRspValid;
  if (!sense.empty()) flags |= kRspFlagSnsValid;
  put_u8(r, 18, flags);
  put_u8(r, 19, status);
  put_be32(r, 20, out_res);
  put_be32(r, 24, in_res);
  put_be32(r, 28, static_cast<uint32_t>(sense.size()));
  put_be32(r, 32, resp_code >= 0 ? 4 : 0);
  if (resp_code >= 0) {
    r.insert(r.end(), {0, 0, 0, static_cast<uint8_t>(resp_code)});
  }
  r.insert(r.end(), sense.begin(), sense.end());
  Event e;
  e.kind = Event::Kind::kIu;
  e.iu = r;
  deliver(std::move(e));
}

void FakeChannel::check_condition(uint64_t tag, uint8_t key, uint8_t asc,
                                  uint8_t ascq) {
  respond(tag, kStatusCheckCondition, fixed_sense(key, asc, ascq), -1, 0, 0, 0);
}

bool FakeChannel::rdma(const std::vector<Desc> &d, Bytes &buf,
                       bool to_initiator) {
  size_t pos = 0;
  for (const Desc &x : d) {
    const uint64_t base = data_va(0);
    if (x.key != rkey_ || x.va < base || x.va + x.len > base + data_.size()) {
      close("target disconnected");  // RDMA protection error
      return false;
    }
    const size_t n =
        std::min<size_t>(x.len, buf.size() - std::min(pos, buf.size()));
    uint8_t *p = data_.data() + (x.va - base);
    if (n && to_initiator)
      std::memcpy(p, buf.data() + pos, n);
    else if (n)
      std::memcpy(buf.data() + pos, p, n);
    pos += n;
  }
  return true;
}

void FakeChannel::handle(const Bytes &iu) {
  const uint8_t op = iu.empty() ? 0xff : iu[0];
  switch (op) {
    case kOpCmd:
      handle_cmd(iu);
      return;
    case kOpTskMgmt:
      handle_tmf(iu);
      return;
    case kOpILogout:
      close("target disconnected");
      return;
    case kOpCredRsp:
    case kOpAerRsp:
      delta_++;  // ignored, buffer reposted
      return;
    default:
      if (t_.cfg().ignore_unknown_opcode) {
        delta_++;
        return;
      }
      // An invalid IU type: SRP_T_LOGOUT (reason 02h), then the disconnect.
      if (!t_.cfg().close_on_unknown_opcode) {
        Bytes r(kTLogoutSize, 0);
        put_u8(r, 0, kOpTLogout);
        put_be32(r, 4, 2);
        Event e;
        e.kind = Event::Kind::kIu;
        e.iu = r;
        deliver(std::move(e));
      }
      close("target disconnected");
      return;
  }
}

bool FakeChannel::pr_apply(uint8_t sa, uint64_t key, uint64_t sa_key) {
  auto &keys = t_.pr_keys_;
  const auto mine = keys.find(ini_);
  const bool registered = mine != keys.end();
  switch (sa) {
    case 0x00:  // REGISTER
      if (registered ? key != mine->second : key != 0) return false;
      break;
    case 0x06:  // REGISTER AND IGNORE EXISTING KEY
      break;
    case 0x03:  // CLEAR
      if (!registered || key != mine->second) return false;
      keys.clear();
      t_.pr_generation_++;
      return true;
    default:
      return false;
  }
  if (t_.cfg().pr_keeps_zero_register && sa_key == 0) sa_key = 0xbad;
  if (sa_key)
    keys[ini_] = sa_key;
  else
    keys.erase(ini_);
  t_.pr_generation_++;
  return true;
}

void FakeChannel::handle_tmf(const Bytes &iu) {
  delta_++;
  if (iu.size() < kTskMgmtSize) {
    // Answered with its own tag as soon as the IU holds one.
    respond(iu.size() >= 16 ? get_be64(ByteView(iu), 8) : 0, kStatusGood,
            {}, kTmfRspInvalidFields, 0, 0, 0);
    return;
  }
  const ByteView v(iu);
  const uint64_t tag = get_be64(v, 8);
  const uint8_t func = iu[30];
  Lun lun{};
  std::copy(iu.begin() + 20, iu.begin() + 28, lun.begin());
  int code;
  switch (func) {
    case kTmfAbortTask:
    case kTmfAbortTaskSet:
      code = kTmfRspComplete;
      break;
    case kTmfLunReset:
      code = kTmfRspComplete;
      ua_ = true;
      break;
    case kTmfClearTaskSet:
    case kTmfClearAca:
      code = kTmfRspNotSupported;
      break;
    default:
      if (t_.cfg().drop_unknown_tmf) return;
      respond(tag, kStatusGood, {}, kTmfRspInvalidFields, 0, 0, 0);
      return;
  }
  if (lun != encode_lun(t_.cfg().lun)) code = kTmfRspIncorrectLun;
  if (code == kTmfRspIncorrectLun && func == kTmfLunReset) ua_ = false;
  respond(tag, kStatusGood, {}, code, 0, 0, 0);
}

void FakeChannel::handle_cmd(const Bytes &iu) {
  const ByteView v(iu);
  const size_t len = iu.size();
  const uint64_t tag = len >= 16 ? get_be64(v, 8) : 0;
  auto bad = [&](uint8_t asc = 0x0e, uint8_t ascq = 0x03) {
    if (!t_.cfg().lose_credit_on_malformed) delta_++;
    check_condition(tag, kSenseIllegalRequest, asc, ascq);
  };
  if (len < kCmdSize) return bad();
  const uint8_t add = iu[31];
  if (add & 3) return bad();
  const size_t off = kCmdSize + add;
  if (off > len) return bad();
  const uint8_t attr = iu[29];
  if (attr != 0 && attr != 1 && attr != 2 && attr != 4 &&
      !(attr == 3 && t_.cfg().accept_bad_task_attr))
    return bad();
  const uint8_t out = iu[5] >> 4, in = iu[5] & 0xf;
  if (out && in) return bad(0x24, 0x00);
  if (out > kDescImmediate || in > kDescIndirect) return bad();
  if (out == kDescImmediate && !imm_) return bad();
  const uint8_t fmt = out ? out : in;
  const uint8_t cnt = out ? iu[6] : iu[7];
  const uint8_t other = out ? iu[7] : iu[6];
  std::vector<Desc> d;
  uint64_t data_len = 0;
  size_t imm_pos = 0;
  auto desc_at = [&](size_t p) {
    return Desc{get_be64(v, p), get_be32(v, p + 8), get_be32(v, p + 12)};
  };
  if (fmt == kDescDirect) {
    if (cnt > 1 || other) return bad();
    if (off + 16 > len) return bad();
    d.push_back(desc_at(off));
    data_len = d[0].len;
  } else if (fmt == kDescIndirect) {
    if (off + kIndirectHdrSize > len) return bad();
    const uint32_t tl = get_be32(v, off + 12);
    const uint32_t total = get_be32(v, off + 16);
    if (tl == 0 || tl % 16) return bad();
    if (off + kIndirectHdrSize + size_t(cnt) * 16 > len) return bad();
    if (tl / 16 != cnt) return bad();  // external or short table
    uint64_t sum = 0;
    for (size_t i = 0; i < cnt; i++) {
      d.push_back(desc_at(off + kIndirectHdrSize + i * 16));
      sum += d.back().len;
    }
    if (sum != total) return bad();
    data_len = total;
  } else if (fmt == kDescImmediate) {
    if (off + 4 > len) return bad();
    const uint64_t il = get_be32(v, off);
    if (imm_off_ < off + 4 || imm_off_ + il > len) return bad();
    imm_pos = imm_off_;
    data_len = il;
  }
  if (len > max_it_) return bad();
  if (t_.cfg().drop_large_transfers && data_len > 32768) return;

  delta_++;  // the buffer is reposted before the command executes
  Lun lun{};
  std::copy(iu.begin() + 20, iu.begin() + 28, lun.begin());
  const uint8_t *c = iu.data() + 32;
  const uint32_t bs = t_.cfg().block_size;
  const uint64_t nblocks = t_.cfg().blocks;
  const bool lun_ok = lun == encode_lun(t_.cfg().lun);
  // LUN 0 when it is not the model's LUN: like LIO's virtual LUN 0, it
  // answers READ(10) with zeros (a target that discards data must not
  // return stale buffers).
  const bool virt0 = !lun_ok && lun == encode_lun(0);

  if (!lun_ok && c[0] != 0x12 && c[0] != 0xa0 && !(virt0 && c[0] == 0x28))
    return check_condition(tag, kSenseIllegalRequest, 0x25, 0x00);
  if (ua_ && c[0] != 0x12 && c[0] != 0xa0) {
    ua_ = false;
    return check_condition(tag, kSenseUnitAttention, 0x29, 0x03);
  }

  Bytes dev;  // data the device produces (reads)
  uint64_t expected = 0;
  bool is_write = false, data_cdb = false, pr_out = false;
  uint64_t lba = 0;
  const ByteView cv(c, 16);
  switch (c[0]) {
    case 0x00:
      break;
    case 0x12: {
      expected = get_be16(cv, 3);
      dev.assign(std::min(expected, data_len), 0);
      if (!lun_ok) {
        if (!dev.empty()) dev[0] = 0x7f;
      } else if (c[1] & 1) {
        const uint8_t vpd[] = {0, 0, 0, 2, 0x00, 0x80};
        std::copy(vpd, vpd + std::min<size_t>(6, dev.size()), dev.begin());
      } else {
        const char *id = "\0\0\x05\x02\x1f\0\0\0FAKE    SRP MODEL       0001";
        std::copy_n(id, std::min<size_t>(36, dev.size()), dev.begin());
      }
      break;
    }
    case 0x9e:
      if ((c[1] & 0x1f) != 0x10) return check_condition(tag, 5, 0x24, 0);
      expected = get_be32(cv, 10);
      dev.assign(std::min(expected, data_len), 0);
      {
        Bytes cap;
        put_be64(cap, 0, nblocks - 1);
        put_be32(cap, 8, bs);
        std::copy(cap.begin(), cap.begin() + std::min<size_t>(12, dev.size()),
                  dev.begin());
      }
      break;
    case 0xa0: {
      expected = get_be32(cv, 6);
      dev.assign(std::min(expected, data_len), 0);
      Bytes l;
      put_be32(l, 0, 8);
      put_be32(l, 4, 0);
      const Lun me = encode_lun(t_.cfg().lun);
      l.insert(l.end(), me.begin(), me.end());
      std::copy(l.begin(), l.begin() + std::min(l.size(), dev.size()),
                dev.begin());
      break;
    }
    case 0x03:  // REQUEST SENSE: no sense pending
      expected = c[4];
      dev.assign(std::min(expected, data_len), 0);
      {
        const Bytes sn = fixed_sense(kSenseNoSense, 0, 0);
        std::copy_n(sn.begin(), std::min(sn.size(), dev.size()), dev.begin());
      }
      break;
    case 0x28:
    case 0x2a:
    case 0x88:
    case 0x8a: {
      is_write = c[0] == 0x8a || c[0] == 0x2a;
      data_cdb = true;
      const bool ten = c[0] == 0x28 || c[0] == 0x2a;
      lba = ten ? get_be32(cv, 2) : get_be64(cv, 2);
      const uint32_t n = ten ? get_be16(cv, 7) : get_be32(cv, 10);
      if (lba + n > nblocks)
        return check_condition(tag, kSenseIllegalRequest, 0x21, 0x00);
      expected = uint64_t(n) * bs;
      if (virt0)
        dev.assign(expected, 0);
      else if (!is_write)
        dev.assign(t_.disk().begin() + static_cast<std::ptrdiff_t>(lba * bs),
                   t_.disk().begin() +
                       static_cast<std::ptrdiff_t>(lba * bs + expected));
      break;
    }
    case 0x5e: {  // PERSISTENT RESERVE IN: READ KEYS only
      if ((c[1] & 0x1f) != 0)
        return check_condition(tag, kSenseIllegalRequest, 0x24, 0x00);
      expected = get_be16(cv, 7);
      Bytes k;
      put_be32(k, 0, t_.pr_generation_);
      put_be32(k, 4, static_cast<uint32_t>(8 * t_.pr_keys_.size()));
      for (const auto &kv : t_.pr_keys_) put_be64(k, k.size(), kv.second);
      k.resize(std::min(expected, data_len), 0);
      dev = k;
      break;
    }
    case 0x5f:  // PERSISTENT RESERVE OUT: a 24-byte list, see below
      if (!out || data_len != 24 || get_be32(cv, 5) != 24)
        return check_condition(tag, kSenseIllegalRequest, 0x1a, 0x00);
      expected = 24;
      pr_out = true;
      break;
    case 0x57:  // RELEASE(10): no SPC-2 reservations in this model
      break;
    case 0x7f:
      // ADDITIONAL CDB LENGTH past the CDB the IU carries: a target that
      // takes the missing bytes from elsewhere finds the LBA out of range.
      if (t_.cfg().varlen_past_iu && size_t(c[7]) + 8 > kCdbSize + add)
        return check_condition(tag, kSenseIllegalRequest, 0x21, 0x00);
      return check_condition(tag, kSenseIllegalRequest, 0x20, 0x00);
    default:
      if (t_.cfg().sense_missing)
        return respond(tag, kStatusCheckCondition, {}, -1, 0, 0, 0);
      return check_condition(tag, kSenseIllegalRequest, 0x20, 0x00);
  }

  uint8_t flags = 0;
  uint32_t res = 0;
  uint64_t xfer = std::min(expected, data_len);
  if (data_len != expected && fmt != kDescNone) {
    if (is_write && data_cdb)
      return check_condition(tag, kSenseIllegalRequest, 0x0e, 0x03);
    const bool under = data_len > expected;
    res = static_cast<uint32_t>(under ? data_len - expected
                                      : expected - data_len);
    if (out) flags = under ? kRspFlagDoUnder : kRspFlagDoOver;
    if (in) flags = under ? kRspFlagDiUnder : kRspFlagDiOver;
  }
  if (fmt == kDescNone) xfer = 0;

  if (pr_out) {
    Bytes list(24, 0);
    if (fmt == kDescImmediate)
      std::copy_n(iu.begin() + static_cast<std::ptrdiff_t>(imm_pos), 24,
                  list.begin());
    else if (!rdma(d, list, false))
      return;
    if (!pr_apply(c[1] & 0x1f, get_be64(ByteView(list), 0),
                  get_be64(ByteView(list), 8)))
      return respond(tag, kStatusReservationConflict, {}, -1, 0, 0, 0);
  } else if (data_cdb && t_.cfg().follow_buffer_direction &&
             (is_write ? in : out)) {
    // The buffer's direction wins over the CDB's.
    Bytes buf(xfer, 0x5a);
    if (out) {
      if (!rdma(d, buf, false)) return;
      std::copy(buf.begin(), buf.end(),
                t_.disk().begin() + static_cast<std::ptrdiff_t>(lba * bs));
    } else if (!rdma(d, buf, true)) {
      return;
    }
  } else if (is_write) {
    Bytes buf(xfer, 0);
    if (fmt == kDescImmediate)
      std::copy(iu.begin() + static_cast<std::ptrdiff_t>(imm_pos),
                iu.begin() + static_cast<std::ptrdiff_t>(imm_pos + xfer),
                buf.begin());
    else if (!rdma(d, buf, false))
      return;
    std::copy(buf.begin(), buf.end(),
              t_.disk().begin() + static_cast<std::ptrdiff_t>(lba * bs));
  } else if (in && xfer) {
    // A leaking target sends stale bytes past the data as well.
    dev.resize(xfer);
    if (t_.cfg().leak_in_tail) dev.resize(data_len, 0x5a);
    if (!rdma(d, dev, true)) return;
    const uint64_t past = d.back().va + d.back().len;
    if (t_.cfg().overrun_data_in && past < data_va(0) + data_.size())
      data_[past - data_va(0)] = 0x5a;
  }
  respond(tag, kStatusGood, {}, -1, flags, out ? res : 0, in ? res : 0);
}

}  // namespace srp::test
