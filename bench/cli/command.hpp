// Subcommands of the divbench executable (sass, kernels, flip, attribute, and attribute's own `diff`).
//
// A command lives in bench/commands/<name>.cpp (a command's own subcommand: <parent>_<name>.cpp) and
// registers itself with one line:
//   DIVBENCH_REGISTER_COMMAND(sass_command);
// where sass_command() returns a Command. Every file in bench/commands/ is compiled into the
// executable (CMake globs the folder), so adding a command touches no other file.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace divbench::cli {

struct Command {
  std::string name;
  std::string help;
  // Empty: a command of divbench itself; else the command it belongs to ("attribute" for `attribute diff`),
  // registered as that command's subcommand. Its runner is chosen before its parent's.
  std::string parent;
  // Adds the command's options to `sub` and returns the function to run when the command was
  // selected. The runner returns the process exit code; it may throw UsageError (exit 2),
  // NoDeviceError (exit 3) or any std::exception (exit 1) — main() prints one line for each.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

std::vector<Command>& command_registry();

struct CommandRegistrar {
  explicit CommandRegistrar(Command c) { command_registry().push_back(std::move(c)); }
};

}  // namespace divbench::cli

#define DIVBENCH_CONCAT_INNER_(a, b) a##b
#define DIVBENCH_CONCAT_(a, b) DIVBENCH_CONCAT_INNER_(a, b)
#define DIVBENCH_REGISTER_COMMAND(factory) \
  static ::divbench::cli::CommandRegistrar DIVBENCH_CONCAT_(divbench_command_, __LINE__){factory()}
