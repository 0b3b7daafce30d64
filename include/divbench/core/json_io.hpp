// The one JSON writer: atomic (temp file + fsync + rename), and a strict reader.
#pragma once
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

// The one text form of a document: objects indented by 2 spaces, one key a line, but an array of
// scalars (samples, residuals, k lists) on one line, so a result with thousands of raw samples stays
// readable and small. Trailing newline. Numbers and strings are written as nlohmann::json writes them.
std::string to_text(const json& doc);

// Write `doc` (to_text) to `path` atomically: the file either keeps
// its old content or holds the complete new one. Throws UsageError if the directory is missing or
// not writable.
void write_json_atomic(const std::string& path, const json& doc);

// Write any text atomically (CSV, markdown); same guarantees as write_json_atomic.
void write_text_atomic(const std::string& path, const std::string& text);

// Read and parse a JSON file. Throws UsageError with the path and the parser's message on failure.
json read_json_file(const std::string& path);

// True when `path` could be created or replaced (its directory exists and is writable).
bool path_is_writable(const std::string& path, std::string* why = nullptr);

}  // namespace divbench
