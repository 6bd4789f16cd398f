// Register tiles for contractions (default_contraction.h).
#include "schedule/default_contraction.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

#include "schedule/stage_access.h"

namespace ekb::default_schedule {

namespace {

using lir::EK;
using lir::ExprP;

// The loads under the body's top multiplication, looking through casts and through a sum or
// difference with values that read nothing (a zero point): the two operands' reads, or nothing when
// the body is not one product of two reads.
std::optional<std::pair<ExprP, ExprP>> product_reads(const ExprP& body) {
  std::function<ExprP(const ExprP&)> operand = [&](const ExprP& e) -> ExprP {
    if (e->kind == EK::load) return e;
    if (e->kind == EK::cast) return operand(e->args[0]);
    if (e->kind == EK::binary && (e->binop == BinOp::add || e->binop == BinOp::sub)) {
      std::function<bool(const ExprP&)> reads = [&](const ExprP& x) {
        if (x->kind == EK::load) return true;
        for (const auto& a : x->args)
          if (reads(a)) return true;
        return false;
      };
      if (!reads(e->args[1])) return operand(e->args[0]);
      if (!reads(e->args[0])) return operand(e->args[1]);
    }
    return nullptr;
  };
  const ExprP* x = &body;
  while ((*x)->kind == EK::cast) x = &(*x)->args[0];
  if ((*x)->kind != EK::binary || (*x)->binop != BinOp::mul) return std::nullopt;
  ExprP a = operand((*x)->args[0]), b = operand((*x)->args[1]);
  if (!a || !b) return std::nullopt;
  return std::make_pair(a, b);
}

bool uses(const ExprP& e, const std::string& v) {
  if (e->kind == EK::var && e->name == v) return true;
  for (const auto& a : e->args)
    if (uses(a, v)) return true;
  return false;
}

// Columns NI (whole vectors) and rows MI of the tile: accumulators MI x NI / lanes plus a register per
// vector of B and one for the broadcast A fit the target's vector registers; among the fitting
// shapes, the one that wastes least of the extents on partial tiles, then the largest.
// The most rows (8 at most, and at most the extent) of a tile `v` registers wide whose accumulators,
// B's vectors and A's broadcast fit the registers; 0 when none does.
int64_t tile_rows(int64_t m_extent, int64_t v, int registers) {
  for (int64_t mi = std::min<int64_t>(8, m_extent); mi >= 1; --mi)
    if (mi * v + v + 1 <= registers) return mi;
  return 0;
}

std::pair<int64_t, int64_t> tile_shape(int64_t m_extent, int64_t n_extent, int lanes, int registers) {
  std::pair<int64_t, int64_t> best{0, 0};
  double best_score = -1;
  for (int64_t v : {1, 2, 3, 4}) {
    int64_t ni = v * lanes;
    if (ni > n_extent && v > 1) break;
    int64_t mi = tile_rows(m_extent, v, registers);
    if (mi == 0) continue;
    auto used = [](int64_t e, int64_t f) { return static_cast<double>(e) / static_cast<double>((e + f - 1) / f * f); };
    double work = static_cast<double>(mi * v);  // accumulators: the tile's reuse
    double score = used(m_extent, mi) * used(n_extent, ni) * std::min(work, 16.0);
    if (score > best_score + 1e-9) best_score = score, best = {mi, ni};
  }
  return best;
}

// A tile's columns cut a row the tile's width does not divide: the last, partial tile runs point by
// point, each of its points costing about as much as a whole vector of a full tile (blazeface's 28
// output channels as 16 lanes and a tail of 12 ran 1.6x slower than as seven vectors of 4). The
// estimated time of a row of `n` points in tiles of `rows` x `cols` (`lanes` wide): full tiles at
// their lanes, slowed while fewer than 12 accumulators hide the FMA's latency, and the tail point by
// point.
double row_time(int64_t n, int64_t rows, int64_t cols, int lanes) {
  int64_t tail = n % cols;
  double reuse = std::min<double>(static_cast<double>(rows * (cols / lanes)), 12.0) / 12.0;
  return static_cast<double>(n - tail) / (lanes * reuse) + static_cast<double>(tail);
}

// The tile for a row the register's width leaves a tail in: among narrower vectors (a half or a
// quarter of the register, 4 lanes at least) whose tile divides the row, the fastest by row_time,
// where it beats the full width's by 10%; else the full width's.
struct TileChoice {
  int lanes;
  int64_t rows, cols;
};
TileChoice narrower_if_exact(int64_t m_extent, int64_t n_extent, int lanes, int registers, std::pair<int64_t, int64_t> full) {
  TileChoice best{lanes, full.first, full.second};
  if (full.second <= 0 || n_extent % full.second == 0) return best;
  double best_time = 0.9 * row_time(n_extent, full.first, full.second, lanes);
  for (int l = lanes / 2; l >= 4 && l >= lanes / 4; l /= 2)
    for (int64_t v = 4; v >= 1; --v) {
      int64_t cols = v * l;
      if (cols > n_extent || n_extent % cols != 0) continue;
      int64_t rows = tile_rows(m_extent, v, registers);
      if (rows < 2) continue;
      double time = row_time(n_extent, rows, cols, l);
      if (time < best_time) best_time = time, best = {l, rows, cols};
    }
  return best;
}

// The unroll of a register tile's row loop and the vector lanes of its columns, for the stage `name`
// whose row and column loops are `row`, `col` (col of NI = k * lanes points).
std::vector<std::string> lanes_of_tile(const std::string& row, const std::string& col, int64_t rows, int64_t cols, int lanes) {
  std::vector<std::string> d;
  if (rows > 1) d.push_back("unroll " + row);
  if (lanes > 1) {
    if (cols > lanes) {
      d.push_back(fmt::format("split {} {} -> {}_r {}_v", col, lanes, col, col));
      d.push_back(fmt::format("unroll {}_r", col));
      d.push_back(fmt::format("vectorize {}_v", col));
    } else {
      d.push_back("vectorize " + col);
    }
  }
  return d;
}

}  // namespace

std::optional<Contraction> find_contraction(const lower::Graph& g, const lower::LStage& s, const Target& t) {
  if (!s.has_reduction() || s.rop != ReduceOp::sum || s.vars.size() < 2 || s.is_scan() || s.type == DType::boolean) return std::nullopt;
  auto reads = product_reads(s.value);
  if (!reads) return std::nullopt;
  int lanes = lanes_for(s, t);
  if (lanes < 2) return std::nullopt;
  Contraction c;
  c.ni = s.vars.size() - 1;
  c.n = s.vars[c.ni];
  if (s.extents[c.ni] < lanes) return std::nullopt;
  // B: contiguous along n; A: does not move with n.
  auto stride = [&](const ExprP& l, const std::string& v) { return read_stride(g, l, v); };
  ExprP A = reads->first, B = reads->second;
  auto sb = stride(B, c.n), sa = stride(A, c.n);
  if (!(sb && *sb == 1 && sa && *sa == 0)) {
    std::swap(A, B);
    sb = stride(B, c.n), sa = stride(A, c.n);
  }
  // (Both contiguous along n — a depthwise filter — is fine too: then A is the one that moves with m.)
  bool both_contiguous = sb && *sb == 1 && sa && *sa == 1;
  if (!(sb && *sb == 1 && sa && (*sa == 0 || both_contiguous))) return std::nullopt;
  // m: moves A but not B; the innermost such variable.
  for (size_t i = c.ni; i-- > 0;) {
    auto bm = stride(B, s.vars[i]), am = stride(A, s.vars[i]);
    if (both_contiguous) {
      // (Depthwise: the one moving is A or B; call the one that does not move with m B.)
      if (bm && am && *bm == 0 && *am != 0) {
        c.m = s.vars[i], c.mi = i;
        break;
      }
      if (bm && am && *am == 0 && *bm != 0) {
        std::swap(A, B);
        c.m = s.vars[i], c.mi = i;
        break;
      }
      continue;
    }
    if (bm && am && *bm == 0 && *am != 0) {
      c.m = s.vars[i], c.mi = i;
      break;
    }
  }
  if (c.m.empty()) return std::nullopt;
  // Every reduction variable must move one of the reads (a true contraction).
  for (const auto& r : s.rvars)
    if (!uses(A, r) && !uses(B, r)) return std::nullopt;
  const int registers = std::max(8, t.vector_registers);
  auto [mi, ni] = tile_shape(s.extents[c.mi], s.extents[c.ni], lanes, registers);
  if (mi < 2 || ni < lanes) return std::nullopt;
  TileChoice tile = narrower_if_exact(s.extents[c.mi], s.extents[c.ni], lanes, registers, {mi, ni});
  c.lanes = tile.lanes;
  c.rows = tile.rows;
  c.cols = tile.cols;
  // B packable: an input whose last index is n itself and whose other indices are variables (its
  // reduction dimension included): B[..., k, n].
  if (g.input(B->name) && !B->args.empty() && B->args.back()->kind == EK::var && B->args.back()->name == c.n) {
    bool plain = true;
    for (const auto& a : B->args) plain = plain && a->kind == EK::var;
    int64_t k = 1;
    for (int64_t e : s.rextents) k *= e;
    if (plain && s.extents[c.mi] >= 8 * mi && s.extents[c.ni] >= 4 * ni && k >= 64) {
      c.b_input = B->name;
      c.b_dim = static_cast<int>(B->args.size()) - 1;
      c.pack = true;
    }
  }
  return c;
}

TilePlan tile_at_root(const lower::LStage& s, const Contraction& c) {
  TilePlan p;
  std::string mo = c.m + "_o", mi = c.m + "_i", no = c.n + "_o", ni = c.n + "_i";
  p.dirs.push_back(fmt::format("split {} {} -> {} {}", c.m, c.rows, mo, mi));
  p.dirs.push_back(fmt::format("split {} {} -> {} {}", c.n, c.cols, no, ni));
  // Outside the tile: the other pure loops in order, the column panel before the row tiles when B is
  // packed (each panel packed once, then every row tile streams past it).
  for (size_t i = 0; i < s.vars.size(); ++i) {
    if (i == c.mi) p.outer.push_back(c.pack ? no : mo);
    else if (i == c.ni) p.outer.push_back(c.pack ? mo : no);
    else p.outer.push_back(s.vars[i]);
  }
  std::vector<std::string> order = p.outer;
  order.push_back(mi);
  order.push_back(ni);
  p.dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  std::string local = s.name + "_rt";
  p.memory.push_back(fmt::format("cache_write local at {} -> {}", p.outer.back(), local));
  // The tile: the reduction outermost, rows unrolled, columns in vector registers; a short
  // reduction loop (a 3x3 window) unrolled as well.
  std::vector<std::string> l = s.rvars;
  l.push_back(mi);
  l.push_back(ni);
  std::vector<std::string> ld = {fmt::format("reorder {}", fmt::join(l, " "))};
  for (size_t r = 0; r < s.rvars.size(); ++r)
    if (s.rextents[r] <= 4) ld.push_back("unroll " + s.rvars[r]);
  auto lanes = lanes_of_tile(mi, ni, c.rows, c.cols, c.lanes);
  ld.insert(ld.end(), lanes.begin(), lanes.end());
  p.created.push_back({local, ld});
  if (c.pack) {
    std::string packed = c.b_input + "_pk";
    p.memory.insert(p.memory.begin(), fmt::format("pack {} {} {} -> {}", c.b_input, c.b_dim, c.cols, packed));
    p.created.push_back({packed, {fmt::format("vectorize ax{} {}", c.b_dim + 1, std::min<int64_t>(c.lanes, c.cols))}});
    p.created_memory.push_back({packed, fmt::format("compute_at {} {}", s.name, no)});
  }
  return p;
}

FusedTilePlan tile_at_reader(const lower::LStage& s, const lower::LStage& y, const Contraction& c) {
  FusedTilePlan p;
  const std::string &ym = y.vars[c.mi], &yn = y.vars[c.ni];
  std::string mo = ym + "_o", mi = ym + "_i", no = yn + "_o", ni = yn + "_i";
  p.y_dirs.push_back(fmt::format("split {} {} -> {} {}", ym, c.rows, mo, mi));
  p.y_dirs.push_back(fmt::format("split {} {} -> {} {}", yn, c.cols, no, ni));
  for (size_t i = 0; i < y.vars.size(); ++i) p.outer.push_back(i == c.mi ? mo : i == c.ni ? no : y.vars[i]);
  std::vector<std::string> order = p.outer;
  order.push_back(mi);
  order.push_back(ni);
  p.y_dirs.push_back(fmt::format("reorder {}", fmt::join(order, " ")));
  auto ylanes = lanes_of_tile(mi, ni, c.rows, c.cols, c.lanes);
  p.y_dirs.insert(p.y_dirs.end(), ylanes.begin(), ylanes.end());
  p.at = p.outer.back();
  // The sum at each tile: its reduction outside its (tile-sized) pure loops, its row loop unrolled
  // (MI copies: the stage's schedule is checked on its own extents), columns in vectors.
  std::vector<std::string> order_s = s.rvars;
  order_s.insert(order_s.end(), s.vars.begin(), s.vars.end());
  // (The sum's pure loops other than the tile's two have one point at each tile: they go with it.)
  p.s_dirs.push_back(fmt::format("reorder {}", fmt::join(order_s, " ")));
  for (size_t r = 0; r < s.rvars.size(); ++r)
    if (s.rextents[r] <= 4) p.s_dirs.push_back("unroll " + s.rvars[r]);
  if (c.rows > 1) p.s_dirs.push_back(fmt::format("unroll {} {}", c.m, c.rows));
  if (c.lanes > 1) {
    if (c.cols > c.lanes) {
      p.s_dirs.push_back(fmt::format("split {} {} -> {}_r {}_v", c.n, c.lanes, c.n, c.n));
      p.s_dirs.push_back(fmt::format("unroll {}_r {}", c.n, c.cols / c.lanes));
      p.s_dirs.push_back(fmt::format("vectorize {}_v", c.n));
    } else {
      p.s_dirs.push_back(fmt::format("vectorize {} {}", c.n, c.lanes));
    }
  }
  return p;
}

}  // namespace ekb::default_schedule
