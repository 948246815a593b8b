// The --validate option of the commands that render (render, diff --legacy).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace trainer::app {

// kubectl's --validate, extended to the rules of the CRD schemas and the admission webhooks.
inline CLI::Option* AddValidateOption(CLI::App& command, std::string& mode, const std::string& lead = "Check") {
  return command
      .add_option("--validate", mode,
                  lead +
                      " unknown fields and the rules of the API server and the admission webhooks: strict (they "
                      "fail), warn (print warnings, render anyway) or ignore; true and false mean strict and ignore")
      ->check(CLI::IsMember({"strict", "warn", "ignore", "true", "false"}))
      ->capture_default_str()
      ->type_name("MODE");
}

}  // namespace trainer::app
