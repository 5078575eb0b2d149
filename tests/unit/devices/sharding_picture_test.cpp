// visualize_array_sharding pictures, checked against every picture of the
// conformance scripts c01_visualize_positional.shl and c02_visualize_named.shl
// (copied here, since users who clone the project do not have them).
#include <gtest/gtest.h>

#include <string_view>

#include "devices/sharding_picture.hpp"

namespace devices {
namespace {

// The tutorials' physical device order on a TPU v2-8 (create_device_mesh).
const std::vector<int> ring_order = {0, 1, 2, 3, 6, 7, 4, 5};

// Shards of a rows x columns array cut into row_blocks x column_blocks even
// blocks; block (r, c) is held by holders[r * column_blocks + c].
std::vector<ShardPlacement> grid(std::int64_t rows, std::int64_t columns, int row_blocks, int column_blocks,
                                 const std::vector<std::vector<int>>& holders) {
  std::vector<ShardPlacement> shards;
  std::int64_t block_rows = rows / row_blocks;
  std::int64_t block_columns = columns / column_blocks;
  for (int r = 0; r < row_blocks; ++r) {
    for (int c = 0; c < column_blocks; ++c) {
      for (int device : holders[static_cast<std::size_t>(r * column_blocks + c)]) {
        shards.push_back({device,
                          {{r * block_rows, (r + 1) * block_rows}, {c * block_columns, (c + 1) * block_columns}}});
      }
    }
  }
  return shards;
}

// One device per block, in `order`.
std::vector<std::vector<int>> each(const std::vector<int>& order) {
  std::vector<std::vector<int>> holders;
  for (int device : order) holders.push_back({device});
  return holders;
}

std::string draw(std::vector<std::int64_t> shape, const std::vector<ShardPlacement>& shards,
                 Platform platform = Platform::tpu) {
  Expected<std::string> picture = sharding_picture(shape, shards, platform);
  EXPECT_TRUE(picture.ok()) << (picture.ok() ? "" : picture.error().message);
  return picture.ok() ? *picture : std::string();
}

constexpr std::string_view c01_picture_1 = R"(┌───────────────────────┐
│                       │
│                       │
│                       │
│                       │
│         TPU 0         │
│                       │
│                       │
│                       │
│                       │
└───────────────────────┘
)";
constexpr std::string_view c01_picture_2 = R"(┌───────────────────────┐
│         TPU 0         │
├───────────────────────┤
│         TPU 1         │
├───────────────────────┤
│         TPU 2         │
├───────────────────────┤
│         TPU 3         │
├───────────────────────┤
│         TPU 6         │
├───────────────────────┤
│         TPU 7         │
├───────────────────────┤
│         TPU 4         │
├───────────────────────┤
│         TPU 5         │
└───────────────────────┘
)";
constexpr std::string_view c01_picture_3 = R"(┌──────────┬──────────┐
│  TPU 0   │  TPU 1   │
├──────────┼──────────┤
│  TPU 2   │  TPU 3   │
├──────────┼──────────┤
│  TPU 6   │  TPU 7   │
├──────────┼──────────┤
│  TPU 4   │  TPU 5   │
└──────────┴──────────┘
)";
constexpr std::string_view c01_picture_4 = R"(┌───────┬───────┬───────┬───────┬───────┬───────┬───────┬───────┐
│       │       │       │       │       │       │       │       │
│       │       │       │       │       │       │       │       │
│       │       │       │       │       │       │       │       │
│       │       │       │       │       │       │       │       │
│ TPU 0 │ TPU 1 │ TPU 2 │ TPU 3 │ TPU 6 │ TPU 7 │ TPU 4 │ TPU 5 │
│       │       │       │       │       │       │       │       │
│       │       │       │       │       │       │       │       │
│       │       │       │       │       │       │       │       │
│       │       │       │       │       │       │       │       │
└───────┴───────┴───────┴───────┴───────┴───────┴───────┴───────┘
)";
constexpr std::string_view c01_picture_5 = R"(┌───────────┬───────────┐
│           │           │
│           │           │
│           │           │
│           │           │
│TPU 0,2,4,6│TPU 1,3,5,7│
│           │           │
│           │           │
│           │           │
│           │           │
└───────────┴───────────┘
)";
constexpr std::string_view c01_picture_6 = R"(┌───────────────────────┐
│        TPU 0,1        │
├───────────────────────┤
│        TPU 2,3        │
├───────────────────────┤
│        TPU 6,7        │
├───────────────────────┤
│        TPU 4,5        │
└───────────────────────┘
)";
constexpr std::string_view c02_picture_1 = R"(┌──────────┬──────────┐
│  TPU 0   │  TPU 1   │
├──────────┼──────────┤
│  TPU 2   │  TPU 3   │
├──────────┼──────────┤
│  TPU 6   │  TPU 7   │
├──────────┼──────────┤
│  TPU 4   │  TPU 5   │
└──────────┴──────────┘
)";
constexpr std::string_view c02_picture_2 = R"(┌───────┬───────┬───────┬───────┐
│       │       │       │       │
│ TPU 0 │ TPU 2 │ TPU 6 │ TPU 4 │
│       │       │       │       │
│       │       │       │       │
├───────┼───────┼───────┼───────┤
│       │       │       │       │
│ TPU 1 │ TPU 3 │ TPU 7 │ TPU 5 │
│       │       │       │       │
│       │       │       │       │
└───────┴───────┴───────┴───────┘
)";
constexpr std::string_view c02_picture_3 = R"(┌───────────────────────┐
│        TPU 0,1        │
├───────────────────────┤
│        TPU 2,3        │
├───────────────────────┤
│        TPU 6,7        │
├───────────────────────┤
│        TPU 4,5        │
└───────────────────────┘
)";
constexpr std::string_view c02_picture_4 = R"(┌───────────┬───────────┐
│           │           │
│           │           │
│           │           │
│           │           │
│TPU 0,2,4,6│TPU 1,3,5,7│
│           │           │
│           │           │
│           │           │
│           │           │
└───────────┴───────────┘
)";
constexpr std::string_view c02_picture_5 = R"(┌───────┬───────┬───────┬───────┐
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
│TPU 0,1│TPU 2,3│TPU 6,7│TPU 4,5│
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
└───────┴───────┴───────┴───────┘
)";
constexpr std::string_view c02_picture_6 = R"(┌───────────────────────┐
│         TPU 0         │
├───────────────────────┤
│         TPU 1         │
├───────────────────────┤
│         TPU 2         │
├───────────────────────┤
│         TPU 3         │
├───────────────────────┤
│         TPU 6         │
├───────────────────────┤
│         TPU 7         │
├───────────────────────┤
│         TPU 4         │
├───────────────────────┤
│         TPU 5         │
└───────────────────────┘
)";

