// What goes into the Flux entrypoint ConfigMap: the values the controller computes for its
// broker.toml, init.sh and entrypoint.sh templates, and the two scripts made from them
// (upstream pkg/runtime/framework/plugins/flux/flux.go, buildInitScriptConfigMap and helpers).
//
// Upstream's templates are not part of `trainer`. Without them, each script's data holds the
// values in the order the controller fills them in, as TOML under a marker comment; with a
// directory of upstream's templates, the scripts are filled as the controller fills them, with
// Go's fmt.Sprintf (util/go_format.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::plugins {

inline constexpr const char* kFluxViewImageEnv = "FLUX_VIEW_IMAGE";
inline constexpr const char* kFluxNetworkDeviceEnv = "FLUX_NETWORK_DEVICE";
inline constexpr const char* kFluxQueuePolicyEnv = "FLUX_QUEUE_POLICY";

// The broker settings users can change with env vars, and their defaults.
struct FluxBrokerSettings {
  std::string view_image = "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy";
  std::string network_device = "eth0";
  std::string queue_policy = "fcfs";

  // Sets the setting named by an env var; false for other names.
  bool Set(std::string_view env_name, std::string value);
};

// "start" for one item, else "start-end" (int32 arithmetic, as upstream's generateRange).
std::string GenerateRange(std::int32_t size, std::int32_t start);
// "<prefix>-node-0-[<range>]": the pods of the node replicatedJob's first replica.
std::string GenerateHostlist(std::string_view prefix, std::int32_t size);
// The command and args joined with spaces, surrounding white space trimmed as Go's strings.TrimSpace.
std::string JoinOriginalCommand(const std::vector<std::string>& command, const std::vector<std::string>& args);

// The values the controller fills into each template, in template order.
struct FluxScriptValues {
  // init.sh
  std::string flux_root;
  std::string init_main_host;  // "<job>-0", as upstream writes it (not a pod name)
  std::string hosts;
  // broker.toml, which init.sh embeds; it takes `hosts` too
  std::string default_bind;
  std::string default_connect;
  std::string queue_policy;
  // entrypoint.sh
  std::string resource_spec;  // the flux R encode options: cores, and GPUs when there are any
  std::string main_host;      // the lead broker's pod, "<job>-node-0-0"
  std::string flags;          // flux run options: -N nodes -n tasks [-g gpus per task]
};

// `tasks` is the processes per node; `gpus` the GPUs per node.
FluxScriptValues FluxEntrypointValues(std::string_view job_name, std::string_view job_namespace, std::int32_t nodes,
                                      std::int32_t tasks, int gpus, const FluxBrokerSettings& settings);

// Upstream's three template files, read verbatim.
struct FluxTemplates {
  std::string dir;
  std::string broker;
  std::string entrypoint;
  std::string init;
};
// Throws Error naming the file that cannot be read.
FluxTemplates ReadFluxTemplates(const std::string& dir);

struct FluxScripts {
  std::string entrypoint;  // data["entrypoint.sh"]
  std::string init;        // data["init.sh"]
};

// The first line of each values-only script, so that readers and tools can tell it apart.
inline constexpr const char* kFluxValuesOnlyMarker = "# trainer: Flux values only";

// The full scripts from `templates`, or the values-only data when `templates` is null.
FluxScripts RenderFluxScripts(const FluxScriptValues& values, const FluxTemplates* templates);

}  // namespace trainer::plugins
