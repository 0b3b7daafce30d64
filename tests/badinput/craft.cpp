// Writes the crafted cubins of tests/support/crafted_elf.hpp into a directory for the bad-input suite
// (tests/badinput/run.py): the CLI cases and the C++ regression tests use the same bytes.
//   divbench_craft DIR
#include <cstdio>
#include <fstream>
#include <string>

#include "support/crafted_elf.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: divbench_craft DIR\n");
    return 2;
  }
  for (const auto& [name, file] : divbench::testing::crafted_files()) {
    std::ofstream out(std::string(argv[1]) + "/" + name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(file.bytes.data()), static_cast<std::streamsize>(file.bytes.size()));
    if (!out) {
      std::fprintf(stderr, "divbench_craft: cannot write %s/%s\n", argv[1], name.c_str());
      return 1;
    }
  }
  return 0;
}
