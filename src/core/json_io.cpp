#include "divbench/core/json_io.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <utility>
#include <vector>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"

namespace divbench {
namespace fs = std::filesystem;

namespace detail {
namespace {
FsyncFn g_fsync = &::fsync;
}  // namespace
FsyncFn set_fsync_for_testing(FsyncFn fn) {
  const FsyncFn old = g_fsync;
  g_fsync = fn ? fn : &::fsync;
  return old;
}
}  // namespace detail

namespace {
// Makes a rename in `dir` durable: fsync of the directory itself.
void sync_directory(const std::string& dir, const std::string& path) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("wrote " + path + " but cannot open its directory to sync it: " + std::strerror(errno));
  const int rc = detail::g_fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL)  // EINVAL: this file system cannot sync directories
    throw std::runtime_error("wrote " + path + " but syncing its directory failed: " + std::strerror(err));
}

std::string dir_of(const std::string& path) {
  fs::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}
}  // namespace

bool path_is_writable(const std::string& path, std::string* why) {
  if (path.empty()) {
    if (why) *why = "empty path";
    return false;
  }
  const std::string dir = dir_of(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (why) *why = "directory '" + dir + "' does not exist";
    return false;
  }
  if (fs::is_directory(path, ec)) {
    if (why) *why = "'" + path + "' is a directory";
    return false;
  }
  // The output rule (files.hpp): a FIFO, device or socket is never replaced by a renamed file.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (why) *why = "'" + path + "' exists and is not a regular file (a FIFO, device or socket)";
    return false;
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    if (why) *why = "directory '" + dir + "' is not writable";
    return false;
  }
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) {
    if (why) *why = "'" + path + "' is not writable";
    return false;
  }
  // access() says yes to root everywhere, /proc included: create (and remove) the writer's temporary
  // file to know for sure, before any work whose result could not be written.
  std::string probe = (fs::path(dir) / ".divbench-probe.XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    if (why) *why = "cannot create a file in '" + dir + "' (" + std::strerror(errno) + ")";
    return false;
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

namespace {
// The output rule for a symlink (files.hpp): an output that is a symlink to a regular file is written
// through to that file (its resolved path), never replaced by a renamed file; anything else as it is
// (check_output and path_is_writable refuse links to nothing or to a special file).
std::string write_target(const std::string& path) {
  struct stat lst {}, st {};
  if (::lstat(path.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) return path;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return path;
  std::error_code ec;
  const fs::path resolved = fs::canonical(path, ec);
  return ec ? path : resolved.string();
}
}  // namespace

ReservedFile::ReservedFile(const std::string& path) : path_(path) {
  const std::string target = write_target(path);  // a symlink to a regular file: that file, in its folder
  std::string why;
  if (!path_is_writable(target, &why)) throw UsageError("cannot write " + path + ": " + why);
  std::string tmpl = (fs::path(dir_of(target)) / ("." + fs::path(target).filename().string() + ".XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  fd_ = ::mkstemp(buf.data());
  if (fd_ < 0) throw UsageError("cannot write " + path + ": " + std::strerror(errno));
  tmp_ = buf.data();
}

ReservedFile::ReservedFile(ReservedFile&& o) noexcept
    : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(std::exchange(o.fd_, -1)) {
  o.tmp_.clear();
}

ReservedFile::~ReservedFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void ReservedFile::commit(const std::string& text) {
  if (fd_ < 0 || tmp_.empty()) throw std::logic_error("ReservedFile::commit: already committed");
  const std::string tmp = tmp_;
  if (!write_all(fd_, text)) throw std::runtime_error("writing " + tmp + ": " + std::strerror(errno));
  ::fchmod(fd_, 0644);
  const int fd = std::exchange(fd_, -1);
  const bool synced = detail::g_fsync(fd) == 0;
  const int err = errno;
  if (::close(fd) != 0 || !synced) throw std::runtime_error("flushing " + tmp + ": " + std::strerror(synced ? errno : err));
  // The file the temporary replaces: path_, or the regular file it links to (the link is kept).
  const std::string target = write_target(path_);
  if (dir_of(target) != dir_of(tmp))
    throw std::runtime_error("not writing " + path_ + ": the file it links to changed while divbench ran");
  if (std::rename(tmp.c_str(), target.c_str()) != 0)
    throw std::runtime_error("renaming " + tmp + " to " + target + ": " + std::strerror(errno));
  tmp_.clear();
  // The rename is durable only once the directory entry is: fsync the directory too.
  sync_directory(dir_of(target), target);
}

void write_text_atomic(const std::string& path, const std::string& text) { ReservedFile(path).commit(text); }

namespace {
void append_text(std::string& out, const json& v, int depth) {
  const std::string pad(static_cast<std::size_t>(2 * (depth + 1)), ' '), close(static_cast<std::size_t>(2 * depth), ' ');
  if (v.is_object() && !v.empty()) {
    out += "{\n";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out += first ? "" : ",\n";
      first = false;
      out += pad + json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
      append_text(out, it.value(), depth + 1);
    }
    out += "\n" + close + "}";
  } else if (v.is_array() && !v.empty() &&
             std::any_of(v.begin(), v.end(), [](const json& e) { return e.is_structured(); })) {
    out += "[\n";
    for (std::size_t i = 0; i < v.size(); ++i) {
      out += (i ? ",\n" : "") + pad;
      append_text(out, v[i], depth + 1);
    }
    out += "\n" + close + "]";
  } else if (v.is_array()) {
    out += "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i].dump(-1, ' ', false, json::error_handler_t::replace);
    out += "]";
  } else {
    out += v.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}
}  // namespace

std::string json_text(const json& doc) {
  std::string out;
  append_text(out, doc, 0);
  return out + "\n";
}

void write_json_atomic(const std::string& path, const json& doc) { write_text_atomic(path, json_text(doc)); }

// The deepest nesting of arrays and objects in `text` (outside strings): a document nested deeper than any
// divbench writes is refused before it is parsed, since code that walks a parsed document recurses.
std::size_t nesting_depth(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

namespace {
std::string shown_value(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() <= 40 ? s : s.substr(0, 37) + "...";
}
}  // namespace

std::int64_t integer_in(const json& v, std::int64_t lo, std::int64_t hi, const std::string& what) {
  const bool ok = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::max<std::int64_t>(hi, 0)) &&
                                               static_cast<std::int64_t>(v.get<std::uint64_t>()) >= lo
                  : v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  if (!ok)
    throw UsageError(what + " is " + shown_value(v) + ", not an integer " + std::to_string(lo) + ".." + std::to_string(hi));
  return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
}

std::uint64_t unsigned_in(const json& v, const std::string& what) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  throw UsageError(what + " is " + shown_value(v) + ", not an unsigned integer");
}

namespace {

// Bytes a parsed document of `text_bytes` may take: nlohmann's ordered_json holds a 200 MB attribute
// document in 6.4 GB (measured: 32x). Parsing one that does not fit ends in bad_alloc, and the partial
// document's destructor (noexcept, it allocates its own stack) then aborts the process: so the memory is
// checked first.
constexpr std::uint64_t kParsedPerTextByte = 40;

// Bytes this process may still allocate: the address-space limit less what it maps now, and the
// system's available memory; the smaller. UINT64_MAX when neither is known.
std::uint64_t allocatable_bytes() {
  std::uint64_t room = UINT64_MAX;
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    std::uint64_t mapped = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      unsigned long long pages = 0;
      if (std::fscanf(f, "%llu", &pages) == 1) mapped = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
      std::fclose(f);
    }
    room = lim.rlim_cur > mapped ? lim.rlim_cur - mapped : 0;
  }
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    unsigned long long kb = 0;
    while (std::fscanf(f, "%63s %llu kB", key, &kb) == 2)
      if (std::string(key) == "MemAvailable:") {
        room = std::min<std::uint64_t>(room, kb * 1024ull);
        break;
      }
    std::fclose(f);
  }
  return room;
}

}  // namespace

