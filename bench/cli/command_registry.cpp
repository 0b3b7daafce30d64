#include "command.hpp"

namespace divbench::cli {

std::vector<Command>& command_registry() {
  static std::vector<Command> commands;
  return commands;
}

}  // namespace divbench::cli
