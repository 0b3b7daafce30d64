// Control-flow census: the columns of the paper's Table II, per function and per cubin.
#pragma once
#include <map>
#include <string>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::sass {

struct Census {
  // opcode base -> modifier form ("" bare, "RECONVERGENT", "RELIABLE", "ALL", "mask", ...) -> count,
  // for BSSY, BSYNC, BREAK, WARPSYNC (forms "ALL" / "mask"), BMOV, BRA ("U", "DIV", "" ...),
  // BRX, EXIT, CALL, RET and Pascal's SSY, SYNC, PBK, BRK, PCNT, CONT.
  std::map<std::string, std::map<std::string, int>> counts;
  int nesting_depth = 0;  // maximum simultaneously live barrier registers
  int instructions = 0;

  int count(const std::string& base, const std::string& form) const;
  int total(const std::string& base) const;
  Census& operator+=(const Census& o);  // sums counts, max of nesting depth
};

Census take_census(const Function& f);  // nesting_depth left 0: filled by the analysis
json to_json(const Census& c);

}  // namespace divbench::sass
