// Physical device order of create_device_mesh and make_mesh.
#include <gtest/gtest.h>

#include "devices/device_mesh.hpp"

namespace devices {
namespace {

std::vector<Device> devices_of(Platform platform, Chip chip, int count) {
  Expected<std::vector<Device>> made = make_devices(platform, chip, count);
  return made.ok() ? *made : std::vector<Device>{};
}

std::vector<int> ids(const Expected<std::vector<Device>>& mesh) {
  EXPECT_TRUE(mesh.ok()) << (mesh.ok() ? "" : mesh.error().message);
  std::vector<int> result;
  if (mesh.ok())
    for (const Device& device : *mesh) result.push_back(device.id);
  return result;
}

using Ids = std::vector<int>;

TEST(CreateDeviceMesh, V2EightIsTheTrayRing) {
  std::vector<Device> v2 = devices_of(Platform::tpu, Chip::v2, 8);
  Ids ring = {0, 1, 2, 3, 6, 7, 4, 5};
  // The shapes the seeds and conformance scripts print.
  EXPECT_EQ(ids(create_device_mesh({8}, v2)), ring);
  EXPECT_EQ(ids(create_device_mesh({4, 2}, v2)), ring);  // rows 0 1 / 2 3 / 6 7 / 4 5
  EXPECT_EQ(ids(create_device_mesh({2, 4}, v2)), ring);  // rows 0 1 2 3 / 6 7 4 5
  EXPECT_EQ(ids(create_device_mesh({8, 1}, v2)), ring);
  EXPECT_EQ(ids(create_device_mesh({1, 8}, v2)), ring);
  EXPECT_EQ(ids(create_device_mesh({8}, devices_of(Platform::tpu, Chip::v3, 8))), ring);
}

TEST(MakeMesh, V2SeedMeshes) {
  std::vector<Device> v2 = devices_of(Platform::tpu, Chip::v2, 8);
  EXPECT_EQ(ids(make_mesh_devices({4, 2}, v2)), (Ids{0, 1, 2, 3, 6, 7, 4, 5}));
  EXPECT_EQ(ids(make_mesh_devices({8}, v2)), (Ids{0, 1, 2, 3, 6, 7, 4, 5}));
  EXPECT_EQ(ids(make_mesh_devices({2, 4}, v2)), (Ids{0, 1, 2, 3, 6, 7, 4, 5}));
  // Fewer devices than there are: the first ones, in their own order.
  EXPECT_EQ(ids(make_mesh_devices({2, 2}, v2)), (Ids{0, 1, 2, 3}));
}

TEST(CreateDeviceMesh, V3SixteenAsJaxDocumentsIt) {
  // jax.make_mesh's docstring: 16 devices of TPU v3.
  std::vector<Device> v3 = devices_of(Platform::tpu, Chip::v3, 16);
  EXPECT_EQ(ids(make_mesh_devices({2, 8}, v3)),
            (Ids{0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13}));
  EXPECT_EQ(ids(make_mesh_devices({4, 4}, v3)),
            (Ids{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
}

TEST(CreateDeviceMesh, CpuIsIdentity) {
  std::vector<Device> cpu = devices_of(Platform::cpu, Chip::v2, 8);
  EXPECT_EQ(ids(create_device_mesh({8}, cpu)), (Ids{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ids(create_device_mesh({4, 2}, cpu)), (Ids{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ids(make_mesh_devices({2, 2}, cpu)), (Ids{0, 1, 2, 3}));
}

TEST(CreateDeviceMesh, V5eRingTables) {
  EXPECT_EQ(ids(create_device_mesh({8}, devices_of(Platform::tpu, Chip::v5e, 8))),
            (Ids{0, 1, 2, 3, 7, 6, 5, 4}));
  EXPECT_EQ(ids(create_device_mesh({2, 2}, devices_of(Platform::tpu, Chip::v5e, 4))),
            (Ids{0, 1, 3, 2}));
  EXPECT_EQ(ids(create_device_mesh({16}, devices_of(Platform::tpu, Chip::v5e, 16))),
            (Ids{0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4}));
  // Not one ring: the torus assignment, here the identity.
  EXPECT_EQ(ids(create_device_mesh({4, 4}, devices_of(Platform::tpu, Chip::v5e, 16))),
            (Ids{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
}

TEST(CreateDeviceMesh, TorusAssignment) {
  std::vector<Device> v4 = devices_of(Platform::tpu, Chip::v4, 8);  // 2x2x2
  EXPECT_EQ(ids(create_device_mesh({8}, v4)), (Ids{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_EQ(ids(create_device_mesh({2, 4}, v4)), (Ids{0, 2, 1, 3, 4, 6, 5, 7}));
  std::vector<Device> v6e = devices_of(Platform::tpu, Chip::v6e, 8);  // 4x2
  EXPECT_EQ(ids(create_device_mesh({2, 4}, v6e)), (Ids{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ids(create_device_mesh({4, 2}, v6e)), (Ids{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(ids(create_device_mesh({8}, devices_of(Platform::tpu, Chip::v5p, 8))),
            (Ids{0, 1, 3, 2, 6, 7, 5, 4}));
}

TEST(CreateDeviceMesh, SplittingPhysicalAxes) {
  std::vector<Device> v6e = devices_of(Platform::tpu, Chip::v6e, 8);
  Expected<std::vector<Device>> refused = create_device_mesh({2, 2, 2}, v6e);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::not_implemented);
  EXPECT_NE(refused.error().message.find("Failed to find assignment for logical_axis_index 1 of size 2"),
            std::string::npos)
      << refused.error().message;
  EXPECT_EQ(ids(create_device_mesh({2, 2, 2}, v6e, {.allow_split_physical_axes = true})),
            (Ids{0, 4, 1, 5, 2, 6, 3, 7}));
  // make_mesh splits on v5e only.
  EXPECT_EQ(ids(make_mesh_devices({2, 2, 4}, devices_of(Platform::tpu, Chip::v5e, 16))),
            (Ids{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_FALSE(make_mesh_devices({2, 2, 2}, v6e).ok());
}

TEST(CreateDeviceMesh, CountMismatchIsAnError) {
  std::vector<Device> v2 = devices_of(Platform::tpu, Chip::v2, 8);
  Expected<std::vector<Device>> wrong = create_device_mesh({4, 4}, v2);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message, "Number of devices 8 must equal the product of mesh_shape (4, 4)");
  Expected<std::vector<Device>> too_many = make_mesh_devices({16}, v2);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().message, "Number of devices 8 must be >= the product of mesh_shape (16,)");
  EXPECT_FALSE(create_device_mesh({0, 8}, v2).ok());
  EXPECT_FALSE(create_device_mesh({}, v2).ok());
}

}  // namespace
}  // namespace devices
