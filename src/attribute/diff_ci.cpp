// `attribute diff --annotations github` and `--sarif`: the verdict's regressions for a CI
// (include/divbench/attribute/diff_ci.hpp).
#include "divbench/attribute/diff_ci.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace divbench::attribute {
namespace {

namespace fs = std::filesystem;

struct Rule {
  const char* id;
  const char* name;
  const char* title;  // the annotation's title
  const char* full;
};

const std::array<Rule, 5>& rules() {
  static const std::array<Rule, 5> r{{
      {kRuleNewDivergentBranch, "NewDivergentBranch", "Divergence regression: a new divergent branch",
       "A branch that is not in BASE (added, or a line that moved without its neighbours) and diverges in NEW."},
      {kRuleNowDivergent, "BranchNowDiverges", "Divergence regression: a branch now diverges",
       "A branch of BASE that did not diverge there and diverges in NEW."},
      {kRuleNewKernelDivergentBranch, "NewKernelDivergentBranch", "Divergence regression: a divergent branch of a new kernel",
       "A divergent branch of a kernel that is not in BASE (a renamed kernel is one removed and one added)."},
      {kRuleEfficiencyDrop, "RegionEfficiencyDrop", "Divergence regression: region efficiency dropped",
       "A divergent branch whose region efficiency (active lanes inside its region / 32) dropped by more than "
       "--max-efficiency-drop (absolute; plus the kernel's spread when it is nondeterministic)."},
      {kRuleCyclesLostRise, "CyclesLostRise", "Divergence regression: estimated cycles lost rose",
       "A branch whose estimated cycles lost to divergence rose by more than --max-cycles-lost-rise (relative; "
       "plus the kernel's spread when it is nondeterministic), or from 0 at a branch that diverged in BASE."},
  }};
  return r;
}

std::size_t rule_index(const std::string& id) {
  for (std::size_t i = 0; i < rules().size(); ++i)
    if (id == rules()[i].id) return i;
  return rules().size();
}

// Where a regression is, for a CI: its path relative to the repository root when inside it.
struct Located {
  bool has_source = false;  // false: no line table (no -lineinfo)
  bool inside = false;      // inside the repository root: `path` relative to it
  std::string path;         // relative (inside) or as the document gives it
  long line = 0;
};

bool under(const fs::path& rel) { return !rel.empty() && rel != "." && *rel.begin() != ".."; }

Located locate(const json& r, const std::string& repo_root) {
  Located l;
  if (!r["file"].is_string() || !r["line"].is_number_integer()) return l;
  l.has_source = true;
  l.line = r["line"].get<long>();
  const std::string file = r["file"].get<std::string>();
  l.path = file;
  const fs::path p(file);
  if (p.is_relative()) {
    // A relative path of the line table: taken as relative to the repository root (nvcc ran there).
    const fs::path n = p.lexically_normal();
    if (under(n)) l.inside = true, l.path = n.generic_string();
    return l;
  }
  std::error_code ec;
  const fs::path root_abs = fs::absolute(repo_root, ec).lexically_normal();
  std::vector<std::pair<fs::path, fs::path>> tries{{p.lexically_normal(), root_abs}};
  if (const fs::path pc = fs::weakly_canonical(p, ec); !ec)
    if (const fs::path rc = fs::weakly_canonical(root_abs, ec); !ec) tries.emplace_back(pc, rc);
  for (const auto& [a, b] : tries) {
    const fs::path rel = a.lexically_relative(b);
    if (under(rel)) {
      l.inside = true;
      l.path = rel.generic_string();
      return l;
    }
  }
  return l;
}

// RFC 3986: every byte but the unreserved ones and '/' percent-encoded (':' too: "a:b/c" would be a scheme).
std::string uri_path(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string file_uri(const std::string& absolute) { return "file://" + uri_path(absolute); }

double num_or_0(const json& v) { return v.is_number() ? v.get<double>() : 0.0; }

// The regressions worst first: the largest rise of estimated cycles lost (NEW - BASE; a new branch: all
// of NEW's), then NEW's cycles lost, then the verdict's order.
std::vector<std::size_t> worst_first(const json& regs) {
  std::vector<std::size_t> order(regs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto key = [&](std::size_t i) {
    const json& c = regs[i]["cycles_lost"];
    const double n = num_or_0(c["new"]);
    return std::pair(n - num_or_0(c["base"]), n);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
  return order;
}

std::string where_root(const std::string& repo_root) {
  std::error_code ec;
  return fs::absolute(repo_root, ec).lexically_normal().string();
}

json logical_location(const json& r) {
  return json::array({{{"fullyQualifiedName", r["kernel"]}, {"decoratedName", r["mangled"]}, {"kind", "function"}}});
}

// SHA-256 (FIPS 180-4).
struct Sha256 {
  std::array<std::uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  static std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
  void block(const unsigned char* p) {
    static constexpr std::uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
        0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
        0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
        0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
        0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
        0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t(p[4 * i]) << 24 | std::uint32_t(p[4 * i + 1]) << 16 | std::uint32_t(p[4 * i + 2]) << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    auto [a, b, c, d, e, f, g, hh] = h;
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    const std::array<std::uint32_t, 8> add{a, b, c, d, e, f, g, hh};
    for (int i = 0; i < 8; ++i) h[i] += add[i];
  }
};

}  // namespace

std::string sha256_hex(const std::string& data) {
  Sha256 s;
  std::string m = data;
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  m += static_cast<char>(0x80);
  while (m.size() % 64 != 56) m += '\0';
  for (int i = 7; i >= 0; --i) m += static_cast<char>((bits >> (8 * i)) & 0xff);
  for (std::size_t off = 0; off < m.size(); off += 64) s.block(reinterpret_cast<const unsigned char*>(m.data() + off));
  std::string out;
  char buf[9];
  for (auto v : s.h) {
    std::snprintf(buf, sizeof buf, "%08x", v);
    out += buf;
  }
  return out;
}

std::string default_repo_root() {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return ".";
  for (fs::path d = cwd;; d = d.parent_path()) {
    if (fs::exists(d / ".git", ec)) return d.string();
    if (d == d.root_path() || d.parent_path() == d) break;
  }
  return cwd.string();
}

std::string github_escape_data(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string github_escape_property(const std::string& s) {
  std::string out;
  for (char c : github_escape_data(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

std::string github_annotations(const json& verdict, const std::string& repo_root, std::size_t cap) {
  const json& regs = verdict.at("regressions");
  std::ostringstream out;
  std::size_t shown = 0;
  for (const std::size_t i : worst_first(regs)) {
    if (shown == cap) break;
    const json& r = regs[i];
    const std::size_t ri = rule_index(r["rule"].get<std::string>());
    const std::string title = ri < rules().size() ? rules()[ri].title : "Divergence regression";
    std::string message = r["message"].get<std::string>();
    const Located l = locate(r, repo_root);
    out << "::error ";
    if (l.has_source) {
      out << "file=" << github_escape_property(l.path) << ",line=" << l.line << ",";
      if (!l.inside) message += " (the source is outside the repository root " + where_root(repo_root) + ")";
    } else {
      message += " (no source line: build with -lineinfo)";
    }
    out << "title=" << github_escape_property(title) << "::" << github_escape_data(message) << "\n";
    ++shown;
  }
  if (regs.size() > shown)
    out << "::notice::" << regs.size() - shown << " more divergence regression" << (regs.size() - shown == 1 ? "" : "s")
        << " did not fit GitHub's " << cap
        << " error annotations per step: the summary on stderr (without --quiet), --markdown and --json list all\n";
  return out.str();
}

json diff_sarif(const json& verdict, const std::string& repo_root, const std::string& version) {
  json jrules = json::array();
  for (const auto& r : rules())
    jrules.push_back({{"id", r.id},
                      {"name", r.name},
                      {"shortDescription", {{"text", r.title}}},
                      {"fullDescription", {{"text", r.full}}},
                      {"help", {{"text", std::string(r.full) + " See docs/attribute.md, \"Gate divergence in CI\"."}}},
                      {"defaultConfiguration", {{"level", "error"}}},
                      {"properties", {{"tags", {"cuda", "performance", "warp-divergence"}}}}});
  const json& regs = verdict.at("regressions");
  std::vector<Located> where(regs.size());
  for (std::size_t i = 0; i < regs.size(); ++i) where[i] = locate(regs[i], repo_root);
  // The ordinal of each result among those of its kernel, path and line: in the order of the branch's
  // ordinal on the line and the rule (not of the counts: a fingerprint must not move when a count does).
  std::map<std::tuple<std::string, std::string, long>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < regs.size(); ++i)
    if (where[i].has_source) groups[{regs[i]["kernel"].get<std::string>(), where[i].path, where[i].line}].push_back(i);
  std::vector<std::size_t> ordinal(regs.size(), 0);
  for (auto& [key, members] : groups) {
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(regs[a]["ordinal"].get<std::size_t>(), regs[a]["rule"].get<std::string>()) <
             std::pair(regs[b]["ordinal"].get<std::size_t>(), regs[b]["rule"].get<std::string>());
    });
    for (std::size_t k = 0; k < members.size(); ++k) ordinal[members[k]] = k;
  }
  json results = json::array(), notes = json::array();
  for (const std::size_t i : worst_first(regs)) {
    const json& r = regs[i];
    const Located& l = where[i];
    const std::string rule = r["rule"].get<std::string>();
    const std::size_t ri = rule_index(rule);
    if (!l.has_source) {
      // GitHub code scanning refuses a whole file with a result that has no location: said here instead.
      json n{{"level", "error"},
             {"message", {{"text", r["message"].get<std::string>() + " (no source line: build with -lineinfo; not a result, "
                                                                    "since code scanning needs a file and line)"}}},
             {"locations", json::array({{{"logicalLocations", logical_location(r)}}})}};
      if (ri < rules().size()) n["associatedRule"] = {{"id", rule}, {"index", ri}};
      notes.push_back(std::move(n));
      continue;
    }
    json artifact = l.inside ? json{{"uri", uri_path(l.path)}, {"uriBaseId", "%SRCROOT%"}} : json{{"uri", file_uri(l.path)}};
    std::string message = r["message"].get<std::string>();
    if (!l.inside) message += " (the source is outside the repository root)";
    json res{{"ruleId", rule}};
    if (ri < rules().size()) res["ruleIndex"] = ri;
    res["level"] = "error";
    res["message"] = {{"text", message}};
    res["locations"] = json::array({{{"physicalLocation", {{"artifactLocation", artifact}, {"region", {{"startLine", l.line}}}}},
                                     {"logicalLocations", logical_location(r)}}});
    res["partialFingerprints"] = {
        {"divbench/v1", sha256_hex(r["kernel"].get<std::string>() + "\n" + l.path + "\n" + std::to_string(l.line) + "\n" +
                                   std::to_string(ordinal[i]))}};
    res["properties"] = {{"kernel", r["kernel"]},
                         {"pc", r["pc"]},
                         {"branch_ordinal", r["ordinal"]},
                         {"cycles_lost", r["cycles_lost"]}};
    results.push_back(std::move(res));
  }
  std::string root_uri = file_uri(where_root(repo_root));
  if (root_uri.empty() || root_uri.back() != '/') root_uri += '/';
  json invocation{{"executionSuccessful", true}};
  if (!notes.empty()) invocation["toolExecutionNotifications"] = notes;
  return json{{"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({{{"tool", {{"driver", {{"name", "divbench"}, {"version", version}, {"rules", jrules}}}}},
                                     {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", root_uri}}}}},
                                     {"invocations", json::array({invocation})},
                                     {"results", results}}})}};
}

}  // namespace divbench::attribute
