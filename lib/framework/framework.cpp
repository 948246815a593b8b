#include "framework/framework.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "api/decode.h"

namespace trainer {

namespace {

std::vector<PluginEntry> Ordered(std::span<const PluginEntry> registry, const std::string& order) {
  std::vector<PluginEntry> entries(registry.begin(), registry.end());
  if (order.empty()) return entries;
  if (order == "reversed") {
    std::reverse(entries.begin(), entries.end());
    return entries;
  }
  // rotated:N, N a non-negative decimal number (any size: only N modulo the plugin count counts).
  constexpr std::string_view kRotated = "rotated:";
  const std::string_view digits = std::string_view(order).substr(std::min(order.size(), kRotated.size()));
  if (order.rfind(kRotated, 0) == 0 && !digits.empty() &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::size_t n = 0;
    for (char c : digits) n = (n * 10 + static_cast<std::size_t>(c - '0')) % entries.size();
    std::rotate(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(n), entries.end());
    return entries;
  }
  throw Error(fmt::format("unknown plugin order \"{}\": expected reversed or rotated:N, N a number of 0 or more",
                          order));
}

}  // namespace

namespace {

Diagnostic OutputLimitDiagnostic(const TrainJob& job, std::size_t limit, OutputLimitError::Unit unit) {
  constexpr std::string_view kNumNodes = "spec.trainer.numNodes";
  Origin where = job.positions.Find(kNumNodes);
  const bool at_num_nodes = where.HasPosition();
  std::string message = unit == OutputLimitError::Unit::kBytes
                            ? fmt::format("output larger than {} bytes (output size limit)", limit)
                            : fmt::format("output of more than {} values (output size limit)", limit);
  return Diagnostic{.where = at_num_nodes ? where : job.origin,
                    .subject = Subject(job),
                    .field = at_num_nodes ? std::string(kNumNodes) : std::string(),
                    .message = std::move(message)};
}

}  // namespace

OutputLimitError::OutputLimitError(const TrainJob& job, std::size_t limit, Unit unit)
    : Error(OutputLimitDiagnostic(job, limit, unit)) {}

Framework::Framework(std::span<const PluginEntry> registry, const RenderOptions& options) {
  for (const PluginEntry& entry : Ordered(registry, options.plugin_order)) {
    plugins_.push_back(entry.factory(options));
    Plugin* p = plugins_.back().get();
    if (auto* x = dynamic_cast<EnforceMLPolicyPlugin*>(p)) enforce_ml_.push_back(x);
    if (auto* x = dynamic_cast<EnforcePodGroupPolicyPlugin*>(p)) enforce_pod_group_.push_back(x);
    if (auto* x = dynamic_cast<EnforcePodSpecPlugin*>(p)) enforce_pod_spec_.push_back(x);
    if (auto* x = dynamic_cast<PreComponentBuilderPlugin*>(p)) pre_build_.push_back(x);
    if (auto* x = dynamic_cast<ComponentBuilderPlugin*>(p)) build_.push_back(x);
    if (auto* x = dynamic_cast<CustomValidationPlugin*>(p)) validate_.push_back(x);
  }
}

void Framework::RunEnforceMLPolicyPlugins(Info& info, TrainJob& job) {
  for (auto* p : enforce_ml_) p->EnforceMLPolicy(info, job);
}

void Framework::RunEnforcePodGroupPolicyPlugins(Info& info, const TrainJob& job) {
  for (auto* p : enforce_pod_group_) p->EnforcePodGroupPolicy(info, job);
}

void Framework::RunEnforcePodSpecPlugins(Info& info, const TrainJob& job) {
  for (auto* p : enforce_pod_spec_) p->EnforcePodSpec(info.template_spec.pod_sets, job);
}

void Framework::RunPreComponentBuilderPlugins(Info& info, const TrainJob& job) {
  for (auto* p : pre_build_) p->PreBuildSync(info, job);
}

std::vector<Tree> Framework::RunComponentBuilderPlugins(Info& info, const TrainJob& job) {
  std::vector<Tree> objects;
  for (auto* p : build_) p->Build(info, job, objects);
  return objects;
}

void Framework::RunCustomValidationPlugins(const Info* info, const TrainJob* old_job, const TrainJob& job,
                                           Diagnostics& errors) {
  for (auto* p : validate_) p->Validate(info, old_job, job, errors);
}

bool Framework::Has(std::string_view plugin_name) const {
  for (const auto& p : plugins_) {
    if (p->Name() == plugin_name) return true;
  }
  return false;
}

std::vector<Framework::PluginPoints> Framework::Plugins() const {
  std::vector<PluginPoints> out;
  for (const auto& plugin : plugins_) {
    Plugin* p = plugin.get();
    PluginPoints row{std::string(p->Name()), {}};
    if (dynamic_cast<EnforceMLPolicyPlugin*>(p)) row.points.emplace_back("EnforceMLPolicy");
    if (dynamic_cast<EnforcePodGroupPolicyPlugin*>(p)) row.points.emplace_back("EnforcePodGroupPolicy");
    if (dynamic_cast<EnforcePodSpecPlugin*>(p)) row.points.emplace_back("EnforcePodSpec");
    if (dynamic_cast<PreComponentBuilderPlugin*>(p)) row.points.emplace_back("PreBuildSync");
    if (dynamic_cast<ComponentBuilderPlugin*>(p)) row.points.emplace_back("Build");
    if (dynamic_cast<CustomValidationPlugin*>(p)) row.points.emplace_back("Validate");
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace trainer
