// Reading a user-named input file safely, and the one output rule (docs/bad-input.md, "The output
// rule"): only a regular file is opened for reading (a FIFO, a device or a socket would block or never
// end), an output never lands on an input or on a special file, and every refusal is one UsageError line.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace divbench {

// The largest input file read whole by default (a JSON document, a cubin, an executable): 1 GiB.
inline constexpr std::uint64_t kMaxInputBytes = std::uint64_t(1) << 30;

// The whole content of `path`. Throws UsageError: "PATH: no such file", "PATH: is a directory ...",
// "PATH: not a regular file (a FIFO, device or socket)", "PATH: cannot be read (...)", "PATH: N bytes,
// more than the M this input may have" (checked with fstat, before any read).
// The file is opened without blocking (O_NONBLOCK) and checked with fstat before any read, so a
// FIFO is refused at once instead of waiting for a writer.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes = kMaxInputBytes);

// Writes all of `text` to `fd`, retrying on EINTR and short writes. False when a write fails or
// writes nothing (errno then says why, for a failed write); the bytes before it are written.
bool write_all(int fd, const std::string& text);

// The first `n` bytes of `path` (fewer if the file is shorter): the same checks as read_regular_file
// except the size bound, and only those bytes are read (a magic number is checked from them).
std::string read_file_head(const std::string& path, std::size_t n);

// True when `a` and `b` both exist and are the same file (st_dev and st_ino after following symlinks:
// a symlink, a hard link or another spelling of the same path all count), or neither exists and both
// spellings resolve to one path (two outputs not written yet).
bool same_file(const std::string& a, const std::string& b);

// The output rule, checked before any work: `out` (named by option `opt`) must not be any of `inputs`
// (same_file: realpath and hard links included), and if it exists it must be a regular file (a
// directory, FIFO, device, socket or a symlink to one is refused: the writers replace the file by
// renaming a complete temporary file over it, which would turn /dev/null into a regular file).
// Throws UsageError with one line; creates and removes nothing.
void check_output(const std::string& opt, const std::string& out, const std::vector<std::string>& inputs);

// The one line of an error message: a newline (from a file name, a tool's output) becomes "\n" written
// out, so that a message is always one line.
std::string one_line(const std::string& text);

}  // namespace divbench
