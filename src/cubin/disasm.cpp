#include "divbench/cubin/disasm.hpp"

#include <fnmatch.h>

#include <fstream>

#include "divbench/core/errors.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace divbench::cubin {

sass::Cubin disassemble_bytes(const CubinFile& file, const std::string& nvdisasm) {
  TempDir tmp;
  const std::string path = tmp.path() + "/in.cubin";
  {
    std::ofstream o(path, std::ios::binary);
    o.write(reinterpret_cast<const char*>(file.bytes().data()), static_cast<std::streamsize>(file.bytes().size()));
    if (!o) throw std::runtime_error("cannot write a temporary cubin in " + tmp.path());
  }
  sass::DisassembleOptions opt;
  opt.encodings = false;  // encodings come from the ELF bytes themselves
  sass::Cubin c;
  try {
    c = sass::disassemble(path, nvdisasm, opt);
  } catch (const UsageError& e) {  // name the user's file, not our temporary copy
    std::string msg = e.what();
    for (auto p = msg.find(path); p != std::string::npos; p = msg.find(path)) msg.replace(p, path.size(), file.name());
    throw UsageError(msg);
  }
  c.path = c.source = file.name();
  return c;
}

const sass::Function& function_named(const sass::Cubin& c, const std::string& name) {
  for (const auto& f : c.functions)
    if (f.name == name) return f;
  throw UsageError(c.source + ": nvdisasm lists no function '" + name + "'");
}

std::vector<const sass::Instruction*> select_instructions(const sass::Function& fn, const std::string& patterns,
                                                          int nth, bool all) {
  std::vector<std::string> pats;
  std::size_t start = 0;
  while (start <= patterns.size()) {
    const auto comma = patterns.find(',', start);
    const std::string p = patterns.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!p.empty()) pats.push_back(p);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (pats.empty()) throw UsageError("--match: empty pattern");
  std::vector<const sass::Instruction*> hits;
  for (const auto& ins : fn.instructions)
    for (const auto& p : pats)
      if (::fnmatch(p.c_str(), ins.opcode.c_str(), 0) == 0) {
        hits.push_back(&ins);
        break;
      }
  if (hits.empty()) throw UsageError("--match '" + patterns + "': no instruction of " + fn.name + " matches");
  if (all) return hits;
  if (nth >= 0) {
    if (static_cast<std::size_t>(nth) >= hits.size())
      throw UsageError("--nth " + std::to_string(nth) + ": only " + std::to_string(hits.size()) + " instruction(s) match '" +
                       patterns + "' (counting from 0)");
    return {hits[static_cast<std::size_t>(nth)]};
  }
  if (hits.size() > 1)
    throw UsageError("--match '" + patterns + "' selects " + std::to_string(hits.size()) +
                     " instructions: add --nth N or --all");
  return hits;
}

}  // namespace divbench::cubin