json read_json_file(const std::string& path) {
  const std::string text = read_regular_file(path);  // a FIFO, device or directory: one line, never a hang
  if (const std::uint64_t room = allocatable_bytes(); text.size() > room / kParsedPerTextByte)
    throw UsageError(path + ": " + std::to_string(text.size()) + " bytes of JSON need about " +
                     std::to_string(text.size() * kParsedPerTextByte >> 20) + " MiB once parsed, more than the " +
                     std::to_string(room >> 20) + " MiB this process may allocate; give a smaller document (or more memory)");
  constexpr std::size_t kMaxDepth = 256;  // divbench's own documents nest fewer than 12 levels
  if (const std::size_t d = nesting_depth(text); d > kMaxDepth)
    throw UsageError(path + ": JSON nested " + std::to_string(d) + " levels deep, more than the " + std::to_string(kMaxDepth) +
                     " a divbench input may have");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e400
    throw UsageError(path + ": not valid JSON (" + std::string(e.what()) + ")");
  } catch (const std::bad_alloc&) {  // a parsed document takes 10-30x its text: one line, not an abort
    throw UsageError(path + ": " + std::to_string(text.size()) + " bytes of JSON do not fit in the memory available "
                     "once parsed; give a smaller document (or more memory)");
  }
}

}  // namespace divbench
