#include "divbench/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "divbench/core/errors.hpp"

namespace divbench {

namespace {
// Opens `path` for reading without blocking and checks (fstat, into `st`) that it is a regular file; returns the fd.
int open_regular(const std::string& path, struct stat& st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw UsageError(path + ": no such file");
    throw UsageError(path + ": cannot be read (" + std::strerror(err) + ")");
  }
  std::string why;
  if (::fstat(fd, &st) != 0) why = path + ": cannot be read (" + std::strerror(errno) + ")";
  else if (S_ISDIR(st.st_mode)) why = path + ": is a directory, not a file";
  else if (!S_ISREG(st.st_mode)) why = path + ": not a regular file (a FIFO, device or socket)";
  if (!why.empty()) {
    ::close(fd);
    throw UsageError(why);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};
}  // namespace

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes) {
  struct stat st {};
  const FdCloser closer{open_regular(path, st)};
  const int fd = closer.fd;
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw UsageError(path + ": " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
                     " this input may have");
  std::string data;
  if (st.st_size > 0) data.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw UsageError(path + ": cannot be read (" + std::strerror(errno) + ")");
    if (got == 0) break;
    data.append(buf, static_cast<std::size_t>(got));
    if (data.size() > max_bytes) throw UsageError(path + ": more than the " + std::to_string(max_bytes) + " bytes this input may have");
  }
  return data;
}

std::string read_file_head(const std::string& path, std::size_t n) {
  struct stat st {};
  const FdCloser closer{open_regular(path, st)};
  std::string data(n, '\0');
  std::size_t have = 0;
  while (have < n) {
    const ssize_t got = ::read(closer.fd, data.data() + have, n - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw UsageError(path + ": cannot be read (" + std::strerror(errno) + ")");
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  data.resize(have);
  return data;
}

bool write_all(int fd, const std::string& text) {
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += static_cast<std::size_t>(w);
  }
  return true;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea || eb) return false;
  // Neither exists yet (two outputs about to be written): one file when both spellings resolve to one path
  // ("out.json", "./out.json", "d/../out.json", through a linked folder).
  std::error_code ec1, ec2;
  const auto ca = std::filesystem::weakly_canonical(a, ec1), cb = std::filesystem::weakly_canonical(b, ec2);
  return !ec1 && !ec2 && ca == cb;
}

void check_output(const std::string& opt, const std::string& out, const std::vector<std::string>& inputs) {
  if (out.empty()) throw UsageError(opt + ": empty path");
  for (const auto& in : inputs)
    if (!in.empty() && same_file(out, in))
      throw UsageError(opt + " " + out + " is an input of this command (" + in + "): inputs are never overwritten");
  struct stat st {};
  if (::stat(out.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw UsageError(opt + ": cannot write " + out + ": is a directory; give a file name");
  if (::stat(out.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UsageError(opt + " " + out + ": exists and is not a regular file (a FIFO, device or socket); give a file name");
  struct stat lst {};
  if (::lstat(out.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode) && ::stat(out.c_str(), &st) != 0)
    throw UsageError(opt + " " + out + ": a symlink to nothing; give a file name");
}

std::string one_line(const std::string& text) {
  std::string s;
  s.reserve(text.size());
  for (char c : text) {
    if (c == '\n') s += "\\n";
    else if (c == '\r') s += "\\r";
    else s += c;
  }
  return s;
}

}  // namespace divbench
