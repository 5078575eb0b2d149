// The cost model's formulas on hand-computed cases (costmodel.md).
#include <gtest/gtest.h>

#include <vector>

#include "devices/cost_model.hpp"
#include "devices/device_mesh.hpp"

namespace devices {
namespace {

using typecheck::DType;

constexpr double tolerance = 1e-12;  // seconds; the cases are µs and up

MatmulWork matmul(std::int64_t rows, std::int64_t contracting, std::int64_t columns, DType dtype,
                  Precision precision = Precision::default_precision) {
  return {1, rows, contracting, columns, dtype, dtype, dtype, precision};
}

TEST(CostModelMatmul, Bf16IsOnePassAtNinetyFivePercentOfPeak) {
  CostModel v5e(chip_spec(Chip::v5e));
  double flops = 2.0 * 1024 * 1024 * 1024;
  EXPECT_NEAR(v5e.matmul_seconds(matmul(1024, 1024, 1024, DType::bfloat16)), flops / (0.95 * 1.97e14), tolerance);
  // bf16 operands need one pass whatever the precision.
  EXPECT_NEAR(v5e.matmul_seconds(matmul(1024, 1024, 1024, DType::bfloat16, Precision::highest)),
              flops / (0.95 * 1.97e14), tolerance);
}

TEST(CostModelMatmul, F32PassesFollowPrecision) {
  CostModel v4(chip_spec(Chip::v4));
  double flops = 2.0 * 2048 * 2048 * 2048;
  double one_pass = flops / (0.95 * 2.75e14);
  EXPECT_NEAR(v4.matmul_seconds(matmul(2048, 2048, 2048, DType::float32)), one_pass, tolerance);
  EXPECT_NEAR(v4.matmul_seconds(matmul(2048, 2048, 2048, DType::float32, Precision::high)), 3 * one_pass,
              tolerance);
  EXPECT_NEAR(v4.matmul_seconds(matmul(2048, 2048, 2048, DType::float32, Precision::highest)), 6 * one_pass,
              tolerance);
  // bf16 times f32 is an f32 product.
  EXPECT_EQ(v4.matmul_passes(DType::bfloat16, DType::float32, Precision::highest), 6);
}

TEST(CostModelMatmul, IntegerRates) {
  CostModel v5e(chip_spec(Chip::v5e));
  double ops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_TRUE(v5e.int8_rate(DType::int8, DType::int8));
  EXPECT_NEAR(v5e.matmul_seconds(matmul(4096, 4096, 4096, DType::int8)), ops / (0.95 * 3.94e14), tolerance);
  EXPECT_NEAR(v5e.matmul_seconds(matmul(4096, 4096, 4096, DType::int32)), 10 * ops / (0.95 * 1.97e14),
              tolerance);
  // v2 has no int8 rate: one pass at the bf16 rate.
  CostModel v2(chip_spec(Chip::v2));
  EXPECT_FALSE(v2.int8_rate(DType::int8, DType::int8));
  EXPECT_NEAR(v2.matmul_seconds(matmul(4096, 4096, 4096, DType::int8)), ops / (0.95 * 2.3e13), tolerance);
}

TEST(CostModelMatmul, DimensionsPadToTheMxuTile) {
  // f32 at HIGHEST so that the FLOP term, not HBM, decides.
  MatmulWork work = matmul(200, 300, 100, DType::float32, Precision::highest);
  CostModel v5e(chip_spec(Chip::v5e));  // 128: 256 x 384 x 128
  EXPECT_NEAR(v5e.matmul_seconds(work), 2.0 * 256 * 384 * 128 * 6 / (0.95 * 1.97e14), tolerance);
  CostModel v6e(chip_spec(Chip::v6e));  // 256: 256 x 512 x 256
  EXPECT_NEAR(v6e.matmul_seconds(work), 2.0 * 256 * 512 * 256 * 6 / (0.95 * 9.2e14), tolerance);
}

TEST(CostModelMatmul, MemoryBoundWhenThin) {
  // An f32 matrix-vector product on v5e: even padded to 128 columns its
  // FLOPs take less time than reading the matrix.
  CostModel v5e(chip_spec(Chip::v5e));
  MatmulWork work = matmul(8192, 8192, 1, DType::float32);
  double bytes = (8192.0 * 8192 + 8192 + 8192) * 4;
  EXPECT_NEAR(v5e.matmul_seconds(work), bytes / 8.2e11, tolerance);
  work.batch = 3;
  EXPECT_NEAR(v5e.matmul_seconds(work), 3 * bytes / 8.2e11, tolerance);
  // On v2 the padding makes the same product compute-bound.
  CostModel v2(chip_spec(Chip::v2));
  EXPECT_NEAR(v2.matmul_seconds(matmul(8192, 8192, 1, DType::float32)), 2.0 * 8192 * 8192 * 128 / (0.95 * 2.3e13),
              tolerance);
  EXPECT_EQ(v2.matmul_seconds(matmul(0, 8, 8, DType::float32)), 0);
}

TEST(CostModelElementwise, MemoryOrTranscendentals) {
  CostModel v2(chip_spec(Chip::v2));
  std::int64_t elements = 1 << 20;
  // x + y in f32: two reads, one write, no compute term.
  EXPECT_NEAR(v2.elementwise_seconds({elements, 8 * elements, 4 * elements, 0}), 12.0 * elements / 3.58e11,
              tolerance);
  // sin: the VPU's transcendental rate dominates.
  EXPECT_NEAR(v2.elementwise_seconds({elements, 4 * elements, 4 * elements, 1}), elements / 6.9e9, tolerance);
  EXPECT_NEAR(v2.memory_seconds(3'580'000), 1e-5, tolerance);
}

TEST(CostModelCollectives, SingleAxisFormulas) {
  CostModel v5e(chip_spec(Chip::v5e));
  const double bytes = 4 * 1024 * 1024;
  std::vector<MeshAxisLink> line = {{4, false}};     // η 0.8, one way, 3 hops
  std::vector<MeshAxisLink> ring = {{16, true}};     // η 0.95, both ways, 8 hops
  double line_latency = 4e-6 + 3e-6;
  double ring_latency = 4e-6 + 8e-6;
  double gather_line = line_latency + 0.75 * bytes / (0.8 * 4.5e10);
  double gather_ring = ring_latency + 15.0 / 16 * bytes / (0.95 * 2 * 4.5e10);
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::all_gather, bytes, line), gather_line, tolerance);
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::reduce_scatter, bytes, line), gather_line, tolerance);
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::all_gather, bytes, ring), gather_ring, tolerance);
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::all_reduce, bytes, ring), 2 * gather_ring, tolerance);
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::all_to_all, bytes, ring),
              ring_latency + bytes / (4 * 0.95 * 2 * 4.5e10), tolerance);
  // A permute sends one way even on a ring.
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::collective_permute, bytes, ring),
              ring_latency + bytes / (0.95 * 4.5e10), tolerance);
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::collective_permute, bytes, line),
              line_latency + bytes / (0.8 * 4.5e10), tolerance);
}

