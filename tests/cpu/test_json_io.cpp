// The atomic writer (src/core/json_io.cpp): the temporary file is fsynced before the rename and the
// directory after it (else a crash right after the rename can lose the entry), observed through the fsync test seam; a failing directory sync
// is an error, one the file system does not support (EINVAL) is not; path_is_writable probes by
// creating a file (root passes access() even on /proc).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
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

// The output rule (divbench/core/files.hpp, docs/bad-input.md) as a property: random spellings of a path
// (symlink chains, hard links, ./ and d/e/../../ detours, relative and absolute) of the input, of another
// file, of a new file, of a FIFO, a directory or /dev/null. check_output refuses exactly the input and the
// special files, and never creates, deletes or changes anything.
namespace {
std::vector<std::pair<std::string, std::string>> listing(const std::filesystem::path& root) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    std::string what = e.is_symlink() ? "link:" + std::filesystem::read_symlink(e.path()).string() : "";
    if (!e.is_symlink() && e.is_regular_file()) {
      std::ifstream in(e.path(), std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      what = "file:" + s.str();
    }
    out.emplace_back(e.path().string(), what);
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST(OutputRule, RefusesExactlyTheInputsAndSpecialFilesWhateverTheSpelling) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / ("divbench-output-rule-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "d" / "e");
  const fs::path in = base / "d" / "in.cubin", other = base / "other.json";
  std::ofstream(in) << "input bytes";
  std::ofstream(other) << "{}";
  ASSERT_EQ(::mkfifo((base / "fifo").c_str(), 0600), 0);
  const fs::path cwd = fs::current_path();
  fs::current_path(base);
  std::mt19937 rng(25);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  const char* kinds[] = {"input", "other", "new", "fifo", "dir", "devnull"};
  for (int i = 0; i < 300; ++i) {
    const std::string kind = kinds[rng() % 6];
    fs::path target = kind == "input" ? in : kind == "other" ? other : kind == "new" ? base / "d" / ("new" + std::to_string(i))
                    : kind == "fifo" ? base / "fifo" : kind == "dir" ? base / "d" / "e" : fs::path("/dev/null");
    if (kind == "input" && chance(0.3)) {
      fs::create_hard_link(in, base / ("hard" + std::to_string(i)));
      target = base / ("hard" + std::to_string(i));
    }
    fs::path spelled = target;
    for (int n = static_cast<int>(rng() % 4); n > 0 && kind != "new"; --n) {
      const fs::path link = base / "d" / ("l" + std::to_string(i) + "_" + std::to_string(n));
      fs::create_symlink(chance(0.5) ? spelled : fs::relative(spelled, link.parent_path()), link);
      spelled = link;
    }
    std::string text = spelled.string();
    if (chance(0.5) && text.rfind(base.string(), 0) == 0) {
      text = fs::relative(spelled, base).string();
      const int form = static_cast<int>(rng() % 3);
      text = form == 0 ? text : form == 1 ? "./" + text : "d/e/../../" + text;
    }
    const auto before = listing(base);
    const bool refuse = kind == "input" || kind == "fifo" || kind == "dir" || kind == "devnull";
    if (refuse) EXPECT_THROW(divbench::check_output("--out", text, {in.string()}), divbench::UsageError) << kind << " " << text;
    else EXPECT_NO_THROW(divbench::check_output("--out", text, {in.string()})) << kind << " " << text;
    EXPECT_EQ(listing(base), before) << text;
  }
  fs::current_path(cwd);
  fs::remove_all(base);
}
