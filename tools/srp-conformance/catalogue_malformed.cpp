// SPDX-License-Identifier: GPL-2.0-only
//
// The malformed.* cases: SRP_CMDs and other IUs no conforming initiator
// sends. Malformed SRP_CMDs expect CHECK CONDITION, ILLEGAL REQUEST,
// INVALID FIELD IN INFORMATION UNIT (0Eh/03h); after each the target must
// answer TEST UNIT READY on the same channel and give back every credit.
#include <algorithm>
#include <cstring>
#include <functional>

#include "case_util.h"
#include "cases.h"
#include "catalogue.h"

namespace srp::cat {

namespace {

constexpr uint8_t kAscInvalidFieldInIu = 0x0e;
constexpr uint8_t kAscqInvalidFieldInIu = 0x03;

// Sends @b with a fresh tag and expects CHECK CONDITION ILLEGAL REQUEST
// @asc/@ascq for that tag; then the channel must still work.
void expect_malformed(Context &ctx, Session &s, CmdBuilder b,
                      const std::string &what,
                      uint8_t asc = kAscInvalidFieldInIu,
                      uint8_t ascq = kAscqInvalidFieldInIu) {
  const uint64_t tag = send_cmd(ctx, s, std::move(b));
  Rsp r = wait_for(ctx, s, tag);
  expect_sense(r, kSenseIllegalRequest, asc, ascq, what);
  healthy(ctx, s);
}

// The same on a fresh default login.
void malformed_case(Context &ctx,
                    const std::function<CmdBuilder(Session &)> &mk,
                    const std::string &what, uint8_t asc = kAscInvalidFieldInIu,
                    uint8_t ascq = kAscqInvalidFieldInIu) {
  auto s = ctx.login();
  expect_malformed(ctx, *s, mk(*s), what, asc, ascq);
}

// The command must fail: the channel closes, or an SRP_RSP with a status
// other than GOOD arrives. GOOD is wrong.
void expect_failed_or_closed(Context &ctx, Session &s, uint64_t tag,
                             const std::string &what) {
  auto r = s.wait_rsp(tag, deadline_in(ctx.timeout()));
  if (r && r->status == kStatusGood)
    throw Failure{what + ": the channel closed or a status other than GOOD",
                  describe(*r)};
  if (!r && !s.closed())
    throw Failure{what + ": the channel closed or a status other than GOOD",
                  "nothing within " + std::to_string(ctx.opt().timeout_ms) +
                      " ms and the channel still up"};
}

}  // namespace

void malformed_cases() {
  struct Short {
    const char *name;
    size_t len;
  };
  for (Short sh : {Short{"malformed.cmd_short_47", 47},
                   Short{"malformed.cmd_short_16", 16}}) {
    add(sh.name, "SRP_CMD (TEST UNIT READY) truncated to this many bytes",
        "CHECK CONDITION ILLEGAL REQUEST 0E/03 for the command's tag; TUR "
        "GOOD afterwards",
        "an SRP_CMD is at least 48 bytes", kNeedsLogin, [sh](Context &ctx) {
          malformed_case(
              ctx, [&](Session &) { return tur_cmd().length_raw(sh.len); },
              "short SRP_CMD");
        });
  }

  add("malformed.cmd_short_8", "SRP_CMD truncated to 8 bytes (no tag)",
      "CHECK CONDITION (tag 0) or no response; TUR GOOD and every credit "
      "back afterwards",
      "the IU does not even hold a tag", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        send_iu(ctx, *s, tur_cmd().length_raw(8).build(), Credit::kConsume);
        auto r = s->wait_any_rsp(deadline_in(ctx.quiet()));
        if (r && r->status != kStatusCheckCondition)
          throw Failure{"CHECK CONDITION or no response", describe(*r)};
        healthy(ctx, *s);
      });

