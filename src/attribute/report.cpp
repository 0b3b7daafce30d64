// Console, JSON and markdown output of `divbench attribute` (attribute/report.hpp).
#include "divbench/attribute/report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "divbench/core/files.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "text.hpp"

namespace divbench::attribute {

namespace {

using text::fmt;

std::string hexpc(std::uint64_t v) { return "0x" + text::hex4(v); }

std::string short_name(const std::string& mangled, std::size_t width) {
  std::string d = model::demangle(mangled);
  if (d.size() > width) d = d.substr(0, width - 3) + "...";
  return d;
}

// The text of the line `where` ("file:line") names, trimmed; "" when the file is not readable here.
// Each file is read once per report (`files` keeps its lines).
std::string source_line_text(const std::string& where, text::SourceFiles& files) {
  const auto colon = where.rfind(':');
  if (colon == std::string::npos) return "";
  const int n = std::atoi(where.c_str() + colon + 1);
  const auto& lines = text::source_lines(where.substr(0, colon), files);
  if (n < 1 || static_cast<std::size_t>(n) > lines.size()) return "";
  const std::string& line = lines[n - 1];
  const auto a = line.find_first_not_of(" \t");
  return a == std::string::npos ? "" : line.substr(a);
}

std::string opt(const std::optional<double>& v, const char* f) { return v ? fmt(f, *v) : "-"; }

// "12.3% 4.1e-05s", "12.3%", or "-" before the time model ran.
std::string saved(const BranchCost& b) {
  if (!b.time_saved_share) return "-";
  return fmt("%.1f%%", 100.0 * *b.time_saved_share) + (b.time_saved_s ? " " + fmt("%.2g", *b.time_saved_s) + "s" : "");
}

}  // namespace

json static_document(const std::vector<FunctionBranches>& kernels) {
  json k = json::array();
  for (const auto& f : kernels) k.push_back(to_json(f));
  return json{{"schema", kStaticSchema}, {"kernels", k}};
}

std::string static_console(const std::vector<FunctionBranches>& kernels) {
  std::ostringstream o;
  for (const auto& f : kernels) {
    o << "sm_" << f.sm << "  " << short_name(f.name, 90) << ": " << f.branches.size() << " potentially divergent branch(es)\n";
    for (const auto& b : f.branches)
      o << "  pc " << hexpc(b.pc) << "  ipdom " << (b.ipdom ? hexpc(*b.ipdom) : std::string("exit  ")) << "  "
        << b.placement << (b.guarded ? "" : " (unguarded)") << "  nesting " << b.nesting << "  "
        << (b.source.empty() ? "(no line info)" : b.source) << "  " << b.text << "\n";
  }
  return o.str();
}

std::vector<const BranchCost*> ranked(const std::vector<KernelAttribution>& kernels,
                                      std::vector<const KernelAttribution*>* owner) {
  std::vector<std::pair<const BranchCost*, const KernelAttribution*>> all;
  for (const auto& k : kernels)
    for (const auto& b : k.branches)
      if (b.divergent > 0 && !b.counted_in) all.emplace_back(&b, &k);  // a loop's other exits: counted at one
  // Time saved first (seconds where measured, else the share), warp-cycles lost breaking ties and ranking
  // attributions the time model never ran on.
  const auto key = [](const BranchCost& b) {
    return std::make_tuple(b.time_saved_s.value_or(-1.0), b.time_saved_share.value_or(-1.0), b.cycles_lost);
  };
  std::stable_sort(all.begin(), all.end(), [&](const auto& x, const auto& y) { return key(*x.first) > key(*y.first); });
  std::vector<const BranchCost*> out;
  for (const auto& [b, k] : all) {
    out.push_back(b);
    if (owner) owner->push_back(k);
  }
  return out;
}

std::string ranked_table(const std::vector<KernelAttribution>& kernels, std::size_t top) {
  std::vector<const KernelAttribution*> owner;
  const auto rows = ranked(kernels, &owner);
  double total = 0;
  for (const auto& k : kernels) total += k.cycles_lost;
  std::ostringstream o;
  if (rows.empty()) {
    o << "No divergent branch executed (" << kernels.size() << " kernel(s) measured).\n";
    return o.str();
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-4s %-34s %-8s %-26s %18s %10s %7s %6s %15s %9s %14s %6s %s\n", "rank", "kernel", "pc",
                "source", "time saved", "execs", "div%", "paths", "lanes b/in/a", "placement", "warp-cyc lost", "share", "");
  o << line;
  for (std::size_t i = 0; i < rows.size() && i < top; ++i) {
    const BranchCost& b = *rows[i];
    std::string src = b.branch->source.empty() ? "-" : b.branch->source;
    if (src.size() > 26) src = "..." + src.substr(src.size() - 23);
    const std::string lanes = (b.active_entry ? fmt("%.1f", *b.active_entry) : fmt("%.1f", b.active_before)) + "/" +
                              opt(b.active_inside, "%.1f") + "/" + opt(b.active_after, "%.1f");
    const double kw = owner[i]->modelled_warp_cycles;
    std::snprintf(line, sizeof line, "%-4zu %-34s %-8s %-26s %18s %10llu %6.1f%% %6s %15s %9s %14.4g %6s %s\n", i + 1,
                  short_name(owner[i]->table->name, 34).c_str(), hexpc(b.branch->pc).c_str(), src.c_str(), saved(b).c_str(),
                  static_cast<unsigned long long>(b.executions), 100.0 * double(b.divergent) / double(b.executions),
                  opt(b.paths_mean, "%.2f").c_str(), lanes.c_str(), b.branch->placement.c_str(), b.cycles_lost,
                  kw > 0 ? fmt("%.1f%%", 100.0 * b.cycles_lost / kw).c_str() : "-",
                  (std::string(b.branch->loop ? "loop" : "") + (b.lower_bound ? " (lower bound)" : "")).c_str());
    o << line;
  }
  if (rows.size() > top) o << "... " << rows.size() - top << " more divergent branch(es) in the JSON result\n";
  o << "Estimated cycles lost to divergence, all kernels: " << fmt("%.4g", total)
    << " (warp-cycles of issue, summed over warps; nested regions and a loop's exits counted once). time saved: of the "
       "kernel's time if the divergence were removed, at the occupancy it ran at (predicted); lanes b: at the branch, or "
       "for a loop at its entry; share: of the kernel's modelled warp-cycles\n";
  return o.str();
}

std::string markdown_report(const std::vector<KernelAttribution>& kernels, const json& run) {
  std::ostringstream o;
  o << "# Where does divergence cost this program?\n\n";
  if (run.contains("program")) o << "Program: `" << run["program"].value("command", "") << "`";
  if (run.contains("device")) o << " on " << run["device"].value("name", "?") << " (cc " << run["device"].value("cc", "?") << ")";
  o << "\n\n";
  if (run.contains("cost_model"))
    o << "Cost model: " << run["cost_model"].value("summary", "") << "\n\n";
  std::vector<const KernelAttribution*> owner;
  const auto rows = ranked(kernels, &owner);
  o << "## Ranked divergent branches\n\n";
  if (rows.empty()) o << "No divergent branch executed.\n\n";
  else {
    o << "| rank | kernel | pc | source | predicted time saved | executions | divergent | mean paths | active lanes before (loop: entry) / inside / after | "
         "region efficiency | reconvergence | est. warp-cycles lost | share of modelled warp-cycles | what would recover it |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const BranchCost& b = *rows[i];
      o << "| " << i + 1 << " | `" << short_name(owner[i]->table->name, 60) << "` | " << hexpc(b.branch->pc) << " | "
        << (b.branch->source.empty() ? "-" : "`" + b.branch->source + "`") << " | " << saved(b) << " | " << b.executions << " | " << b.divergent
        << " | " << opt(b.paths_mean, "%.3f") << " | " << fmt("%.2f", b.active_before) << " / " << opt(b.active_inside, "%.2f")
        << " / " << opt(b.active_after, "%.2f") << " | " << opt(b.region_efficiency, "%.3f") << " | " << b.branch->placement
        << " | " << fmt("%.4g", b.cycles_lost) << (b.lower_bound ? " (lower bound)" : "") << " | "
        << (owner[i]->modelled_warp_cycles > 0 ? fmt("%.1f%%", 100.0 * b.cycles_lost / owner[i]->modelled_warp_cycles) : "-")
        << " | " << recovery_hint(b, loop_of(*owner[i], b)) << " |\n";
    }
    o << "\n";
  }
  o << "## By kernel and source line\n\n";
  text::SourceFiles files;
  for (const auto& k : kernels) {
    o << "### `" << short_name(k.table->name, 200) << "` (" << "sm_" << k.table->sm << ")\n\n";
    o << "Warps: " << k.warps << "; thread instructions per warp instruction: "
      << (k.inst ? fmt("%.3f", double(k.thread_inst) / double(k.inst)) : "-") << "; divergent branch executions: " << k.divergent
      << "; predicted time saved without its divergence: "
      << (k.time_saved_share ? fmt("%.1f%%", 100.0 * *k.time_saved_share) + (k.time_saved_s ? " (" + fmt("%.3g", *k.time_saved_s) + " s)" : "") : "-")
      << (k.resident_warps_per_sm ? " at " + fmt("%.0f", *k.resident_warps_per_sm) + " resident warps per SM" : "")
      << "; estimated warp-cycles lost: " << fmt("%.4g", k.cycles_lost)
      << (k.modelled_warp_cycles > 0 ? " (" + fmt("%.1f", 100.0 * k.cycles_lost / k.modelled_warp_cycles) + "% of its modelled warp-cycles)" : "")
      << "\n\n";
    for (const auto& l : k.loops) {
      o << "- divergent loop exiting at pc " << hexpc(l.representative->branch->pc)
        << (l.representative->branch->source.empty() ? "" : " (`" + l.representative->branch->source + "`)") << ": "
        << l.entry_warps << " warp entries with " << opt(l.representative->active_entry, "%.2f") << " lanes; "
        << opt(l.trips_per_warp_entry, "%.3g") << " trips per warp entry against " << opt(l.trips_per_lane, "%.3g")
        << " per lane; region efficiency " << opt(l.representative->region_efficiency, "%.3f") << "; est. "
        << fmt("%.4g", l.representative->cycles_lost) << " cycles lost\n";
    }
    if (!k.loops.empty()) o << "\n";
    for (const auto& b : k.branches) {
      if (b.executions == 0) continue;
      o << "- pc " << hexpc(b.branch->pc) << " `" << b.branch->text << "`"
        << (b.branch->source.empty() ? "" : " at `" + b.branch->source + "`");
      const std::string text = b.branch->source.empty() ? "" : source_line_text(b.branch->source, files);
      if (!text.empty()) o << ": `" << one_line(text) << "`";
      o << " — " << b.executions << " executions, " << b.divergent << " divergent; "
        << (b.branch->guarded ? "reconverges " + b.branch->placement + " its IPDom" : std::string("no BSSY guards it"))
        << "; est. " << fmt("%.4g", b.cycles_lost) << " cycles lost";
      if (b.counted_in)
        o << (b.branch->call ? " (an indirect call: the callees are shared with the call at pc " : " (counted with the exit at pc ")
          << hexpc(b.counted_in->branch->pc) << ", whose loss holds this one's)";
      o << "\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace divbench::attribute
