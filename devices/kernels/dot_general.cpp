// The dot_general kernel (kernels.hpp): float matrices through OpenBLAS's sgemm,
// other dtypes by a plain loop, each shard's product placed in the whole.
#include "devices/kernels/support.hpp"

#include <cblas.h>

#include <mutex>

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// ---- dot_general ----

// The operand's elements, converted to T, in the order of `axes` (a
// permutation of its axes).
template <class T>
std::vector<T> gather_converted(const LocalArray& operand, const std::vector<int>& axes) {
  std::vector<std::int64_t> strides = row_major_strides(operand.shape);
  Shape permuted_shape;
  std::vector<std::int64_t> permuted_strides;
  for (int axis : axes) {
    permuted_shape.push_back(operand.shape[static_cast<std::size_t>(axis)]);
    permuted_strides.push_back(strides[static_cast<std::size_t>(axis)]);
  }
  std::vector<T> values(static_cast<std::size_t>(element_count(operand.shape)));
  std::vector<std::int64_t> output_strides = row_major_strides(permuted_shape);
  dispatch(operand.dtype(), [&]<DType D>() {
    auto source = operand.buffer->elements<D>();
    walk(permuted_shape, permuted_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
      values[static_cast<std::size_t>(to)] = static_cast<T>(load<D>(source[static_cast<std::size_t>(from)]));
    });
  });
  return values;
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

// c[m, n] = a[m, k] b[k, n] computed per tile of the global grid of
// dot_tile_extent: every tile is one sgemm of the whole tile's extent, with
// the shard's rows and columns at their global positions in it (rows or
// columns the shard lacks are zeros and discarded). OpenBLAS's order of
// summation depends on the call's extents and an element's position in the
// call, both of which are now the same sharded or not.
void tiled_sgemm(Operand a, Operand b, std::int64_t k, const GlobalGrid& rows, const GlobalGrid& columns, float* c) {
  const std::int64_t m = rows.extent;
  const std::int64_t n = columns.extent;
  const std::int64_t lda = a.transposed ? m : k;
  const std::int64_t ldb = b.transposed ? k : n;
  std::vector<float> padded_a, padded_b, padded_c;
  // The shard's rows (columns) in the tile starting at global `start`: a
  // local range, since positions increase.
  struct Span {
    std::int64_t first, last;
  };
  auto in_tile = [](const GlobalGrid& grid, std::int64_t from, std::int64_t start, std::int64_t extent) {
    Span span{from, from};
    while (span.last < grid.extent && grid.positions[span.last] < start + extent) ++span.last;
    return span;
  };
  auto tile_start = [](std::int64_t position) { return position / dot_tile_extent * dot_tile_extent; };
  for (std::int64_t next_row = 0; next_row < m;) {
    const std::int64_t row_tile = tile_start(rows.positions[next_row]);
    const std::int64_t tile_rows = std::min(dot_tile_extent, rows.total - row_tile);
    const auto [first_row, last_row] = in_tile(rows, next_row, row_tile, tile_rows);
    next_row = last_row;
    // Every row of the tile present: they are consecutive here too.
    const bool whole_rows = last_row - first_row == tile_rows;
    // The tile's lhs: in place when the shard has all its rows, else padded.
    const float* tile_a = a.transposed ? a.data + first_row : a.data + first_row * lda;
    std::int64_t tile_lda = lda;
    if (!whole_rows) {
      padded_a.assign(static_cast<std::size_t>(tile_rows * k), 0.0f);
      for (std::int64_t i = first_row; i < last_row; ++i) {
        const std::int64_t row = rows.positions[i] - row_tile;
        for (std::int64_t p = 0; p < k; ++p) {
          float value = a.transposed ? a.data[p * lda + i] : a.data[i * lda + p];
          padded_a[static_cast<std::size_t>(a.transposed ? p * tile_rows + row : row * k + p)] = value;
        }
      }
      tile_a = padded_a.data();
      tile_lda = a.transposed ? tile_rows : k;
    }
    for (std::int64_t next_column = 0; next_column < n;) {
      const std::int64_t column_tile = tile_start(columns.positions[next_column]);
      const std::int64_t tile_columns = std::min(dot_tile_extent, columns.total - column_tile);
      const auto [first_column, last_column] = in_tile(columns, next_column, column_tile, tile_columns);
      next_column = last_column;
      const bool whole_columns = last_column - first_column == tile_columns;
      const float* tile_b = b.transposed ? b.data + first_column * ldb : b.data + first_column;
      std::int64_t tile_ldb = ldb;
      if (!whole_columns) {
        padded_b.assign(static_cast<std::size_t>(k * tile_columns), 0.0f);
        for (std::int64_t j = first_column; j < last_column; ++j) {
          const std::int64_t column = columns.positions[j] - column_tile;
          for (std::int64_t p = 0; p < k; ++p) {
            float value = b.transposed ? b.data[j * ldb + p] : b.data[p * ldb + j];
            padded_b[static_cast<std::size_t>(b.transposed ? column * k + p : p * tile_columns + column)] = value;
          }
        }
        tile_b = padded_b.data();
        tile_ldb = b.transposed ? k : tile_columns;
      }
      float* tile_c = c + first_row * n + first_column;
      std::int64_t ldc = n;
      if (!whole_rows || !whole_columns) {
        padded_c.assign(static_cast<std::size_t>(tile_rows * tile_columns), 0.0f);
        tile_c = padded_c.data();
        ldc = tile_columns;
      }
      cblas_sgemm(CblasRowMajor, a.transposed ? CblasTrans : CblasNoTrans, b.transposed ? CblasTrans : CblasNoTrans,
                  static_cast<int>(tile_rows), static_cast<int>(tile_columns), static_cast<int>(k), 1.0f, tile_a,
                  static_cast<int>(tile_lda), tile_b, static_cast<int>(tile_ldb), 0.0f, tile_c, static_cast<int>(ldc));
      if (tile_c == padded_c.data()) {
        for (std::int64_t i = first_row; i < last_row; ++i) {
          const float* from = padded_c.data() + (rows.positions[i] - row_tile) * tile_columns;
          for (std::int64_t j = first_column; j < last_column; ++j)
            c[i * n + j] = from[columns.positions[j] - column_tile];
        }
      }
    }
  }
}