// More pictures, produced by JAX's visualize_sharding code with rich 13 (no
// colour, width 80): 1-D rows, columns squeezed to fit, labels wrapped,
// cut with an ellipsis, or lost when the padding leaves no room.
constexpr std::string_view one_dimensional_eight = R"(┌───────┬───────┬───────┬───────┬───────┬───────┬───────┬───────┐
│ TPU 0 │ TPU 1 │ TPU 2 │ TPU 3 │ TPU 4 │ TPU 5 │ TPU 6 │ TPU 7 │
└───────┴───────┴───────┴───────┴───────┴───────┴───────┴───────┘
)";
constexpr std::string_view one_dimensional_sixteen = R"(┌────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬───┬────┐
│ T… │ T… │ T… │ T… │ T… │ T… │ T… │ T… │ T… │ T… │TPU │TPU │TPU │TPU │T… │TPU │
│ 0  │ 1  │ 2  │ 3  │ 4  │ 5  │ 6  │ 7  │ 8  │ 9  │10  │11  │12  │13  │14 │15  │
└────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴───┴────┘
)";
constexpr std::string_view cpu_sixteen_columns = R"(┌────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬───┬────┐
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
│ C… │ C… │ C… │ C… │ C… │ C… │ C… │ C… │ C… │ C… │CPU │CPU │CPU │CPU │C… │CPU │
│ 0  │ 1  │ 2  │ 3  │ 4  │ 5  │ 6  │ 7  │ 8  │ 9  │10  │11  │12  │13  │14 │15  │
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
│    │    │    │    │    │    │    │    │    │    │    │    │    │    │   │    │
└────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴───┴────┘
)";
constexpr std::string_view wide_blocks_lose_labels = R"(┌───────────────────┬───────────────────┬───────────────────┬──────────────────┐
│                   │                   │                   │                  │
│                   │                   │                   │                  │
│                   │                   │                   │                  │
├───────────────────┼───────────────────┼───────────────────┼──────────────────┤
│                   │                   │                   │                  │
│                   │                   │                   │                  │
│                   │                   │                   │                  │
└───────────────────┴───────────────────┴───────────────────┴──────────────────┘
)";
constexpr std::string_view wide_two_columns = R"(┌───────────────────────────────────────┬──────────────────────────────────────┐
│                                       │                                      │
│                                       │                                      │
│                                       │                                      │
│                                       │                                      │
│                                       │                                      │
│                                       │                                      │
│                                       │                                      │
│                                       │                                      │
└───────────────────────────────────────┴──────────────────────────────────────┘
)";
constexpr std::string_view sixteen_rows_two_columns = R"(┌──────────┬──────────┐
│  TPU 0   │  TPU 1   │
├──────────┼──────────┤
│  TPU 2   │  TPU 3   │
├──────────┼──────────┤
│  TPU 4   │  TPU 5   │
├──────────┼──────────┤
│  TPU 6   │  TPU 7   │
├──────────┼──────────┤
│  TPU 8   │  TPU 9   │
├──────────┼──────────┤
│  TPU 10  │  TPU 11  │
├──────────┼──────────┤
│  TPU 12  │  TPU 13  │
├──────────┼──────────┤
│  TPU 14  │  TPU 15  │
└──────────┴──────────┘
)";
constexpr std::string_view tall_single = R"(┌───────┐
│       │
│       │
│       │
│       │
│ TPU 0 │
│       │
│       │
│       │
│       │
└───────┘
)";

