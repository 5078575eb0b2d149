// Kernels that move elements without arithmetic (kernels.hpp): making arrays,
// transpose, broadcast, reshape, slices, reversal, concatenation, iota and pad.
#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

Expected<LocalArray> make_local_array(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape) {
  for (std::int64_t extent : shape) {
    if (extent < 0) return invalid(fmt::format("negative extent in shape {}", shape_text(shape)));
  }
  return allocate(ledger, dtype, std::move(shape), Fill::zeros);
}

Expected<LocalArray> transpose(const LocalArray& operand, std::span<const int> permutation) {
  if (Status status = check_array(operand, "transpose"); !status) return status.error();
  std::vector<char> used(operand.shape.size(), 0);
  if (Status status = check_axes(permutation, operand.shape.size(), "transpose", used); !status) return status.error();
  if (permutation.size() != operand.shape.size()) return invalid("transpose: the permutation must name every axis");
  std::vector<std::int64_t> strides = row_major_strides(operand.shape);
  Shape shape;
  std::vector<std::int64_t> permuted_strides;
  for (int axis : permutation) {
    shape.push_back(operand.shape[static_cast<std::size_t>(axis)]);
    permuted_strides.push_back(strides[static_cast<std::size_t>(axis)]);
  }
  return strided_copy(operand, std::move(shape), permuted_strides, 0);
}

Expected<LocalArray> broadcast_in_dim(const LocalArray& operand, Shape shape,
                                      std::span<const int> broadcast_dimensions) {
  if (Status status = check_array(operand, "broadcast_in_dim"); !status) return status.error();
  if (broadcast_dimensions.size() != operand.shape.size()) {
    return invalid("broadcast_in_dim: one result axis per operand axis");
  }
  std::vector<std::int64_t> own = row_major_strides(operand.shape);
  std::vector<std::int64_t> strides(shape.size(), 0);
  int previous = -1;
  for (std::size_t axis = 0; axis < operand.shape.size(); ++axis) {
    int target = broadcast_dimensions[axis];
    if (target <= previous || static_cast<std::size_t>(target) >= shape.size()) {
      return invalid("broadcast_in_dim: result axes must increase and lie in the result");
    }
    previous = target;
    std::int64_t extent = operand.shape[axis];
    if (extent != 1 && extent != shape[static_cast<std::size_t>(target)]) {
      return invalid(fmt::format("broadcast_in_dim: operand extent {} cannot fill result extent {}", extent,
                                 shape[static_cast<std::size_t>(target)]));
    }
    strides[static_cast<std::size_t>(target)] = extent == 1 ? 0 : own[axis];
  }
  for (std::int64_t extent : shape) {
    if (extent < 0) return invalid("broadcast_in_dim: negative extent");
  }
  return strided_copy(operand, std::move(shape), strides, 0);
}

Expected<LocalArray> reshape(const LocalArray& operand, Shape shape) {
  if (Status status = check_array(operand, "reshape"); !status) return status.error();
  for (std::int64_t extent : shape) {
    if (extent < 0) return invalid("reshape: negative extent");
  }
  if (element_count(shape) != element_count(operand.shape)) {
    return invalid(fmt::format("cannot reshape {} into {}", shape_text(operand.shape), shape_text(shape)));
  }
  return LocalArray{operand.buffer, std::move(shape)};
}

Expected<LocalArray> slice(const LocalArray& operand, std::span<const std::int64_t> start,
                           std::span<const std::int64_t> limit, std::span<const std::int64_t> strides) {
  if (Status status = check_array(operand, "slice"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (start.size() != rank || limit.size() != rank || (!strides.empty() && strides.size() != rank)) {
    return invalid("slice: one start, limit and stride per axis");
  }
  // All of it: the operand's buffer, shared (buffers are not written once made).
  bool whole = true;
  for (std::size_t axis = 0; axis < rank && whole; ++axis)
    whole = start[axis] == 0 && limit[axis] == operand.shape[axis] && (strides.empty() || strides[axis] == 1);
  if (whole) return operand;
  const InlineStrides own = inline_row_major_strides(operand.shape);
  Shape shape(rank);
  InlineStrides steps(rank);
  std::int64_t base = 0;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    std::int64_t step = strides.empty() ? 1 : strides[axis];
    if (step < 1 || start[axis] < 0 || limit[axis] < start[axis] || limit[axis] > operand.shape[axis]) {
      return invalid(fmt::format("slice: [{}:{}:{}] does not fit axis {} of extent {}", start[axis], limit[axis], step,
                                 axis, operand.shape[axis]));
    }
    shape[axis] = (limit[axis] - start[axis] + step - 1) / step;
    steps[axis] = own[axis] * step;
    base += start[axis] * own[axis];
  }
  return strided_copy(operand, std::move(shape), view(steps), base);
}

Expected<LocalArray> rev(const LocalArray& operand, std::span<const int> dimensions) {
  if (Status status = check_array(operand, "rev"); !status) return status.error();
  std::vector<std::int64_t> steps = row_major_strides(operand.shape);
  std::int64_t base = 0;
  std::vector<char> reversed(operand.shape.size(), 0);
  for (int axis : dimensions) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= operand.shape.size() || reversed[static_cast<std::size_t>(axis)])
      return invalid(fmt::format("rev: axis {} is not a distinct axis of rank {}", axis, operand.shape.size()));
    auto a = static_cast<std::size_t>(axis);
    reversed[a] = 1;
    if (operand.shape[a] > 0) base += (operand.shape[a] - 1) * steps[a];
    steps[a] = -steps[a];
  }
  return strided_copy(operand, operand.shape, steps, base);
}

