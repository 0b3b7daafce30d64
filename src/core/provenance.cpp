#include "divbench/core/provenance.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <iterator>

#include "divbench/build_info.hpp"

namespace divbench {
namespace {
const char* const kFields[] = {"toolkit", "git", "created", "host", "command"};
const std::string kVersionSuffix = "_version";

bool is_version_key(const std::string& k) {
  return k.size() > kVersionSuffix.size() && k.compare(k.size() - kVersionSuffix.size(), kVersionSuffix.size(), kVersionSuffix) == 0;
}
}  // namespace

json to_json(const Provenance& p) {
  json j{{"toolkit", p.toolkit}, {"git", p.git}, {"created", p.created}, {"host", p.host}, {"command", p.command}};
  for (const auto& [name, t] : p.tools) {
    j[name] = t.path;
    j[name + kVersionSuffix] = t.version;
  }
  return j;
}

Provenance provenance_from_json(const json& j) {
  Provenance p;
  if (!j.is_object()) return p;
  auto str = [&](const std::string& k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
  p.toolkit = str("toolkit");
  p.git = str("git");
  p.created = str("created");
  p.host = str("host");
  p.command = str("command");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    bool field = false;
    for (const char* f : kFields) field = field || k == f;
    if (field || is_version_key(k)) continue;
    p.tools[k] = {str(k), str(k + kVersionSuffix)};
  }
  return p;
}

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Provenance make_provenance(const std::string& command_line) {
  Provenance p;
  p.toolkit = std::string("nvcc ") + build::cuda_compiler_version;
  p.git = build::git_commit;
  p.created = utc_now_iso8601();
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0) p.host = host;
  p.command = command_line;
  return p;
}

std::string this_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto& c : s)
    if (c == '\0') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace divbench
