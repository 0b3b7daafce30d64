// The nvdisasm listing cache (listing_cache.hpp) with a stand-in tool that counts its runs: a listing is
// taken from the folder only when nvdisasm, its options and the cubin's bytes are all the same; a
// failed run is never kept; a cut or foreign file is run again; a bad folder is one UsageError.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "divbench/core/errors.hpp"
#include "divbench/core/process.hpp"
#include "divbench/sass/listing_cache.hpp"

using namespace divbench;
using namespace divbench::sass;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A stand-in nvdisasm: appends a line to COUNT per run, prints its options and the cubin's bytes,
// and exits with the status written in EXIT (0 when absent).
struct FakeTool {
  TempDir dir;
  fs::path tool = fs::path(dir.path()) / "nvdisasm";
  fs::path count = fs::path(dir.path()) / "count";
  fs::path exit_file = fs::path(dir.path()) / "exit";
  fs::path cache = fs::path(dir.path()) / "cache";
  FakeTool() {
    write(tool, "#!/bin/sh\necho run >> '" + count.string() + "'\nfor a in \"$@\"; do last=$a; done\n"
                "echo \"options: $*\"\ncat \"$last\"\n[ -f '" + exit_file.string() + "' ] && exit $(cat '" +
                exit_file.string() + "')\nexit 0\n");
    ::chmod(tool.c_str(), 0755);
  }
  int runs() const {
    std::ifstream in(count);
    int n = 0;
    for (std::string l; std::getline(in, l);) ++n;
    return n;
  }
  ProcessResult run(const std::vector<std::string>& opts, const fs::path& cubin) {
    std::vector<std::string> argv{tool.string()};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.push_back(cubin.string());
    return run_listing(argv, slurp(cubin), cache.string());
  }
};

}  // namespace

TEST(ListingCache, SameToolOptionsAndBytesRunOnce) {
  FakeTool t;
  const fs::path a = fs::path(t.dir.path()) / "a.cubin", b = fs::path(t.dir.path()) / "b.cubin";
  write(a, "bytes-1");
  write(b, "bytes-1");  // another name, the same bytes: the same listing
  const auto first = t.run({"-json"}, a);
  ASSERT_EQ(first.exit_code, 0);
  EXPECT_EQ(first.out, "options: -json " + a.string() + "\nbytes-1");
  EXPECT_EQ(t.runs(), 1);
  const auto again = t.run({"-json"}, a);
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(again.out, first.out);
  EXPECT_EQ(t.runs(), 1) << "the second run must come from the cache";
  EXPECT_EQ(t.run({"-json"}, b).out, first.out);
  EXPECT_EQ(t.runs(), 1);

  t.run({"-c", "-hex"}, a);  // other options
  EXPECT_EQ(t.runs(), 2);
  write(a, "bytes-2");  // other bytes under the same name
  EXPECT_EQ(t.run({"-json"}, a).out, "options: -json " + a.string() + "\nbytes-2");
  EXPECT_EQ(t.runs(), 3);
}

TEST(ListingCache, AnotherToolFileIsAnotherKey) {
  FakeTool t;
  const fs::path a = fs::path(t.dir.path()) / "a.cubin";
  write(a, "bytes");
  const std::vector<std::string> argv{t.tool.string(), "-json", a.string()};
  const std::string k1 = listing_key(argv, "bytes");
  EXPECT_EQ(k1.size(), 32u);
  EXPECT_EQ(listing_key(argv, "bytes"), k1);
  EXPECT_NE(listing_key(argv, "bytez"), k1);
  EXPECT_NE(listing_key({t.tool.string(), "-json", "-g", a.string()}, "bytes"), k1);
  // Options are length-prefixed: moving a character between two options changes the key.
  EXPECT_NE(listing_key({t.tool.string(), "ab", "c", a.string()}, "x"),
            listing_key({t.tool.string(), "a", "bc", a.string()}, "x"));
  // A replaced nvdisasm (here: larger) is another tool.
  write(t.tool, slurp(t.tool) + "# a newer build\n");
  EXPECT_NE(listing_key(argv, "bytes"), k1);
}

