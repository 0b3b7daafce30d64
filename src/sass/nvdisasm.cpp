#include "divbench/sass/nvdisasm.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/sass/elf.hpp"
#include "divbench/sass/elf_facts.hpp"
#include "divbench/sass/listing_cache.hpp"
#include "divbench/sass/parse.hpp"

namespace fs = std::filesystem;

namespace divbench::sass {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// site-packages folders of the Python that pip installs into.
std::vector<std::string> python_site_dirs() {
  std::vector<std::string> dirs;
  for (const std::string& py : {env("DIVBENCH_PYTHON"), std::string("python3")}) {
    if (py.empty()) continue;
    try {
      auto r = run_process({py, "-c",
                            "import site,sys\n"
                            "for d in site.getsitepackages()+[site.getusersitepackages()]: print(d)"});
      if (r.exit_code != 0) continue;
      std::istringstream in(r.out);
      std::string d;
      while (std::getline(in, d))
        if (!d.empty()) dirs.push_back(d);
      if (!dirs.empty()) break;
    } catch (const UsageError&) {
      throw;  // the caller's setting (DIVBENCH_TOOL_TIMEOUT_S, TMPDIR) is wrong: said as such, not as "not found"
    } catch (const std::exception&) {
    }
  }
  return dirs;
}

}  // namespace

std::string locate_tool(const std::string& name, const std::string& explicit_path) {
  if (!explicit_path.empty()) return is_executable_file(explicit_path) ? explicit_path : "";
  std::string up = name;
  std::transform(up.begin(), up.end(), up.begin(), ::toupper);
  if (auto e = env(("DIVBENCH_" + up).c_str()); is_executable_file(e)) return e;
  if (const std::string c = find_on_path(name, EmptyPathEntry::skipped); !c.empty()) return c;
  for (const char* v : {"CUDA_HOME", "CUDA_PATH"})
    if (auto d = env(v); !d.empty() && is_executable_file(d + "/bin/" + name)) return d + "/bin/" + name;
  if (is_executable_file("/usr/local/cuda/bin/" + name)) return "/usr/local/cuda/bin/" + name;
  for (const auto& sp : python_site_dirs())
    for (const char* sub : {"nvidia/cu13/bin/", "nvidia/cu12/bin/", "nvidia/cuda_nvdisasm/bin/",
                            "nvidia/cuda_cuobjdump/bin/"})
      if (is_executable_file(sp + "/" + sub + name)) return sp + "/" + sub + name;
  return "";
}

std::string find_nvdisasm(const std::string& explicit_path) {
  tool_timeout_s();  // a bad DIVBENCH_TOOL_TIMEOUT_S is one line naming it, before any search or run
  if (!explicit_path.empty() && !is_executable_file(explicit_path))
    throw UsageError("--nvdisasm: '" + explicit_path + "' is not an executable file");
  auto p = locate_tool("nvdisasm", explicit_path);
  if (p.empty())
    throw UsageError(std::string("nvdisasm not found (looked in ") + kNvdisasmSearch +
                     "); install it (pip install nvidia-cuda-nvdisasm) or pass --nvdisasm PATH");
  return p;
}

std::string find_cuobjdump(const std::string& nvdisasm_path) {
  if (!nvdisasm_path.empty()) {
    auto sib = (fs::path(nvdisasm_path).parent_path() / "cuobjdump").string();
    if (is_executable_file(sib)) return sib;
  }
  auto p = locate_tool("cuobjdump");
  if (p.empty())
    throw UsageError(
        "cuobjdump not found (needed to extract cubins from executables and objects); install it "
        "(pip install nvidia-cuda-cuobjdump) or put it next to nvdisasm");
  return p;
}

FileInfo inspect_bytes(const std::string& bytes, const std::string& path) {
  FileInfo info;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  if (bytes.size() >= 4 && bytes.compare(0, 4, "\x50\xed\x55\xba") == 0) {  // fatbin container
    info.kind = FileKind::fatbin;
    return info;
  }
  // Header, section table and every section's bounds: the ELF reader the cubin tools use too.
  const ElfHeader h = read_elf(data, bytes.size(), path).header;
  if (h.machine == kEmCuda) {
    info.kind = FileKind::cubin;
    info.sm = sm_from_e_flags(h.flags, h.abi_version);
  } else {
    info.kind = FileKind::host_elf;
  }
  return info;
}

