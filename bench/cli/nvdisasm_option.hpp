// The --nvdisasm option, one definition for every command that runs nvdisasm (sass, kernels facts and
// predict, flip, attribute, attribute diff): the same name, target type and help, plus when the command
// needs it.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "divbench/sass/nvdisasm.hpp"

namespace divbench::cli {

// `use`: when this command runs nvdisasm ("" when it always does).
inline CLI::Option* add_nvdisasm_option(CLI::App& sub, std::string& path, const std::string& use = "") {
  return sub.add_option("--nvdisasm", path,
                        "Path of nvdisasm" + (use.empty() ? std::string() : " (" + use + ")") +
                            "; default: the first found in " + sass::kNvdisasmSearch)
      ->type_name("PATH");
}

}  // namespace divbench::cli
