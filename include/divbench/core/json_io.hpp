// The one JSON writer: atomic (temp file + fsync + rename + fsync of the directory), and a strict reader.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace divbench {

using json = nlohmann::ordered_json;

// A file reserved now and written later, atomically: the constructor creates a temporary file next
// to `path` (so an unwritable target fails before any work, with one line: UsageError); commit()
// writes the text, fsyncs it, renames it onto `path` and fsyncs the directory; a ReservedFile
// destroyed without commit removes its temporary file, leaving nothing behind.
class ReservedFile {
 public:
  explicit ReservedFile(const std::string& path);
  ~ReservedFile();
  ReservedFile(ReservedFile&& o) noexcept;
  ReservedFile& operator=(ReservedFile&&) = delete;
  ReservedFile(const ReservedFile&) = delete;
  ReservedFile& operator=(const ReservedFile&) = delete;
  void commit(const std::string& text);
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_;
  int fd_ = -1;
};

// Write `doc` (json_text) to `path` atomically: the file either keeps
// its old content or holds the complete new one, also across a crash or power loss: the temporary file
// is fsynced before the rename, and the directory after it (so the rename itself is on disk). Throws
// UsageError if the directory is missing or not writable, std::runtime_error when a write or sync fails
// (a directory fsync that the file system does not support, EINVAL, is not an error).
void write_json_atomic(const std::string& path, const json& doc);

// A document as divbench prints and writes it, the one text form: objects indented by 2 spaces, one
// key a line, but an array of scalars (raw samples, residuals, k lists) on one line, so a result with
// thousands of samples stays readable and small; trailing newline. Bytes that are not UTF-8 (a symbol
// name from a crafted cubin, say) become U+FFFD instead of an exception.
std::string json_text(const json& doc);

// Write any text atomically (CSV, markdown); same guarantees as write_json_atomic.
void write_text_atomic(const std::string& path, const std::string& text);

// Read and parse a JSON file. Throws UsageError with the path and the parser's message on failure.
json read_json_file(const std::string& path);

// A JSON integer within [lo, hi] (`what` names it in the error): a fraction, a float such as 3e101, a
// value out of range or of another type throws UsageError. nlohmann's get<int>() of such a number is
// undefined behaviour (found by fuzz_nvdisasm_json); every reader of an integer field takes it here.
std::int64_t integer_in(const json& v, std::int64_t lo, std::int64_t hi, const std::string& what);
// The same for an unsigned 64-bit field (an address, a length, a count).
std::uint64_t unsigned_in(const json& v, const std::string& what);

// True when `path` could be created or replaced (its directory exists and a file can be created
// there: checked by creating and removing one, since access() says yes to root even on /proc).
bool path_is_writable(const std::string& path, std::string* why = nullptr);

namespace detail {
// Test seam: the fsync the writer calls (default ::fsync). Returns the previous one.
using FsyncFn = int (*)(int fd);
FsyncFn set_fsync_for_testing(FsyncFn fn);
}  // namespace detail

}  // namespace divbench