// Where each element of a block lies in the whole, flattened row-major: the
// block has `extents` and starts at `origins` of `totals` per axis.
Expected<std::vector<std::int64_t>> block_positions(std::span<const std::int64_t> extents,
                                                    std::span<const std::int64_t> origins,
                                                    std::span<const std::int64_t> totals) {
  if (origins.size() != extents.size() || totals.size() != extents.size())
    return invalid("dot_general: the placement names one origin and total per free axis");
  std::vector<std::int64_t> positions{0};
  for (std::size_t axis = 0; axis < extents.size(); ++axis) {
    if (origins[axis] < 0 || origins[axis] + extents[axis] > totals[axis])
      return invalid("dot_general: the shard lies outside the placement's whole product");
    std::vector<std::int64_t> next;
    next.reserve(positions.size() * static_cast<std::size_t>(extents[axis]));
    for (std::int64_t outer : positions)
      for (std::int64_t i = 0; i < extents[axis]; ++i) next.push_back(outer * totals[axis] + origins[axis] + i);
    positions = std::move(next);
  }
  return positions;
}

// The global positions of the shard's `count` rows (or columns) of free
// `extents`: per axis, flattened from `origin` of `total`, or the whole.
Expected<std::vector<std::int64_t>> grid_positions(std::span<const std::int64_t> extents, std::int64_t count,
                                                   std::span<const std::int64_t> origins,
                                                   std::span<const std::int64_t> totals, std::int64_t origin,
                                                   std::int64_t total) {
  if (!totals.empty()) return block_positions(extents, origins, totals);
  if (total > 0 && (origin < 0 || origin + count > total))
    return invalid("dot_general: the shard lies outside the placement's whole product");
  std::vector<std::int64_t> positions(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) positions[static_cast<std::size_t>(i)] = (total > 0 ? origin : 0) + i;
  return positions;
}

void single_threaded_blas() {
  // The thread pool runs one kernel per device; BLAS threads on top of it
  // would oversubscribe the host.
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
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
  std::vector<int> lhs_order;
  std::vector<int> rhs_order;
  Shape lhs_free_shape;
  Shape rhs_free_shape;
  Shape result_shape;
};

