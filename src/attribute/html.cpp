// The source view of `divbench attribute --html` (attribute/html.hpp).
#include "divbench/attribute/html.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "divbench/attribute/report.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "text.hpp"

namespace divbench::attribute {

namespace {

std::string esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (const unsigned char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += (c < 0x20 && c != '\t') ? ' ' : static_cast<char>(c);
    }
  }
  return o;
}

using text::fmt;
const auto hex = text::hex4;

// A kernel's name to show: demangled, without "(anonymous namespace)::" and without its parameter list;
// the full name goes in the element's title.
std::string shown_name(const std::string& mangled) {
  std::string d = model::demangle(mangled);
  for (std::size_t at; (at = d.find("(anonymous namespace)::")) != std::string::npos;) d.erase(at, 23);
  int depth = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == '<') ++depth;
    else if (d[i] == '>') --depth;
    else if (d[i] == '(' && depth == 0 && i > 0) {
      d = d.substr(0, i);
      break;
    }
  }
  if (d.rfind("void ", 0) == 0) d = d.substr(5);
  return d.size() > 100 ? d.substr(0, 97) + "..." : d;
}

std::string name_html(const std::string& mangled) {
  return "<code title=\"" + esc(model::demangle(mangled)) + "\">" + esc(shown_name(mangled)) + "</code>";
}

std::string pct(const std::optional<double>& v) { return v ? fmt("%.1f%%", 100.0 * *v) : "-"; }

// "file:line" split; line 0 when there is none.
std::pair<std::string, int> split_source(const std::string& where) {
  const auto colon = where.rfind(':');
  if (colon == std::string::npos) return {where, 0};
  return {where.substr(0, colon), std::atoi(where.c_str() + colon + 1)};
}

// A source file's lines for the view: at most 200,000 (a generated file is not shown whole).
const std::vector<std::string>& file_lines(const std::string& path, text::SourceFiles& cache) {
  return text::source_lines(path, cache, 200000);
}

// The heat of a share: red with opacity growing with the share (0 transparent, 0.5 and above full).
std::string heat_style(double share) {
  const double a = std::clamp(share * 2.0, 0.0, 1.0);
  return "background:rgba(214,39,40," + fmt("%.3f", a) + ")";
}

