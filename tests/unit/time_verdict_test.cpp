// The time verdict (harness/time_verdict.h) on given times, no kernel run: `invalid` only below
// half the time the must-read bytes take at the read bandwidth, in the regimes that flush the
// inputs; a note within the margin; notes, never failures, for times faster than the stated flops
// or bytes allow; nothing on GPU profiles, emulated boards, or boards whose inputs stay cached.
// The note table (harness/attempt_notes.h) lists every kind in order and reads back what it writes.
#include <gtest/gtest.h>

#include <algorithm>

#include <unistd.h>

#include "harness/attempt_notes.h"
#include "harness/time_verdict.h"
#include "test_util.h"

namespace ekb {
namespace {

// Y = A + B over n floats: every correct kernel reads both, 8n bytes.
std::shared_ptr<Program> add_program(int64_t n) {
  return test::valid("kernel add\n  dim N = " + std::to_string(n) + "\n  in A : f32[N]\n  in B : f32[N]\n  out Y : f32[N]\n  Y[i] = A[i] + B[i]\n");
}

std::shared_ptr<Program> matmul_program() {
  return test::valid("kernel mm\n  dim M = 64, N = 64, K = 64\n  in A : f32[M, K]\n  in B : f32[K, N]\n  out Y : f32[M, N]\n"
                     "  Y[m, n] = sum(k) A[m, k] * B[k, n]\n");
}

bool has_note(const TimeVerdict& v, NoteKind k) {
  return std::any_of(v.notes.begin(), v.notes.end(), [&](const AttemptNote& n) { return n.kind == k; });
}

EvalOptions reading_at(double gbps, Timing t = Timing::cold) {
  EvalOptions o;
  o.timing = t;
  o.read_gbps = gbps;
  return o;
}

// 2^20 floats in each of A and B: 8388608 bytes, 0.8389 ms at 10 GB/s.
constexpr double kNeedMs = 8388608 / 10e6;

TEST(TimeVerdict, BelowHalfTheMustReadTimeIsAProofInTheRegimesThatFlush) {
  auto p = add_program(1 << 20);
  ASSERT_TRUE(p);
  for (Timing t : {Timing::cold, Timing::cold_asleep}) {
    TimeVerdict v = judge_time(*p, 0.49 * kNeedMs, reading_at(10, t));
    ASSERT_TRUE(v.impossible) << timing_name(t);
    for (const char* part : {"8388608 bytes", "(A, B:", "10.0 GB/s", "flushed from every cache", "cannot be real"})
      EXPECT_NE(v.impossible->find(part), std::string::npos) << part << " in: " << *v.impossible;
  }
}

TEST(TimeVerdict, WithinTheMarginIsANoteAndSlowerIsNothing) {
  auto p = add_program(1 << 20);
  ASSERT_TRUE(p);
  TimeVerdict within = judge_time(*p, 0.51 * kNeedMs, reading_at(10));
  EXPECT_FALSE(within.impossible);
  ASSERT_TRUE(has_note(within, NoteKind::beyond_read_bandwidth));
  EXPECT_NEAR(within.must_read_gbps, 10 / 0.51, 1e-6);
  EXPECT_NE(within.notes[0].text.find("the stored read bandwidth is 10.0 GB/s"), std::string::npos) << within.notes[0].text;
  TimeVerdict slower = judge_time(*p, 1.01 * kNeedMs, reading_at(10));
  EXPECT_FALSE(slower.impossible);
  EXPECT_TRUE(slower.notes.empty());
  EXPECT_FALSE(judge_time(*p, 0.01 * kNeedMs, reading_at(0)).impossible) << "no read bandwidth, no proof";
}

TEST(TimeVerdict, FlopsAndStatedBytesGiveNotesNeverAProof) {
  // A matmul's operands can be absorbed by each other's zeros: no must-read bytes, whatever the rates.
  auto mm = matmul_program();
  ASSERT_TRUE(mm);
  EvalOptions o = reading_at(1e-6);
  o.peak_gflops = 1;  // 2 * 64^3 flops take 0.52 ms at 1 GFLOP/s
  o.peak_gbps = 1;    // 3 * 16 KiB take 0.049 ms at 1 GB/s
  TimeVerdict v = judge_time(*mm, 0.001, o);
  EXPECT_FALSE(v.impossible);
  EXPECT_TRUE(has_note(v, NoteKind::fewer_flops_than_stated));
  EXPECT_TRUE(has_note(v, NoteKind::beyond_copy_bandwidth));
  EXPECT_FALSE(has_note(v, NoteKind::beyond_read_bandwidth));
  TimeVerdict slow = judge_time(*mm, 1.0, o);
  EXPECT_TRUE(slow.notes.empty()) << slow.notes[0].text;
}

TEST(TimeVerdict, TimedWarmOnlyWhatExceedsTheCachesCounts) {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  // 256 KiB fits the caches of any machine that says how large they are: no proof when warm.
  auto small = add_program(1 << 15);
  ASSERT_TRUE(small);
  EXPECT_FALSE(judge_time(*small, 1e-6, reading_at(10, Timing::warm)).impossible);
  // 4 GiB does not: a proof where the last level's size is known, none where it is not.
  auto big = add_program(int64_t{1} << 29);
  ASSERT_TRUE(big);
  TimeVerdict v = judge_time(*big, 1e-3, reading_at(10, Timing::warm));
  EXPECT_EQ(v.impossible.has_value(), l3 > 0) << "L3 " << l3;
  if (v.impossible) EXPECT_NE(v.impossible->find("beyond what this machine's caches hold"), std::string::npos) << *v.impossible;
}

TEST(TimeVerdict, NoVerdictOnGpusEmulatedBoardsOrBoardsWhoseInputsStayCached) {
  auto p = add_program(1 << 20);
  ASSERT_TRUE(p);
  EvalOptions gpu = reading_at(10);
  gpu.gpu = GpuDevice{};
  gpu.peak_gflops = gpu.peak_gbps = 1e-6;
  TimeVerdict g = judge_time(*p, 1e-6, gpu);
  EXPECT_FALSE(g.impossible);
  EXPECT_TRUE(g.notes.empty());

  EvalOptions board = reading_at(10);
  board.board = Board{};
  board.board->arch = Arch::aarch64;
  board.read_gbps_is_copy_bandwidth = true;
  TimeVerdict b = judge_time(*p, 1e-6, board);
  ASSERT_TRUE(b.impossible) << "an AArch64 board evicts the inputs it receives";
  EXPECT_NE(b.impossible->find("board profile's peak_gbps"), std::string::npos) << *b.impossible;
  board.board->arch = Arch::riscv64;
  EXPECT_FALSE(judge_time(*p, 1e-6, board).impossible) << "RISC-V has no instruction to evict them";
  board.board->arch = Arch::aarch64;
  board.board->emulated = true;
  EXPECT_FALSE(judge_time(*p, 1e-6, board).impossible) << "an emulated board's times are not meaningful";
}

TEST(AttemptNotes, TheTableListsEveryKindInOrderAndReadsBackWhatItWrites) {
  const auto& t = note_table();
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(t[i].kind), i);
    EXPECT_EQ(find_note_kind(t[i].name), t[i].kind);
  }
  EXPECT_EQ(t.size(), 3u);
  std::vector<AttemptNote> notes = {make_note(NoteKind::fewer_flops_than_stated, "2e9 flops in 1 ms"),
                                    make_note(NoteKind::beyond_read_bandwidth, "")};
  EXPECT_NE(notes[0].text.find("better algorithm"), std::string::npos);
  EXPECT_NE(notes[0].text.find(": 2e9 flops in 1 ms"), std::string::npos);
  nlohmann::json j = notes_json(notes);
  EXPECT_EQ(j[0]["kind"], "fewer_flops_than_stated");
  EXPECT_EQ(notes_from_json(j), notes);
  j.push_back({{"kind", "a kind of a later ekb"}, {"text", "?"}});
  j.push_back(42);
  EXPECT_EQ(notes_from_json(j), notes) << "unknown kinds and malformed entries are skipped";
  EXPECT_TRUE(notes_from_json(nlohmann::json()).empty());
}

}  // namespace
}  // namespace ekb