// Checks the operands against `dimensions` and arranges them.
Expected<DotArrangement> arrange_dot(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions) {
  if (Status status = check_array(lhs, "dot_general"); !status) return status.error();
  if (Status status = check_array(rhs, "dot_general"); !status) return status.error();
  if (lhs.dtype() != rhs.dtype()) {
    return invalid(fmt::format("dot_general operands of different dtypes: {} and {}",
                               typecheck::long_name(lhs.dtype()), typecheck::long_name(rhs.dtype())));
  }
  std::vector<char> lhs_used(lhs.shape.size(), 0);
  std::vector<char> rhs_used(rhs.shape.size(), 0);
  for (Status status : {check_axes(dimensions.lhs_batch, lhs.shape.size(), "dot_general lhs batch", lhs_used),
                        check_axes(dimensions.lhs_contracting, lhs.shape.size(), "dot_general lhs contracting", lhs_used),
                        check_axes(dimensions.rhs_batch, rhs.shape.size(), "dot_general rhs batch", rhs_used),
                        check_axes(dimensions.rhs_contracting, rhs.shape.size(), "dot_general rhs contracting", rhs_used)}) {
    if (!status) return status.error();
  }
  if (dimensions.lhs_batch.size() != dimensions.rhs_batch.size() ||
      dimensions.lhs_contracting.size() != dimensions.rhs_contracting.size()) {
    return invalid("dot_general: lhs and rhs name different numbers of batch or contracting axes");
  }
  DotArrangement dot;
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
  dot.lhs_order = dimensions.lhs_batch;
  dot.rhs_order = dimensions.rhs_batch;
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
  return dot;
}

// An sgemm operand: an f32 operand whose axes already lie as [batch, rows,
// columns] or [batch, columns, rows] goes to BLAS in place (the second
// transposed); others are gathered into [batch, rows, columns] first.
struct Matrices {
  std::vector<float> gathered;
  const float* data = nullptr;
  bool transposed = false;
};

Matrices matrices(const LocalArray& operand, const std::vector<int>& order, std::size_t batch_axes,
                  std::size_t row_axes) {
  Matrices view;
  if (operand.dtype() == DType::float32) {
    std::vector<int> swapped(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(batch_axes));
    swapped.insert(swapped.end(), order.begin() + static_cast<std::ptrdiff_t>(batch_axes + row_axes), order.end());
    swapped.insert(swapped.end(), order.begin() + static_cast<std::ptrdiff_t>(batch_axes),
                   order.begin() + static_cast<std::ptrdiff_t>(batch_axes + row_axes));
    auto in_place = [](const std::vector<int>& axes) {
      for (std::size_t i = 0; i < axes.size(); ++i) {
        if (axes[i] != static_cast<int>(i)) return false;
      }
      return true;
    };
    view.data = operand.buffer->elements<DType::float32>().data();
    if (in_place(order)) return view;
    view.transposed = in_place(swapped);
    if (view.transposed) return view;
  }
  view.gathered = gather_converted<float>(operand, order);
  view.data = view.gathered.data();
  return view;
}

