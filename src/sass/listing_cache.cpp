#include "divbench/sass/listing_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"  // write_all
#include "divbench/core/json_io.hpp"  // path_is_writable

namespace fs = std::filesystem;

namespace divbench::sass {

namespace {

constexpr const char* kHeader = "divbench nvdisasm listing/1";

// Two FNV-1a 64 hashes with different offset bases: 128 bits, ample for a cache of a few thousand
// listings. Each field is preceded by its length, so that no two argument lists hash alike by shifting
// bytes from one field to the next.
struct Hash128 {
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void bytes(const char* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto c = static_cast<unsigned char>(p[i]);
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull;
    }
  }
  void field(const std::string& s) {
    const std::string n = std::to_string(s.size()) + ":";
    bytes(n.data(), n.size());
    bytes(s.data(), s.size());
  }
  std::string hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return buf;
  }
};

// nvdisasm as the file that runs: its resolved path, size and modification time (a name found on
// PATH is hashed as given).
std::string tool_identity(const std::string& tool) {
  std::error_code ec;
  const fs::path p = fs::canonical(tool, ec);
  struct stat st {};
  if (ec || ::stat(p.c_str(), &st) != 0) return tool;
  return p.string() + "\n" + std::to_string(st.st_size) + "\n" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string header_line(const std::string& key, std::size_t n) {
  return std::string(kHeader) + " " + key + " " + std::to_string(n) + "\n";
}

bool read_cached(const std::string& path, const std::string& key, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string first;
  if (!std::getline(in, first)) return false;
  std::istringstream h(first);
  std::string w1, w2, w3, k;
  std::size_t n = 0;
  if (!(h >> w1 >> w2 >> w3 >> k >> n) || w1 + " " + w2 + " " + w3 != kHeader || k != key) return false;
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (body.size() != n) return false;
  *out = std::move(body);
  return true;
}

}  // namespace

std::string listing_key(const std::vector<std::string>& argv, const std::string& cubin_bytes) {
  Hash128 h;
  h.field(kHeader);
  h.field(argv.empty() ? std::string() : tool_identity(argv.front()));
  for (std::size_t i = 1; i + 1 < argv.size(); ++i) h.field(argv[i]);
  h.field(cubin_bytes);
  return h.hex();
}

void check_listing_cache(const std::string& opt, const std::string& dir) {
  std::error_code ec;
  const fs::path d(dir);
  if (fs::exists(d, ec) && !fs::is_directory(d, ec))
    throw UsageError(opt + ": '" + dir + "' exists and is not a directory");
  // A missing folder is made by the first listing stored; its parent must be there already.
  const fs::path where = fs::is_directory(d, ec) ? d : (d.has_parent_path() ? d.parent_path() : fs::path("."));
  if (!fs::is_directory(where, ec)) throw UsageError(opt + ": directory '" + where.string() + "' does not exist");
  std::string why;
  if (!path_is_writable((where / ".divbench-listing-probe").string(), &why)) throw UsageError(opt + ": " + why);
}

ProcessResult run_listing(const std::vector<std::string>& argv, const std::string& cubin_bytes,
                          const std::string& dir) {
  if (dir.empty()) return run_process(argv);
  const std::string key = listing_key(argv, cubin_bytes);
  const std::string path = (fs::path(dir) / (key + ".listing")).string();
  ProcessResult r;
  if (read_cached(path, key, &r.out)) {
    r.exit_code = 0;
    return r;
  }
  r = run_process(argv);
  if (r.exit_code != 0) return r;
  // Stored by rename of a complete temporary file (never seen half-written), without fsync: a cache
  // entry lost to a crash is only run again, and the header's length catches a cut one. Not stored (a
  // full disk, a folder made read-only meanwhile): the listing is returned all the same.
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string tmpl = (fs::path(dir) / (key + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return r;
  const std::string text = header_line(key, r.out.size()) + r.out;
  const bool written = write_all(fd, text);
  ::fchmod(fd, 0644);
  const bool ok = ::close(fd) == 0 && written;
  if (!ok || std::rename(tmpl.c_str(), path.c_str()) != 0) ::unlink(tmpl.c_str());
  return r;
}

}  // namespace divbench::sass
