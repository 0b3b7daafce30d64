// Finding and running the CUDA binary utilities (nvdisasm, cuobjdump), getting cubins out of
// executables/objects, and disassembling a cubin into the instruction model.
//
// Search order for nvdisasm (the same in the tool and in the tests):
//   1. an explicit path (--nvdisasm), which must exist and be executable,
//   2. $DIVBENCH_NVDISASM,
//   3. PATH,
//   4. $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin,
//   5. the PyPI wheel nvidia-cuda-nvdisasm: <site-packages>/nvidia/cu13/bin (and cu12), found by
//      asking python3 (or $DIVBENCH_PYTHON) for site.getsitepackages()/getusersitepackages().
// cuobjdump: next to the chosen nvdisasm first, then the same order ($DIVBENCH_CUOBJDUMP at 2).
// Nothing runs through a shell: argv is passed to execvp, stdout/stderr are captured.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/process.hpp"
#include "divbench/sass/elf.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::sass {

// Where find_nvdisasm looks, in order, when no path is given (its error and every --nvdisasm help say it).
inline constexpr const char* kNvdisasmSearch =
    "$DIVBENCH_NVDISASM, PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin and pip's nvidia/cu13/bin";
// Throws UsageError("nvdisasm not found ...; install ... or pass --nvdisasm PATH") when absent.
std::string find_nvdisasm(const std::string& explicit_path = "");
// Throws UsageError when absent.
std::string find_cuobjdump(const std::string& nvdisasm_path = "");
// Like the two above but returns "" instead of throwing (for tests that skip).
std::string locate_tool(const std::string& name, const std::string& explicit_path = "");


// What a file is, from its first bytes and ELF header.
enum class FileKind { cubin, host_elf, fatbin, other };
struct FileInfo {
  FileKind kind = FileKind::other;
  int sm = 0;  // cubin only: SM number from e_flags (bits 8-15 for ABI version >= 8, else 0-7)
};
// Throws UsageError for a missing/unreadable file or one that is not a regular file (a FIFO is
// refused, never opened for a blocking read), a non-ELF non-fatbin file ("not an ELF file"), or an
// ELF file read_elf refuses (elf.hpp: not ELF64 little endian, or a truncated header, section table
// or section; every bound is checked without sums that could wrap past 2^64).
FileInfo inspect_file(const std::string& path);
// The same on bytes already read; `path` names the file in messages.
FileInfo inspect_bytes(const std::string& bytes, const std::string& path);

// Cubins embedded in an executable, object or fatbin: `cuobjdump -xelf all` run inside `dir`.
// Returns the extracted cubin paths (sorted). Throws UsageError when there are none.
std::vector<std::string> extract_cubins(const std::string& file, const std::string& cuobjdump,
                                        const std::string& dir);

struct DisassembleOptions {
  // The 128-bit encodings, subroutine symbols and CALL targets (from the cubin's bytes, elf_facts.hpp;
  // Maxwell/Pascal encodings and BRX/JMX jump tables from a second run, the text listing).
  bool encodings = true;
  bool line_info = false;  // -g: each instruction's source file and line (Instruction::source_*)
  // -fun: only the functions of these ELF symbol indices (empty: every function).
  std::vector<std::size_t> function_symbols;
  // Also run the text listing where the JSON one and the bytes suffice, and merge it (labels, and what
  // the bytes gave, from nvdisasm instead): the cross-check of elf_facts.hpp in the tests.
  bool text_listing = false;
  // Non-empty: nvdisasm's listings are kept in (and taken from) this folder (listing_cache.hpp).
  // Empty: $DIVBENCH_NVDISASM_CACHE where set (a folder that cannot be used only costs the runs).
  std::string listing_cache;
};
// Disassembles one cubin: `nvdisasm -json` (model) plus, on sm_70 and later, the cubin's own bytes
// (encodings, subroutine symbols: elf_facts.hpp); `nvdisasm -c -hex` (the text listing: BRX
// BRANCH_TARGETS, Maxwell/Pascal encodings, labels) runs too, and is merged, only where needed. Falls
// back to the text listing alone when the nvdisasm has no -json. Throws UsageError with one line when nvdisasm rejects the file (e.g.
// "unsupported architecture sm_61 for nvdisasm 13.5 ...").
Cubin disassemble(const std::string& cubin_path, const std::string& nvdisasm,
                  const DisassembleOptions& opt = {});

// Appends the functions of `part` (another listing of the same cubin, e.g. of other -fun symbols) to
// `into`, their source-file indices mapped onto `into`'s list of files.
void merge_listing(Cubin& into, Cubin&& part);

// All cubins of a user-named file: the file itself when it is a cubin, else the extracted ones.
// `tmp` keeps extracted files alive as long as the returned Cubins' paths are needed.
std::vector<Cubin> load_cubins(const std::string& file, const std::string& nvdisasm, TempDir& tmp,
                               const DisassembleOptions& opt = {});

// The cubin files load_cubins would disassemble, each with the user-named file it came from
// (extracted ones live in `tmp`), so that callers can disassemble them in parallel.
struct CubinFile {
  std::string path;
  std::string source;
};
std::vector<CubinFile> cubin_files(const std::string& file, const std::string& nvdisasm, TempDir& tmp);

// First line of `nvdisasm --version` that names the release, e.g. "release 13.5, V13.5.37".
std::string tool_version(const std::string& tool);

}  // namespace divbench::sass
