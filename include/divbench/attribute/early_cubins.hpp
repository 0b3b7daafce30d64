// Disassembly begun before the program loads its code. Most of `divbench attribute`'s own time on a
// program of many kernels is nvdisasm's (a fixed cost per cubin, then per function), and the modules
// the program loads are saved only when it loads them, well into its run (CUPTI's start-up comes
// first). The executable's own cubins are known before it starts: `cuobjdump -xelf all` extracts them,
// and those of the GPU's architecture are disassembled at once, beside the program. A module the
// program then loads is matched to one by its bytes (identical, not a name or a size), so a match can
// only ever save time: a module without one (a shared library's, NVRTC's, another architecture's) is
// disassembled as before, and a disassembly no module matches is wasted CPU, reported as such.
#pragma once
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::attribute {

class EarlyCubins {
 public:
  // Disassembles one cubin (its path; a label for the timing record).
  using Disassemble = std::function<sass::Cubin(const std::string& label, const std::string& path)>;
  // Starts in the background: the extraction of `program`'s cubins into `dir` (with `cuobjdump`), the
  // choice of those for `device_sm` (0: the architecture of the cubins when they share one, else the
  // driver's device 0), and one `disassemble` per chosen cubin of at most `max_bytes`. Nothing here
  // throws: a program that is not an executable with device code is simply not helped.
  EarlyCubins(const std::string& program, const std::string& cuobjdump, const std::string& dir,
              std::uintmax_t max_bytes, Disassemble disassemble, int device_sm = 0);
  ~EarlyCubins();  // waits for what it started
  EarlyCubins(const EarlyCubins&) = delete;
  EarlyCubins& operator=(const EarlyCubins&) = delete;

  // The disassembly of the executable's cubin whose bytes equal those of the file at `saved` (a module
  // the program loaded), at most once per cubin; nullopt when none does. Waits for the extraction (not
  // for the disassembly) up to `wait_s`.
  struct Match {
    std::shared_future<sass::Cubin> cubin;
    std::string label;  // the label its disassembly was given ("executable:<extracted file>")
  };
  std::optional<Match> take(const std::string& saved, double wait_s = 5.0);

  // What was done: {program, cubins (extracted), device_sm, started: [{file, sm, bytes, matched}], why}
  // (`why`: why nothing was started, when nothing was).
  json summary();

 private:
  struct Entry {
    std::string file;
    std::string label;
    int sm = 0;
    std::vector<char> bytes;
    std::shared_future<sass::Cubin> cubin;
    bool taken = false;
  };
  void prepare(const std::string& program, const std::string& cuobjdump, const std::string& dir,
               std::uintmax_t max_bytes, int device_sm);

  Disassemble disassemble_;
  std::mutex mutex_;
  std::vector<Entry> entries_;
  int extracted_ = 0;
  int device_sm_ = 0;
  std::string program_;
  std::string why_;
  std::shared_future<void> ready_;
};

}  // namespace divbench::attribute