TEST(CostModelCollectives, SeveralAxesAtOnce) {
  CostModel v5e(chip_spec(Chip::v5e));
  const double bytes = 1 << 26;
  std::vector<MeshAxisLink> axes = {{4, false}, {16, true}, {1, false}};
  // 64 devices, hops 3 + 8, the line's bandwidth paces both, halved by two axes.
  EXPECT_NEAR(v5e.collective_seconds(CollectiveKind::all_gather, bytes, axes),
              4e-6 + 11e-6 + 63.0 / 64 * bytes / (0.8 * 4.5e10) / 2, tolerance);
  std::vector<MeshAxisLink> trivial = {{1, false}};
  EXPECT_EQ(v5e.collective_seconds(CollectiveKind::all_reduce, bytes, trivial), 0);
  EXPECT_EQ(v5e.collective_seconds(CollectiveKind::all_reduce, bytes, {}), 0);
  EXPECT_EQ(v5e.collective_seconds(CollectiveKind::none, bytes, axes), 0);
}

TEST(CostModel, DispatchAndOverlap) {
  CostModel v2(chip_spec(Chip::v2));
  EXPECT_EQ(v2.eager_dispatch_seconds(1), 0);
  EXPECT_EQ(v2.eager_dispatch_seconds(8), 1e-3);
  EXPECT_EQ(CostModel::overlapped_seconds(5e-5, 3e-5), 5e-5);
  EXPECT_EQ(CostModel::overlapped_seconds(2e-5, 3e-5), 3e-5);
  EXPECT_EQ(collective_kind_name(CollectiveKind::collective_permute), "collective-permute");
  EXPECT_EQ(collective_kind_name(CollectiveKind::none), "-");
}

