// The box picture of jax.debug.visualize_array_sharding (runtime.md "What a
// user sees"): JAX's visualize_sharding (jax/_src/debugging.py) laid out as
// rich lays out its table (box.SQUARE, show_lines, padding 0, no colour,
// console width 80), character for character.
//
// Each tile is one block of the array; its size is proportional to the
// block's extent (height: fraction of the rows x 10 lines; width: fraction of
// the columns x 10 x aspect ratio x 2.5 characters, at least `min_width`),
// and its label is the platform and the sorted ids of every device holding
// that block ("TPU 0,2,4,6"). A 1-D array is one row of one-line tiles.
//
// Beyond JAX, an array of rank > 2 is drawn as one 2-D picture of its last two
// dimensions per block of its leading dimensions, each picture after a title
// line in NumPy's index notation naming the block:
//
//   [0:4, :, :]
//   ┌───────...
//   ...
//   [4:8, :, :]
//   ┌───────...
//
// A leading dimension that is not split shows as `:`. Pictures follow in
// row-major order of the leading blocks.
//
// The text ends with the newline after the last box line, as rich prints it
// to a file or pipe; the caller prints it as is.
//
// PictureFormat::html draws the same tables for a notebook, as JAX's picture
// shows there: an HTML <table> per picture whose cells are as wide (in ch)
// and as high (in lines) as the text's, each tile coloured as
// visualize_sharding colours it (matplotlib's tab20b, visited in the order
// of JAX's make_color_iter) with black or white text; a rank > 2 array's
// titles are <pre> lines before their tables.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "devices/chip.hpp"
#include "devices/error.hpp"

namespace devices {

// The indices [begin, end) of one dimension that a shard holds.
struct IndexRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

// What one device holds: one IndexRange per dimension of the global shape.
struct ShardPlacement {
  int device_id = 0;
  std::vector<IndexRange> ranges;
};

enum class PictureFormat { text, html };

// visualize_sharding's keyword arguments that change the layout.
struct PictureOptions {
  double scale = 1.0;
  int min_width = 9;
  int max_width = 80;  // also the console width the table must fit
  PictureFormat format = PictureFormat::text;
};

// The picture of an array of `global_shape` whose shards are `shards` on
// devices of `platform`. INVALID_ARGUMENT for a scalar, an empty dimension,
// ranges that do not match the shape, or blocks that do not form a grid.
Expected<std::string> sharding_picture(std::span<const std::int64_t> global_shape,
                                       std::span<const ShardPlacement> shards, Platform platform,
                                       const PictureOptions& options = {});

}  // namespace devices
