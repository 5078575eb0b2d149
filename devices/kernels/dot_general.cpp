// The dot_general kernel (kernels.hpp): float matrices through OpenBLAS's sgemm
// (bf16 ones on the bf16 dot-product units where the host has them), integer
// ones by a vectorised loop, each shard's product placed in the whole.
#include "devices/kernels/support.hpp"

#include <cblas.h>

#include <boost/container/small_vector.hpp>

#include "devices/blas.hpp"
#include "devices/kernels/bf16_matmul.hpp"
#include "devices/vector_math.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// ---- dot_general ----

// Axis orders and extents of the usual ranks, on the stack.
using AxisOrder = boost::container::small_vector<int, 8>;
using Extents = boost::container::small_vector<std::int64_t, 8>;

// A small vector's elements as a span (its iterators are not contiguous ones to std::span).
template <class T, std::size_t N>
std::span<const T> view(const boost::container::small_vector<T, N>& values) {
  return {values.data(), values.size()};
}
template <class T, std::size_t N>
std::span<T> view(boost::container::small_vector<T, N>& values) {
  return {values.data(), values.size()};
}

// A walk over the operand's elements in the order of `axes` (a permutation
// of its axes): the permuted shape and each of its axes' strides in the
// operand and in the permuted array.
struct PermutedWalk {
  Extents shape, from_strides, to_strides;
};

