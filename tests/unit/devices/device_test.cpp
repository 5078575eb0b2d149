// Devices as JAX shows them, and the chip table.
#include <gtest/gtest.h>

#include "devices/chip.hpp"
#include "devices/device.hpp"

namespace devices {
namespace {

std::vector<Device> make_or_fail(Platform platform, Chip chip, int count) {
  Expected<std::vector<Device>> made = make_devices(platform, chip, count);
  EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error().message);
  return made.ok() ? *made : std::vector<Device>{};
}

TEST(Device, V2EightCoresAreFourChipsOfTwoCores) {
  std::vector<Device> list = make_or_fail(Platform::tpu, Chip::v2, 8);
  ASSERT_EQ(list.size(), 8u);
  const char* expected[] = {
      "TpuDevice(id=0, process_index=0, coords=(0,0,0), core_on_chip=0)",
      "TpuDevice(id=1, process_index=0, coords=(0,0,0), core_on_chip=1)",
      "TpuDevice(id=2, process_index=0, coords=(1,0,0), core_on_chip=0)",
      "TpuDevice(id=3, process_index=0, coords=(1,0,0), core_on_chip=1)",
      "TpuDevice(id=4, process_index=0, coords=(0,1,0), core_on_chip=0)",
      "TpuDevice(id=5, process_index=0, coords=(0,1,0), core_on_chip=1)",
      "TpuDevice(id=6, process_index=0, coords=(1,1,0), core_on_chip=0)",
      "TpuDevice(id=7, process_index=0, coords=(1,1,0), core_on_chip=1)",
  };
  for (int i = 0; i < 8; ++i) EXPECT_EQ(device_repr(list[i]), expected[i]);
  EXPECT_EQ(device_label(list[5]), "TPU 5");
  EXPECT_EQ(device_kind(list[5]), "TPU v2");
}

TEST(Device, CpuReprAndLabel) {
  std::vector<Device> list = make_or_fail(Platform::cpu, Chip::v5e, 8);
  ASSERT_EQ(list.size(), 8u);
  EXPECT_EQ(device_repr(list[3]), "CpuDevice(id=3)");
  EXPECT_EQ(device_label(list[3]), "CPU 3");
  EXPECT_EQ(device_kind(list[3]), "cpu");
}

TEST(Device, OneDevicePerChipFromV4On) {
  std::vector<Device> v5e = make_or_fail(Platform::tpu, Chip::v5e, 8);
  ASSERT_EQ(v5e.size(), 8u);
  // 4x2 chips, x fastest.
  EXPECT_EQ(device_repr(v5e[5]), "TpuDevice(id=5, process_index=0, coords=(1,1,0), core_on_chip=0)");
  EXPECT_EQ(device_kind(v5e[0]), "TPU v5 lite");
  std::vector<Device> v4 = make_or_fail(Platform::tpu, Chip::v4, 8);
  ASSERT_EQ(v4.size(), 8u);
  // 2x2x2 chips.
  EXPECT_EQ(device_repr(v4[6]), "TpuDevice(id=6, process_index=0, coords=(0,1,1), core_on_chip=0)");
}

TEST(Device, SliceShapes) {
  auto shape = [](Chip chip, int count) {
    Expected<SliceShape> s = slice_shape(chip, count);
    return s.ok() ? *s : SliceShape{0, 0, 0};
  };
  EXPECT_EQ(shape(Chip::v2, 8), (SliceShape{2, 2, 1}));
  EXPECT_EQ(shape(Chip::v3, 32), (SliceShape{4, 4, 1}));
  EXPECT_EQ(shape(Chip::v2, 1), (SliceShape{1, 1, 1}));
  EXPECT_EQ(shape(Chip::v5e, 4), (SliceShape{2, 2, 1}));
  EXPECT_EQ(shape(Chip::v5e, 8), (SliceShape{4, 2, 1}));
  EXPECT_EQ(shape(Chip::v6e, 256), (SliceShape{16, 16, 1}));
  EXPECT_EQ(shape(Chip::v5e, 6), (SliceShape{3, 2, 1}));
  EXPECT_EQ(shape(Chip::v4, 4), (SliceShape{2, 2, 1}));
  EXPECT_EQ(shape(Chip::v4, 16), (SliceShape{2, 2, 4}));
  EXPECT_EQ(shape(Chip::v4, 32), (SliceShape{2, 4, 4}));
  EXPECT_EQ(shape(Chip::v5p, 64), (SliceShape{4, 4, 4}));
  EXPECT_EQ(shape(Chip::v5p, 128), (SliceShape{4, 4, 8}));
  EXPECT_EQ(shape(Chip::v4, 12), (SliceShape{2, 2, 3}));
}

TEST(Device, BadCountsAreErrors) {
  Expected<std::vector<Device>> odd = make_devices(Platform::tpu, Chip::v3, 3);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().kind, ErrorKind::invalid_argument);
  EXPECT_NE(odd.error().message.find("2 cores per chip"), std::string::npos);
  EXPECT_FALSE(make_devices(Platform::cpu, Chip::v5e, 0).ok());
}

TEST(Chip, TableRowsMatchTheirChip) {
  for (Chip chip : {Chip::v2, Chip::v3, Chip::v4, Chip::v5e, Chip::v5p, Chip::v6e}) {
    EXPECT_EQ(chip_spec(chip).chip, chip);
    EXPECT_EQ(parse_chip(chip_name(chip)), chip);
  }
  EXPECT_EQ(parse_chip("v7"), std::nullopt);
  EXPECT_EQ(chip_spec(Chip::v2).hbm_bytes, std::int64_t{8} << 30);
  EXPECT_EQ(chip_spec(Chip::v5e).hbm_bytes, 16'000'000'000);
  EXPECT_EQ(chip_spec(Chip::v2).devices_per_chip, 2);
  EXPECT_EQ(chip_spec(Chip::v4).torus_dimensions, 3);
  EXPECT_FALSE(chip_spec(Chip::v3).peak_int8_ops.has_value());
  EXPECT_DOUBLE_EQ(chip_spec(Chip::v6e).peak_bf16_flops, 9.2e14);
  EXPECT_EQ(chip_spec(Chip::v6e).matmul_padding, 256);
}

TEST(Chip, Wraparound) {
  EXPECT_TRUE(axis_wraps(chip_spec(Chip::v4), 4));
  EXPECT_FALSE(axis_wraps(chip_spec(Chip::v4), 2));
  EXPECT_TRUE(axis_wraps(chip_spec(Chip::v5e), 16));
  EXPECT_FALSE(axis_wraps(chip_spec(Chip::v5e), 8));
  EXPECT_FALSE(axis_wraps(chip_spec(Chip::v2), 2));
  EXPECT_TRUE(axis_wraps(chip_spec(Chip::v2), 16));
}

TEST(Platform, Names) {
  EXPECT_EQ(parse_platform("tpu"), Platform::tpu);
  EXPECT_EQ(parse_platform("gpu"), std::nullopt);
  EXPECT_EQ(platform_display_name(Platform::cpu), "CPU");
}

}  // namespace
}  // namespace devices