// Float operands: f32 products per tile of the global grid (tiled_sgemm),
// rounded once into the result's dtype.
Status float_dot(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions,
                 const DotArrangement& dot, LocalArray& result) {
  single_threaded_blas();
  const std::int64_t batch = dot.batch, m = dot.m, n = dot.n, k = dot.k;
  std::size_t batch_axes = dimensions.lhs_batch.size();
  Matrices a = matrices(lhs, dot.lhs_order, batch_axes,
                        dot.lhs_order.size() - batch_axes - dimensions.lhs_contracting.size());
  Matrices b = matrices(rhs, dot.rhs_order, batch_axes, dimensions.rhs_contracting.size());
  const DType result_dtype = result.dtype();
  bool f32 = result_dtype == DType::float32;
  std::vector<float> rounded_later(f32 ? 0 : static_cast<std::size_t>(batch * m * n), 0.0f);
  float* c = f32 ? result.buffer->elements<DType::float32>().data() : rounded_later.data();
  const DotPlacement& placement = dimensions.placement;
  Expected<std::vector<std::int64_t>> row_positions =
      grid_positions(dot.lhs_free_shape, m, placement.lhs_free_origins, placement.lhs_free_totals,
                     placement.row_origin, placement.rows_total);
  if (!row_positions) return row_positions.error();
  Expected<std::vector<std::int64_t>> column_positions =
      grid_positions(dot.rhs_free_shape, n, placement.rhs_free_origins, placement.rhs_free_totals,
                     placement.column_origin, placement.columns_total);
  if (!column_positions) return column_positions.error();
  if (m > 0 && n > 0 && k > 0) {
    auto total = [](std::span<const std::int64_t> totals, std::int64_t flattened, std::int64_t extent) {
      return !totals.empty() ? element_count(totals) : flattened > 0 ? flattened : extent;
    };
    GlobalGrid rows{row_positions->data(), total(placement.lhs_free_totals, placement.rows_total, m), m};
    GlobalGrid columns{column_positions->data(), total(placement.rhs_free_totals, placement.columns_total, n), n};
    for (std::int64_t index = 0; index < batch; ++index) {
      tiled_sgemm({a.data + index * m * k, a.transposed}, {b.data + index * k * n, b.transposed}, k, rows, columns,
                  c + index * m * n);
    }
  } else {
    std::fill(c, c + batch * m * n, 0.0f);
  }
  dispatch(result_dtype, [&]<DType D>() {
    if constexpr (D != DType::float32) {
      auto out = result.buffer->elements<D>();
      for (std::size_t i = 0; i < rounded_later.size(); ++i) out[i] = store_converted<D>(rounded_later[i]);
    }
  });
  return {};
}

// Integer and bool operands: exact sums mod 2^64 (bool: or of ands), then
// wrapped into an integer result or rounded once into a float one.
void integer_dot(const LocalArray& lhs, const LocalArray& rhs, const DotArrangement& dot, LocalArray& result) {
  const std::int64_t m = dot.m, n = dot.n, k = dot.k;
  std::vector<std::int64_t> a = gather_converted<std::int64_t>(lhs, dot.lhs_order);
  std::vector<std::int64_t> b = gather_converted<std::int64_t>(rhs, dot.rhs_order);
  std::vector<std::uint64_t> c(static_cast<std::size_t>(dot.batch * m * n), 0);
  bool logical = lhs.dtype() == DType::bool_;
  for (std::int64_t index = 0; index < dot.batch; ++index) {
    const std::int64_t* a_block = a.data() + index * m * k;
    const std::int64_t* b_block = b.data() + index * k * n;
    std::uint64_t* c_block = c.data() + index * m * n;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t p = 0; p < k; ++p) {
        std::uint64_t left = static_cast<std::uint64_t>(a_block[i * k + p]);
        if (left == 0) continue;
        for (std::int64_t j = 0; j < n; ++j) {
          std::uint64_t product = left * static_cast<std::uint64_t>(b_block[p * n + j]);
          c_block[i * n + j] = logical ? (c_block[i * n + j] | (product != 0)) : c_block[i * n + j] + product;
        }
      }
    }
  }
  dispatch(result.dtype(), [&]<DType D>() {
    auto out = result.buffer->elements<D>();
    if constexpr (is_float(D)) {
      // Exact integer sums, rounded once.
      for (std::size_t i = 0; i < c.size(); ++i) out[i] = store_converted<D>(static_cast<double>(static_cast<std::int64_t>(c[i])));
    } else {
      for (std::size_t i = 0; i < c.size(); ++i) out[i] = wrap<storage_t<D>>(c[i]);
    }
  });
}

}  // namespace

Expected<LocalArray> dot_general(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions) {
  Expected<DotArrangement> dot = arrange_dot(lhs, rhs, dimensions);
  if (!dot) return dot.error();
  const DType result_dtype = dimensions.result_dtype.value_or(lhs.dtype());
  Expected<LocalArray> result = allocate(lhs.buffer->ledger(), result_dtype, std::move(dot->result_shape));
  if (!result) return result;
  if (is_float(lhs.dtype())) {
    if (Status status = float_dot(lhs, rhs, dimensions, *dot, *result); !status) return status.error();
  } else {
    integer_dot(lhs, rhs, *dot, *result);
  }
  return result;
}

}  // namespace devices
