#include "plugins/flux_entrypoint.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "util/error.h"
#include "util/go_format.h"

namespace trainer::plugins {

namespace {

// Where the flux-view images install Flux; the same in every view.
constexpr const char* kFluxRoot = "/opt/view";

std::string ReadTemplate(const std::string& dir, const char* name) {
  std::string path = dir + "/" + name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("--flux-templates {}: cannot read {}: {}", dir, path,
                            ec ? ec.message() : std::string("not a regular file")));
  }
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.is_open() || in.bad()) {
    throw Error(fmt::format("--flux-templates {}: cannot read {}: {}", dir, path, std::strerror(errno)));
  }
  return text;
}

// A TOML basic string.
std::string Quoted(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    auto b = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default: out += b < 0x20 || b == 0x7F ? fmt::format("\\u{:04X}", b) : std::string(1, c);
    }
  }
  return out + "\"";
}

std::string ValuesHeader(const char* script) {
  return fmt::format(
      "{}. This is not the controller's script: the controller fills its\n"
      "# {} template with the values below, in this order. trainer render --flux-templates DIR\n"
      "# (DIR holding upstream's broker.toml, entrypoint.sh and init.sh) renders the full script.\n",
      kFluxValuesOnlyMarker, script);
}

}  // namespace

bool FluxBrokerSettings::Set(std::string_view env_name, std::string value) {
  constexpr std::pair<const char*, std::string FluxBrokerSettings::*> kByEnv[] = {
      {kFluxViewImageEnv, &FluxBrokerSettings::view_image},
      {kFluxNetworkDeviceEnv, &FluxBrokerSettings::network_device},
      {kFluxQueuePolicyEnv, &FluxBrokerSettings::queue_policy},
  };
  for (const auto& [name, field] : kByEnv) {
    if (env_name != name) continue;
    this->*field = std::move(value);
    return true;
  }
  return false;
}

std::string GenerateRange(std::int32_t size, std::int32_t start) {
  if (size == 1) return std::to_string(start);
  // Go's int32 arithmetic wraps; so does this, through the 64-bit sum.
  auto end = static_cast<std::int32_t>(static_cast<std::int64_t>(start) + size - 1);
  return fmt::format("{}-{}", start, end);
}

std::string GenerateHostlist(std::string_view prefix, std::int32_t size) {
  return fmt::format("{}-node-0-[{}]", prefix, GenerateRange(size, 0));
}

std::string JoinOriginalCommand(const std::vector<std::string>& command, const std::vector<std::string>& args) {
  std::string joined;
  bool first = true;
  for (const auto* list : {&command, &args}) {
    for (const std::string& word : *list) {
      if (!first) joined += ' ';
      joined += word;
      first = false;
    }
  }
  return std::string(GoTrimSpace(joined));
}

FluxScriptValues FluxEntrypointValues(std::string_view job_name, std::string_view job_namespace, std::int32_t nodes,
                                      std::int32_t tasks, int gpus, const FluxBrokerSettings& settings) {
  FluxScriptValues v;
  v.flux_root = kFluxRoot;
  v.init_main_host = fmt::format("{}-0", job_name);
  v.hosts = GenerateHostlist(job_name, nodes);
  // Brokers bind on the pod's device and reach each other through the TrainJob-named subdomain.
  v.default_bind = fmt::format("tcp://{}:%p", settings.network_device);
  v.default_connect = fmt::format("tcp://%h.{}.{}.svc.cluster.local:%p", job_name, job_namespace);
  v.queue_policy = settings.queue_policy;
  v.resource_spec = "--cores=" + GenerateRange(tasks, 0);
  v.main_host = fmt::format("{}-node-0-0", job_name);
  auto total_tasks = static_cast<std::int32_t>(static_cast<std::int64_t>(tasks) * nodes);
  v.flags = fmt::format("-N {} -n {}", nodes, total_tasks);
  if (gpus > 0) {
    v.flags += fmt::format(" -g {}", gpus);
    v.resource_spec += " --gpu=" + GenerateRange(gpus, 0);
  }
  return v;
}

FluxTemplates ReadFluxTemplates(const std::string& dir) {
  return FluxTemplates{dir, ReadTemplate(dir, "broker.toml"), ReadTemplate(dir, "entrypoint.sh"),
                       ReadTemplate(dir, "init.sh")};
}

FluxScripts RenderFluxScripts(const FluxScriptValues& v, const FluxTemplates* templates) {
  if (templates != nullptr) {
    auto fill = [&](const std::string& text, const char* name, std::initializer_list<std::string> args) {
      std::vector<std::string> list(args);
      return GoSprintf(text, list, templates->dir + "/" + name);
    };
    std::string broker =
        fill(templates->broker, "broker.toml", {v.default_bind, v.default_connect, v.hosts, v.queue_policy});
    return FluxScripts{fill(templates->entrypoint, "entrypoint.sh", {v.resource_spec, v.main_host, v.flags}),
                       fill(templates->init, "init.sh", {v.flux_root, v.init_main_host, v.hosts, broker})};
  }
  FluxScripts out;
  out.entrypoint =
      ValuesHeader("entrypoint.sh") + fmt::format("rspec = {}\nmainHost = {}\nflags = {}\n", Quoted(v.resource_spec),
                                                  Quoted(v.main_host), Quoted(v.flags));
  out.init = ValuesHeader("init.sh") +
             fmt::format("fluxroot = {}\nmainHost = {}\nhosts = {}\n\n", Quoted(v.flux_root), Quoted(v.init_main_host),
                         Quoted(v.hosts)) +
             "# The fourth value: the controller's broker.toml template filled with these values, in this order.\n" +
             fmt::format("[\"broker.toml\"]\ndefault_bind = {}\ndefault_connect = {}\nhosts = {}\nqueue-policy = {}\n",
                         Quoted(v.default_bind), Quoted(v.default_connect), Quoted(v.hosts), Quoted(v.queue_policy));
  return out;
}

}  // namespace trainer::plugins