  add("malformed.add_cdb_len_past_end", "48-byte SRP_CMD with add_cdb_len 252",
      "CHECK CONDITION 0E/03", "the additional CDB runs past the IU",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx, [](Session &) { return tur_cmd().add_cdb_len_raw(252); },
            "add_cdb_len past the end");
      });

  add("malformed.add_cdb_len_reserved_bits",
      "52-byte SRP_CMD with add_cdb_len 0x06 (bits 1:0 reserved, set)",
      "CHECK CONDITION 0E/03, or GOOD (reserved bits ignored)",
      "ADDITIONAL CDB LENGTH is bits 7:2", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(Bytes(20, 0)).add_cdb_len_raw(0x06);
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        if (r.status != kStatusGood &&
            !(r.status == kStatusCheckCondition && sn &&
              sn->key == kSenseIllegalRequest && sn->asc == 0x0e &&
              sn->ascq == 0x03))
          throw Failure{"CHECK CONDITION 0E/03 or GOOD", describe(r)};
        healthy(ctx, *s);
      });

  add("malformed.direct_descriptor_past_end",
      "READ(16) with buf_fmt direct data-in, IU cut to 56 bytes (half a "
      "descriptor)",
      "CHECK CONDITION 0E/03", "the descriptor runs past the IU", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx, [](Session &s) { return read_cmd(s, 1, 512).length_raw(56); },
            "direct descriptor past the end");
      });

  add("malformed.direct_count_2",
      "READ(16), direct data-in descriptor, data_in_desc_cnt 2",
      "CHECK CONDITION 0E/03", "a direct format has exactly one descriptor",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx, [](Session &s) { return read_cmd(s, 1, 512).in_count_raw(2); },
            "direct format with count 2");
      });

  add("malformed.direct_other_direction_count",
      "READ(16), direct data-in, data_out_desc_cnt 1 (no data-out format)",
      "CHECK CONDITION 0E/03", "a count for a direction without descriptors",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &s) { return read_cmd(s, 1, 512).out_count_raw(1); },
            "count for the unused direction");
      });

  auto indirect_read = [](Session &s, unsigned n) {
    std::vector<DirectDesc> d;
    for (unsigned i = 0; i < n; i++) d.push_back(buf(s, i * 8192, 512));
    CmdBuilder b;
    b.cdb(cdb::read16(0, n)).indirect(DataDir::kIn, d);
    return b;
  };

  add("malformed.indirect_header_past_end",
      "READ(16) with indirect data-in, IU cut to 60 bytes (12 of the 20-byte "
      "table header)",
      "CHECK CONDITION 0E/03", "the indirect header runs past the IU",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx, [&](Session &s) { return indirect_read(s, 1).length_raw(60); },
            "indirect header past the end");
      });

  add("malformed.indirect_count_past_end",
      "indirect READ(16) with 2 descriptors in the IU, data_in_desc_cnt 8, "
      "table length 128",
      "CHECK CONDITION 0E/03", "the counted descriptors run past the IU",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) {
              return indirect_read(s, 2).in_count_raw(8).table_len_raw(128);
            },
            "descriptor count past the end");
      });

  add("malformed.indirect_table_len_not_multiple_of_16",
      "indirect READ(16), 2 descriptors, table descriptor length 40",
      "CHECK CONDITION 0E/03", "a table holds whole 16-byte descriptors",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).table_len_raw(40); },
            "table length 40");
      });

  add("malformed.indirect_table_len_zero",
      "indirect READ(16), 2 descriptors, table descriptor length 0",
      "CHECK CONDITION 0E/03", "an empty table with a non-zero count",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).table_len_raw(0); },
            "table length 0");
      });

  add("malformed.indirect_table_shorter_than_count",
      "indirect READ(16), 2 descriptors counted, table length 16",
      "CHECK CONDITION 0E/03", "the table cannot hold the counted descriptors",
      kNeedsLogin, [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).table_len_raw(16); },
            "table shorter than the count");
      });

  add("malformed.indirect_total_len_mismatch",
      "indirect READ(16), 2 x 512-byte descriptors, total length 2048",
      "CHECK CONDITION 0E/03",
      "the total must equal the sum of the descriptors", kNeedsLogin,
      [indirect_read](Context &ctx) {
        malformed_case(
            ctx,
            [&](Session &s) { return indirect_read(s, 2).total_len_raw(2048); },
            "total length mismatch");
      });

  add("malformed.indirect_external_table",
      "indirect READ(16): 1 descriptor in the IU, table descriptor (48 bytes, "
      "3 descriptors) pointing at a valid table in registered memory",
      "CHECK CONDITION ILLEGAL REQUEST (external tables unsupported, as in "
      "this target), or GOOD with the data of a plain read",
      "SRP r16a allows fetching the table with RDMA READ; a target may "
      "refuse",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(3, xfer_blocks(f));
        const Bytes want = read_blocks(ctx, *s, 0, n, Layout::kDirect);
        auto d = scatter(*s, 1 << 20, want.size(), 3);
        fill(*s, d, 0xee);
        const size_t tbl = 3u << 20;
        Bytes t;
        for (size_t i = 0; i < d.size(); i++) {
          put_be64(t, i * 16, d[i].va);
          put_be32(t, i * 16 + 8, d[i].rkey);
          put_be32(t, i * 16 + 12, d[i].len);
        }
        std::copy(t.begin(), t.end(), s->channel().data() + tbl);
        CmdBuilder b;
        b.cdb(cdb::read16(0, n))
            .indirect(DataDir::kIn, {d[0]}, buf(*s, tbl, 48))
            .table_len_raw(48)
            .total_len_raw(static_cast<uint32_t>(want.size()));
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        if (r.status == kStatusGood) {
          expect_same(want, gather(*s, d), "external table read");
        } else if (!(r.status == kStatusCheckCondition && sn &&
                     sn->key == kSenseIllegalRequest)) {
          throw Failure{"CHECK CONDITION ILLEGAL REQUEST or GOOD", describe(r)};
        }
        healthy(ctx, *s);
      });

  add("malformed.immediate_not_negotiated",
      "login without IMMED; WRITE(16) of 1 block as immediate data (buf_fmt "
      "0x30)",
      "CHECK CONDITION 0E/03; nothing written",
      "SRP-2: immediate data only after it was negotiated",
      kNeedsLogin | kNeedsWrite, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .immediate(pattern(f.block_size, 3), kLinuxImmDataOffset);
        expect_malformed(ctx, *s, b, "immediate data not negotiated");
      });

  add("malformed.immediate_len_overflows_u32",
      "login with IMMED; WRITE(16) with immediate length 0xfffffff0",
      "CHECK CONDITION 0E/03",
      "offset + length overflows 32 bits and lies outside the IU",
      kNeedsLogin | kNeedsWrite | kNeedsImmediate, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = login_with_imm(ctx);
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .immediate(pattern(64, 4), s->login_req().imm_data_offset)
            .imm_len_raw(0xfffffff0u);
        expect_malformed(ctx, *s, b, "immediate length overflow");
      });

  add("malformed.immediate_len_past_end",
      "login with IMMED; WRITE(16) whose immediate length is 4096 but the IU "
      "carries 100 bytes",
      "CHECK CONDITION 0E/03", "immediate data must lie inside the received IU",
      kNeedsLogin | kNeedsWrite | kNeedsImmediate, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = login_with_imm(ctx);
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .immediate(pattern(100, 5), s->login_req().imm_data_offset)
            .imm_len_raw(4096);
        expect_malformed(ctx, *s, b, "immediate data past the end");
      });

  add("malformed.immediate_for_data_in",
      "READ(16) with buf_fmt 0x03 (immediate format for data-in)",
      "CHECK CONDITION 0E/03", "SRP-2 defines immediate data for data-out only",
      kNeedsLogin, [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &) {
              CmdBuilder b;
              b.cdb(cdb::read16(0, 1)).buf_fmt_raw(0x03).length_raw(52);
              return b;
            },
            "immediate data-in");
      });

  add("malformed.buf_fmt_undefined_out",
      "TEST UNIT READY with buf_fmt 0x40 (data-out format 4), 64-byte IU",
      "CHECK CONDITION 0E/03", "descriptor format 4 is undefined", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &) {
              return tur_cmd().buf_fmt_raw(0x40).length_raw(64);
            },
            "undefined data-out format");
      });

  add("malformed.buf_fmt_undefined_in",
      "TEST UNIT READY with buf_fmt 0x0f (data-in format 15), 64-byte IU",
      "CHECK CONDITION 0E/03", "descriptor format 15 is undefined", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &) {
              return tur_cmd().buf_fmt_raw(0x0f).length_raw(64);
            },
            "undefined data-in format");
      });

  add("malformed.bidirectional",
      "READ(16) with buf_fmt 0x11 (direct data-out and direct data-in), two "
      "descriptors",
      "CHECK CONDITION ILLEGAL REQUEST 24/00 (INVALID FIELD IN CDB)",
      "bidirectional commands are not supported", kNeedsLogin,
      [](Context &ctx) {
        malformed_case(
            ctx,
            [](Session &s) {
              CmdBuilder b = read_cmd(s, 1, 512);
              b.buf_fmt_raw(0x11).length_raw(80);
              return b;
            },
            "bidirectional command", 0x24, 0x00);
      });

  for (uint8_t attr : {uint8_t{3}, uint8_t{0xff}}) {
    const bool three = attr == 3;
    add(three ? "malformed.task_attr_3" : "malformed.task_attr_ff",
        three ? "TEST UNIT READY with task attribute 3 (undefined)"
              : "TEST UNIT READY with task attribute 0xff",
        "CHECK CONDITION 0E/03", "defined task attributes are 0, 1, 2 and 4",
        kNeedsLogin, [attr](Context &ctx) {
          malformed_case(
              ctx, [&](Session &) { return tur_cmd().task_attr(attr); },
              "undefined task attribute");
        });
  }

  add("malformed.unknown_opcode", "48-byte IU with opcode 0x7f",
      "SRP_T_LOGOUT with reason 02h (invalid IU type), then the target "
      "disconnects; a new login works",
      "SRP r16a: a target may log an initiator out, saying why", kNeedsLogin,
      [](Context &ctx) {
        t_logout_case(ctx, [](Session &s) {
          return tur_cmd().opcode_raw(0x7f).tag(s.new_tag()).build();
        });
      });

  add("malformed.zero_length_iu", "a SEND of 0 bytes",
      "SRP_T_LOGOUT with reason 02h (invalid IU type), then the target "
      "disconnects; a new login works",
      "an empty IU has no opcode", kNeedsLogin, [](Context &ctx) {
        t_logout_case(ctx, [](Session &) { return Bytes{}; });
      });

  add("malformed.tsk_mgmt_short",
      "SRP_TSK_MGMT (ABORT TASK SET) cut to 20 bytes",
      "SRP_RSP with RSPVALID, response code 02h (request fields invalid), "
      "tagged with the request's tag (the 20 bytes hold it)",
      "an SRP_TSK_MGMT is 48 bytes", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        TskMgmt t;
        t.tag = s->new_tag();
        t.lun = encode_lun(ctx.opt().lun);
        t.function = kTmfAbortTaskSet;
        Bytes iu = encode_tsk_mgmt(t);
        iu.resize(20);
        send_iu(ctx, *s, iu, Credit::kConsume);
        auto r = s->wait_any_rsp(deadline_in(ctx.timeout()));
        if (!r)
          throw Failure{"SRP_RSP with response code 02h",
                        s->closed() ? "channel closed" : "no response"};
        if (r->tag != t.tag)
          throw Failure{"tag " + hex64(t.tag), "tag " + hex64(r->tag)};
        if (r->tmf_code() != std::optional<uint8_t>(kTmfRspInvalidFields))
          throw Failure{"response code 02h", describe(*r)};
        healthy(ctx, *s);
      });

  struct Tmf {
    const char *name;
    uint8_t func;
  };
  for (Tmf t : {Tmf{"malformed.tmf_unknown_function", 0x7f},
                Tmf{"malformed.tmf_function_zero", 0x00}}) {
    add(t.name, "SRP_TSK_MGMT with an undefined function code",
        "SRP_RSP with RSPVALID and response code 02h in byte 3 of the response "
        "data",
        "SRP r16a: invalid request fields", kNeedsLogin, [t](Context &ctx) {
          auto s = ctx.login();
          expect_tmf(ctx, *s, t.func, {kTmfRspInvalidFields});
          healthy(ctx, *s);
        });
  }

  add("malformed.iu_longer_than_max_it_iu_len",
      "login with req_it_iu_len 128; a TEST UNIT READY padded to 192 bytes",
      "CHECK CONDITION 0E/03",
      "the IU exceeds the negotiated maximum (but fits the target's buffers)",
      kNeedsLogin, [](Context &ctx) {
        LoginReq r = ctx.default_login();
        r.req_it_iu_len = 128;
        auto s = ctx.login(r);
        expect_malformed(ctx, *s, tur_cmd().length_raw(192), "IU too long");
      });

  add("malformed.iu_exceeds_target_buffer",
      "a TEST UNIT READY padded to --target-max-it-iu + 64 bytes",
      "the channel is closed by the target (the receive fails) or CHECK "
      "CONDITION; never GOOD; a new login works afterwards",
      "the IU exceeds both the negotiated maximum and the receive buffer",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        const uint64_t tag = send_cmd(
            ctx, *s, tur_cmd().length_raw(ctx.opt().target_max_it_iu + 64));
        auto r = s->wait_rsp(tag, deadline_in(ctx.timeout()));
        if (r && r->status == kStatusGood)
          throw Failure{"channel closed or CHECK CONDITION", describe(*r)};
        if (!r && !s->closed())
          throw Failure{"channel closed or CHECK CONDITION",
                        "nothing within the timeout, channel up"};
      });

  struct Bad {
    const char *name, *sends;
    bool write, bad_key;
  };
  for (Bad b : {Bad{"malformed.invalid_rkey_read",
                    "READ(16) of 1 block whose descriptor has an invalid rkey",
                    false, true},
                Bad{"malformed.va_outside_mr",
                    "READ(16) of 1 block into an address past the end of the "
                    "registered buffer",
                    false, false},
                Bad{"malformed.invalid_rkey_write",
                    "WRITE(16) of 1 block whose descriptor has an invalid rkey",
                    true, true}}) {
    add(b.name, b.sends,
        "the RDMA fails and the target closes the channel (no GOOD status "
        "before); a new login works afterwards",
        "an RDMA protection error puts the QP in the error state: nothing "
        "more gets through, so the target must not keep the channel (its "
        "LIO session, reservations) as if it were live",
        kNeedsLogin | (b.write ? kNeedsWrite : 0u), [b](Context &ctx) {
          const auto &f = ctx.facts();
          auto s = ctx.login();
          DirectDesc d = buf(*s, 0, f.block_size);
          if (b.bad_key)
            d.rkey = ~d.rkey;
          else
            d.va = s->channel().data_va(s->channel().data_size()) + (1u << 20);
          CmdBuilder c;
          if (b.write) {
            c.cdb(cdb::write16(f.scratch_lba, 1)).direct(DataDir::kOut, d);
            ctx.mark_scratch_dirty();
          } else {
            c.cdb(cdb::read16(0, 1)).direct(DataDir::kIn, d);
          }
          const uint64_t tag = send_cmd(ctx, *s, c);
          expect_failed_or_closed(ctx, *s, tag, "bad RDMA descriptor");
          if (!s->wait_closed(deadline_in(ctx.timeout())))
            throw Failure{"the target closes the channel",
                          "the channel is still up"};
        });
  }
}

}  // namespace srp::cat
