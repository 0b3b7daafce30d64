// Reading a user-named input file safely: only a regular file is opened for reading (a FIFO, a
// device or a socket would block or never end), and every refusal is one UsageError line.
#pragma once
#include <string>

namespace divbench {

// The whole content of `path`. Throws UsageError: "PATH: no such file", "PATH: is a directory ...",
// "PATH: not a regular file (a FIFO, device or socket)", "PATH: cannot be read (...)".
// The file is opened without blocking (O_NONBLOCK) and checked with fstat before any read, so a
// FIFO is refused at once instead of waiting for a writer.
std::string read_regular_file(const std::string& path);

}  // namespace divbench
