// The Framework: the registry's plugins, sorted by the extension points they implement.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "framework/interface.h"

namespace trainer {

// A row of the plugin registry (plugins/registry.h): a plugin's name and how to make it.
struct PluginEntry {
  const char* name;
  std::unique_ptr<Plugin> (*factory)(const RenderOptions& options);
};

class Framework {
 public:
  // The registry's plugins, in its order (or in options.plugin_order's, for testing), sorted by
  // the extension points they implement, as upstream's NewFramework takes its registry.
  Framework(std::span<const PluginEntry> registry, const RenderOptions& options);

  void RunEnforceMLPolicyPlugins(Info& info, TrainJob& job);
  void RunEnforcePodGroupPolicyPlugins(Info& info, const TrainJob& job);
  void RunEnforcePodSpecPlugins(Info& info, const TrainJob& job);
  void RunPreComponentBuilderPlugins(Info& info, const TrainJob& job);
  std::vector<Tree> RunComponentBuilderPlugins(Info& info, const TrainJob& job);
  void RunCustomValidationPlugins(const Info* info, const TrainJob* old_job, const TrainJob& job, Diagnostics& errors);

  bool Has(std::string_view plugin_name) const;

  // Each plugin in registry order with the extension points it implements, in pipeline order.
  struct PluginPoints {
    std::string name;
    std::vector<std::string> points;
  };
  std::vector<PluginPoints> Plugins() const;

 private:
  std::vector<std::unique_ptr<Plugin>> plugins_;
  std::vector<EnforceMLPolicyPlugin*> enforce_ml_;
  std::vector<EnforcePodGroupPolicyPlugin*> enforce_pod_group_;
  std::vector<EnforcePodSpecPlugin*> enforce_pod_spec_;
  std::vector<PreComponentBuilderPlugin*> pre_build_;
  std::vector<ComponentBuilderPlugin*> build_;
  std::vector<CustomValidationPlugin*> validate_;
};

}  // namespace trainer