Expected<LocalArray> dynamic_slice(const LocalArray& operand, std::span<const std::int64_t> start,
                                   std::span<const std::int64_t> sizes) {
  if (Status status = check_array(operand, "dynamic_slice"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (start.size() != rank || sizes.size() != rank) return invalid("dynamic_slice: one start and size per axis");
  std::vector<std::int64_t> clamped_start;
  std::vector<std::int64_t> limit;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    if (sizes[axis] < 0 || sizes[axis] > operand.shape[axis]) {
      return invalid(fmt::format("dynamic_slice: size {} does not fit axis {} of extent {}", sizes[axis], axis,
                                 operand.shape[axis]));
    }
    clamped_start.push_back(std::clamp<std::int64_t>(start[axis], 0, operand.shape[axis] - sizes[axis]));
    limit.push_back(clamped_start.back() + sizes[axis]);
  }
  return slice(operand, clamped_start, limit);
}

Expected<LocalArray> dynamic_update_slice(const LocalArray& operand, const LocalArray& update,
                                          std::span<const std::int64_t> start) {
  if (Status status = check_array(operand, "dynamic_update_slice"); !status) return status.error();
  if (Status status = check_array(update, "dynamic_update_slice"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (update.dtype() != operand.dtype() || update.shape.size() != rank || start.size() != rank) {
    return invalid("dynamic_update_slice: the update needs the operand's dtype and rank, and one start per axis");
  }
  const InlineStrides strides = inline_row_major_strides(operand.shape);
  std::int64_t base = 0;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    if (update.shape[axis] > operand.shape[axis]) return invalid("dynamic_update_slice: the update is larger");
    base += std::clamp<std::int64_t>(start[axis], 0, operand.shape[axis] - update.shape[axis]) * strides[axis];
  }
  Expected<std::shared_ptr<Buffer>> copy = operand.buffer->clone();
  if (!copy) return copy.error();
  strided_write(**copy, view(strides), base, update);
  return LocalArray{std::move(*copy), operand.shape};
}

Expected<LocalArray> concatenate(std::span<const LocalArray> operands, int dimension) {
  if (operands.empty()) return invalid("concatenate needs at least one operand");
  for (const LocalArray& operand : operands) {
    if (Status status = check_array(operand, "concatenate"); !status) return status.error();
  }
  const LocalArray& first = operands.front();
  std::size_t rank = first.shape.size();
  if (dimension < 0 || static_cast<std::size_t>(dimension) >= rank) return invalid("concatenate: axis out of range");
  Shape shape = first.shape;
  shape[static_cast<std::size_t>(dimension)] = 0;
  for (const LocalArray& operand : operands) {
    bool matches = operand.dtype() == first.dtype() && operand.shape.size() == rank;
    for (std::size_t axis = 0; matches && axis < rank; ++axis) {
      matches = axis == static_cast<std::size_t>(dimension) || operand.shape[axis] == first.shape[axis];
    }
    if (!matches) {
      return invalid(fmt::format("concatenate: operands {} and {} differ off axis {}", shape_text(first.shape),
                                 shape_text(operand.shape), dimension));
    }
    shape[static_cast<std::size_t>(dimension)] += operand.shape[static_cast<std::size_t>(dimension)];
  }
  Expected<LocalArray> result = allocate(first.buffer->ledger(), first.dtype(), shape);
  if (!result) return result;
  const InlineStrides strides = inline_row_major_strides(shape);
  std::int64_t offset = 0;
  for (const LocalArray& operand : operands) {
    strided_write(*result->buffer, view(strides), offset * strides[static_cast<std::size_t>(dimension)], operand);
    offset += operand.shape[static_cast<std::size_t>(dimension)];
  }
  return result;
}

Expected<LocalArray> assemble(std::span<const LocalArray> blocks, std::span<const std::vector<std::int64_t>> origins,
                              Shape shape) {
  if (blocks.empty() || origins.size() != blocks.size()) return invalid("assemble: one origin per block, at least one");
  const LocalArray& first = blocks.front();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const LocalArray& block = blocks[i];
    if (Status status = check_array(block, "assemble"); !status) return status.error();
    bool fits = block.dtype() == first.dtype() && block.shape == first.shape && block.shape.size() == shape.size() &&
                origins[i].size() == shape.size();
    for (std::size_t axis = 0; fits && axis < shape.size(); ++axis)
      fits = origins[i][axis] >= 0 && origins[i][axis] + block.shape[axis] <= shape[axis];
    if (!fits) return invalid(fmt::format("assemble: a block of {} does not fit {}", shape_text(block.shape), shape_text(shape)));
  }
  Expected<LocalArray> result = allocate(first.buffer->ledger(), first.dtype(), std::move(shape));
  if (!result) return result;
  std::vector<std::int64_t> strides = row_major_strides(result->shape);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    std::int64_t base = 0;
    for (std::size_t axis = 0; axis < strides.size(); ++axis) base += origins[i][axis] * strides[axis];
    strided_write(*result->buffer, strides, base, blocks[i]);
  }
  return result;
}

