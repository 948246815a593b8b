// Where a value came from, carried by every value trainer reads or computes and by diagnostics.
#pragma once

#include <cstdint>
#include <string>

namespace trainer {

// Where a value came from: a position in an input file, a CRD default, the plugin that computed
// it, or the command line (the namespace -n gives, or the default one). Copied with the value
// through copies, merges and upserts.
struct Origin {
  enum class Kind : std::uint8_t { kNone, kInput, kDefault, kPlugin, kCommandLine };

  Kind kind = Kind::kNone;
  std::uint32_t line = 0;    // 1-based; 0 when not from a file
  std::uint32_t column = 0;  // 1-based
  const std::string* file = nullptr;  // interned path, as given on the command line
  const char* by = nullptr;           // plugin name or "CRD default"; static storage

  static Origin Input(const std::string* file, std::uint32_t line, std::uint32_t column) {
    return Origin{Kind::kInput, line, column, file, nullptr};
  }
  static Origin Default() { return Origin{Kind::kDefault, 0, 0, nullptr, "CRD default"}; }
  static Origin Plugin(const char* name) { return Origin{Kind::kPlugin, 0, 0, nullptr, name}; }
  // `what`: how the command line gave the value ("-n"); static storage.
  static Origin CommandLine(const char* what) { return Origin{Kind::kCommandLine, 0, 0, nullptr, what}; }

  // The same origin, noting the plugin that put the value where it is now.
  Origin SetBy(const char* plugin) const {
    if (kind == Kind::kCommandLine) return *this;  // the command line said it, whoever copies it
    Origin o = *this;
    if (o.kind == Kind::kNone) o.kind = Kind::kPlugin;
    o.by = plugin;
    return o;
  }

  bool HasPosition() const { return file != nullptr && line != 0; }
  // "file:line:col" for input values (the file name Printable), "" otherwise.
  std::string Position() const;
  // Human-readable: the position, "CRD default", or "plugin <name>".
  std::string Source() const;
};

}  // namespace trainer