PermutedWalk permuted_walk(const LocalArray& operand, std::span<const int> axes) {
  Extents strides(operand.shape.size(), 1);
  PermutedWalk out{{}, {}, Extents(axes.size(), 1)};
  for (std::size_t axis = operand.shape.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * operand.shape[axis];
  for (int axis : axes) {
    out.shape.push_back(operand.shape[static_cast<std::size_t>(axis)]);
    out.from_strides.push_back(strides[static_cast<std::size_t>(axis)]);
  }
  for (std::size_t axis = axes.size(); axis-- > 1;) out.to_strides[axis - 1] = out.to_strides[axis] * out.shape[axis];
  return out;
}

// Calls visit(from, to) for each element of the operand: its index in the
// operand and in the operand's axes permuted to `axes`.
template <class Visit>
void walk_permuted(const LocalArray& operand, std::span<const int> axes, Visit visit) {
  // An empty operand's extents may overflow as strides: it has no element to visit.
  if (element_count(operand.shape) == 0) return;
  const PermutedWalk permuted = permuted_walk(operand, axes);
  walk(view(permuted.shape), view(permuted.from_strides), 0, view(permuted.to_strides), 0,
       [&](std::int64_t from, std::int64_t to) { visit(static_cast<std::size_t>(from), static_cast<std::size_t>(to)); });
}

// The operand's elements `from` in the order of `axes` into `to`: a run
// along the last axis at a time where that axis stays last.
template <class T>
void copy_permuted(const LocalArray& operand, std::span<const int> axes, const T* from, T* to) {
  if (element_count(operand.shape) == 0) return;
  if (axes.empty() || axes.back() != static_cast<int>(axes.size()) - 1)
    return walk_permuted(operand, axes, [&](std::size_t f, std::size_t t) { to[t] = from[f]; });
  PermutedWalk outer = permuted_walk(operand, axes);
  const std::int64_t run = outer.shape.back();
  outer.shape.pop_back();
  outer.from_strides.pop_back();
  outer.to_strides.pop_back();
  walk(view(outer.shape), view(outer.from_strides), 0, view(outer.to_strides), 0,
       [&](std::int64_t f, std::int64_t t) { std::copy_n(from + f, run, to + t); });
}

// The operand's elements, converted to T, in the order of `axes` (a
// permutation of its axes).
template <class T>
std::vector<T> gather_converted(const LocalArray& operand, std::span<const int> axes) {
  std::vector<T> values(static_cast<std::size_t>(element_count(operand.shape)));
  dispatch(operand.dtype(), [&]<DType D>() {
    auto source = operand.buffer->elements<D>();
    walk_permuted(operand, axes, [&](std::size_t from, std::size_t to) { values[to] = static_cast<T>(load<D>(source[from])); });
  });
  return values;
}

// The elements of a float operand as dtype D (f32 or bf16), laid out as
// [batch, rows, columns]: in place when the operand is of dtype D with its
// axes already so (or as [batch, columns, rows]: transposed), else gathered.
// Gathered elements lie in `own`, or, up to kept_gathered_elements, in a
// buffer this thread keeps for the operand (which: 0 lhs, 1 rhs) until its
// next product.
template <DType D>
struct Matrices {
  std::vector<storage_t<D>> own;
  const storage_t<D>* data = nullptr;
  bool transposed = false;
};
inline constexpr std::size_t kept_gathered_elements = std::size_t{1} << 18;

template <DType D>
Matrices<D> matrices(const LocalArray& operand, std::span<const int> order, std::size_t batch_axes,
                     std::size_t row_axes, int which) {
  Matrices<D> view;
  if (operand.dtype() == D) {
    // In place: order is the identity; transposed: it is the batch axes,
    // then the row axes after the column axes, each group consecutive.
    const std::size_t column_axes = order.size() - batch_axes - row_axes;
    bool in_place = true, transposed = true;
    for (std::size_t i = 0; i < order.size(); ++i) {
      in_place = in_place && order[i] == static_cast<int>(i);
      const std::size_t stored = i < batch_axes ? i : i < batch_axes + row_axes ? i + column_axes : i - row_axes;
      transposed = transposed && order[i] == static_cast<int>(stored);
    }
    view.data = operand.buffer->elements<D>().data();
    if (in_place) return view;
    view.transposed = transposed;
    if (view.transposed) return view;
    // Axes of extent 1 move no element (a device's shard of a split batch
    // axis, a head axis of one head): when only they lie out of order, the
    // operand holds its elements as gathering would lay them out. Not so
    // for a transposed view: the whole operand, whose axes are longer,
    // gathers, and OpenBLAS may sum a transposed operand in another order
    // (its small-matrix kernels differ per transposition), so a shard
    // calls sgemm as the whole does.
    int last_placed = -1;
    bool in_order = true;
    for (int axis : order) {
      if (operand.shape[static_cast<std::size_t>(axis)] == 1) continue;
      in_order = in_order && axis > last_placed;
      last_placed = axis;
    }
    if (in_order) return view;
  }
  thread_local std::vector<storage_t<D>> kept[2];
  const auto count = static_cast<std::size_t>(element_count(operand.shape));
  std::vector<storage_t<D>>& gathered = count <= kept_gathered_elements ? kept[which] : view.own;
  if (gathered.size() < count) gathered.resize(count);
  dispatch(operand.dtype(), [&]<DType S>() {
    if constexpr (is_float(S)) {
      auto source = operand.buffer->elements<S>();
      if constexpr (S == D) {
        copy_permuted(operand, order, source.data(), gathered.data());
      } else {
        walk_permuted(operand, order,
                      [&](std::size_t from, std::size_t to) { gathered[to] = store<D>(load<S>(source[from])); });
      }
    }
  });
  view.data = gathered.data();
  return view;
}

// One axis of the product: where each of the shard's `extent` rows (or
// columns) lies in the whole's `total`, increasing.
struct GlobalGrid {
  const std::int64_t* positions;
  std::int64_t total;
  std::int64_t extent;
};

// A row-major matrix operand of sgemm, stored transposed or not.
struct Operand {
  const float* data;
  bool transposed;
};

// The shard's rows (or columns) that one sgemm call covers along one axis:
// local [first, last) at global [start, start + extent) of the tile grid.
// `whole`: the shard holds every row of that range (consecutively), so the
// call reads them in place; otherwise it is one tile, padded with zeros.
// `smallest`: the extent of its smallest tile.
struct Span {
  std::int64_t first, last, start, extent, smallest;
  bool whole;
};

// The shard's spans along one axis of the grid of dot_tile_extent: one per
// tile, or, with `merge`, runs of consecutive whole tiles as one span.
using Spans = boost::container::small_vector<Span, 4>;

Spans grid_spans(const GlobalGrid& grid, bool merge) {
  Spans spans;
  for (std::int64_t next = 0; next < grid.extent;) {
    const std::int64_t start = grid.positions[next] / dot_tile_extent * dot_tile_extent;
    const std::int64_t extent = std::min(dot_tile_extent, grid.total - start);
    std::int64_t last = next;
    while (last < grid.extent && grid.positions[last] < start + extent) ++last;
    const bool whole = last - next == extent;
    if (merge && whole && !spans.empty() && spans.back().whole && spans.back().last == next &&
        spans.back().start + spans.back().extent == start) {
      spans.back().last = last;
      spans.back().extent += extent;
      spans.back().smallest = std::min(spans.back().smallest, extent);
    } else {
      spans.push_back({next, last, start, extent, extent, whole});
    }
    next = last;
  }
  return spans;
}

// Calls visit(tile) for each of the span's tiles, one span each.
template <class Visit>
void for_each_tile(const Span& span, Visit visit) {
  if (!span.whole) return visit(span);
  for (std::int64_t start = span.start; start < span.start + span.extent; start += dot_tile_extent) {
    const std::int64_t extent = std::min(dot_tile_extent, span.start + span.extent - start);
    const std::int64_t first = span.first + (start - span.start);
    visit(Span{first, first + extent, start, extent, extent, true});
  }
}

// Room for one of span_sgemm's padded matrices: a small one is kept per
// thread between calls (no allocation, no zeroing, per call), the rows and
// columns a shard lacks holding whatever an earlier call left there, which
// only the results discarded read (each element of a product reads its own
// row of a and column of b); a large one is `own`, allocated for the call.
inline constexpr std::int64_t kept_scratch_floats = std::int64_t{1} << 18;

float* scratch(int which, std::int64_t size, std::vector<float>& own) {
  thread_local std::vector<float> buffers[3];
  std::vector<float>& buffer = size <= kept_scratch_floats ? buffers[which] : own;
  if (buffer.size() < static_cast<std::size_t>(size)) buffer.resize(static_cast<std::size_t>(size));
  return buffer.data();
}

// A run of a span's rows (or columns) that lie consecutively in the shard
// and in the tile: `count` of them from the shard's `local` at the tile's
// `place`.
struct Run {
  std::int64_t local, place, count;
};
using Runs = boost::container::small_vector<Run, 4>;

Runs runs_of(const GlobalGrid& grid, const Span& span) {
  Runs runs;
  const std::int64_t* positions = grid.positions;
  for (std::int64_t first = span.first; first < span.last;) {
    // Positions increase: the rest is one run when its ends are as far apart as its rows.
    std::int64_t end = positions[span.last - 1] - positions[first] == span.last - 1 - first ? span.last : first + 1;
    while (end < span.last && positions[end] == positions[end - 1] + 1) ++end;
    runs.push_back({first, positions[first] - span.start, end - first});
    first = end;
  }
  return runs;
}

void copy_floats(const float* from, float* to, std::int64_t count) {
  std::memcpy(to, from, static_cast<std::size_t>(count) * sizeof(float));
}

// c's rows x columns (the spans) as one sgemm of the spans' whole extents,
// the shard's rows and columns at their global positions in it (rows or
// columns the shard lacks are discarded). Called column-major
// (c^T = b^T a^T, the same computation inside OpenBLAS) so that OpenBLAS's
// "direct" path for small row-major calls, which sums in another order,
// never runs.
void span_sgemm(Operand a, Operand b, std::int64_t k, const GlobalGrid& rows_grid, const GlobalGrid& columns_grid,
                const Span& rows, const Span& columns, float* c) {
  const std::int64_t m = rows_grid.extent;
  const std::int64_t n = columns_grid.extent;
  const std::int64_t lda = a.transposed ? m : k;
  const std::int64_t ldb = b.transposed ? k : n;
  std::vector<float> own_a, own_b, own_c;
  const Runs row_runs = runs_of(rows_grid, rows), column_runs = runs_of(columns_grid, columns);
  float* padded_a = nullptr;
  float* padded_c = nullptr;
  const float* span_a = a.transposed ? a.data + rows.first : a.data + rows.first * lda;
  std::int64_t span_lda = lda;
  if (!rows.whole) {
    padded_a = scratch(0, rows.extent * k, own_a);
    for (const auto& [i, row, count] : row_runs) {
      if (!a.transposed) {
        copy_floats(a.data + i * lda, padded_a + row * k, count * k);
        continue;
      }
      for (std::int64_t p = 0; p < k; ++p) copy_floats(a.data + p * lda + i, padded_a + p * rows.extent + row, count);
    }
    span_a = padded_a;
    span_lda = a.transposed ? rows.extent : k;
  }
  const float* span_b = b.transposed ? b.data + columns.first * ldb : b.data + columns.first;
  std::int64_t span_ldb = ldb;
  if (!columns.whole) {
    float* padded_b = scratch(1, k * columns.extent, own_b);
    for (const auto& [j, column, count] : column_runs) {
      if (b.transposed) {
        copy_floats(b.data + j * ldb, padded_b + column * k, count * k);
        continue;
      }
      for (std::int64_t p = 0; p < k; ++p) copy_floats(b.data + p * ldb + j, padded_b + p * columns.extent + column, count);
    }
    span_b = padded_b;
    span_ldb = b.transposed ? k : columns.extent;
  }
  float* span_c = c + rows.first * n + columns.first;
  std::int64_t ldc = n;
  if (!rows.whole || !columns.whole) {
    padded_c = scratch(2, rows.extent * columns.extent, own_c);
    span_c = padded_c;
    ldc = columns.extent;
  }
  cblas_sgemm(CblasColMajor, b.transposed ? CblasTrans : CblasNoTrans, a.transposed ? CblasTrans : CblasNoTrans,
              static_cast<int>(columns.extent), static_cast<int>(rows.extent), static_cast<int>(k), 1.0f, span_b,
              static_cast<int>(span_ldb), span_a, static_cast<int>(span_lda), 0.0f, span_c, static_cast<int>(ldc));
  if (padded_c) {
    for (std::int64_t i = rows.first; i < rows.last; ++i) {
      const float* from = padded_c + (rows_grid.positions[i] - rows.start) * columns.extent;
      for (const auto& [j, column, count] : column_runs) copy_floats(from + column, c + i * n + j, count);
    }
  }
}

// c[m, n] = a[m, k] b[k, n] as if computed per tile of the global grid of
// dot_tile_extent, each tile one sgemm of the whole tile's extent: OpenBLAS's
// order of summation may depend on a call's extents and an element's place
// in it, both of which are then the same sharded or not. Where the kernel's
// order depends on k alone (blas::order_fixed_by_depth) and every tile would
// take OpenBLAS's blocked path, the tiles of a run the shard holds whole are
// one call: one packing of the operands instead of one per tile, same bits.
void tiled_sgemm(Operand a, Operand b, std::int64_t k, const GlobalGrid& rows, const GlobalGrid& columns, float* c) {
  const bool merge = blas::order_fixed_by_depth();
  const Spans row_spans = grid_spans(rows, merge);
  const Spans column_spans = grid_spans(columns, merge);
  for (const Span& row_span : row_spans) {
    for (const Span& column_span : column_spans) {
      const double smallest_tile = static_cast<double>(row_span.smallest) * static_cast<double>(column_span.smallest) *
                                   static_cast<double>(k);
      if (merge && smallest_tile > blas::small_product_limit) {
        span_sgemm(a, b, k, rows, columns, row_span, column_span, c);
        continue;
      }
      for_each_tile(row_span, [&](const Span& row_tile) {
        for_each_tile(column_span, [&](const Span& column_tile) {
          span_sgemm(a, b, k, rows, columns, row_tile, column_tile, c);
        });
      });
    }
  }
}

// Where each element of a block lies in the whole, flattened row-major, into
// `positions`: the block has `extents` and starts at `origins` of `totals`
// per axis.
Status block_positions(std::span<const std::int64_t> extents, std::span<const std::int64_t> origins,
                       std::span<const std::int64_t> totals, std::vector<std::int64_t>& positions) {
  if (origins.size() != extents.size() || totals.size() != extents.size())
    return invalid("dot_general: the placement names one origin and total per free axis");
  for (std::size_t axis = 0; axis < extents.size(); ++axis) {
    if (origins[axis] < 0 || origins[axis] + extents[axis] > totals[axis])
      return invalid("dot_general: the shard lies outside the placement's whole product");
  }
  positions.resize(static_cast<std::size_t>(element_count(extents)));
  if (positions.empty()) return {};
  if (extents.empty()) {
    positions[0] = 0;
    return {};
  }
  // The block's elements in row-major order: an odometer over the outer
  // axes, each row of the last axis consecutive in the whole.
  Extents index(extents.size(), 0);
  const std::size_t last = extents.size() - 1;
  for (std::size_t i = 0; i < positions.size();) {
    std::int64_t base = 0;
    for (std::size_t axis = 0; axis <= last; ++axis) base = base * totals[axis] + origins[axis] + index[axis];
    for (std::int64_t j = 0; j < extents[last]; ++j) positions[i++] = base + j;
    for (std::size_t axis = last; axis-- > 0;) {
      if (++index[axis] < extents[axis]) break;
      index[axis] = 0;
    }
  }
  return {};
}

// The global positions of the shard's `count` rows (or columns) of free
// `extents`, into `positions`: per axis, flattened from `origin` of `total`,
// or the whole.
Status grid_positions(std::span<const std::int64_t> extents, std::int64_t count, std::span<const std::int64_t> origins,
                      std::span<const std::int64_t> totals, std::int64_t origin, std::int64_t total,
                      std::vector<std::int64_t>& positions) {
  if (!totals.empty()) return block_positions(extents, origins, totals, positions);
  if (total > 0 && (origin < 0 || origin + count > total))
    return invalid("dot_general: the shard lies outside the placement's whole product");
  positions.resize(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) positions[static_cast<std::size_t>(i)] = (total > 0 ? origin : 0) + i;
  return {};
}

// Room for a product's grid positions (which: 0 rows, 1 columns): kept by
// the thread between calls, as gathered operands are, or `own` when large.
std::vector<std::int64_t>& positions_room(int which, std::int64_t count, std::vector<std::int64_t>& own) {
  thread_local std::vector<std::int64_t> kept[2];
  return static_cast<std::size_t>(count) <= kept_gathered_elements ? kept[which] : own;
}

// The operands of a dot_general as matrices: lhs gathered in lhs_order is
// [batch, m, k], rhs in rhs_order is [batch, k, n]; the free axes' extents
// (rows of lhs, columns of rhs) and the result's shape [batch..., lhs free...,
// rhs free...].
struct DotArrangement {
  std::int64_t batch = 1;
  std::int64_t m = 1;
  std::int64_t n = 1;
  std::int64_t k = 1;
  AxisOrder lhs_order;
  AxisOrder rhs_order;
  Extents lhs_free_shape;
  Extents rhs_free_shape;
  Shape result_shape;
};

// Checks the operands against `dimensions` and arranges them into `dot`.
Status arrange_dot(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions, DotArrangement& dot) {
  if (Status status = check_array(lhs, "dot_general"); !status) return status;
  if (Status status = check_array(rhs, "dot_general"); !status) return status;
  if (lhs.dtype() != rhs.dtype()) {
    return invalid(fmt::format("dot_general operands of different dtypes: {} and {}",
                               typecheck::long_name(lhs.dtype()), typecheck::long_name(rhs.dtype())));
  }
  boost::container::small_vector<char, 8> lhs_used(lhs.shape.size(), 0), rhs_used(rhs.shape.size(), 0);
  if (Status status = check_axes(dimensions.lhs_batch, lhs.shape.size(), "dot_general lhs batch", view(lhs_used)); !status)
    return status;
  if (Status status = check_axes(dimensions.lhs_contracting, lhs.shape.size(), "dot_general lhs contracting", view(lhs_used));
      !status)
    return status;
  if (Status status = check_axes(dimensions.rhs_batch, rhs.shape.size(), "dot_general rhs batch", view(rhs_used)); !status)
    return status;
  if (Status status = check_axes(dimensions.rhs_contracting, rhs.shape.size(), "dot_general rhs contracting", view(rhs_used));
      !status)
    return status;
  if (dimensions.lhs_batch.size() != dimensions.rhs_batch.size() ||
      dimensions.lhs_contracting.size() != dimensions.rhs_contracting.size()) {
    return invalid("dot_general: lhs and rhs name different numbers of batch or contracting axes");
  }
  dot.result_shape.reserve(lhs.shape.size() + rhs.shape.size());
  for (std::size_t i = 0; i < dimensions.lhs_batch.size(); ++i) {
    std::int64_t extent = lhs.shape[static_cast<std::size_t>(dimensions.lhs_batch[i])];
    if (extent != rhs.shape[static_cast<std::size_t>(dimensions.rhs_batch[i])]) {
      return invalid("dot_general: batch axes of different extents");
    }
    dot.batch *= extent;
    dot.result_shape.push_back(extent);
  }
  for (std::size_t i = 0; i < dimensions.lhs_contracting.size(); ++i) {
    std::int64_t extent = lhs.shape[static_cast<std::size_t>(dimensions.lhs_contracting[i])];
    if (extent != rhs.shape[static_cast<std::size_t>(dimensions.rhs_contracting[i])]) {
      return invalid(fmt::format("dot_general: contracting axes of extents {} and {}", extent,
                                 rhs.shape[static_cast<std::size_t>(dimensions.rhs_contracting[i])]));
    }
    dot.k *= extent;
  }
  // Operands as [batch, free, contracting] and [batch, contracting, free].
  dot.lhs_order.assign(dimensions.lhs_batch.begin(), dimensions.lhs_batch.end());
  dot.rhs_order.assign(dimensions.rhs_batch.begin(), dimensions.rhs_batch.end());
  for (std::size_t axis = 0; axis < lhs.shape.size(); ++axis) {
    if (!lhs_used[axis]) {
      dot.lhs_free_shape.push_back(lhs.shape[axis]);
      dot.lhs_order.push_back(static_cast<int>(axis));
      dot.m *= lhs.shape[axis];
      dot.result_shape.push_back(lhs.shape[axis]);
    }
  }
  dot.rhs_order.insert(dot.rhs_order.end(), dimensions.rhs_contracting.begin(), dimensions.rhs_contracting.end());
  for (std::size_t axis = 0; axis < rhs.shape.size(); ++axis) {
    if (!rhs_used[axis]) {
      dot.rhs_free_shape.push_back(rhs.shape[axis]);
      dot.rhs_order.push_back(static_cast<int>(axis));
      dot.n *= rhs.shape[axis];
      dot.result_shape.push_back(rhs.shape[axis]);
    }
  }
  dot.lhs_order.insert(dot.lhs_order.end(), dimensions.lhs_contracting.begin(), dimensions.lhs_contracting.end());
  return {};
}

// Float operands: f32 sums (on the bf16 units for bf16 operands where the
// host has them, else sgemm on f32), rounded once into the result's dtype.
Status float_dot(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions,
                 const DotArrangement& dot, LocalArray& result) {
  const std::int64_t batch = dot.batch, m = dot.m, n = dot.n, k = dot.k;
  const std::size_t batch_axes = dimensions.lhs_batch.size(), contracting_axes = dimensions.lhs_contracting.size();
  const AxisOrder& lhs_order = dot.lhs_order;
  const AxisOrder& rhs_order = dot.rhs_order;
  const DotPlacement& placement = dimensions.placement;
  const bool f32 = result.dtype() == DType::float32;
  std::vector<float> rounded_later(f32 ? 0 : static_cast<std::size_t>(batch * m * n), 0.0f);
  float* c = f32 ? result.buffer->elements<DType::float32>().data() : rounded_later.data();
  std::vector<std::int64_t> own_rows, own_columns;
  std::vector<std::int64_t>& row_positions = positions_room(0, m, own_rows);
  std::vector<std::int64_t>& column_positions = positions_room(1, n, own_columns);
  if (Status status = grid_positions(view(dot.lhs_free_shape), m, placement.lhs_free_origins, placement.lhs_free_totals,
                                     placement.row_origin, placement.rows_total, row_positions);
      !status)
    return status;
  if (Status status = grid_positions(view(dot.rhs_free_shape), n, placement.rhs_free_origins, placement.rhs_free_totals,
                                     placement.column_origin, placement.columns_total, column_positions);
      !status)
    return status;
  const std::size_t lhs_rows = lhs_order.size() - batch_axes - contracting_axes;
  if (m == 0 || n == 0 || k == 0) {
    std::fill(c, c + batch * m * n, 0.0f);
  } else if (lhs.dtype() == DType::bfloat16 && has_bf16_dot_units()) {
    // The order of the sums depends on k alone: no grid needed.
    Matrices<DType::bfloat16> a = matrices<DType::bfloat16>(lhs, view(lhs_order), batch_axes, lhs_rows, 0);
    Matrices<DType::bfloat16> b = matrices<DType::bfloat16>(rhs, view(rhs_order), batch_axes, contracting_axes, 1);
    for (std::int64_t index = 0; index < batch; ++index) {
      bf16_matmul({a.data + index * m * k, a.transposed ? m : k, a.transposed},
                  {b.data + index * k * n, b.transposed ? k : n, b.transposed}, m, n, k, c + index * m * n, n);
    }
  } else {
    Matrices<DType::float32> a = matrices<DType::float32>(lhs, view(lhs_order), batch_axes, lhs_rows, 0);
    Matrices<DType::float32> b = matrices<DType::float32>(rhs, view(rhs_order), batch_axes, contracting_axes, 1);
    auto total = [](std::span<const std::int64_t> totals, std::int64_t flattened, std::int64_t extent) {
      return !totals.empty() ? element_count(totals) : flattened > 0 ? flattened : extent;
    };
    GlobalGrid rows{row_positions.data(), total(placement.lhs_free_totals, placement.rows_total, m), m};
    GlobalGrid columns{column_positions.data(), total(placement.rhs_free_totals, placement.columns_total, n), n};
    for (std::int64_t index = 0; index < batch; ++index) {
      tiled_sgemm({a.data + index * m * k, a.transposed}, {b.data + index * k * n, b.transposed}, k, rows, columns,
                  c + index * m * n);
    }
  }
  dispatch(result.dtype(), [&]<DType D>() {
    if constexpr (D != DType::float32) {
      auto out = result.buffer->elements<D>();
      for (std::size_t i = 0; i < rounded_later.size(); ++i) out[i] = store_converted<D>(rounded_later[i]);
    }
  });
  return {};
}

// Integer operands: sums mod 2^32 when that gives the result (an integer
// result of at most 32 bits keeps only those bits; int8 sums of fewer than
// 2^17 products are exact), vectorised; else mod 2^64. Bool: or of ands.
void integer_dot(const LocalArray& lhs, const LocalArray& rhs, const DotArrangement& dot, LocalArray& result) {
  const std::int64_t batch = dot.batch, m = dot.m, n = dot.n, k = dot.k;
  const DType result_dtype = result.dtype();
  const bool logical = lhs.dtype() == DType::bool_;
  const bool narrow = !logical && (is_int(result_dtype) || (lhs.dtype() == DType::int8 && k < (std::int64_t{1} << 17)));
  auto sums = [&]<class T>() {
    std::vector<T> a = gather_converted<T>(lhs, view(dot.lhs_order));
    std::vector<T> b = gather_converted<T>(rhs, view(dot.rhs_order));
    std::vector<T> c(static_cast<std::size_t>(batch * m * n), 0);
    for (std::int64_t index = 0; index < batch; ++index) {
      const T* a_block = a.data() + index * m * k;
      const T* b_block = b.data() + index * k * n;
      T* c_block = c.data() + index * m * n;
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t p = 0; p < k; ++p) {
          const T left = a_block[i * k + p];
          if (left == 0) continue;
          if constexpr (std::is_same_v<T, std::uint32_t>) {
            multiply_add_u32(c_block + i * n, left, b_block + p * n, static_cast<std::size_t>(n));
          } else {
            for (std::int64_t j = 0; j < n; ++j) {
              const T product_ij = left * b_block[p * n + j];
              c_block[i * n + j] = logical ? (c_block[i * n + j] | (product_ij != 0)) : c_block[i * n + j] + product_ij;
            }
          }
        }
      }
    }
    dispatch(result_dtype, [&]<DType D>() {
      auto out = result.buffer->elements<D>();
      using Signed = std::make_signed_t<T>;
      if constexpr (is_float(D)) {
        // Exact integer sums, rounded once.
        for (std::size_t i = 0; i < c.size(); ++i) out[i] = store_converted<D>(static_cast<double>(static_cast<Signed>(c[i])));
      } else {
        for (std::size_t i = 0; i < c.size(); ++i) out[i] = wrap<storage_t<D>>(c[i]);
      }
    });
  };
  // Elements gathered as unsigned: products and sums wrap without overflow.
  if (narrow) sums.template operator()<std::uint32_t>();
  else sums.template operator()<std::uint64_t>();
}

}  // namespace

Expected<LocalArray> dot_general(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions) {
  DotArrangement dot;
  if (Status status = arrange_dot(lhs, rhs, dimensions, dot); !status) return status.error();
  const DType result_dtype = dimensions.result_dtype.value_or(lhs.dtype());
  Expected<LocalArray> result = allocate(lhs.buffer->ledger(), result_dtype, std::move(dot.result_shape));
  if (!result) return result;
  if (is_float(lhs.dtype())) {
    if (Status status = float_dot(lhs, rhs, dimensions, dot, *result); !status) return status.error();
  } else {
    integer_dot(lhs, rhs, dot, *result);
  }
  return result;
}

}  // namespace devices
