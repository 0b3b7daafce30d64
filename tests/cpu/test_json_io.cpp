// The atomic writer (src/core/json_io.cpp): the temporary file is fsynced before the rename and the
// directory after it (else a crash right after the rename can lose the entry), observed through the fsync test seam; a failing directory sync
// is an error, one the file system does not support (EINVAL) is not; path_is_writable probes by
// creating a file (root passes access() even on /proc).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

using namespace divbench;
namespace fs = std::filesystem;

namespace {
struct Sync {
  bool directory;
  std::string target_content;  // content of the target file when the sync happened
};
std::vector<Sync> g_syncs;
std::string g_target;
int g_dir_result = 0, g_dir_errno = 0;

std::string content(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return f ? s.str() : std::string("<missing>");
}

int recording_fsync(int fd) {
  struct stat st {};
  ::fstat(fd, &st);
  g_syncs.push_back({S_ISDIR(st.st_mode), content(g_target)});
  if (S_ISDIR(st.st_mode) && g_dir_result != 0) {
    errno = g_dir_errno;
    return g_dir_result;
  }
  return ::fsync(fd);
}

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("divbench-jsonio-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    detail::set_fsync_for_testing(nullptr);
    fs::remove_all(dir);
  }
};
}  // namespace

TEST(AtomicWriter, SyncsTheFileBeforeAndTheDirectoryAfterTheRename) {
  Scratch s;
  g_target = (s.dir / "r.json").string();
  g_syncs.clear();
  g_dir_result = 0;
  detail::set_fsync_for_testing(&recording_fsync);
  write_text_atomic(g_target, "old\n");
  g_syncs.clear();
  write_text_atomic(g_target, "new\n");
  ASSERT_EQ(g_syncs.size(), 2u);
  EXPECT_FALSE(g_syncs[0].directory);             // the temporary file ...
  EXPECT_EQ(g_syncs[0].target_content, "old\n");  // ... before the rename
  EXPECT_TRUE(g_syncs[1].directory);              // the directory ...
  EXPECT_EQ(g_syncs[1].target_content, "new\n");  // ... after it
  EXPECT_EQ(content(g_target), "new\n");
  for (const auto& e : fs::directory_iterator(s.dir)) EXPECT_EQ(e.path().filename(), "r.json");  // no temp left
}

TEST(AtomicWriter, AFailingDirectorySyncIsAnErrorUnlessUnsupported) {
  Scratch s;
  g_target = (s.dir / "r.json").string();
  detail::set_fsync_for_testing(&recording_fsync);
  g_dir_result = -1;
  g_dir_errno = EIO;
  EXPECT_THROW(write_json_atomic(g_target, json{{"a", 1}}), std::runtime_error);
  g_dir_errno = EINVAL;  // e.g. a file system without directory fsync
  EXPECT_NO_THROW(write_json_atomic(g_target, json{{"a", 2}}));
  EXPECT_EQ(read_json_file(g_target)["a"], 2);
  g_dir_result = 0;
}

TEST(AtomicWriter, PathIsWritableProbesByCreatingAFile) {
  Scratch s;
  std::string why;
  EXPECT_TRUE(path_is_writable((s.dir / "x.json").string(), &why)) << why;
  EXPECT_TRUE(fs::is_empty(s.dir));  // the probe file is gone again
  EXPECT_FALSE(path_is_writable("/proc/divbench-x.json", &why));
  EXPECT_NE(why.find("cannot create a file"), std::string::npos) << why;
  EXPECT_FALSE(path_is_writable("", &why));
  EXPECT_EQ(why, "empty path");
  EXPECT_FALSE(path_is_writable((s.dir / "no" / "x.json").string(), &why));
  EXPECT_NE(why.find("does not exist"), std::string::npos) << why;
  EXPECT_FALSE(path_is_writable(s.dir.string(), &why));
  EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
}