MeshAxisLink link_of(Chip chip, int device_count, const std::vector<int>& mesh_shape, int axis) {
  Expected<std::vector<Device>> all = make_devices(Platform::tpu, chip, device_count);
  Expected<SliceShape> slice = slice_shape(chip, device_count);
  EXPECT_TRUE(all.ok() && slice.ok());
  if (!all.ok() || !slice.ok()) return {};
  Expected<std::vector<Device>> mesh = make_mesh_devices(mesh_shape, *all);
  EXPECT_TRUE(mesh.ok()) << (mesh.ok() ? "" : mesh.error().message);
  if (!mesh.ok()) return {};
  Expected<MeshAxisLink> link = mesh_axis_link(chip_spec(chip), *slice, *mesh, mesh_shape, axis);
  EXPECT_TRUE(link.ok()) << (link.ok() ? "" : link.error().message);
  return link.ok() ? *link : MeshAxisLink{};
}

TEST(MeshAxisLink, WrapsOnlyOverAWholeTorusDimension) {
  // v4 4x4x4: each mesh axis is one whole physical axis of 4 chips.
  for (int axis = 0; axis < 3; ++axis) {
    MeshAxisLink link = link_of(Chip::v4, 64, {4, 4, 4}, axis);
    EXPECT_EQ(link.size, 4);
    EXPECT_TRUE(link.wraps) << "axis " << axis;
  }
  // v4 2x2x2 as (2, 4): the axis of 4 snakes over two physical axes.
  EXPECT_FALSE(link_of(Chip::v4, 8, {2, 4}, 1).wraps);
  // v5e wraps only an axis of 16: a 16x16 slice does, a 4x4 one never.
  EXPECT_TRUE(link_of(Chip::v5e, 256, {16, 16}, 0).wraps);
  EXPECT_TRUE(link_of(Chip::v5e, 256, {16, 16}, 1).wraps);
  EXPECT_FALSE(link_of(Chip::v5e, 256, {16, 4, 4}, 1).wraps);
  EXPECT_FALSE(link_of(Chip::v5e, 16, {4, 4}, 0).wraps);
  EXPECT_FALSE(link_of(Chip::v5e, 16, {16}, 0).wraps);
  // v2-8 is not a whole pod.
  EXPECT_FALSE(link_of(Chip::v2, 8, {4, 2}, 0).wraps);
}

TEST(MeshAxisLink, CpuAndBadArguments) {
  Expected<std::vector<Device>> cpu = make_devices(Platform::cpu, Chip::v2, 4);
  ASSERT_TRUE(cpu.ok());
  SliceShape slice{2, 2, 1};
  Expected<MeshAxisLink> link = mesh_axis_link(chip_spec(Chip::v4), slice, *cpu, {4}, 0);
  ASSERT_TRUE(link.ok());
  EXPECT_FALSE(link->wraps);
  EXPECT_FALSE(mesh_axis_link(chip_spec(Chip::v4), slice, *cpu, {2, 4}, 0).ok());
  EXPECT_FALSE(mesh_axis_link(chip_spec(Chip::v4), slice, *cpu, {2, 2}, 2).ok());
  EXPECT_FALSE(mesh_axis_link(chip_spec(Chip::v4), slice, *cpu, {0, 4}, 0).ok());
}

}  // namespace
}  // namespace devices