TEST(ListingCache, FailedRunsAreNotKept) {
  FakeTool t;
  const fs::path a = fs::path(t.dir.path()) / "a.cubin";
  write(a, "bytes");
  write(t.exit_file, "3");
  EXPECT_EQ(t.run({"-json"}, a).exit_code, 3);
  EXPECT_EQ(t.run({"-json"}, a).exit_code, 3);
  EXPECT_EQ(t.runs(), 2);
  fs::remove(t.exit_file);
  EXPECT_EQ(t.run({"-json"}, a).exit_code, 0);
  EXPECT_EQ(t.runs(), 3);
}

TEST(ListingCache, CutOrForeignFilesAreRunAgain) {
  FakeTool t;
  const fs::path a = fs::path(t.dir.path()) / "a.cubin";
  write(a, "bytes");
  const auto first = t.run({"-json"}, a);
  ASSERT_EQ(t.runs(), 1);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(t.cache)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << "one listing, no temporary file left";
  const std::string stored = slurp(files[0]);
  write(files[0], stored.substr(0, stored.size() - 1));  // cut by one byte
  EXPECT_EQ(t.run({"-json"}, a).out, first.out);
  EXPECT_EQ(t.runs(), 2);
  write(files[0], "something else\n" + first.out);  // not a listing of this key
  EXPECT_EQ(t.run({"-json"}, a).out, first.out);
  EXPECT_EQ(t.runs(), 3);
  EXPECT_EQ(slurp(files[0]), stored) << "the listing is stored again";
}

TEST(ListingCache, NoFolderNoCache) {
  FakeTool t;
  const fs::path a = fs::path(t.dir.path()) / "a.cubin";
  write(a, "bytes");
  run_listing({t.tool.string(), a.string()}, "bytes", "");
  run_listing({t.tool.string(), a.string()}, "bytes", "");
  EXPECT_EQ(t.runs(), 2);
  EXPECT_FALSE(fs::exists(t.cache));
}

TEST(ListingCache, BadFoldersAreOneUsageErrorAndNothingIsCreated) {
  FakeTool t;
  const fs::path file = fs::path(t.dir.path()) / "file";
  write(file, "x");
  try {
    check_listing_cache("--nvdisasm-cache", file.string());
    ADD_FAILURE() << "a file was accepted as the cache folder";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("exists and is not a directory"), std::string::npos) << e.what();
  }
  const fs::path deep = fs::path(t.dir.path()) / "missing" / "listings";
  EXPECT_THROW(check_listing_cache("--nvdisasm-cache", deep.string()), UsageError);
  EXPECT_FALSE(fs::exists(deep.parent_path()));
  const fs::path fresh = fs::path(t.dir.path()) / "listings";
  EXPECT_NO_THROW(check_listing_cache("--nvdisasm-cache", fresh.string()));
  EXPECT_FALSE(fs::exists(fresh)) << "made by the first listing stored, not by the check";
}

// A tool divbench runs (nvdisasm, cuobjdump) dies with divbench, even when divbench is killed by SIGKILL
// and no handler runs: a stand-in tool that writes its pid and then sleeps, run by a child process that
// is then killed; the tool must be gone (or a zombie) within a few seconds.
namespace {
bool process_gone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}
}  // namespace

TEST(ToolProcess, DiesWithDivbenchEvenOnSigkill) {
  TempDir d;
  const fs::path tool = fs::path(d.path()) / "slow-tool", pid_file = fs::path(d.path()) / "pid";
  write(tool, "#!/bin/sh\necho $$ > '" + pid_file.string() + ".tmp'\nmv '" + pid_file.string() + ".tmp' '" +
                  pid_file.string() + "'\nexec sleep 60\n");
  ::chmod(tool.c_str(), 0755);
  const pid_t caller = ::fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    try {
      run_process({tool.string()});
    } catch (...) {
    }
    ::_exit(0);
  }
  for (int i = 0; i < 200 && !fs::exists(pid_file); ++i) ::usleep(50000);
  ASSERT_TRUE(fs::exists(pid_file)) << "the stand-in tool did not start";
  const pid_t tool_pid = static_cast<pid_t>(std::stol(slurp(pid_file)));
  ASSERT_FALSE(process_gone(tool_pid));
  ::kill(caller, SIGKILL);
  int status = 0;
  ::waitpid(caller, &status, 0);
  bool gone = false;
  for (int i = 0; i < 100 && !(gone = process_gone(tool_pid)); ++i) ::usleep(50000);
  if (!gone) ::kill(tool_pid, SIGKILL);  // leave nothing behind
  EXPECT_TRUE(gone) << "the tool (pid " << tool_pid << ") outlived the killed divbench";
}
