#include "divbench/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "divbench/core/errors.hpp"

namespace divbench {

std::string read_regular_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw UsageError(path + ": no such file");
    throw UsageError(path + ": cannot be read (" + std::strerror(err) + ")");
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw UsageError(path + ": cannot be read (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw UsageError(path + ": is a directory, not a file");
  if (!S_ISREG(st.st_mode)) throw UsageError(path + ": not a regular file (a FIFO, device or socket)");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string data;
  if (st.st_size > 0) data.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw UsageError(path + ": cannot be read (" + std::strerror(errno) + ")");
    if (got == 0) break;
    data.append(buf, static_cast<std::size_t>(got));
  }
  return data;
}

}  // namespace divbench
