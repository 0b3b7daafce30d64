// A regular expression over names (attribute's --kernel), matched by POSIX regexec (glibc): its matcher
// keeps a table per input character and does not recurse, so a 20,000-character C++ name against
// '(a|b)*c' is matched in time and memory linear in the name, where std::regex's backtracking recursion
// overflowed the stack (SIGSEGV) and ran for minutes on patterns like '(a*)*b'. The syntax is POSIX
// extended (., *, +, ?, |, (), [], {m,n}, ^, $); ECMAScript's \d, (?:) and lazy quantifiers are not in it.
// Header-only: the injection library (no divbench_core) uses it too.
#pragma once
#include <regex.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace divbench {

class NamePattern {
 public:
  // Throws std::invalid_argument with regerror's text when `expr` is not an extended regular expression.
  explicit NamePattern(const std::string& expr) : re_(new regex_t) {
    const int rc = ::regcomp(re_.get(), expr.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char buf[256];
      ::regerror(rc, re_.get(), buf, sizeof buf);
      re_.reset();  // regcomp left nothing to free
      throw std::invalid_argument(buf);
    }
    compiled_ = true;
  }
  NamePattern(NamePattern&&) = default;
  NamePattern& operator=(NamePattern&&) = default;
  ~NamePattern() {
    if (re_ && compiled_) ::regfree(re_.get());
  }
  // Whether the expression matches somewhere in `text` (a name holding a NUL byte matches up to it).
  bool search(const std::string& text) const { return ::regexec(re_.get(), text.c_str(), 0, nullptr, 0) == 0; }

 private:
  std::unique_ptr<regex_t> re_;
  bool compiled_ = false;
};

}  // namespace divbench