Expected<LocalArray> iota(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape, int dimension) {
  if (dimension < 0 || static_cast<std::size_t>(dimension) >= shape.size()) return invalid("iota: axis out of range");
  Expected<LocalArray> result = make_local_array(ledger, dtype, std::move(shape));
  if (!result) return result;
  std::vector<std::int64_t> strides = row_major_strides(result->shape);
  std::int64_t stride = strides[static_cast<std::size_t>(dimension)];
  std::int64_t extent = result->shape[static_cast<std::size_t>(dimension)];
  dispatch(dtype, [&]<DType D>() {
    auto out = result->buffer->elements<D>();
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = store_converted<D>(static_cast<double>((static_cast<std::int64_t>(i) / stride) % extent));
    }
  });
  return result;
}

Expected<LocalArray> pad(const LocalArray& operand, const LocalArray& padding_value, std::span<const PadConfig> config) {
  if (Status status = check_array(operand, "pad"); !status) return status.error();
  if (Status status = check_array(padding_value, "pad"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (padding_value.dtype() != operand.dtype() || !padding_value.shape.empty() || config.size() != rank) {
    return invalid("pad: a scalar padding value of the operand's dtype and one config per axis");
  }
  Shape shape;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    const PadConfig& axis_config = config[axis];
    std::int64_t extent = operand.shape[axis];
    if (axis_config.interior < 0) return invalid("pad: negative interior padding");
    std::int64_t spread = extent == 0 ? 0 : (extent - 1) * (axis_config.interior + 1) + 1;
    std::int64_t padded = axis_config.low + spread + axis_config.high;
    if (padded < 0) return invalid(fmt::format("pad: axis {} would have negative extent {}", axis, padded));
    shape.push_back(padded);
  }
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), shape);
  if (!result) return result;
  std::vector<std::int64_t> input_strides = row_major_strides(operand.shape);
  std::vector<std::int64_t> output_strides = row_major_strides(shape);
  dispatch_word(typecheck::byte_size(operand.dtype()), [&]<class Word>() {
    Word* out = words<Word>(*result->buffer);
    const Word* in = words<Word>(*operand.buffer);
    std::fill(out, out + result->buffer->element_count(), words<Word>(*padding_value.buffer)[0]);
    // Each input element lands at low + index * (interior + 1) on every
    // axis, unless negative padding cropped it away.
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t count = element_count(operand.shape);
    for (std::int64_t linear = 0; linear < count; ++linear) {
      std::int64_t target = 0;
      bool inside = true;
      for (std::size_t axis = 0; axis < rank; ++axis) {
        std::int64_t position = config[axis].low + index[axis] * (config[axis].interior + 1);
        inside = inside && position >= 0 && position < shape[axis];
        target += position * output_strides[axis];
      }
      if (inside) out[target] = in[linear];
      for (std::size_t axis = rank; axis-- > 0;) {
        if (++index[axis] < operand.shape[axis]) break;
        index[axis] = 0;
      }
    }
  });
  return result;
}


}  // namespace devices
