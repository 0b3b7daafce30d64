// Verifying a patch by disassembly: which instructions' text changed between the original and the
// patched cubin, and were they exactly the patched ones.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::cubin {

struct InstructionChange {
  std::uint64_t offset = 0;
  std::string before, after;  // nvdisasm text ("@P0 BSSY.RELIABLE B1, 0x2d0")
  std::string bytes_before, bytes_after;  // 128-bit words, hex
  bool patched = false;       // one of the patched offsets
};

struct VerifyReport {
  bool ok = false;            // disassembly worked and no unpatched instruction's text changed
  std::string error;          // why not (nvdisasm failure, unexpected changes)
  std::string function;
  std::size_t instructions = 0;
  std::vector<std::uint64_t> patched;        // offsets whose bytes changed
  std::vector<InstructionChange> text_changed;  // every instruction whose text differs
  std::vector<std::uint64_t> unexpected;     // text changed but not patched (must stay empty)
  std::vector<std::uint64_t> silent;         // patched, bytes differ, text identical
  json to_json() const;
};

// Compares the two cubins byte by byte (only whole instructions of `function` may differ; anything
// else is an error) and by disassembly of `function`.
VerifyReport verify_patch(const CubinFile& original, const CubinFile& patched, const std::string& function,
                          const std::string& nvdisasm);
// The same with the original's disassembly already at hand (many patches of one cubin).
VerifyReport verify_patch(const CubinFile& original, const sass::Cubin& original_disasm, const CubinFile& patched,
                          const std::string& function, const std::string& nvdisasm);

}  // namespace divbench::cubin