TEST(ShardingPicture, C01WholeArrayOnOneDevice) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 1, 1, {{0}})), c01_picture_1);
}

TEST(ShardingPicture, C01EightRowBlocks) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 8, 1, each(ring_order))), c01_picture_2);
}

TEST(ShardingPicture, C01FourByTwoBlocks) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 4, 2, each(ring_order))), c01_picture_3);
}

TEST(ShardingPicture, C01EightColumnBlocks) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 1, 8, each(ring_order))), c01_picture_4);
}

TEST(ShardingPicture, C01ColumnsReplicatedOverRows) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 1, 2, {{0, 2, 6, 4}, {1, 3, 7, 5}})), c01_picture_5);
}

TEST(ShardingPicture, C01RowsReplicatedOverColumns) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 4, 1, {{0, 1}, {2, 3}, {6, 7}, {4, 5}})), c01_picture_6);
}

TEST(ShardingPicture, C02NamedAB) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 4, 2, each(ring_order))), c02_picture_1);
}

TEST(ShardingPicture, C02NamedBA) {
  // Rows split by 'b' (2), columns by 'a' (4) over the mesh [[0,1],[2,3],[6,7],[4,5]].
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 2, 4, each({0, 2, 6, 4, 1, 3, 7, 5}))), c02_picture_2);
}

TEST(ShardingPicture, C02NamedANone) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 4, 1, {{0, 1}, {2, 3}, {6, 7}, {4, 5}})), c02_picture_3);
}

