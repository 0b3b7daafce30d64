// Seeds of the fuzz harnesses, made at build time from real inputs: the cubins built in this tree
// (ELF reader, inspect_file), their `nvdisasm -json` and `nvdisasm -c -hex` listings (parsers, merge),
// the hand-made listings of tests/fixtures/sass, and the crafted cubins of tests/support. nvdisasm is
// found by the analyzer's own search (sass::find_nvdisasm); without it only the cubins, the fixtures
// and the crafted files become seeds (said on stderr). The kernels fit/predict harness gets the committed
// results/h200 documents (the repository is FIXTURES_DIR/../../..), cut to the k-way kernels and a few
// points so that a seed fits libFuzzer's -max_len: facts NUL cost NUL constants, facts NUL kway NUL constants.
//   divbench_fuzz_seeds OUT_DIR FIXTURES_DIR CUBIN...
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/sass/nvdisasm.hpp"
#include "support/crafted_elf.hpp"

namespace fs = std::filesystem;
using namespace divbench;

namespace {
// The text harness's first byte picks the architecture: index into {0, 52, 61, 70, 75, 90, 100, 120}.
char sm_byte(int sm) {
  const int table[] = {0, 52, 61, 70, 75, 90, 100, 120};
  for (int i = 0; i < 8; ++i)
    if (table[i] == sm) return static_cast<char>(i);
  return 5;  // sm_90
}

void put(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}
// The committed H200 documents, small: the facts of the k-way kernels only, results without raw points.
void kernels_seeds(const fs::path& root, const fs::path& out) {
  const fs::path h200 = root / "results" / "h200";
  json facts = read_json_file((h200 / "kernel_facts.json").string());
  json cubins = json::array();
  for (auto c : facts.at("cubins")) {
    json fns = json::array();
    for (const auto& f : c.at("functions"))
      if (f.value("name", "").find("kway_kernel") != std::string::npos && fns.size() < 6) fns.push_back(f);
    if (!fns.empty()) {
      c["functions"] = fns;
      cubins.push_back(c);
    }
  }
  facts["cubins"] = cubins;
  json cost = read_json_file((h200 / "cost.json").string()), kway = read_json_file((h200 / "kway_fma_chain.json").string());
  for (json* r : {&cost, &kway}) {
    json points = json::array();
    for (auto p : r->at("points")) {
      if (points.size() == 3) break;
      if (p.is_object()) p.erase("samples");  // raw samples: the bulk of a result, read by neither reader
      points.push_back(p);
    }
    (*r)["points"] = points;
  }
  const std::string constants = read_regular_file((h200 / "loop_cost.json").string());
  const std::string nul(1, '\0');
  put(out / "kernels" / "h200_cost.bin", facts.dump() + nul + cost.dump() + nul + constants);
  put(out / "kernels" / "h200_kway.bin", facts.dump() + nul + kway.dump() + nul + constants);
}
// attribute's recorded counts (tests/data/attribute): each document alone, and two processes of the
// lane kernels (k0 NUL k1) for merge_counts.
void counts_seeds(const fs::path& root, const fs::path& out) {
  const fs::path data = root / "tests" / "data" / "attribute";
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(data)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind("counts-", 0) != 0 || e.path().extension() != ".json") continue;
    if (fs::file_size(e.path()) > 200000) continue;  // under libFuzzer's -max_len (run_fuzzer.sh)
    put(out / "counts" / ("seed" + std::to_string(++n) + ".json"), read_regular_file(e.path().string()));
  }
  std::string lanes[2];
  for (int k = 0; k < 2; ++k)
    for (const auto& e : fs::directory_iterator(data / "lanes" / ("k" + std::to_string(k))))
      if (e.path().filename().string().rfind("counts-", 0) == 0) lanes[k] = read_regular_file(e.path().string());
  put(out / "counts" / "lanes_k0_k1.bin", lanes[0] + std::string(1, '\0') + lanes[1]);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: divbench_fuzz_seeds OUT_DIR FIXTURES_DIR CUBIN...\n");
    return 2;
  }
  try {
    const fs::path out = argv[1];
    for (const char* d : {"elf", "inspect", "json", "text", "merge", "kernels", "counts"}) {
      fs::remove_all(out / d);
      fs::create_directories(out / d);
    }
    for (const auto& [name, file] : testing::crafted_files()) {
      const std::string b(file.bytes.begin(), file.bytes.end());
      put(out / "elf" / name, b);
      put(out / "inspect" / name, b);
    }
    for (const auto& e : fs::directory_iterator(argv[2])) {
      const std::string text = read_regular_file(e.path().string());
      if (e.path().extension() == ".json") put(out / "json" / e.path().filename(), text);
      if (e.path().extension() == ".txt")
        put(out / "text" / e.path().filename(), sm_byte(e.path().stem() == "pascal" ? 61 : 90) + text);
    }
    kernels_seeds(fs::path(argv[2]).parent_path().parent_path().parent_path(), out);
    counts_seeds(fs::path(argv[2]).parent_path().parent_path().parent_path(), out);
    std::string nvdisasm;
    try {
      nvdisasm = sass::find_nvdisasm();
    } catch (const std::exception& e) {
      std::cerr << "divbench_fuzz_seeds: no listings as seeds (" << e.what() << ")\n";
    }
    int listings = 0;
    for (int i = 3; i < argc; ++i) {
      const fs::path cubin = argv[i];
      const std::string bytes = read_regular_file(cubin.string());
      put(out / "elf" / cubin.filename(), bytes);
      put(out / "inspect" / cubin.filename(), bytes);
      if (nvdisasm.empty()) continue;
      const int sm = sass::inspect_file(cubin.string()).sm;
      const auto js = run_process({nvdisasm, "-json", cubin.string()});
      const auto tx = run_process({nvdisasm, "-c", "-hex", cubin.string()});
      if (js.exit_code != 0 || tx.exit_code != 0) continue;
      const std::string stem = cubin.stem().string();
      put(out / "json" / (stem + ".json"), js.out);
      put(out / "text" / (stem + ".txt"), sm_byte(sm) + tx.out);
      put(out / "merge" / (stem + ".bin"), js.out + std::string(1, '\0') + tx.out);
      ++listings;
    }
    std::cerr << "divbench_fuzz_seeds: " << (argc - 3) << " cubins, " << listings << " listings -> " << out << "\n";
  } catch (const std::exception& e) {
    std::cerr << "divbench_fuzz_seeds: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
