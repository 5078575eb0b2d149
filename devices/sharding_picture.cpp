#include "devices/sharding_picture.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace devices {
namespace {

// rich.box.SQUARE
constexpr std::string_view horizontal = "─";
constexpr std::string_view vertical = "│";

Error invalid(std::string message) { return Error{ErrorKind::invalid_argument, std::move(message)}; }

// One block of a 2-D (or 1-D, drawn as one row) picture: who holds it and
// which fraction of each dimension it spans.
struct Tile {
  std::set<int> device_ids;
  double height_fraction = 1.0;
  double width_fraction = 1.0;
};

// One table cell as visualize_sharding builds it: a label inside padding.
struct Cell {
  std::string label;
  int top = 0;
  int right = 0;
  int bottom = 0;
  int left = 0;
};

// The position of `begin` among the distinct block starts of one dimension.
int chunk_index(const std::set<std::int64_t>& starts, std::int64_t begin) {
  return static_cast<int>(std::distance(starts.begin(), starts.find(begin)));
}

// Python's divmod for ints (floor division: divmod(-1, 2) == (-1, 1)).
std::pair<int, int> python_divmod(int numerator, int denominator) {
  int quotient = numerator / denominator;
  int remainder = numerator % denominator;
  if (remainder != 0 && ((remainder < 0) != (denominator < 0))) {
    --quotient;
    remainder += denominator;
  }
  return {quotient, remainder};
}

// rich's ratio_reduce: take `total` away from `values` in proportion to
// `ratios`, at most `maximums` from each (Python round: half to even).
std::vector<int> ratio_reduce(int total, std::vector<int> ratios, const std::vector<int>& maximums,
                              const std::vector<int>& values) {
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    if (maximums[i] == 0) ratios[i] = 0;
  }
  int total_ratio = 0;
  for (int ratio : ratios) total_ratio += ratio;
  if (total_ratio == 0) return values;
  int total_remaining = total;
  std::vector<int> result;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (ratios[i] != 0 && total_ratio > 0) {
      double share = static_cast<double>(ratios[i]) * total_remaining / total_ratio;
      int distributed = std::min(maximums[i], static_cast<int>(std::nearbyint(share)));
      result.push_back(values[i] - distributed);
      total_remaining -= distributed;
      total_ratio -= ratios[i];
    } else {
      result.push_back(values[i]);
    }
  }
  return result;
}

// rich's Table._collapse_widths followed by its last resort (reduce every
// column evenly): fit the columns into `max_width` characters.
std::vector<int> fit_widths(std::vector<int> widths, int max_width) {
  auto sum = [](const std::vector<int>& values) {
    int total = 0;
    for (int value : values) total += value;
    return total;
  };
  int total_width = sum(widths);
  int excess_width = total_width - max_width;
  while (total_width > 0 && excess_width > 0) {
    int max_column = *std::max_element(widths.begin(), widths.end());
    int second_max_column = 0;
    for (int width : widths) {
      if (width != max_column) second_max_column = std::max(second_max_column, width);
    }
    int column_difference = max_column - second_max_column;
    if (column_difference == 0) break;
    std::vector<int> ratios;
    for (int width : widths) ratios.push_back(width == max_column ? 1 : 0);
    std::vector<int> maximums(widths.size(), std::min(excess_width, column_difference));
    widths = ratio_reduce(excess_width, ratios, maximums, widths);
    total_width = sum(widths);
    excess_width = total_width - max_width;
  }
  if (total_width > max_width) {
    widths = ratio_reduce(total_width - max_width, std::vector<int>(widths.size(), 1), widths, widths);
  }
  for (int& width : widths) width = std::max(width, 0);
  return widths;
}

// The characters a terminal shows for UTF-8 `text` (every character we draw
// is one cell wide).
int display_width(std::string_view text) {
  int width = 0;
  for (char byte : text) width += (static_cast<unsigned char>(byte) & 0xC0u) != 0x80u ? 1 : 0;
  return width;
}

// rich's word wrap of a label into lines of at most `width` (>= 1) cells:
// greedy over words; a word longer than a line gets a line of its own, cut
// with an ellipsis (a table cell's overflow="ellipsis").
std::vector<std::string> wrap_label(const std::string& label, int width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t position = 0;
  while (position < label.size()) {
    std::size_t space = label.find(' ', position);
    std::string word = label.substr(position, space == std::string::npos ? std::string::npos : space - position);
    position = space == std::string::npos ? label.size() : space + 1;
    if (word.empty()) continue;
    if (line.empty()) {
      line = word;
    } else if (static_cast<int>(line.size() + 1 + word.size()) <= width) {
      line += ' ';
      line += word;
    } else {
      lines.push_back(std::exchange(line, word));
    }
  }
  lines.push_back(line);
  for (std::string& wrapped : lines) {
    if (static_cast<int>(wrapped.size()) > width) wrapped = wrapped.substr(0, static_cast<std::size_t>(width - 1)) + "…";
  }
  return lines;
}