FileInfo inspect_file(const std::string& path) {
  // The magic number from the first bytes only: a huge file that is no ELF is refused without reading it.
  const std::string head = read_file_head(path, 64);
  const bool elf = head.size() >= 4 && head.compare(0, 4, "\x7f" "ELF") == 0;
  const bool fatbin = head.size() >= 4 && head.compare(0, 4, "\x50\xed\x55\xba") == 0;
  if (!elf && !fatbin) return inspect_bytes(head, path);  // throws: not an ELF file
  return inspect_bytes(read_regular_file(path), path);
}

std::vector<std::string> extract_cubins(const std::string& file, const std::string& cuobjdump, const std::string& dir) {
  const std::string abs = fs::absolute(file).string();
  auto r = run_process({cuobjdump, "-xelf", "all", abs}, dir);
  if (r.exit_code != 0) {
    std::string msg = r.err.empty() ? r.out : r.err;
    msg = msg.substr(0, msg.find('\n'));
    if (msg.find("does not contain device code") != std::string::npos)
      throw UsageError(file + ": contains no CUDA device code (no embedded cubin)");
    throw UsageError(file + ": cuobjdump could not extract cubins (" + msg + ")");
  }
  std::vector<std::string> cubins;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".cubin") cubins.push_back(e.path().string());
  std::sort(cubins.begin(), cubins.end());
  if (cubins.empty()) throw UsageError(file + ": contains no cubin (no device code for a real architecture)");
  return cubins;
}

std::string tool_version(const std::string& tool) {
  try {
    auto r = run_process({tool, "--version"});
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);)
      if (l.find("release") != std::string::npos) return l.substr(l.find("release"));
  } catch (const std::exception&) {
  }
  return "unknown";
}

namespace {

// Whether this nvdisasm's -json -g carries the line table (13.5 does; 13.0 and 12.x do not, and their
// line numbers come from the text listing's comments). Asked once per tool path; a version it cannot
// read counts as without.
bool json_has_line_table(const std::string& nvdisasm) {
  static std::mutex mutex;
  static std::map<std::string, bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = known.find(nvdisasm);
  if (it != known.end()) return it->second;
  int major = 0, minor = 0;
  std::sscanf(tool_version(nvdisasm).c_str(), "release %d.%d", &major, &minor);
  return known[nvdisasm] = major > 13 || (major == 13 && minor >= 5);
}

std::string first_line(const std::string& s) {
  auto t = s;
  while (!t.empty() && (t[0] == '\n' || t[0] == ' ')) t.erase(0, 1);
  return t.substr(0, t.find('\n'));
}

[[noreturn]] void nvdisasm_failed(const std::string& cubin, int sm, const std::string& nvdisasm, const ProcessResult& r) {
  const std::string why = first_line(r.err.empty() ? r.out : r.err);
  if (why.find("Cannot decode architecture") != std::string::npos || why.find("nsupported") != std::string::npos ||
      why.find("deprecated") != std::string::npos)
    throw UsageError(cubin + ": unsupported architecture sm_" + std::to_string(sm) + " for nvdisasm " +
                     tool_version(nvdisasm) + " (sm_5x/sm_6x/sm_70 need a CUDA 12.x nvdisasm, --nvdisasm PATH)");
  throw UsageError(cubin + ": nvdisasm failed with exit code " + std::to_string(r.exit_code) + ": " + why);
}

}  // namespace

void merge_listing(Cubin& into, Cubin&& part) {
  std::vector<int> file_index(part.source_files.size(), -1);
  for (std::size_t i = 0; i < part.source_files.size(); ++i) {
    const auto it = std::find(into.source_files.begin(), into.source_files.end(), part.source_files[i]);
    file_index[i] = static_cast<int>(it - into.source_files.begin());
    if (it == into.source_files.end()) into.source_files.push_back(part.source_files[i]);
  }
  for (auto& f : part.functions) {
    for (auto& ins : f.instructions)
      if (ins.source_file >= 0)
        ins.source_file = static_cast<std::size_t>(ins.source_file) < file_index.size() ? file_index[ins.source_file] : -1;
    into.functions.push_back(std::move(f));
  }
}