TEST(ShardingPicture, C02NamedNoneB) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 1, 2, {{0, 2, 6, 4}, {1, 3, 7, 5}})), c02_picture_4);
}

TEST(ShardingPicture, C02NamedNoneA) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 1, 4, {{0, 1}, {2, 3}, {6, 7}, {4, 5}})), c02_picture_5);
}

TEST(ShardingPicture, C02NamedABOnRows) {
  EXPECT_EQ(draw({8192, 8192}, grid(8192, 8192, 8, 1, each(ring_order))), c02_picture_6);
}

std::vector<ShardPlacement> row_of_blocks(std::int64_t length, int blocks) {
  std::vector<ShardPlacement> shards;
  for (int block = 0; block < blocks; ++block) {
    shards.push_back({block, {{block * length / blocks, (block + 1) * length / blocks}}});
  }
  return shards;
}

TEST(ShardingPicture, OneDimensionalIsOneRow) {
  EXPECT_EQ(draw({24}, row_of_blocks(24, 8)), one_dimensional_eight);
}

TEST(ShardingPicture, OneDimensionalSixteenSqueezedAndWrapped) {
  EXPECT_EQ(draw({32}, row_of_blocks(32, 16)), one_dimensional_sixteen);
}

TEST(ShardingPicture, SixteenColumnsOnCpu) {
  std::vector<int> ids;
  for (int id = 0; id < 16; ++id) ids.push_back(id);
  EXPECT_EQ(draw({64, 64}, grid(64, 64, 1, 16, each(ids)), Platform::cpu), cpu_sixteen_columns);
}

TEST(ShardingPicture, WideBlocksLoseTheirLabelsAsInJax) {
  EXPECT_EQ(draw({2, 64}, grid(2, 64, 2, 4, each(ring_order))), wide_blocks_lose_labels);
  EXPECT_EQ(draw({8, 64}, grid(8, 64, 1, 2, {{0}, {1}})), wide_two_columns);
}

TEST(ShardingPicture, TwoDigitLabelsAndTallArrays) {
  std::vector<int> ids;
  for (int id = 0; id < 16; ++id) ids.push_back(id);
  EXPECT_EQ(draw({16, 16}, grid(16, 16, 8, 2, each(ids))), sixteen_rows_two_columns);
  EXPECT_EQ(draw({64, 2}, grid(64, 2, 1, 1, {{0}})), tall_single);
}

TEST(ShardingPicture, RankThreeDrawsOnePicturePerLeadingBlock) {
  // (4, 8192, 8192): dimension 0 split in two (devices 0-3 / 4-7), the last
  // two dimensions in 2 x 2 blocks.
  std::vector<ShardPlacement> shards;
  for (int device = 0; device < 8; ++device) {
    std::int64_t leading = device / 4;
    std::int64_t row = (device / 2) % 2;
    std::int64_t column = device % 2;
    shards.push_back({device,
                      {{leading * 2, leading * 2 + 2}, {row * 4096, row * 4096 + 4096}, {column * 4096, column * 4096 + 4096}}});
  }
  std::string expected = std::string("[0:2, :, :]\n") + draw({8192, 8192}, grid(8192, 8192, 2, 2, each({0, 1, 2, 3}))) +
                         "[2:4, :, :]\n" + draw({8192, 8192}, grid(8192, 8192, 2, 2, each({4, 5, 6, 7})));
  EXPECT_EQ(draw({4, 8192, 8192}, shards), expected);

  // An unsplit leading dimension shows as ':', in one picture.
  std::vector<ShardPlacement> replicated = {{0, {{0, 3}, {0, 10}, {0, 10}}}};
  EXPECT_EQ(draw({3, 10, 10}, replicated), "[:, :, :]\n" + draw({10, 10}, grid(10, 10, 1, 1, {{0}})));
}