// The lines of one cell rendered `width` characters wide: Padding around
// Align(label, "center") whose wrapped lines are left-aligned in a block.
// Where the padding leaves no room, rich draws no label at all.
std::vector<std::string> render_cell(const Cell& cell, int width) {
  std::string blank(static_cast<std::size_t>(width), ' ');
  std::vector<std::string> lines(static_cast<std::size_t>(cell.top), blank);
  int inner_width = width - cell.left - cell.right;
  if (inner_width >= 1) {
    std::vector<std::string> text = wrap_label(cell.label, inner_width);
    int block_width = 0;
    for (const std::string& line : text) block_width = std::max(block_width, display_width(line));
    int center_left = (inner_width - block_width) / 2;
    for (const std::string& line : text) {
      int used = cell.left + center_left + display_width(line);
      lines.push_back(std::string(static_cast<std::size_t>(cell.left + center_left), ' ') + line +
                      std::string(static_cast<std::size_t>(width - used), ' '));
    }
  }
  for (int i = 0; i < cell.bottom; ++i) lines.push_back(blank);
  return lines;
}

std::string rule_line(std::string_view left, std::string_view middle, std::string_view right,
                      const std::vector<int>& widths) {
  std::string line(left);
  for (std::size_t column = 0; column < widths.size(); ++column) {
    if (column > 0) line += middle;
    for (int i = 0; i < widths[column]; ++i) line += horizontal;
  }
  line += right;
  line += '\n';
  return line;
}

// The widths rich gives the columns of `cells` (rows x columns) in a
// console `console_width` characters wide.
std::vector<int> column_widths(const std::vector<std::vector<Cell>>& cells, int console_width) {
  std::size_t column_count = cells.front().size();
  // A column is as wide as its widest cell (label plus left/right padding),
  // each measured as at most the room the console leaves.
  int borders = static_cast<int>(column_count) + 1;
  int room = std::max(console_width - borders, 1);
  std::vector<int> widths(column_count, 0);
  for (const std::vector<Cell>& row : cells) {
    for (std::size_t column = 0; column < column_count; ++column) {
      const Cell& cell = row[column];
      int measured = std::min(cell.left + cell.right + static_cast<int>(cell.label.size()), room);
      widths[column] = std::max(widths[column], measured);
    }
  }
  return fit_widths(widths, room);
}

// The table of `cells` (rows x columns) as rich draws it.
std::string render_table(const std::vector<std::vector<Cell>>& cells, int console_width) {
  std::size_t column_count = cells.front().size();
  std::vector<int> widths = column_widths(cells, console_width);
  std::string text = rule_line("┌", "┬", "┐", widths);
  for (std::size_t row_index = 0; row_index < cells.size(); ++row_index) {
    if (row_index > 0) text += rule_line("├", "┼", "┤", widths);
    std::vector<std::vector<std::string>> rendered;
    std::size_t height = 0;
    for (std::size_t column = 0; column < column_count; ++column) {
      rendered.push_back(render_cell(cells[row_index][column], widths[column]));
      height = std::max(height, rendered.back().size());
    }
    // Cells align to the top; shorter ones are filled below.
    for (std::size_t line = 0; line < height; ++line) {
      text += vertical;
      for (std::size_t column = 0; column < column_count; ++column) {
        if (column > 0) text += vertical;
        const std::vector<std::string>& lines = rendered[column];
        text += line < lines.size() ? lines[line] : std::string(static_cast<std::size_t>(widths[column]), ' ');
      }
      text += vertical;
      text += '\n';
    }
  }
  text += rule_line("└", "┴", "┘", widths);
  return text;
}

// matplotlib's tab20b, the colour map visualize_sharding draws tiles with.
constexpr std::array<std::uint32_t, 20> tab20b = {
    0x393b79, 0x5254a3, 0x6b6ecf, 0x9c9ede, 0x637939, 0x8ca252, 0xb5cf6b, 0xcedb9c, 0x8c6d31, 0xbd9e39,
    0xe7ba52, 0xe7cb94, 0x843c39, 0xad494a, 0xd6616b, 0xe7969c, 0x7b4173, 0xa55194, 0xce6dbd, 0xde9ed6};

