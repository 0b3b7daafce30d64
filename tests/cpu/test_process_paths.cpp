// core/process: the one PATH search (a program the user names and the tools divbench runs differ only
// in what an empty PATH entry means) and this executable's own path.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "divbench/core/process.hpp"

namespace fs = std::filesystem;
using divbench::EmptyPathEntry;
using divbench::find_on_path;

namespace {

// PATH set for one test, restored after it; and a folder with one executable and one plain file.
class PathSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* p = std::getenv("PATH");
    had_path_ = p != nullptr;
    if (p) old_path_ = p;
    old_cwd_ = fs::current_path();
    dir_ = fs::temp_directory_path() / ("divbench-path-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "bin");
    write(dir_ / "bin" / "tool", true);
    write(dir_ / "bin" / "plain", false);
    write(dir_ / "here", true);
  }
  void TearDown() override {
    if (had_path_) ::setenv("PATH", old_path_.c_str(), 1);
    else ::unsetenv("PATH");
    fs::current_path(old_cwd_);
    fs::remove_all(dir_);
  }
  static void write(const fs::path& p, bool executable) {
    std::ofstream(p) << "#!/bin/sh\n";
    ::chmod(p.c_str(), executable ? 0755 : 0644);
  }
  fs::path dir_, old_cwd_;
  std::string old_path_;
  bool had_path_ = false;
};

TEST_F(PathSearch, FindsTheFirstExecutableInPathOrder) {
  ::setenv("PATH", ("/nonexistent:" + (dir_ / "bin").string()).c_str(), 1);
  EXPECT_EQ(find_on_path("tool", EmptyPathEntry::skipped), (dir_ / "bin" / "tool").string());
  EXPECT_EQ(find_on_path("plain", EmptyPathEntry::current_folder), "");  // not executable
  EXPECT_EQ(find_on_path("missing", EmptyPathEntry::current_folder), "");
}

TEST_F(PathSearch, AnEmptyEntryIsTheCurrentFolderOnlyForAProgramTheUserNames) {
  fs::current_path(dir_);
  for (const std::string path : {"", ":/nonexistent", "/nonexistent:", "/nonexistent::/usr/bin"}) {
    ::setenv("PATH", path.c_str(), 1);
    EXPECT_EQ(find_on_path("here", EmptyPathEntry::current_folder), "./here") << "PATH=" << path;
    EXPECT_EQ(find_on_path("here", EmptyPathEntry::skipped), "") << "PATH=" << path;
  }
  ::setenv("PATH", "/nonexistent", 1);
  EXPECT_EQ(find_on_path("here", EmptyPathEntry::current_folder), "");  // no empty entry, no current folder
}

TEST_F(PathSearch, UnsetPathSearchesTheDefaultFolders) {
  ::unsetenv("PATH");
  EXPECT_EQ(find_on_path("sh", EmptyPathEntry::skipped).rfind("/", 0), 0u);  // /usr/bin/sh or /bin/sh
}

TEST(OwnExecutable, IsThisTestBinaryAndItsFolder) {
  const std::string exe = divbench::own_executable();
  ASSERT_FALSE(exe.empty());
  EXPECT_TRUE(fs::equivalent(exe, "/proc/self/exe"));
  EXPECT_EQ(divbench::own_executable_dir(), fs::path(exe).parent_path().string());
}

}  // namespace
