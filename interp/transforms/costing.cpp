// Charging the cost model (costing.hpp).
#include "interp/transforms/costing.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string_view>

#include "devices/device.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/transforms/partitioner.hpp"
#include "interp/ops/runtime.hpp"
#include "lang/source.hpp"

namespace interp {

namespace {

using typecheck::ArrayType;

// The link of a mesh axis, by name and size.
using LinkOf = std::function<devices::MeshAxisLink(const std::string& axis, std::int64_t size)>;

std::int64_t element_count(const typecheck::Shape& shape) {
  std::int64_t count = 1;
  for (auto size : shape) count *= size;
  return count;
}

std::int64_t global_bytes(const ArrayType& type) {
  return element_count(type.shape) * typecheck::byte_size(type.dtype);
}

std::int64_t local_bytes(const ArrayType& type) {
  return element_count(typecheck::local_shape(type)) * typecheck::byte_size(type.dtype);
}

// One device's product: `lhs`, `rhs` and `result` are the shards its
// contraction's decision gives it (ops/dot_general.cpp: a summed contraction
// is split, a gathered one whole; batch and free dimensions as the kernel
// leaves the result).
double dot_seconds(const devices::CostModel& model, const ArrayType& lhs, const ArrayType& rhs,
                   const ArrayType& result, const typecheck::DotDimensionNumbers& numbers) {
  if (lhs.ndim() == 0 || rhs.ndim() == 0) return model.memory_seconds(local_bytes(result));
  auto free_count = [](const ArrayType& operand, const std::vector<int>& contracting, const std::vector<int>& batch) {
    return operand.ndim() - contracting.size() - batch.size();
  };
  const std::size_t lhs_free = free_count(lhs, numbers.lhs_contracting, numbers.lhs_batch);
  const std::size_t rhs_free = free_count(rhs, numbers.rhs_contracting, numbers.rhs_batch);
  if (numbers.lhs_contracting.size() != numbers.rhs_contracting.size() ||
      result.ndim() != numbers.lhs_batch.size() + lhs_free + rhs_free)
    return model.memory_seconds(local_bytes(result));
  devices::MatmulWork work;
  work.contracting = 1;
  for (int d : numbers.lhs_contracting) work.contracting *= lhs.shape[static_cast<std::size_t>(d)];
  std::size_t out = 0;
  auto result_share = [&](std::size_t count) {
    std::int64_t size = 1;
    for (std::size_t i = 0; i < count; ++i, ++out) size *= result.shape[out];
    return size;
  };
  work.batch = result_share(numbers.lhs_batch.size());
  work.rows = result_share(lhs_free);
  work.columns = result_share(rhs_free);
  work.lhs_dtype = lhs.dtype;
  work.rhs_dtype = rhs.dtype;
  work.out_dtype = result.dtype;
  return model.matmul_seconds(work);
}

// The local work of one application on one device, as its cost rule says
// it runs.
double compute_seconds(const devices::CostModel& model, const Primitive& primitive,
                       const std::vector<ArrayType>& operands, const ArrayType& result, const Params& params) {
  Cost cost = primitive.cost(primitive, operands, result, params);
  if (cost.unit == CostUnit::none) return 0;
  if (cost.unit == CostUnit::mxu && cost.matmul) return model.matmul_seconds(*cost.matmul);
  if (cost.unit == CostUnit::mxu)
    return dot_seconds(model, operands[0], operands[1], result, dot_dimension_numbers(params, operands[0].ndim()));
  devices::ElementwiseWork work;
  work.elements = element_count(typecheck::local_shape(result));
  for (const auto& operand : operands) {
    work.bytes_read += local_bytes(operand);
    work.elements = std::max(work.elements, element_count(typecheck::local_shape(operand)));
  }
  work.bytes_written = local_bytes(result);
  if (cost.unit == CostUnit::slice || cost.reads_result_only) work.bytes_read = work.bytes_written;
  if (cost.unit == CostUnit::vector) {
    if (cost.transcendental) work.transcendentals_per_element = 1;
    return model.elementwise_seconds(work);
  }
  return model.memory_seconds(work.bytes_read + work.bytes_written);
}

std::string types_text(const std::vector<ArrayType>& operands, const ArrayType& result) {
  std::string text;
  for (std::size_t i = 0; i < operands.size(); ++i) text += (i ? ", " : "") + operands[i].short_str();
  return text + (text.empty() ? "" : " -> ") + result.short_str();
}

// A shard_map collective's axis_name parameter: "X" or "X,Y".
typecheck::SpecEntry axis_names(const std::string& names) {
  typecheck::SpecEntry axes;
  std::size_t begin = 0;
  while (begin < names.size()) {
    std::size_t comma = std::min(names.find(',', begin), names.size());
    axes.push_back(names.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return axes;
}

std::vector<ArrayType> types_of(const std::vector<ArrayRef>& arrays) {
  std::vector<ArrayType> types;
  for (const auto& array : arrays) types.push_back(array->aval);
  return types;
}

// The charge of one planned collective of a value of `type`.
devices::Charge collective_charge(const devices::CostModel& model, const PlannedCollective& planned, const ArrayType& type,
                                  const LinkOf& link_of) {
  std::vector<devices::MeshAxisLink> axis_links;
  for (std::size_t i = 0; i < planned.axes.size(); ++i)
    axis_links.push_back(link_of(planned.axes[i], i < planned.axis_sizes.size() ? planned.axis_sizes[i] : 1));
  return {planned.name, type.short_str(), planned.kind, planned.bytes,
          model.collective_seconds(planned.kind, planned.bytes, axis_links), 0};
}

// The collectives of one replayed application: the shard_map collective it
// is, or those its family's `replayed` rule reports.
std::vector<devices::Charge> collective_charges(const devices::CostModel& model, const Primitive& primitive,
                                                const std::vector<ArrayType>& operands, const ArrayType& result,
                                                const Params& params, const LinkOf& link_of) {
  std::vector<devices::Charge> charges;
  devices::CollectiveKind own_kind = primitive.collective;
  if (own_kind != devices::CollectiveKind::none) {
    const std::string* names = params.get<std::string>("axis_name");
    const Layout* body = params.get<Layout>("mesh");
    if (!names || !body || operands.empty()) return charges;
    typecheck::SpecEntry axes = axis_names(*names);
    std::vector<devices::MeshAxisLink> axis_links;
    for (const auto& axis : axes) {
      const typecheck::MeshAxis* found = body->mesh->abstract->find(axis);
      axis_links.push_back(link_of(axis, found ? found->size : 1));
    }
    // Inside shard_map the types are the per-device blocks.
    std::int64_t bytes = own_kind == devices::CollectiveKind::all_gather ? global_bytes(result) : global_bytes(operands[0]);
    charges.push_back({std::string(primitive.name), operands[0].short_str(), own_kind, bytes,
                       model.collective_seconds(own_kind, bytes, axis_links), 0});
    return charges;
  }
  // A replayed family: the collectives its implementation runs inside.
  Jaxpr equation_program;
  Equation equation{&primitive, {}, params, -1};
  for (const auto& operand : operands) equation.inputs.push_back(equation_program.add_variable(operand));
  equation.output = equation_program.add_variable(result);
  for (const PlannedCollective& planned : replayed_collectives(equation_program, equation)) {
    if (planned.kind == devices::CollectiveKind::none || planned.variable < 0) continue;  // a dynamic-slice moves nothing
    charges.push_back(collective_charge(model, planned,
                                        equation_program.variable_types[static_cast<std::size_t>(planned.variable)], link_of));
  }
  return charges;
}

std::vector<devices::Charge> replayed_charges(const devices::CostModel& model, const Primitive& primitive,
                                              const std::vector<ArrayType>& operands, const ArrayType& result,
                                              const Params& params, const LinkOf& link_of) {
  std::vector<devices::Charge> charges = collective_charges(model, primitive, operands, result, params, link_of);
  double compute = compute_seconds(model, primitive, operands, result, params);
  if (compute > 0) {
    // The operation runs after its operands' collectives, before its result's.
    auto after = std::find_if(charges.begin(), charges.end(), [](const devices::Charge& c) {
      return c.collective == devices::CollectiveKind::all_reduce ||
             c.collective == devices::CollectiveKind::reduce_scatter;
    });
    charges.insert(after, {std::string(primitive.name), types_text(operands, result), devices::CollectiveKind::none,
                           0, compute, 0});
  }
  return charges;
}

// `type`'s shard where `layout` splits it, as an unsharded type.
ArrayType shard_type(const ArrayType& type, const Layout& layout) {
  ArrayType shard = type;
  shard.shape = layout.shard_shape(type.shape);
  shard.sharding = typecheck::Sharding::replicated(nullptr, shard.shape.size());
  return shard;
}

// The charges of one decision's steps, in order: the operands' collectives,
// the kernel on each device's shards, the combining collective (none for a
// sum the type defers).
std::vector<devices::Charge> placed_charges(const devices::CostModel& model, const Primitive& primitive,
                                            const Placement& placement, const std::vector<ArrayType>& operands,
                                            const std::vector<Step>& steps, const Params& params, const LinkOf& link_of) {
  std::vector<devices::Charge> charges;
  for (const Step& step : steps) {
    switch (step.kind) {
      case Step::Kind::reshard:
        for (const auto& planned : step.collectives)
          if (planned.kind != devices::CollectiveKind::none)
            charges.push_back(collective_charge(model, planned, operands[static_cast<std::size_t>(step.operand)], link_of));
        break;
      case Step::Kind::kernel: {
        std::vector<ArrayType> shards;
        for (std::size_t i = 0; i < operands.size(); ++i) shards.push_back(shard_type(operands[i], placement.operands[i]));
        const Layout& left = placement.scatter_dimension >= 0 ? placement.computed : placement.layout;
        ArrayType result = shard_type(placement.type, left);
        double compute = compute_seconds(model, primitive, shards, result, params);
        if (compute > 0)
          charges.push_back({std::string(primitive.name), types_text(operands, placement.type),
                             devices::CollectiveKind::none, 0, compute, 0});
        break;
      }
      case Step::Kind::combine:
        for (const auto& planned : step.collectives)
          charges.push_back(collective_charge(model, planned, placement.type, link_of));
        break;
      case Step::Kind::finish:
      case Step::Kind::replay:
        break;
    }
  }
  return charges;
}

// The charges of one application: by its family's decision (the steps it
// runs), or a replayed family's.
std::vector<devices::Charge> application_charges(Evaluator& evaluator, const devices::CostModel& model,
                                                 const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                                 const ArrayType& result, const Params& params, const LinkOf& link_of) {
  std::vector<ArrayType> operand_types = types_of(operands);
  if (replayed(*primitive.partition))
    return replayed_charges(model, primitive, operand_types, result, params, link_of);
  Placement placement = primitive.partition->place(evaluator, primitive, operands, params);
  std::vector<const ArrayType*> types;
  std::vector<const Layout*> layouts;
  for (const auto& operand : operands) {
    types.push_back(&operand->aval);
    layouts.push_back(&operand->layout);
  }
  return placed_charges(model, primitive, placement, operand_types, plan_steps(placement, types, layouts, {}, -1), params,
                        link_of);
}

// The links of a mesh without its devices' places (cost_analysis of a
// program on an abstract mesh): the chip's wraparound rule on the axis size.
LinkOf abstract_links(const devices::CostModel& model) {
  return [&model](const std::string&, std::int64_t size) {
    return devices::MeshAxisLink{static_cast<int>(size), devices::axis_wraps(model.chip(), static_cast<int>(size))};
  };
}

LinkOf mesh_links(CostRecorder& recorder, const DeviceMeshRef& mesh) {
  return [&recorder, mesh](const std::string& axis, std::int64_t size) {
    auto index = mesh ? mesh->abstract->index_of(axis) : std::nullopt;
    if (!index) return devices::MeshAxisLink{static_cast<int>(size), false};
    return recorder.axis_link(mesh, *index);
  };
}



// What an application is to the overlap window.
OverlapWindow::Role role_of(const Primitive& primitive, const std::vector<ArrayType>& operands, const ArrayType& result,
                            const Params& params, const std::vector<devices::Charge>& charges) {
  using Role = OverlapWindow::Role;
  if (charges.size() != 1) return Role::other;
  if (charges[0].collective == devices::CollectiveKind::collective_permute &&
      primitive.collective == devices::CollectiveKind::collective_permute)
    return Role::permute;
  if (charges[0].collective != devices::CollectiveKind::none) return Role::other;
  switch (primitive.cost(primitive, operands, result, params).unit) {
    case CostUnit::mxu: return Role::matmul;
    case CostUnit::slice: return Role::slice;
    default: return is_elementwise(primitive) ? Role::elementwise : Role::other;
  }
}

// Inside a shard_map body the mesh's axes are Manual.
bool in_manual_body(const ArrayType& type) {
  return type.sharding.mesh && type.sharding.mesh->has_axis_of_type(typecheck::AxisType::Manual);
}

}  // namespace

OverlapWindow::Held OverlapWindow::held(Application& application) {
  return {std::move(application.charges.front()), application.output, std::move(application.keep_alive),
          std::move(application.devices), application.span};
}

void OverlapWindow::emit(Held held) { sink_.serial(std::move(held.charge), held.devices, held.span); }

void OverlapWindow::emit_matmul() {
  if (!matmul_) return;
  HeldMatmul matmul = std::move(*matmul_);
  matmul_.reset();
  // A fused operation adds no pass over HBM of its own: the kernel takes
  // the longer of its compute and all the bytes it touches.
  for (Held& fused : matmul.fused) {
    matmul.matmul.charge.seconds = std::max(matmul.matmul.charge.seconds, fused.charge.seconds);
    fused.charge.seconds = 0;
    fused.charge.operation += " (fused)";
  }
  if (matmul.partner)
    sink_.overlapped(std::move(matmul.matmul.charge), matmul.matmul.span, std::move(matmul.partner->charge),
                     matmul.partner->span, matmul.matmul.devices);
  else
    emit(std::move(matmul.matmul));
  for (Held& fused : matmul.fused) emit(std::move(fused));
}

void OverlapWindow::flush() {
  emit_matmul();
  if (permute_) emit(std::move(*permute_));
  permute_.reset();
  for (Held& slice : slices_) emit(std::move(slice));
  slices_.clear();
}

void OverlapWindow::push(Application application) {
  if (!application.windowed || application.charges.empty() || application.devices.empty()) {
    flush();
    for (auto& charge : application.charges) sink_.serial(std::move(charge), application.devices, application.span);
    return;
  }
  auto consumes = [&](Id value) {
    return std::find(application.inputs.begin(), application.inputs.end(), value) != application.inputs.end();
  };
  // Held values this application reads must be ready before it starts.
  for (auto slice = slices_.begin(); slice != slices_.end();) {
    if (!consumes(slice->output)) {
      ++slice;
      continue;
    }
    if (application.role == Role::matmul) {  // the matmul reads the window itself
      slice->charge.seconds = 0;
      slice->charge.operation += " (fused)";
    }
    emit(std::move(*slice));
    slice = slices_.erase(slice);
  }
  if (permute_ && consumes(permute_->output)) {
    emit(std::move(*permute_));
    permute_.reset();
  }
  if (matmul_ && matmul_->partner && consumes(matmul_->partner->output)) emit_matmul();
  bool from_matmul = matmul_ && std::any_of(application.inputs.begin(), application.inputs.end(),
                                            [&](Id input) { return matmul_->derived.contains(input); });
  if (from_matmul) matmul_->derived.insert(application.output);
  switch (application.role) {
    case Role::permute:
      if (permute_) emit(std::move(*permute_));
      permute_.reset();
      if (matmul_ && !matmul_->partner && !from_matmul && matmul_->matmul.devices == application.devices)
        matmul_->partner = held(application);
      else
        permute_ = held(application);
      return;
    case Role::matmul:
      emit_matmul();
      matmul_.emplace(HeldMatmul{});  // not emplace(): clang 14 rejects it for a nested struct
      matmul_->matmul = held(application);
      matmul_->derived.insert(matmul_->matmul.output);
      matmul_->latest = matmul_->matmul.output;
      if (permute_ && permute_->devices == matmul_->matmul.devices) {
        matmul_->partner = std::move(*permute_);
        permute_.reset();
      }
      return;
    case Role::elementwise:
      if (matmul_ && consumes(matmul_->latest) && matmul_->matmul.devices == application.devices) {
        matmul_->latest = application.output;
        matmul_->fused.push_back(held(application));
        return;
      }
      break;
    case Role::slice:
      slices_.push_back(held(application));
      return;
    case Role::other:
      break;
  }
  for (auto& charge : application.charges) sink_.serial(std::move(charge), application.devices, application.span);
}

CostRecorder::CostRecorder(devices::Chip chip, int device_count, bool keep_profile)
    : chip_(chip),
      device_count_(device_count),
      model_(devices::chip_spec(chip)),
      window_({[this](devices::Charge charge, const std::vector<int>& devices, const lang::Span& span) {
                 add(std::move(charge), devices, span);
               },
               [this](devices::Charge compute, const lang::Span& compute_span, devices::Charge communication,
                      const lang::Span& communication_span, const std::vector<int>& devices) {
                 add_overlapped(std::move(compute), compute_span, std::move(communication), communication_span,
                                devices);
               }}) {
  if (keep_profile) profile_.emplace(std::string(devices::chip_name(chip)), device_count);
}

CostRecorder::~CostRecorder() {
  if (traced_ledger_) traced_ledger_->set_listener({});
}

void CostRecorder::trace_memory(const std::shared_ptr<devices::MemoryLedger>& ledger) {
  if (!profile_) return;
  traced_ledger_ = ledger;
  ledger->set_listener([this](std::span<const int> devices, std::int64_t bytes_in_use) {
    if (profile_) profile_->record_memory(devices, bytes_in_use);
  });
}

double CostRecorder::measure(const std::function<void()>& run) {
  struct Measuring {
    int& depth;
    explicit Measuring(int& depth) : depth(depth) { ++depth; }
    ~Measuring() { --depth; }
  } measuring(measuring_);
  window_.flush();
  double before = clock_seconds_;
  run();
  window_.flush();
  return clock_seconds_ - before;
}

void CostRecorder::restart_profile() {
  window_.flush();
  if (!profile_) return;
  profile_.emplace(std::string(devices::chip_name(chip_)), device_count_);
  source_ids_.clear();
  span_ids_.clear();
  call_ids_.clear();
}

devices::CallId CostRecorder::count_call(const std::string& function, const lang::Span& span) {
  if (!profile_) return 0;
  devices::SourceId line = source_of(span);
  auto [found, inserted] = call_ids_.try_emplace({function, line}, call_ids_.size() + 1);
  if (inserted) profile_->label_call(found->second, function + " at " + profile_->source_label(line));
  profile_->count_call(found->second);
  return found->second;
}

devices::SourceId CostRecorder::source_of(const lang::Span& span) {
  // A program's statements charge again and again: resolve each span once.
  std::pair<const void*, std::uint32_t> span_key{span.file, span.begin};
  if (auto known = span_ids_.find(span_key); known != span_ids_.end()) return known->second;
  devices::SourceId id = line_source(span);
  span_ids_.emplace(span_key, id);
  return id;
}

devices::SourceId CostRecorder::line_source(const lang::Span& span) {
  lang::SourceRange range = lang::resolve(span);
  std::pair<const void*, int> key{span.file, range.begin.line};
  auto found = source_ids_.find(key);
  if (found != source_ids_.end()) return found->second;
  devices::SourceId id = source_ids_.size() + 1;
  source_ids_.emplace(key, id);
  // The file's own name: the table stays narrow and the same from any directory.
  if (span.file && range.known())
    profile_->label_source(id, std::filesystem::path(span.file->name()).filename().string() + ":" +
                                   std::to_string(range.begin.line));
  else
    profile_->label_source(id, "<unknown>");
  return id;
}

void CostRecorder::add(devices::Charge charge, const std::vector<int>& devices, const lang::Span& span) {
  clock_seconds_ += charge.seconds;
  if (watcher_) watcher_(charge, span);
  if (!profile_ || devices.empty()) return;
  charge.source = source_of(span);
  (void)profile_->add(std::move(charge), devices);  // device ids come from the runtime's own meshes
}

void CostRecorder::add_overlapped(devices::Charge compute, const lang::Span& compute_span,
                                  devices::Charge communication, const lang::Span& communication_span,
                                  const std::vector<int>& devices) {
  clock_seconds_ += devices::CostModel::overlapped_seconds(compute.seconds, communication.seconds);
  if (watcher_) {
    watcher_(compute, compute_span);
    watcher_(communication, communication_span);
  }
  if (!profile_) return;
  compute.source = source_of(compute_span);
  communication.source = source_of(communication_span);
  (void)profile_->add_overlapped(std::move(compute), std::move(communication), devices);
}

devices::MeshAxisLink CostRecorder::axis_link(const DeviceMeshRef& mesh, std::size_t axis) {
  std::pair<const DeviceMesh*, std::size_t> key{mesh.get(), axis};
  auto found = links_.find(key);
  if (found != links_.end()) return found->second.second;
  devices::MeshAxisLink link{mesh->shape.at(axis), false};
  auto slice = devices::slice_shape(chip_, device_count_);
  if (slice.ok()) {
    auto placed = devices::mesh_axis_link(model_.chip(), *slice, mesh->devices, mesh->shape, static_cast<int>(axis));
    if (placed.ok()) link = *placed;
  }
  links_.emplace(key, std::pair{mesh, link});
  return link;
}

CostRecorder& cost_recorder(Evaluator& evaluator) {
  Runtime& runtime = runtime_of(evaluator);
  if (!runtime.costs) {
    int device_count = static_cast<int>(runtime.devices().size());
    runtime.costs = std::make_shared<CostRecorder>(runtime.options().chip, device_count, runtime.options().profile);
  }
  return *runtime.costs;
}

bool charging_costs(Evaluator& evaluator) {
  Runtime& runtime = runtime_of(evaluator);
  if (!runtime.costs && !runtime.options().profile) return false;  // nothing measures: the fast path
  return cost_recorder(evaluator).charging();
}

devices::Profile* memory_timeline(const Runtime& runtime) {
  return runtime.costs ? runtime.costs->memory_timeline() : nullptr;
}

namespace {

// The recorder when an application of `result` is to be charged now, else null.
CostRecorder* charging_recorder(Evaluator& evaluator, const ArrayRef& result) {
  if (!result || !result->layout.mesh || result->poisoned) return nullptr;
  return charging_costs(evaluator) ? &cost_recorder(evaluator) : nullptr;
}

// The devices an application of `primitive` runs on: a shard_map body's mesh, else the result's.
const DeviceMeshRef& application_mesh(const ArrayRef& result, const Params& params) {
  const Layout* body = params.get<Layout>("mesh");
  return body && body->mesh ? body->mesh : result->layout.mesh;
}

// Schedules one application's charges, plus the host's dispatch when it ran eagerly.
void schedule(Evaluator& evaluator, CostRecorder& recorder, const Primitive& primitive,
              const std::vector<ArrayRef>& operands, const ArrayRef& result, const Params& params,
              const DeviceMeshRef& mesh, std::vector<devices::Charge> charges, bool eager_dispatch) {
  OverlapWindow::Application application;
  application.charges = std::move(charges);
  for (devices::Charge& charge : application.charges) charge.call = recorder.current_call;
  application.devices = mesh->device_ids();
  bool in_jit = !eager_dispatch || recorder.jitted_body_depth > 0;
  bool dispatched = recorder.composite_dispatch_paid && *recorder.composite_dispatch_paid;
  if (!in_jit && !dispatched && application.devices.size() > 1) {
    application.charges.push_back({"dispatch", "", devices::CollectiveKind::none, 0,
                                   recorder.model().eager_dispatch_seconds(static_cast<int>(application.devices.size())),
                                   0});
    if (recorder.composite_dispatch_paid) *recorder.composite_dispatch_paid = true;
  }
  application.role = role_of(primitive, types_of(operands), result->aval, params, application.charges);
  for (const auto& operand : operands) application.inputs.push_back(reinterpret_cast<OverlapWindow::Id>(operand.get()));
  application.output = reinterpret_cast<OverlapWindow::Id>(result.get());
  application.keep_alive = result;
  application.span = evaluator.statement_span;
  application.windowed = in_jit && in_manual_body(result->aval);
  recorder.schedule(std::move(application));
}

}  // namespace

void charge_application(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                        const ArrayRef& result, const Params& params, bool eager_dispatch) {
  CostRecorder* recorder = charging_recorder(evaluator, result);
  if (!recorder) return;
  const DeviceMeshRef& mesh = application_mesh(result, params);
  schedule(evaluator, *recorder, primitive, operands, result, params, mesh,
           application_charges(evaluator, recorder->model(), primitive, operands, result->aval, params,
                               mesh_links(*recorder, mesh)),
           eager_dispatch);
}

void charge_partitioned(Evaluator& evaluator, const PartitionedEquation& equation, const std::vector<ArrayRef>& operands,
                        const ArrayRef& result) {
  CostRecorder* recorder = charging_recorder(evaluator, result);
  if (!recorder) return;
  const Equation& e = *equation.equation;
  const DeviceMeshRef& mesh = application_mesh(result, e.params);
  schedule(evaluator, *recorder, *e.primitive, operands, result, e.params, mesh,
           placed_charges(recorder->model(), *e.primitive, *equation.placement, types_of(operands), equation.steps,
                          e.params, mesh_links(*recorder, mesh)),
           false);
}

double application_seconds(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                           const ArrayRef& result, const Params& params) {
  if (!result || !result->layout.mesh) return 0;
  const DeviceMeshRef& mesh = result->layout.mesh;
  Runtime& runtime = runtime_of(evaluator);
  CostRecorder places(runtime.options().chip, static_cast<int>(runtime.devices().size()), false);
  double seconds = 0;
  for (const auto& charge : application_charges(evaluator, places.model(), primitive, operands, result->aval, params,
                                                mesh_links(places, mesh)))
    seconds += charge.seconds;
  return seconds;
}

void charge_checked_program(Evaluator& evaluator, const Jaxpr& program, const std::vector<ArrayRef>& arguments) {
  Runtime& runtime = runtime_of(evaluator);
  if (!runtime.costs && !runtime.options().profile) return;  // nothing measures
  if (!cost_recorder(evaluator).charging()) return;
  std::vector<ArrayRef> values(program.variable_types.size());
  for (const auto& [number, value] : program.constants) values[static_cast<std::size_t>(number)] = value;
  for (std::size_t i = 0; i < program.inputs.size() && i < arguments.size(); ++i)
    values[static_cast<std::size_t>(program.inputs[i])] = arguments[i];
  std::vector<ArrayRef> operands;
  for (const Equation& e : program.equations) {
    auto out = static_cast<std::size_t>(e.output);
    const auto& layout = program.variable_layouts[out];
    if (!layout) continue;
    values[out] = make_abstract_array(program.variable_types[out], *layout, program.variable_committed[out]);
    operands.clear();
    for (int input : e.inputs) operands.push_back(values[static_cast<std::size_t>(input)]);
    if (std::all_of(operands.begin(), operands.end(), [](const ArrayRef& operand) { return operand != nullptr; }))
      charge_application(evaluator, *e.primitive, operands, values[out], e.params, false);
  }
}

JitCallScope::JitCallScope(Evaluator& evaluator, const Value& function) {
  if (!runtime_of(evaluator).options().profile) return;
  CostRecorder& recorder = cost_recorder(evaluator);
  if (recorder.current_call != 0) return;  // a call inside another counts as the outer one's
  // Its __qualname__, which wrappers (shard_map, checkpoint) answer with their function's.
  std::string name = qualified_name(function);
  if (function.is_object())
    if (auto qualname = function.object()->get_attribute(evaluator, "__qualname__"); qualname && string_of(*qualname))
      name = *string_of(*qualname);
  recorder.current_call = recorder.count_call(name, evaluator.statement_span);
  if (recorder.current_call != 0) recorder_ = &recorder;
}

JitCallScope::~JitCallScope() {
  if (recorder_) recorder_->current_call = 0;
}

JittedBodyScope::JittedBodyScope(Evaluator& evaluator) {
  Runtime& runtime = runtime_of(evaluator);
  if (runtime.options().profile) cost_recorder(evaluator);  // the body's first application may be the first charge
  recorder_ = runtime.costs;
  if (recorder_) ++recorder_->jitted_body_depth;
}

JittedBodyScope::~JittedBodyScope() {
  if (recorder_) --recorder_->jitted_body_depth;
}

OneDispatchScope::OneDispatchScope(Evaluator& evaluator) {
  Runtime& runtime = runtime_of(evaluator);
  if (runtime.options().profile) cost_recorder(evaluator);  // its first application may be the first charge
  // Nested in another composite, the outer one's dispatch covers it too.
  if (!runtime.costs || runtime.costs->composite_dispatch_paid) return;
  recorder_ = runtime.costs;
  recorder_->composite_dispatch_paid = &paid_;
}

OneDispatchScope::~OneDispatchScope() {
  if (recorder_) recorder_->composite_dispatch_paid = nullptr;
}

namespace {

template <class Visit>
void visit_program_charges(const devices::CostModel& model, const PartitionedProgram& partitioned,
                           const DeviceMeshRef& mesh,
                           Visit visit) {
  // Without a recorder, links come from the devices' places when the mesh
  // is known, else from the chip's wraparound rule.
  std::optional<CostRecorder> places;
  if (mesh) places.emplace(model.chip().chip, static_cast<int>(mesh->devices.size()), false);
  LinkOf link_of = places ? mesh_links(*places, mesh) : abstract_links(model);
  // A jitted program: its shard_map bodies overlap as they would run; an
  // overlapped collective counts only what the compute does not hide.
  OverlapWindow window({[&](devices::Charge charge, const std::vector<int>&, const lang::Span&) { visit(charge); },
                        [&](devices::Charge compute, const lang::Span&, devices::Charge communication,
                            const lang::Span&, const std::vector<int>&) {
                          communication.seconds = std::max(0.0, communication.seconds - compute.seconds);
                          visit(compute);
                          visit(communication);
                        }});
  const Jaxpr& program = *partitioned.jaxpr;
  for (const PartitionedEquation& pe : partitioned.equations) {
    const Equation& e = *pe.equation;
    std::vector<ArrayType> operands;
    for (int input : e.inputs) operands.push_back(program.variable_types[static_cast<std::size_t>(input)]);
    const ArrayType& result = program.variable_types[static_cast<std::size_t>(e.output)];
    OverlapWindow::Application application;
    application.charges = pe.placement ? placed_charges(model, *e.primitive, *pe.placement, operands, pe.steps, e.params, link_of)
                                       : replayed_charges(model, *e.primitive, operands, result, e.params, link_of);
    application.role = role_of(*e.primitive, operands, result, e.params, application.charges);
    // Variables are their own ids (shifted: 0 names no value).
    for (int input : e.inputs) application.inputs.push_back(static_cast<OverlapWindow::Id>(input) + 1);
    application.output = static_cast<OverlapWindow::Id>(e.output) + 1;
    application.devices = {0};
    application.windowed = in_manual_body(result);
    window.push(std::move(application));
  }
  window.flush();
}

}  // namespace

double program_seconds(const devices::CostModel& model, const PartitionedProgram& program, const DeviceMeshRef& mesh) {
  double seconds = 0;
  visit_program_charges(model, program, mesh, [&](const devices::Charge& charge) { seconds += charge.seconds; });
  return seconds;
}

double program_collective_bytes(const devices::CostModel& model, const PartitionedProgram& program,
                                const DeviceMeshRef& mesh) {
  double bytes = 0;
  visit_program_charges(model, program, mesh,
                        [&](const devices::Charge& charge) { bytes += static_cast<double>(charge.bytes_moved); });
  return bytes;
}

namespace {

// As IPython's %timeit prints a time: three significant digits.
std::string format_seconds(double seconds) {
  char text[64];
  if (seconds >= 1) std::snprintf(text, sizeof text, "%.3g s", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.3g ms", seconds * 1e3);
  else std::snprintf(text, sizeof text, "%.3g µs", seconds * 1e6);
  return text;
}

}  // namespace

void install_costing(Evaluator& evaluator) {
  evaluator.after_timeit = [](Evaluator& running, const lang::ast::Stmt&, const std::function<void()>& run_once) {
    double seconds = cost_recorder(running).measure(run_once);
    running.write("simulated TPU " + std::string(devices::chip_name(runtime_of(running).options().chip)) + ": " +
                  format_seconds(seconds) + " per loop\n");
  };
}

}  // namespace interp
