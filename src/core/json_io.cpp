#include "divbench/core/json_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "divbench/core/errors.hpp"

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

void write_text_atomic(const std::string& path, const std::string& text) {
  std::string why;
  if (!path_is_writable(path, &why)) throw UsageError("cannot write " + path + ": " + why);
  std::string tmpl = (fs::path(dir_of(path)) / ("." + fs::path(path).filename().string() + ".XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) throw UsageError("cannot write " + path + ": " + std::strerror(errno));
  const std::string tmp(buf.data());
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("writing " + tmp + ": " + err);
    }
    off += static_cast<std::size_t>(w);
  }
  ::fchmod(fd, 0644);
  if (detail::g_fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("flushing " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error("renaming " + tmp + " to " + path + ": " + err);
  }
  sync_directory(dir_of(path), path);
}

void write_json_atomic(const std::string& path, const json& doc) {
  write_text_atomic(path, doc.dump(2) + "\n");
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw UsageError(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
}

}  // namespace divbench