constexpr const char* kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em;margin:0 0 .3em} h2{font-size:1.2em;margin:1.2em 0 .4em}
table{border-collapse:collapse} td,th{padding:1px 6px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f4f4f4} .num{text-align:right;font-variant-numeric:tabular-nums}
code,.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;white-space:pre}
.split{display:grid;grid-template-columns:minmax(0,11fr) minmax(0,9fr);gap:1.5em;align-items:start}
.source{overflow-x:auto} .sasspane{position:sticky;top:0;max-height:95vh;overflow:auto}
.sass{display:none;border:1px solid #ccc;padding:.4em} .sass:target,.sass.hottest{display:block}
.sasspane:has(.sass:target) .sass.hottest:not(:target){display:none}
.sass .branch{font-weight:bold} .heat{width:5em} tr.cold td{color:#777} a{color:#1f5fbf;text-decoration:none}
.note{color:#555;font-size:.9em} ol.ranked li{margin:.2em 0}
)";

}  // namespace

std::string html_view(const std::vector<KernelAttribution>& kernels, const std::vector<const sass::Function*>& functions,
                      const std::vector<std::vector<std::string>>& sources, const json& run) {
  text::SourceFiles cache;
  std::ostringstream o;
  std::string program = run.contains("program") ? run["program"].value("command", "") : "";
  if (program.empty() && run.contains("collection") && run["collection"].value("recorded", json()).is_string())
    program = "recorded in " + run["collection"]["recorded"].get<std::string>();
  o << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>divbench attribute: " << esc(program)
    << "</title><style>" << kStyle << "</style></head><body>\n";
  o << "<header><h1>Where divergence costs time</h1><p>Program: <code>" << esc(program) << "</code>";
  if (run.contains("device") && run["device"].is_object())
    o << " on " << esc(run["device"].value("name", "?")) << " (cc " << esc(run["device"].value("cc", "?")) << ")";
  o << ". <span class=\"note\">Predicted time saved: of the kernel's time if the divergence were removed, at the "
       "occupancy it ran at (docs/attribute.md \"Time saved\"). Select a source line for its SASS.</span></p></header>\n";

  // Each kernel's source files (first appearance order) and, per (file, line), its instructions.
  struct Line {
    std::vector<std::size_t> instructions;
    double share = 0;
    std::uint64_t divergent = 0;
    std::optional<double> efficiency;
  };
  std::vector<std::vector<std::string>> files(kernels.size());
  std::vector<std::map<std::pair<int, int>, Line>> lines(kernels.size());
  std::vector<std::map<std::size_t, const BranchCost*>> branch_at(kernels.size());
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto& src = sources.at(k);
    for (std::size_t i = 0; i < src.size(); ++i) {
      if (src[i].empty()) continue;
      const auto [file, n] = split_source(src[i]);
      auto f = std::find(files[k].begin(), files[k].end(), file);
      if (f == files[k].end()) f = files[k].insert(files[k].end(), file);
      lines[k][{int(f - files[k].begin()), n}].instructions.push_back(i);
    }
    for (const auto& b : kernels[k].branches) {
      branch_at[k][b.branch->index] = &b;
      if (b.branch->source.empty()) continue;
      const auto [file, n] = split_source(b.branch->source);
      const auto f = std::find(files[k].begin(), files[k].end(), file);
      if (f == files[k].end()) continue;
      Line& l = lines[k][{int(f - files[k].begin()), n}];
      l.share = std::max(l.share, b.time_saved_share.value_or(0.0));  // branches of one line overlap: not summed
      l.divergent += b.divergent;
      if (b.divergent && b.region_efficiency) l.efficiency = std::min(l.efficiency.value_or(1.0), *b.region_efficiency);
    }
  }
  const auto line_anchor = [&](std::size_t k, const std::string& where) -> std::string {
    const auto [file, n] = split_source(where);
    const auto f = std::find(files[k].begin(), files[k].end(), file);
    if (f == files[k].end() || n <= 0) return "";
    return "k" + std::to_string(k) + "-f" + std::to_string(f - files[k].begin()) + "-L" + std::to_string(n);
  };

  o << "<section id=\"summary\"><h2>Kernels</h2><table class=\"kernels\"><tr><th>kernel</th><th>predicted time saved</th>"
       "<th>seconds</th><th>resident warps / SM</th><th>divergent branch executions</th><th>thread instructions per "
       "instruction</th><th>warp-cycles lost</th></tr>\n";
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto& a = kernels[k];
    o << "<tr><td><a href=\"#k" << k << "\">" << name_html(a.table->name) << "</a></td><td class=\"num\">"
      << pct(a.time_saved_share) << "</td><td class=\"num\">" << (a.time_saved_s ? fmt("%.3g", *a.time_saved_s) : "-")
      << "</td><td class=\"num\">" << (a.resident_warps_per_sm ? fmt("%.0f", *a.resident_warps_per_sm) : "-")
      << "</td><td class=\"num\">" << a.divergent << "</td><td class=\"num\">"
      << (a.inst ? fmt("%.2f", double(a.thread_inst) / double(a.inst)) : "-") << "</td><td class=\"num\">"
      << fmt("%.4g", a.cycles_lost) << "</td></tr>\n";
  }
  o << "</table></section>\n";

  std::vector<const KernelAttribution*> owner;
  const auto rows = ranked(kernels, &owner);
  o << "<section id=\"ranked\"><h2>Divergent branches, ranked by predicted time saved</h2>\n";
  if (rows.empty()) o << "<p>No divergent branch executed.</p>\n";
  o << "<ol class=\"ranked\">\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const BranchCost& b = *rows[r];
    const std::size_t k = static_cast<std::size_t>(owner[r] - kernels.data());
    const std::string anchor = line_anchor(k, b.branch->source);
    o << "<li class=\"branch\" data-kernel=\"" << k << "\" data-pc=\"" << b.branch->pc << "\" data-share=\""
      << fmt("%.6g", b.time_saved_share.value_or(0.0)) << "\"><b>" << pct(b.time_saved_share) << "</b> ";
    if (!anchor.empty()) o << "<a class=\"src\" href=\"#" << anchor << "\">" << esc(b.branch->source) << "</a> ";
    else o << "<span class=\"src\">(no line info)</span> ";
    o << "<a class=\"pc\" href=\"#k" << k << "-pc-" << hex(b.branch->pc) << "\">pc 0x" << hex(b.branch->pc) << "</a> in "
      << name_html(owner[r]->table->name) << ": " << b.divergent << " of " << b.executions
      << " executions divergent; region efficiency " << (b.region_efficiency ? fmt("%.3f", *b.region_efficiency) : "-")
      << ". <span class=\"note\">" << esc(recovery_hint(b, loop_of(*owner[r], b))) << "</span></li>\n";
  }
  o << "</ol></section>\n";

  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto& a = kernels[k];
    const sass::Function& f = *functions.at(k);
    o << "<section class=\"kernel\" id=\"k" << k << "\"><h2>" << name_html(a.table->name) << " (sm_"
      << a.table->sm << ")</h2><p>Predicted time saved without its divergence: <b>" << pct(a.time_saved_share) << "</b>"
      << (a.time_saved_s ? " (" + fmt("%.3g", *a.time_saved_s) + " s)" : "")
      << (a.resident_warps_per_sm ? " at " + fmt("%.0f", *a.resident_warps_per_sm) + " resident warps per SM" : "")
      << "; warps " << a.warps << "; divergent branch executions " << a.divergent << ".</p>\n<div class=\"split\"><div class=\"source\">";
    if (files[k].empty()) o << "<p class=\"note\">No line table: build with <code>-lineinfo</code> for a source view.</p>";
    for (std::size_t fi = 0; fi < files[k].size(); ++fi) {
      int lo = 1 << 30, hi = 0;
      for (const auto& [key, l] : lines[k])
        if (key.first == int(fi) && key.second > 0) lo = std::min(lo, key.second), hi = std::max(hi, key.second);
      if (hi == 0) continue;
      const auto& text = file_lines(files[k][fi], cache);
      // The lines with code of this kernel and two either side; a gap between them is one row.
      std::set<int> shown;
      for (const auto& [key, l] : lines[k])
        if (key.first == int(fi) && key.second > 0)
          for (int n = key.second - 2; n <= key.second + 2; ++n)
            if (n >= 1 && (text.empty() || n <= int(text.size()))) shown.insert(n);
      lo = shown.empty() ? lo : *shown.begin();
      hi = shown.empty() ? hi : *shown.rbegin();
      o << "<h3><code>" << esc(files[k][fi]) << "</code></h3><table class=\"lines\"><tr><th class=\"heat\">time saved</th>"
           "<th>line</th><th>divergent</th><th>region eff.</th><th>source</th></tr>\n";
      for (int n = lo; n <= hi; ++n) {
        if (!shown.count(n)) {
          const auto next = shown.upper_bound(n);
          o << "<tr class=\"cold gap\"><td class=\"heat\"></td><td class=\"num\">&#8942;</td><td></td><td></td><td></td></tr>\n";
          n = next == shown.end() ? hi : *next - 1;
          continue;
        }
        const auto it = lines[k].find({int(fi), n});
        const std::string id = "k" + std::to_string(k) + "-f" + std::to_string(fi) + "-L" + std::to_string(n);
        const std::string code = n <= int(text.size()) ? text[n - 1] : "";
        if (it == lines[k].end()) {
          o << "<tr class=\"cold\"><td class=\"heat\"></td><td class=\"num\">" << n << "</td><td></td><td></td><td class=\"code\">"
            << esc(code) << "</td></tr>\n";
          continue;
        }
        const Line& l = it->second;
        o << "<tr id=\"" << id << "\" data-share=\"" << fmt("%.6g", l.share) << "\"><td class=\"heat\" style=\"" << heat_style(l.share)
          << "\">" << (l.share > 0 ? fmt("%.1f%%", 100.0 * l.share) : "") << "</td><td class=\"num\"><a href=\"#k" << k
          << "-sass-f" << fi << "-L" << n << "\">" << n << "</a></td><td class=\"num\">" << (l.divergent ? std::to_string(l.divergent) : "")
          << "</td><td class=\"num\">" << (l.efficiency ? fmt("%.2f", *l.efficiency) : "") << "</td><td class=\"code\"><a href=\"#k" << k
          << "-sass-f" << fi << "-L" << n << "\">" << (code.empty() ? "(line " + std::to_string(n) + ")" : esc(code)) << "</a></td></tr>\n";
      }
      o << "</table>\n";
    }
    o << "</div><div class=\"sasspane\">\n";
    // The line with the largest predicted saving shows its SASS until another line is selected.
    std::pair<int, int> hottest{-1, -1};
    double best = 0;
    for (const auto& [key, l] : lines[k])
      if (l.share > best) best = l.share, hottest = key;
    for (const auto& [key, l] : lines[k]) {
      o << "<div class=\"sass" << (key == hottest ? " hottest" : "") << "\" id=\"k" << k << "-sass-f" << key.first << "-L"
        << key.second << "\"><h3><code>"
        << esc(files[k][key.first]) << ":" << key.second << "</code></h3><table><tr><th>pc</th><th>warp execs</th>"
        << "<th>active lanes</th><th>SASS</th></tr>\n";
      for (std::size_t i : l.instructions) {
        const auto& ins = f.instructions[i];
        const std::uint64_t pc = ins.offset - f.start;
        const PcCounts* c = a.counts ? a.counts->at(pc) : nullptr;
        const auto b = branch_at[k].find(i);
        o << "<tr id=\"k" << k << "-pc-" << hex(pc) << "\"" << (b != branch_at[k].end() ? " class=\"branch\"" : "") << "><td><code>0x"
          << hex(pc) << "</code></td><td class=\"num\">" << (c ? std::to_string(c->inst) : "0") << "</td><td class=\"num\">"
          << (c && c->inst ? fmt("%.1f", double(c->thread_inst) / double(c->inst)) : "-") << "</td><td><code>" << esc(ins.text())
          << "</code>";
        if (b != branch_at[k].end()) {
          const BranchCost& bc = *b->second;
          o << "<br>branch: " << bc.divergent << " of " << bc.executions << " divergent; reconverges "
            << (bc.branch->ipdom ? "at 0x" + hex(*bc.branch->ipdom) : std::string("at the exit")) << " ("
            << esc(bc.branch->placement) << " its IPDom); time saved " << pct(bc.time_saved_share);
        }
        o << "</td></tr>\n";
      }
      o << "</table></div>\n";
    }
    o << "</div></div></section>\n";
  }
  o << "<footer class=\"note\"><p>divbench attribute; document schema divbench.attribute/1.</p></footer></body></html>\n";
  return o.str();
}

}  // namespace divbench::attribute