// The colours of `count` tiles in row-major order, as JAX's make_color_iter
// takes them from np.linspace(0, 1, count) through the colour map: each
// next one about half the range further on.
std::vector<std::uint32_t> tile_colors(int count) {
  std::vector<std::uint32_t> colors;
  int index = 0;
  for (int tile = 0; tile < count; ++tile) {
    double value = count == 1 ? 0.0 : static_cast<double>(index) / (count - 1);
    int slot = std::min(static_cast<int>(value * static_cast<int>(tab20b.size())), static_cast<int>(tab20b.size()) - 1);
    colors.push_back(tab20b[static_cast<std::size_t>(slot)]);
    index = (index + count / 2 + (count % 2 == 0 ? 1 : 0)) % count;
  }
  return colors;
}

// JAX's _get_text_color: black on light tiles, white on dark ones.
std::string_view text_color(std::uint32_t rgb) {
  double luminance = ((rgb >> 16) & 0xff) * 0.299 + ((rgb >> 8) & 0xff) * 0.587 + (rgb & 0xff) * 0.114;
  return luminance > 186 ? "#000000" : "#ffffff";
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

// The table of `cells` as HTML: each cell as wide and as high as the text
// form draws it, coloured per tile.
std::string render_html(const std::vector<std::vector<Cell>>& cells, int console_width) {
  std::vector<int> widths = column_widths(cells, console_width);
  std::vector<std::uint32_t> colors = tile_colors(static_cast<int>(cells.size() * widths.size()));
  constexpr double line_height = 1.25;  // em
  std::string html = fmt::format(
      "<table style=\"border-collapse:collapse;font-family:monospace;line-height:{}em;margin:0\">\n", line_height);
  std::size_t tile = 0;
  for (const std::vector<Cell>& row : cells) {
    std::size_t lines = 1;
    for (std::size_t column = 0; column < row.size(); ++column)
      lines = std::max(lines, render_cell(row[column], widths[column]).size());
    html += "<tr>";
    for (std::size_t column = 0; column < row.size(); ++column) {
      std::uint32_t color = colors[tile++];
      html += fmt::format(
          "<td style=\"border:1px solid #000000;padding:0;width:{}ch;height:{}em;text-align:center;"
          "vertical-align:middle;background-color:#{:06x};color:{}\">{}</td>",
          widths[column], static_cast<double>(lines) * line_height, color, text_color(color),
          html_escape(row[column].label));
    }
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

// One shard seen through the last (at most two) dimensions.
struct PlanarShard {
  int device_id = 0;
  IndexRange rows;     // unused on a 1-D array
  IndexRange columns;  // the only dimension of a 1-D array
};

// visualize_sharding proper, for a 1-D (rows == 0) or 2-D array.
Expected<std::string> planar_picture(std::int64_t rows, std::int64_t columns, const std::vector<PlanarShard>& shards,
                                     std::string_view platform_label, const PictureOptions& options) {
  bool one_dimensional = rows == 0;
  std::set<std::int64_t> row_starts;
  std::set<std::int64_t> column_starts;
  for (const PlanarShard& shard : shards) {
    row_starts.insert(one_dimensional ? 0 : shard.rows.begin);
    column_starts.insert(shard.columns.begin);
  }
  std::map<std::pair<int, int>, Tile> tiles;
  for (const PlanarShard& shard : shards) {
    int row = one_dimensional ? 0 : chunk_index(row_starts, shard.rows.begin);
    int column = chunk_index(column_starts, shard.columns.begin);
    Tile& tile = tiles[{row, column}];
    tile.device_ids.insert(shard.device_id);
    tile.width_fraction = static_cast<double>(shard.columns.end - shard.columns.begin) / columns;
    tile.height_fraction =
        one_dimensional ? -1.0 : static_cast<double>(shard.rows.end - shard.rows.begin) / rows;
  }
  int row_count = static_cast<int>(row_starts.size());
  int column_count = static_cast<int>(column_starts.size());
  if (tiles.size() != static_cast<std::size_t>(row_count) * static_cast<std::size_t>(column_count)) {
    return invalid("visualize_array_sharding: the shards do not form a grid of blocks");
  }

  int base_height = static_cast<int>(10 * options.scale);
  double aspect_ratio = one_dimensional ? 1.0 / static_cast<double>(columns)
                                        : static_cast<double>(columns) / static_cast<double>(rows);
  int base_width = static_cast<int>(base_height * aspect_ratio);
  constexpr double height_to_width_ratio = 2.5;

  std::vector<std::vector<Cell>> cells(static_cast<std::size_t>(row_count));
  for (int row = 0; row < row_count; ++row) {
    for (int column = 0; column < column_count; ++column) {
      const Tile& tile = tiles.at({row, column});
      Cell cell;
      cell.label = std::string(platform_label) + " ";
      bool first = true;
      for (int id : tile.device_ids) {
        if (!first) cell.label += ',';
        cell.label += std::to_string(id);
        first = false;
      }
      int width = static_cast<int>(tile.width_fraction * base_width * height_to_width_ratio);
      int height = one_dimensional ? 1 : static_cast<int>(tile.height_fraction * base_height);
      width = std::min(std::max(width, options.min_width), options.max_width);
      auto [left, horizontal_remainder] = python_divmod(width - static_cast<int>(cell.label.size()) - 2, 2);
      auto [top, vertical_remainder] = python_divmod(height - 2, 2);
      cell.left = std::max(left, 0);
      cell.right = std::max(left + horizontal_remainder, 0);
      cell.top = std::max(top, 0);
      cell.bottom = std::max(top + vertical_remainder, 0);
      cells[static_cast<std::size_t>(row)].push_back(std::move(cell));
    }
  }
  return options.format == PictureFormat::html ? render_html(cells, options.max_width)
                                               : render_table(cells, options.max_width);
}

// "[0:4, :, :]": the block of the leading dimensions a picture shows.
std::string block_title(const std::vector<IndexRange>& leading, std::span<const std::int64_t> shape) {
  std::string title = "[";
  for (std::size_t dimension = 0; dimension < leading.size(); ++dimension) {
    const IndexRange& range = leading[dimension];
    if (range.begin == 0 && range.end == shape[dimension]) {
      title += ":";
    } else {
      title += fmt::format("{}:{}", range.begin, range.end);
    }
    title += ", ";
  }
  return title + ":, :]\n";
}

}  // namespace

Expected<std::string> sharding_picture(std::span<const std::int64_t> global_shape,
                                       std::span<const ShardPlacement> shards, Platform platform,
                                       const PictureOptions& options) {
  std::size_t rank = global_shape.size();
  if (rank == 0) return invalid("visualize_array_sharding needs an array of at least 1 dimension, got a scalar");
  for (std::int64_t extent : global_shape) {
    if (extent <= 0) return invalid("visualize_array_sharding needs an array without empty dimensions");
  }
  if (shards.empty()) return invalid("visualize_array_sharding: the array has no shards");
  if (options.min_width < 1 || options.max_width < options.min_width || options.scale <= 0) {
    return invalid("visualize_array_sharding: need 1 <= min_width <= max_width and scale > 0");
  }
  for (const ShardPlacement& shard : shards) {
    if (shard.ranges.size() != rank) {
      return invalid(fmt::format("visualize_array_sharding: shard of device {} has {} index ranges for a rank-{} array",
                                 shard.device_id, shard.ranges.size(), rank));
    }
    for (std::size_t dimension = 0; dimension < rank; ++dimension) {
      const IndexRange& range = shard.ranges[dimension];
      if (range.begin < 0 || range.end <= range.begin || range.end > global_shape[dimension]) {
        return invalid(fmt::format("visualize_array_sharding: shard of device {} has indices [{}, {}) on dimension {} "
                                   "of extent {}",
                                   shard.device_id, range.begin, range.end, dimension, global_shape[dimension]));
      }
    }
  }
  std::string_view platform_label = platform_display_name(platform);

  auto planar = [&](const ShardPlacement& shard) {
    PlanarShard planar_shard{shard.device_id, {}, shard.ranges.back()};
    if (rank >= 2) planar_shard.rows = shard.ranges[rank - 2];
    return planar_shard;
  };
  std::int64_t columns = global_shape.back();
  std::int64_t rows = rank >= 2 ? global_shape[rank - 2] : 0;
  if (rank <= 2) {
    std::vector<PlanarShard> planar_shards;
    for (const ShardPlacement& shard : shards) planar_shards.push_back(planar(shard));
    return planar_picture(rows, columns, planar_shards, platform_label, options);
  }

  // Group the shards by their block of the leading dimensions, in row-major
  // order of those blocks (ranges order by begin, then end).
  auto leading_key = [&](const ShardPlacement& shard) {
    std::vector<std::pair<std::int64_t, std::int64_t>> key;
    for (std::size_t dimension = 0; dimension + 2 < rank; ++dimension) {
      key.emplace_back(shard.ranges[dimension].begin, shard.ranges[dimension].end);
    }
    return key;
  };
  std::map<std::vector<std::pair<std::int64_t, std::int64_t>>, std::vector<PlanarShard>> blocks;
  for (const ShardPlacement& shard : shards) blocks[leading_key(shard)].push_back(planar(shard));
  std::string text;
  for (const auto& [key, planar_shards] : blocks) {
    std::vector<IndexRange> leading;
    for (const auto& [begin, end] : key) leading.push_back({begin, end});
    Expected<std::string> picture = planar_picture(rows, columns, planar_shards, platform_label, options);
    if (!picture) return picture.error();
    std::string title = block_title(leading, global_shape);
    text += options.format == PictureFormat::html ? "<pre>" + html_escape(title.substr(0, title.size() - 1)) + "</pre>\n"
                                                  : title;
    text += *picture;
  }
  return text;
}

}  // namespace devices
