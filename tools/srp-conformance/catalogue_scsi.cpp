// SPDX-License-Identifier: GPL-2.0-only
//
// The scsi.* cases: SCSI commands in well-formed SRP_CMDs (data through
// direct and indirect descriptors and immediate data, task attributes,
// task management, LUNs) and what the target answers.
#include <algorithm>
#include <cstring>
#include <functional>

#include "case_util.h"
#include "cases.h"
#include "catalogue.h"

namespace srp::cat {

namespace {

constexpr uint64_t kUnmappedLun = 16383;  // highest flat LUN: not mapped

}  // namespace

void scsi_cases() {
  add("scsi.test_unit_ready", "SRP_CMD TEST UNIT READY, no data",
      "SRP_RSP GOOD with the command's tag, no residual flags; credits back",
      "SAM-5 TEST UNIT READY", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        Rsp r = exec(ctx, *s, tur_cmd());
        if (r.status == kStatusCheckCondition) r = exec(ctx, *s, tur_cmd());
        expect_good(r, "TEST UNIT READY");
        if (r.flags & (kRspFlagDiOver | kRspFlagDiUnder | kRspFlagDoOver |
                       kRspFlagDoUnder))
          throw Failure{"no residual flags for a command without data",
                        describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.inquiry", "INQUIRY (allocation length 36), direct data-in",
      "GOOD; peripheral qualifier 0; 36 bytes of standard INQUIRY data",
      "SPC-4 INQUIRY", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(36)).direct(DataDir::kIn, buf(*s, 0, 36));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "INQUIRY");
        auto inq = decode_inquiry(ByteView(s->channel().data(), 36));
        if (!inq || inq->peripheral_qualifier != 0)
          throw Failure{
              "peripheral qualifier 0 (LUN connected)",
              inq ? "qualifier " + std::to_string(inq->peripheral_qualifier)
                  : "no data"};
        ctx.log("INQUIRY: " + inq->vendor + " " + inq->product);
        healthy(ctx, *s);
      });

  add("scsi.inquiry_vpd_supported_pages",
      "INQUIRY EVPD page 00h (allocation length 255)",
      "GOOD; page code 00h in byte 1", "SPC-4 Supported VPD Pages", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(255, true, 0)).direct(DataDir::kIn, buf(*s, 0, 255));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "INQUIRY VPD 00h");
        if (s->channel().data()[1] != 0)
          throw Failure{"page code 00h",
                        "page code " + hex8(s->channel().data()[1])};
        healthy(ctx, *s);
      });

  add("scsi.read_capacity16", "READ CAPACITY(16), 32 bytes",
      "GOOD; block length a power of two in 512..65536; last LBA >= 1",
      "SBC-3 READ CAPACITY(16)", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::read_capacity16(32)).direct(DataDir::kIn, buf(*s, 0, 32));
        Rsp r = exec(ctx, *s, b);
        if (r.status == kStatusCheckCondition) r = exec(ctx, *s, b);
        expect_good(r, "READ CAPACITY(16)");
        auto c = decode_read_capacity16(ByteView(s->channel().data(), 32));
        const uint32_t bs = c ? c->block_size : 0;
        if (!c || bs < 512 || bs > 65536 || (bs & (bs - 1)) || c->last_lba < 1)
          throw Failure{"a plausible capacity",
                        c ? "block size " + std::to_string(bs) + ", last LBA " +
                                std::to_string(c->last_lba)
                          : "no data"};
        healthy(ctx, *s);
      });

  add("scsi.report_luns", "REPORT LUNS (allocation length 4096)",
      "GOOD; LUN list length a multiple of 8 that includes --lun",
      "SPC-4 REPORT LUNS", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::report_luns(4096)).direct(DataDir::kIn, buf(*s, 0, 4096));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "REPORT LUNS");
        const ByteView v(s->channel().data(), 4096);
        const uint32_t len = get_be32(v, 0);
        if (len % 8)
          throw Failure{"LUN list length a multiple of 8", std::to_string(len)};
        const Lun want = encode_lun(ctx.opt().lun);
        bool found = false;
        for (uint32_t i = 0; i < len / 8 && 8 + 8 * (i + 1) <= 4096; i++)
          found =
              found || std::equal(want.begin(), want.end(), v.data + 8 + 8 * i);
        if (!found)
          throw Failure{"LUN " + std::to_string(ctx.opt().lun) + " in the list",
                        std::to_string(len / 8) + " LUNs, not that one"};
        healthy(ctx, *s);
      });

  struct WR {
    const char *name, *sends;
    Layout wl, rl;
    unsigned wn, rn;
  };
  const WR wrs[] = {
      {"scsi.write_read_direct",
       "WRITE(16) of 16 KiB with a direct descriptor, READ(16) back direct",
       Layout::kDirect, Layout::kDirect, 1, 1},
      {"scsi.write_read_indirect",
       "WRITE(16) with a 4-descriptor indirect table (non-contiguous "
       "buffers), READ(16) back with a 3-descriptor table",
       Layout::kIndirect, Layout::kIndirect, 4, 3},
      {"scsi.write_direct_read_indirect_16",
       "WRITE(16) direct, READ(16) back with a 16-descriptor indirect table",
       Layout::kDirect, Layout::kIndirect, 1, 16},
      {"scsi.write_direct_count1_read_direct",
       "WRITE(16) with a direct descriptor and data_out_desc_cnt 1 (ib_srp "
       "sends 0), READ(16) back",
       Layout::kDirectCount1, Layout::kDirectCount1, 1, 1},
  };
  for (const WR &w : wrs) {
    add(w.name, w.sends,
        "both GOOD; the data read back is byte for byte the data written",
        "SRP r16a 5.6 data buffer descriptors", kNeedsLogin | kNeedsWrite,
        [w](Context &ctx) {
          const auto &f = ctx.facts();
          auto s = ctx.login();
          const uint32_t n = xfer_blocks(f);
          const Bytes data = pattern(size_t(n) * f.block_size, n + w.wn);
          expect_good(write_blocks(ctx, *s, f.scratch_lba, data, w.wl, w.wn),
                      "WRITE(16)");
          expect_same(data,
                      read_blocks(ctx, *s, f.scratch_lba, n, w.rl, w.rn,
                                  nullptr, size_t(1) << 20),
                      "write/read");
          healthy(ctx, *s);
        });
  }

  add("scsi.write_immediate_read_direct",
      "login with IMMED (offset 68); WRITE(16) with immediate data (up to 8 "
      "KiB); READ(16) back direct",
      "GOOD; data read back identical; credits back (the buffer holding the "
      "immediate data is returned)",
      "SRP-2 immediate data", kNeedsLogin | kNeedsWrite | kNeedsImmediate,
      [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = login_with_imm(ctx);
        const uint32_t room =
            s->login_rsp().max_it_iu_len - s->login_req().imm_data_offset;
        const uint32_t n =
            std::min<uint32_t>(xfer_blocks(f), room / f.block_size);
        if (n == 0) throw Skip{"max_it_iu_len too small for one block"};
        const Bytes data = pattern(size_t(n) * f.block_size, 68);
        expect_good(
            write_blocks(ctx, *s, f.scratch_lba, data, Layout::kImmediate),
            "WRITE(16) with immediate data");
        expect_same(data,
                    read_blocks(ctx, *s, f.scratch_lba, n, Layout::kDirect),
                    "immediate write");
        healthy(ctx, *s);
      });

  add("scsi.indirect_zero_length_descriptor",
      "WRITE(16) with an indirect table [a, 0-byte descriptor, b]; READ(16) "
      "back",
      "GOOD; data identical (the empty descriptor transfers nothing)",
      "descriptor lengths only have to add up to the total",
      kNeedsLogin | kNeedsWrite, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(2, xfer_blocks(f));
        const Bytes data = pattern(size_t(n) * f.block_size, 7);
        auto d = scatter(*s, 0, data.size(), 2);
        put_scattered(*s, d, data);
        d.insert(d.begin() + 1, buf(*s, 512 << 10, 0));
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, n)).indirect(DataDir::kOut, d);
        ctx.mark_scratch_dirty();
        expect_good(exec(ctx, *s, b), "WRITE(16)");
        expect_same(data,
                    read_blocks(ctx, *s, f.scratch_lba, n, Layout::kDirect, 1,
                                nullptr, 1 << 20),
                    "write/read");
        healthy(ctx, *s);
      });

  add("scsi.direct_count_one_read",
      "READ(16) with a direct descriptor and data_in_desc_cnt 1, compared "
      "with the same read with count 0",
      "both GOOD and identical",
      "count 0 (ib_srp) and 1 both describe one "
      "direct descriptor",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = xfer_blocks(f);
        const Bytes a = read_blocks(ctx, *s, 0, n, Layout::kDirect);
        const Bytes b = read_blocks(ctx, *s, 0, n, Layout::kDirectCount1);
        expect_same(a, b, "count 0 vs count 1");
        healthy(ctx, *s);
      });

  add("scsi.read_residual_underflow",
      "INQUIRY allocation length 36 with a 96-byte data-in buffer",
      "GOOD with DIUNDER and data_in_res_cnt 60",
      "SRP r16a SRP_RSP residuals: the buffer was 60 bytes larger than the "
      "transfer",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(36)).direct(DataDir::kIn, buf(*s, 0, 96));
        Rsp r = exec(ctx, *s, b);
        expect_good(r, "INQUIRY");
        if (!(r.flags & kRspFlagDiUnder) || r.data_in_res_cnt != 60)
          throw Failure{"DIUNDER with data_in_res_cnt 60", describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.read_residual_overflow",
      "INQUIRY allocation length 96 with a 36-byte data-in buffer",
      "DIOVER with data_in_res_cnt 60, and GOOD or CHECK CONDITION ILLEGAL "
      "REQUEST (LIO refuses data overflow when the fabric supplies the data "
      "buffer, as this target and the in-tree one do)",
      "SRP r16a SRP_RSP residuals: 60 bytes did not fit", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(96)).direct(DataDir::kIn, buf(*s, 0, 36));
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        const bool cc = r.status == kStatusCheckCondition && sn &&
                        sn->key == kSenseIllegalRequest;
        if (r.status != kStatusGood && !cc)
          throw Failure{"GOOD or CHECK CONDITION ILLEGAL REQUEST",
                        describe(r)};
        if (!(r.flags & kRspFlagDiOver) || r.data_in_res_cnt != 60)
          throw Failure{"DIOVER with data_in_res_cnt 60", describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.underflow_no_stale_data",
      "WRITE(16) and READ(16) of one 4 KiB page of a pattern; INQUIRY "
      "(allocation length 36), then READ(16) of 1 block, each into a 4 KiB "
      "buffer filled with EEh",
      "GOOD with DIUNDER; past the data transferred, every byte of the "
      "buffer is EEh (not written) or 00h, none left over from the pattern",
      "SRP r16a SRP_RSP residuals: only the data the command produced is "
      "the initiator's",
      kNeedsLogin | kNeedsWrite, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        constexpr size_t kPage = 4096;
        if (kPage % f.block_size || f.scratch_blocks < kPage / f.block_size)
          throw Skip{"needs 4 KiB of scratch area in whole blocks (" +
                     std::to_string(f.block_size) + "-byte blocks)"};
        const auto n = static_cast<uint32_t>(kPage / f.block_size);
        const Bytes data = pattern(kPage, 0x57a1e);
        expect_good(write_blocks(ctx, *s, f.scratch_lba, data, Layout::kDirect),
                    "WRITE(16)");
        struct Probe {
          const char *what;
          Bytes cdb;
          size_t len;  // bytes the command produces
        };
        std::vector<Probe> probes = {{"INQUIRY", cdb::inquiry(36), 36}};
        // LIO accepts a READ shorter than its buffer with 512-byte blocks
        // only.
        if (f.block_size == 512)
          probes.push_back(
              {"READ(16) of 1 block", cdb::read16(f.scratch_lba, 1), 512});
        for (const Probe &p : probes) {
          // The target's buffer of the next command held the pattern.
          expect_same(data, read_blocks(ctx, *s, f.scratch_lba, n,
                                        Layout::kDirect),
                      "read back");
          std::memset(s->channel().data(), 0xee, kPage);
          CmdBuilder b;
          b.cdb(p.cdb).direct(DataDir::kIn, buf(*s, 0, kPage));
          Rsp r = exec(ctx, *s, b);
          expect_good(r, p.what);
          if (!(r.flags & kRspFlagDiUnder) || r.data_in_res_cnt != kPage - p.len)
            throw Failure{std::string(p.what) + ": DIUNDER with data_in_res_cnt " +
                              std::to_string(kPage - p.len),
                          describe(r)};
          const uint8_t *got = s->channel().data();
          for (size_t i = p.len; i < kPage; i++)
            if (got[i] != 0xee && got[i] != 0)
              throw Failure{std::string(p.what) +
                                ": EEh or 00h past the data transferred",
                            "byte " + std::to_string(i) + " is " +
                                std::to_string(got[i]) + " (pattern: " +
                                std::to_string(data[i]) + ")"};
        }
        healthy(ctx, *s);
      });

  add("scsi.virtual_lun0_no_stale_data",
      "WRITE(16) and READ(16) of 64 KiB of a pattern on the LUN; INQUIRY "
      "of LUN 0; if LUN 0 is not mapped (peripheral qualifier 1 or 3: "
      "LIO's virtual LUN 0, which answers READs without data), READ(10) of "
      "32 KiB (all of it) from it into a buffer filled with EEh",
      "GOOD; every byte of the buffer is EEh (not written) or 00h, none "
      "left over from the pattern",
      "SRP r16a: the data-in of a command is the data the command produced "
      "and nothing of earlier commands",
      kNeedsLogin | kNeedsWrite, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        constexpr size_t kLen = 64 * 1024;
        if (kLen % f.block_size ||
            f.scratch_blocks < kLen / f.block_size)
          throw Skip{"needs 64 KiB of scratch area in whole blocks"};
        if (ctx.opt().lun == 0)
          throw Skip{"LUN 0 is the LUN under test (--lun 0)"};
        CmdBuilder q;
        q.cdb(cdb::inquiry(36)).direct(DataDir::kIn, buf(*s, 0, 36));
        std::fill_n(s->channel().data(), 36, 0);
        Rsp qr = exec_lun(ctx, *s, q, 0);
        const uint8_t pq = s->channel().data()[0] >> 5;
        if (qr.status != kStatusGood || (pq != 1 && pq != 3))
          throw Skip{"LUN 0 is mapped (" + describe(qr) + ", qualifier " +
                     std::to_string(pq) + ")"};
        const auto n = static_cast<uint32_t>(kLen / f.block_size);
        const Bytes data = pattern(kLen, 0x10a0);
        for (int round = 0; round < 4; round++) {
          expect_good(write_blocks(ctx, *s, f.scratch_lba, data,
                                   Layout::kDirect),
                      "WRITE(16)");
          expect_same(data, read_blocks(ctx, *s, f.scratch_lba, n,
                                        Layout::kDirect),
                      "read back");
          std::memset(s->channel().data(), 0xee, kLen);
          // READ(10) of 64 512-byte blocks: all of LIO's virtual LUN 0
          // (eight pages).
          constexpr size_t kLun0 = 32 * 1024;
          Bytes c = {0x28, 0, 0, 0, 0, 0, 0, 0, 64, 0};
          CmdBuilder b;
          b.cdb(c).direct(DataDir::kIn, buf(*s, 0, kLun0));
          Rsp r = exec_lun(ctx, *s, b, 0);
          if (r.status != kStatusGood)
            throw Failure{"GOOD for READ(10) of LUN 0", describe(r)};
          const uint8_t *got = s->channel().data();
          for (size_t i = 0; i < kLun0; i++)
            if (got[i] != 0xee && got[i] != 0)
              throw Failure{"EEh or 00h in the data of virtual LUN 0",
                            "byte " + std::to_string(i) + " is " +
                                std::to_string(got[i]) + " (pattern: " +
                                std::to_string(data[i]) + ", round " +
                                std::to_string(round) + ")"};
        }
        healthy(ctx, *s);
      });

  add("scsi.write_length_mismatch",
      "WRITE(16) of 1 block with a 2-block data-out descriptor",
      "CHECK CONDITION ILLEGAL REQUEST (LIO refuses length mismatches on "
      "WRITE), or GOOD with DOUNDER and data_out_res_cnt = 1 block",
      "SAM-5/SRP residual handling", kNeedsLogin | kNeedsWrite,
      [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::write16(f.scratch_lba, 1))
            .direct(DataDir::kOut, buf(*s, 0, 2 * f.block_size));
        ctx.mark_scratch_dirty();
        Rsp r = exec(ctx, *s, b);
        auto sn = rsp_sense(r);
        const bool cc = r.status == kStatusCheckCondition && sn &&
                        sn->key == kSenseIllegalRequest;
        const bool under = r.status == kStatusGood &&
                           (r.flags & kRspFlagDoUnder) &&
                           r.data_out_res_cnt == f.block_size;
        if (!cc && !under)
          throw Failure{
              "CHECK CONDITION ILLEGAL REQUEST or GOOD with DOUNDER "
              "of one block",
              describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.additional_cdb_no_data",
      "TEST UNIT READY with 4 bytes of additional CDB (add_cdb_len 4)", "GOOD",
      "SRP r16a ADDITIONAL CDB LENGTH", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(Bytes(20, 0));
        Rsp r = exec(ctx, *s, b);
        if (r.status == kStatusCheckCondition) r = exec(ctx, *s, b);
        expect_good(r, "TUR with additional CDB");
        healthy(ctx, *s);
      });

  add("scsi.additional_cdb_with_data",
      "READ(16) with 8 bytes of additional CDB, direct descriptor at offset "
      "56",
      "GOOD; data identical to a plain READ(16) of the same blocks",
      "descriptors start after the additional CDB", kNeedsLogin,
      [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = xfer_blocks(f);
        const Bytes want = read_blocks(ctx, *s, 0, n, Layout::kDirect);
        Bytes c = cdb::read16(0, n);
        c.resize(24, 0);
        CmdBuilder b;
        b.cdb(c).direct(DataDir::kIn, buf(*s, 1 << 20, n * f.block_size));
        expect_good(exec(ctx, *s, b), "READ(16) with additional CDB");
        const uint8_t *p = s->channel().data() + (1 << 20);
        expect_same(want, Bytes(p, p + want.size()), "additional CDB read");
        healthy(ctx, *s);
      });

  struct TA {
    const char *name;
    uint8_t attr;
  };
  for (TA t : {TA{"scsi.task_attr_ordered", kTaskOrdered},
               TA{"scsi.task_attr_head_of_queue", kTaskHeadOfQueue}}) {
    add(t.name, "TEST UNIT READY with this task attribute", "GOOD",
        "SAM-5 task attributes", kNeedsLogin, [t](Context &ctx) {
          auto s = ctx.login();
          tur_ok(ctx, *s);
          Rsp r = exec(ctx, *s, tur_cmd().task_attr(t.attr));
          expect_good(r, "TUR");
          healthy(ctx, *s);
        });
  }

  add("scsi.task_attr_aca",
      "TEST UNIT READY with task attribute ACA (4) and "
      "no ACA condition",
      "GOOD, or CHECK CONDITION ILLEGAL REQUEST; the channel stays up",
      "SAM-5: ACA attribute without an ACA condition", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        Rsp r = exec(ctx, *s, tur_cmd().task_attr(kTaskAca));
        auto sn = rsp_sense(r);
        if (r.status != kStatusGood && !(r.status == kStatusCheckCondition &&
                                         sn && sn->key == kSenseIllegalRequest))
          throw Failure{"GOOD or CHECK CONDITION ILLEGAL REQUEST", describe(r)};
        healthy(ctx, *s);
      });

  add("scsi.solicited_notification_bits",
      "TEST UNIT READY with sol_not SCSOLNT|UCSOLNT (0x06)", "GOOD",
      "SRP r16a sol_not bits only ask for solicited events", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        Rsp r =
            exec(ctx, *s, tur_cmd().sol_not(kSolNotSuccess | kSolNotFailure));
        expect_good(r, "TUR");
        healthy(ctx, *s);
      });

  add("scsi.lun_not_mapped", "TEST UNIT READY to LUN 16383 (not mapped)",
      "CHECK CONDITION ILLEGAL REQUEST 25/00 (LOGICAL UNIT NOT SUPPORTED)",
      "SPC-4 / SAM-5 incorrect logical unit", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        Rsp r = exec_lun(ctx, *s, tur_cmd(), kUnmappedLun);
        expect_sense(r, kSenseIllegalRequest, 0x25, 0x00, "TUR to LUN 16383");
        healthy(ctx, *s);
      });

  add("scsi.inquiry_lun_not_mapped", "INQUIRY to LUN 16383 (not mapped)",
      "GOOD with peripheral qualifier 1 or 3, or CHECK CONDITION ILLEGAL "
      "REQUEST 25/00",
      "SPC-4 INQUIRY for an unavailable logical unit", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::inquiry(36)).direct(DataDir::kIn, buf(*s, 0, 36));
        std::fill_n(s->channel().data(), 36, 0);
        Rsp r = exec_lun(ctx, *s, b, kUnmappedLun);
        auto sn = rsp_sense(r);
        const uint8_t pq = s->channel().data()[0] >> 5;
        const bool good = r.status == kStatusGood && (pq == 1 || pq == 3);
        const bool cc = r.status == kStatusCheckCondition && sn &&
                        sn->key == kSenseIllegalRequest && sn->asc == 0x25;
        if (!good && !cc)
          throw Failure{"GOOD with qualifier 1/3 or CHECK CONDITION 25/00",
                        describe(r) + ", qualifier " + std::to_string(pq)};
        healthy(ctx, *s);
      });

  add("scsi.invalid_cdb_opcode", "CDB with operation code FFh",
      "CHECK CONDITION ILLEGAL REQUEST 20/00 (INVALID COMMAND OPERATION CODE)",
      "SPC-4", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        tur_ok(ctx, *s);
        Bytes c(6, 0);
        c[0] = 0xff;
        CmdBuilder b;
        b.cdb(c);
        expect_sense(exec(ctx, *s, b), kSenseIllegalRequest, 0x20, 0x00,
                     "CDB opcode FFh");
        healthy(ctx, *s);
      });

  add("scsi.read_beyond_capacity", "READ(16) of 1 block at last LBA + 1",
      "CHECK CONDITION ILLEGAL REQUEST 21/00 (LBA OUT OF RANGE)", "SBC-3",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        CmdBuilder b;
        b.cdb(cdb::read16(f.last_lba + 1, 1))
            .direct(DataDir::kIn, buf(*s, 0, f.block_size));
        expect_sense(exec(ctx, *s, b), kSenseIllegalRequest, 0x21, 0x00,
                     "READ(16) past the end");
        healthy(ctx, *s);
      });

  add("scsi.tmf_abort_task_unknown_tag",
      "SRP_TSK_MGMT ABORT TASK for a tag that was never used",
      "SRP_RSP with RSPVALID, response code 00h (function complete)",
      "SAM-5 7.2: afterwards the task does not exist, as asked", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfAbortTask, {kTmfRspComplete},
                   0x00dead00beef0000ull);
        healthy(ctx, *s);
      });

  add("scsi.tmf_abort_task_set",
      "SRP_TSK_MGMT ABORT TASK SET, nothing in flight",
      "response code 00h (complete) or 04h (not supported: LIO has no ABORT "
      "TASK SET), not 05h (failed)",
      "SAM-5 ABORT TASK SET; SRP r16a response codes", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfAbortTaskSet,
                   {kTmfRspComplete, kTmfRspNotSupported});
        healthy(ctx, *s);
      });

  add("scsi.tmf_lun_reset", "SRP_TSK_MGMT LOGICAL UNIT RESET",
      "response code 00h; then TUR GOOD (after at most 3 UNIT ATTENTIONs)",
      "SAM-5 LOGICAL UNIT RESET", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfLunReset, {kTmfRspComplete});
        healthy(ctx, *s);
      });

  add("scsi.tmf_clear_task_set", "SRP_TSK_MGMT CLEAR TASK SET",
      "response code 00h (complete) or 04h (not supported), not 05h (failed)",
      "SRP r16a response codes: unsupported is 04h", kNeedsLogin,
      [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfClearTaskSet,
                   {kTmfRspComplete, kTmfRspNotSupported});
        healthy(ctx, *s);
      });

  add("scsi.tmf_clear_aca", "SRP_TSK_MGMT CLEAR ACA",
      "response code 00h or 04h, not 05h", "SRP r16a response codes",
      kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfClearAca,
                   {kTmfRspComplete, kTmfRspNotSupported});
        healthy(ctx, *s);
      });

  add("scsi.tmf_lun_not_mapped", "SRP_TSK_MGMT LOGICAL UNIT RESET to LUN 16383",
      "response code 09h (incorrect logical unit number)",
      "SRP r16a SRP_RSP response codes", kNeedsLogin, [](Context &ctx) {
        auto s = ctx.login();
        expect_tmf(ctx, *s, kTmfLunReset, {kTmfRspIncorrectLun}, 0,
                   kUnmappedLun);
        healthy(ctx, *s);
      });

  add("scsi.tmf_abort_task_in_flight",
      "READ(16) of 1 MiB, immediately SRP_TSK_MGMT ABORT TASK for its tag",
      "TMF response code 00h; the READ answered (any status) or silently "
      "aborted; every credit comes back",
      "SAM-5 ABORT TASK; credits of aborted commands must be returned",
      kNeedsLogin, [](Context &ctx) {
        const auto &f = ctx.facts();
        auto s = ctx.login();
        const uint32_t n = std::max<uint32_t>(1, (1u << 20) / f.block_size);
        CmdBuilder b;
        b.cdb(cdb::read16(0, n))
            .direct(DataDir::kIn, buf(*s, 0, n * f.block_size));
        const uint64_t tag = send_cmd(ctx, *s, b);
        expect_tmf(ctx, *s, kTmfAbortTask, {kTmfRspComplete}, tag);
        s->wait_rsp(tag, deadline_in(ctx.quiet()));
        healthy(ctx, *s);
      });
}

}  // namespace srp::cat
