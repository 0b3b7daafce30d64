// Provenance: what built divbench and when, where and how a document was made. One struct and one
// JSON form for every output: the dynamic results (divbench.result/1 keeps these keys at its top
// level), the SASS analysis (divbench.sass/2), flip reports (divbench.flip/2, flip-discover/2) and
// the bit-flip experiment (divbench.bitflip/2), which nest them under "provenance".
#pragma once
#include <map>
#include <string>

#include "divbench/core/json_io.hpp"

namespace divbench {

// An external program a document's content depends on (e.g. nvdisasm).
struct ToolRecord {
  std::string path;
  std::string version;  // its own version line, e.g. "release 13.5, V13.5.37"
};

struct Provenance {
  std::string toolkit;   // nvcc version divbench (and its kernels) were compiled with
  std::string git;       // commit of the source tree (suffix -dirty if modified)
  std::string created;   // UTC, ISO 8601
  std::string host;      // hostname
  std::string command;   // the command line
  std::map<std::string, ToolRecord> tools;  // by name
};

// {"toolkit", "git", "created", "host", "command"} then, per tool NAME, "NAME" (path) and
// "NAME_version".
json to_json(const Provenance& p);
// The inverse; missing keys stay empty. Every key that is not one of the five fields and does not
// end in "_version" names a tool.
Provenance provenance_from_json(const json& j);

// Current UTC time, ISO 8601 with seconds ("2026-11-29T20:15:03Z").
std::string utc_now_iso8601();

// Provenance of this build (toolkit, git) plus now, hostname and the given command line.
Provenance make_provenance(const std::string& command_line);

// The command line of this process, from /proc/self/cmdline (arguments joined by spaces).
std::string this_command_line();

}  // namespace divbench
