#include "divbench/sass/elf_facts.hpp"

#include <cstdint>
#include <map>
#include <set>

#include "divbench/sass/elf.hpp"

namespace divbench::sass {

bool apply_elf_facts(std::vector<Function>& functions, const std::string& bytes, const std::string& name) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const std::uint64_t n = bytes.size();
  ElfImage img = read_elf(b, n, name);
  elf_section_names(b, n, img, name);
  std::map<std::string, const ElfSection*> text;
  for (const auto& s : img.sections)
    if (s.name.rfind(".text.", 0) == 0 && has_file_bytes(s, n)) text[s.name.substr(6)] = &s;
  // Check everything first, so that a mismatch changes nothing.
  std::vector<const ElfSection*> section_of;
  for (const Function& f : functions) {
    const auto it = text.find(f.name);
    if (f.instruction_bytes != 16 || it == text.end()) return false;
    for (const Instruction& ins : f.instructions)
      if (!fits_in(ins.offset, 16, it->second->size)) return false;
    section_of.push_back(it->second);
  }
  const std::vector<ElfSymbol> symbols = elf_symbols(b, n, img, name);
  for (std::size_t i = 0; i < functions.size(); ++i) {
    Function& f = functions[i];
    const ElfSection& s = *section_of[i];
    f.subroutines.clear();
    for (const ElfSymbol& sym : symbols)
      if (sym.type == kSttFunc && sym.shndx == s.index && sym.name != f.name) f.subroutines[sym.name] = sym.value;
    for (Instruction& ins : f.instructions) {
      const std::uint64_t at = s.offset + ins.offset;
      Encoding e;
      e.lo = le_u64(b, at);
      e.hi = le_u64(b, at + 8);
      ins.encoding = e;
      if (ins.base != "CALL" || !ins.targets.empty()) continue;
      const auto sub = f.subroutines.find(ins.call_symbol);
      if (sub != f.subroutines.end()) ins.targets.push_back(sub->second);
    }
  }
  return true;
}

bool has_indirect_branch(const std::vector<Function>& functions) {
  static const std::set<std::string> indirect = {"BRX", "BRXU", "JMX", "JMXU"};
  for (const Function& f : functions)
    for (const Instruction& ins : f.instructions)
      if (indirect.count(ins.base)) return true;
  return false;
}

}  // namespace divbench::sass
