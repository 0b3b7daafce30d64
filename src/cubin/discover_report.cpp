#include <ostream>

#include "divbench/core/provenance.hpp"
#include "divbench/cubin/discover.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace divbench::cubin {

json discover_report(const std::vector<std::string>& files, const std::string& nvdisasm,
                     const std::string& command_line, std::ostream* progress) {
  for (const auto& f : files) sass::inspect_file(f);  // every input checked before any tool runs
  TempDir tmp;
  std::vector<CubinFile> cubins;
  std::vector<sass::Cubin> dis;
  sass::DisassembleOptions opt;
  opt.encodings = false;
  for (const auto& f : files) {
    for (auto& c : sass::load_cubins(f, nvdisasm, tmp, opt)) {
      cubins.push_back(CubinFile::load(c.path));
      c.source = f;
      dis.push_back(std::move(c));
    }
  }
  std::vector<CorpusEntry> corpus;
  json cj = json::array();
  for (std::size_t i = 0; i < cubins.size(); ++i) {
    corpus.push_back({&cubins[i], &dis[i]});
    cj.push_back({{"file", dis[i].source}, {"sm", cubins[i].sm()}, {"functions", dis[i].functions.size()}});
  }
  json doc;
  doc["schema"] = kFlipDiscoverSchema;
  Provenance prov = make_provenance(command_line);
  prov.tools["nvdisasm"] = {nvdisasm, sass::tool_version(nvdisasm)};
  doc["provenance"] = divbench::to_json(prov);
  doc["corpus"] = cj;
  json fields = json::array();
  for (const auto& f : discover_modifier_fields(corpus)) {
    fields.push_back(to_json(f));
    if (progress) {
      std::string bits;
      for (int b : f.bits) bits += (bits.empty() ? "" : ",") + std::to_string(b);
      *progress << "sm_" << f.sm << " " << f.from << " -> " << f.to << ": bits " << (bits.empty() ? "(none)" : bits)
                << " (" << f.from_count << " vs " << f.to_count << " instructions)\n";
    }
  }
  doc["fields"] = fields;
  return doc;
}

}  // namespace divbench::cubin