TEST(ShardingPicture, RefusesWhatItCannotDraw) {
  std::vector<std::int64_t> scalar;
  EXPECT_FALSE(sharding_picture(scalar, std::vector<ShardPlacement>{{0, {}}}, Platform::tpu).ok());
  std::vector<std::int64_t> shape = {8, 8};
  EXPECT_FALSE(sharding_picture(shape, std::vector<ShardPlacement>{{0, {{0, 8}}}}, Platform::tpu).ok());
  EXPECT_FALSE(sharding_picture(shape, std::vector<ShardPlacement>{{0, {{0, 9}, {0, 8}}}}, Platform::tpu).ok());
  std::vector<std::int64_t> empty = {0, 8};
  EXPECT_FALSE(sharding_picture(empty, std::vector<ShardPlacement>{{0, {{0, 0}, {0, 8}}}}, Platform::tpu).ok());
  // Three blocks that do not fill a 2 x 2 grid.
  std::vector<ShardPlacement> ragged = {{0, {{0, 4}, {0, 4}}}, {1, {{0, 4}, {4, 8}}}, {2, {{4, 8}, {0, 8}}}};
  Expected<std::string> picture = sharding_picture(shape, ragged, Platform::tpu);
  ASSERT_FALSE(picture.ok());
  EXPECT_EQ(picture.error().kind, ErrorKind::invalid_argument);
}

// The HTML form (notebooks): the text's grid as a <table>, one row per row of
// blocks, each cell as wide and high as the text draws it, coloured as
// JAX's make_color_iter colours a 4 x 2 grid from tab20b (tiles take the
// map at 0/7, 5/7, 2/7, 7/7, ...: 0x393b79, 0xd6616b, 0x8ca252, ...).
TEST(ShardingPicture, HtmlTableOfTheSameGrid) {
  std::vector<std::int64_t> shape = {8192, 8192};
  std::vector<ShardPlacement> shards = grid(8192, 8192, 4, 2, each(ring_order));
  PictureOptions options;
  options.format = PictureFormat::html;
  Expected<std::string> html = sharding_picture(shape, shards, Platform::tpu, options);
  ASSERT_TRUE(html.ok());
  EXPECT_EQ(html->rfind("<table ", 0), 0u);
  std::size_t rows = 0, cells = 0;
  for (std::size_t at = html->find("<tr>"); at != std::string::npos; at = html->find("<tr>", at + 1)) ++rows;
  for (std::size_t at = html->find("<td "); at != std::string::npos; at = html->find("<td ", at + 1)) ++cells;
  EXPECT_EQ(rows, 4u);
  EXPECT_EQ(cells, 8u);
  // The text's tiles are 10 characters wide and 1 line high (1.25em lines).
  EXPECT_NE(html->find("width:10ch;height:1.25em;text-align:center;vertical-align:middle;background-color:#393b79;"
                       "color:#ffffff\">TPU 0</td>"),
            std::string::npos)
      << *html;
  EXPECT_NE(html->find("background-color:#d6616b;color:#ffffff\">TPU 1</td>"), std::string::npos) << *html;
  EXPECT_NE(html->find(">TPU 5</td></tr>\n</table>\n"), std::string::npos) << *html;

  // A rank-3 array: each picture after its title.
  std::vector<std::int64_t> cube = {2, 8, 8};
  std::vector<ShardPlacement> halves = {{0, {{0, 1}, {0, 8}, {0, 8}}}, {1, {{1, 2}, {0, 8}, {0, 8}}}};
  Expected<std::string> titled = sharding_picture(cube, halves, Platform::tpu, options);
  ASSERT_TRUE(titled.ok());
  EXPECT_EQ(titled->rfind("<pre>[0:1, :, :]</pre>\n<table ", 0), 0u) << *titled;
  EXPECT_NE(titled->find("<pre>[1:2, :, :]</pre>\n<table "), std::string::npos);
}

}  // namespace
}  // namespace devices