Cubin disassemble(const std::string& cubin_path, const std::string& nvdisasm, const DisassembleOptions& opt) {
  const FileInfo info = inspect_file(cubin_path);
  if (info.kind != FileKind::cubin) throw UsageError(cubin_path + ": not a cubin (ELF machine is not EM_CUDA)");
  Cubin c;
  c.path = c.source = cubin_path;
  c.sm = info.sm;
  ListingMeta meta;
  std::vector<std::string> json_argv = {nvdisasm, "-json"};
  if (opt.line_info) json_argv.push_back("-g");
  std::string fun;
  for (std::size_t i : opt.function_symbols) fun += (fun.empty() ? "" : ",") + std::to_string(i);
  if (!fun.empty()) json_argv.insert(json_argv.end(), {"-fun", fun});
  json_argv.push_back(file_arg(cubin_path));
  // The text listing (BRX jump tables, Maxwell/Pascal encodings; with line info its -g line comments,
  // for an nvdisasm whose -json has no line table: 13.0, 12.x), run only for what the JSON listing and
  // the cubin's own bytes (elf_facts.hpp) do not give.
  std::vector<std::string> text_argv = {nvdisasm, "-c", "-hex"};
  if (opt.line_info) text_argv.push_back("-g");
  if (!fun.empty()) text_argv.insert(text_argv.end(), {"-fun", fun});
  text_argv.push_back(file_arg(cubin_path));
  // The listing cache: the caller's folder, else $DIVBENCH_NVDISASM_CACHE (how CI shares listings
  // between the build's kernel facts and every test that disassembles the same cubins).
  const std::string cache = !opt.listing_cache.empty() ? opt.listing_cache : env("DIVBENCH_NVDISASM_CACHE");
  const std::string bytes = cache.empty() && !opt.encodings ? std::string() : read_regular_file(cubin_path);
  auto run = [&](const std::vector<std::string>& argv) { return run_listing(argv, bytes, cache); };
  // Known before the JSON run: the text listing will be needed (it then runs beside the JSON one, so
  // that the wall time is one run's).
  const bool pre_volta = info.sm > 0 && info.sm < 70;
  std::future<ProcessResult> text_run;
  if (opt.text_listing || (opt.encodings && pre_volta) || (opt.line_info && !json_has_line_table(nvdisasm)))
    text_run = std::async(std::launch::async, [&] { return run(text_argv); });
  auto r = run(json_argv);
  bool have_json = r.exit_code == 0;
  if (!have_json) {
    const std::string why = r.err + r.out;
    const bool no_json_option = why.find("nknown option") != std::string::npos && why.find("json") != std::string::npos;
    if (!no_json_option) {
      if (text_run.valid()) text_run.wait();
      nvdisasm_failed(cubin_path, info.sm, nvdisasm, r);
    }
  } else {
    c.functions = parse_nvdisasm_json_text(r.out, &meta);
  }
  const bool text_lines = opt.line_info && meta.source_files.empty();
  bool need_text = text_run.valid() || !have_json || text_lines;
  if (opt.encodings && !need_text)
    need_text = has_indirect_branch(c.functions) || !apply_elf_facts(c.functions, bytes, cubin_path);
  if (need_text) {
    auto t = text_run.valid() ? text_run.get() : run(text_argv);
    if (t.exit_code != 0) nvdisasm_failed(cubin_path, info.sm, nvdisasm, t);
    auto text_fns = parse_nvdisasm_text(t.out, info.sm);
    if (have_json) merge_text_listing(c.functions, text_fns);
    else c.functions = std::move(text_fns);
    if (text_lines) apply_line_table(c.functions, meta.source_files, t.out);
  }
  c.producer = meta.producer.empty() ? "nvdisasm " + tool_version(nvdisasm) : meta.producer;
  c.toolkit = meta.toolkit;
  c.source_files = meta.source_files;
  if (meta.sm && meta.sm != c.sm && c.sm == 0) c.sm = meta.sm;
  return c;
}

std::vector<CubinFile> cubin_files(const std::string& file, const std::string& nvdisasm, TempDir& tmp) {
  const FileInfo info = inspect_file(file);
  if (info.kind == FileKind::cubin) return {CubinFile{file, file}};
  const std::string dir = tmp.path() + "/" + std::to_string(std::hash<std::string>{}(file));
  fs::create_directories(dir);
  std::vector<CubinFile> out;
  for (const auto& cub : extract_cubins(file, find_cuobjdump(nvdisasm), dir)) out.push_back(CubinFile{cub, file});
  return out;
}

std::vector<Cubin> load_cubins(const std::string& file, const std::string& nvdisasm, TempDir& tmp,
                               const DisassembleOptions& opt) {
  std::vector<Cubin> out;
  for (const auto& f : cubin_files(file, nvdisasm, tmp)) {
    out.push_back(disassemble(f.path, nvdisasm, opt));
    out.back().source = f.source;
  }
  return out;
}

}  // namespace divbench::sass
