// --probe producer-consumer: a group of producer lanes works W iterations and publishes; the other
// lanes spin until every producer has published (the paper's Section IV-E saw <= 2 spins with the
// producer's path laid out first). Two producer groups: lane 0 alone (the paper's shape: the
// producer side is the minority) and lanes 0..30 with lane 31 the one consumer (the producer side
// is the majority), so "the minority side runs first" and "the producer side runs first" predict
// different orders. Both structural orders run: the producers in the `then` arm and in the `else`
// arm of one divergent if/else, each arm a distinct __noinline__ function. Which arm is the
// branch's fall-through, and the reconvergence form, come from this binary's SASS
// (probe_layout.hpp); the run records which side the hardware entered first (clock64 at entry) in
// the order probe's fields (group = the producers).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <optional>

#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/core/warp.hpp"
#include "experiments/order/summary.hpp"
#include "harness/experiment.hpp"
#include "probes/probe_layout.hpp"
#include "probes/probe_options.hpp"
#include "experiments/producer_consumer/launcher.hpp"

namespace divbench {
namespace {

constexpr int kLaunches = 3;
const std::vector<std::uint32_t> kWorks{1000u, 100000u, 10000000u};

struct PcVariant {
  const char* name;
  std::uint32_t producers;  // lane mask
};
const std::vector<PcVariant>& pc_variants() {
  static const std::vector<PcVariant> v{{"producer_minority", 0x00000001u},   // producer lane 0, consumers 1..31
                                        {"producer_majority", 0x7fffffffu}};  // producers 0..30, consumer 31
  return v;
}

ProbeCaps pc_caps() {
  ProbeCaps c;
  c.max_spins = 1u << 26;          // the deadline below is the binding cap
  c.max_ns = 1'000'000'000ull;     // ~7x the producer's 10^7-iteration work (~0.15 s at 2 GHz)
  return c;
}

// Host references per work and lane, computed once, the missing lanes of a producer group in
// parallel (31 lanes of 10^7 dependent FMAs take ~4 s on one core).
class References {
 public:
  void prepare(std::uint32_t producers, std::uint32_t work) {
    std::vector<std::pair<int, std::future<float>>> jobs;
    for (int lane : mask_lanes(producers))
      if (!cache_[work][lane]) jobs.emplace_back(lane, std::async(std::launch::async, probe_work_reference, lane, work));
    for (auto& [lane, f] : jobs) cache_[work][lane] = f.get();
  }
  float producer(int lane, std::uint32_t work) {
    auto& slot = cache_[work][lane];
    if (!slot) slot = probe_work_reference(lane, work);
    return *slot;
  }
  // What a consumer reads: the producers' results summed in lane order, as the kernel sums them.
  float consumer(std::uint32_t producers, std::uint32_t work) {
    float sum = 0;
    bool first = true;
    for (int lane : mask_lanes(producers)) {
      sum = first ? producer(lane, work) : sum + producer(lane, work);
      first = false;
    }
    return sum;
  }

 private:
  std::map<std::uint32_t, std::array<std::optional<float>, kWarpLanes>> cache_;
};

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

json check_run(const PcRun& run, std::uint32_t producers, bool producer_in_then, std::uint32_t work,
               References& refs) {
  const std::string where = "producer_consumer/W=" + std::to_string(work) + ": ";
  const std::uint32_t producer_side = producer_in_then ? 0u : 1u;
  const float want = refs.consumer(producers, work);
  if (run.published != static_cast<std::uint32_t>(mask_size(producers)))
    throw VerificationError(where + std::to_string(run.published) + " producers published, expected " +
                            std::to_string(mask_size(producers)));
  std::uint32_t max_spins = 0;
  bool capped = false;
  std::uint64_t producer_enter = ~0ull, producer_done = 0, producer_cycles = 0, consumer_enter = ~0ull,
                consumer_done = 0;
  std::vector<std::uint32_t> spins;
  std::vector<std::uint64_t> enter(kWarpLanes);
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const PcLane& l = run.lanes[lane];
    enter[lane] = l.enter_clk;
    if (mask_has_lane(producers, lane)) {
      if (l.role != 1 || l.side != producer_side)
        throw VerificationError(where + "producer lane " + std::to_string(lane) + " wrote no record");
      const float p = refs.producer(lane, work);
      if (!same_bits(l.value, p))
        throw VerificationError(where + "producer lane " + std::to_string(lane) + " computed " +
                                std::to_string(l.value) + ", expected " + std::to_string(p));
      producer_enter = std::min(producer_enter, l.enter_clk);
      producer_done = std::max(producer_done, l.done_clk);
      producer_cycles = std::max(producer_cycles, l.done_clk - l.enter_clk);
      continue;
    }
    if (l.role != 2 || l.side != 1u - producer_side || l.capped > 1)
      throw VerificationError(where + "consumer lane " + std::to_string(lane) + " wrote an inconsistent record");
    if (l.capped == 0 && !same_bits(l.value, want))
      throw VerificationError(where + "consumer lane " + std::to_string(lane) + " saw every producer publish but read " +
                              std::to_string(l.value) + " instead of " + std::to_string(want));
    capped = capped || l.capped == 1;
    max_spins = std::max(max_spins, l.spins);
    spins.push_back(l.spins);
    consumer_enter = std::min(consumer_enter, l.enter_clk);
    consumer_done = std::max(consumer_done, l.done_clk);
  }
  const EntryOrder order = entry_order(enter, producers);
  json j = to_json(order);
  j.update(json{{"completed", !capped},
                {"cap_reached", capped},
                {"max_consumer_spins", max_spins},
                {"consumer_spins", spins},
                {"producer_entered_first", order.first == std::optional<std::string>("group")},
                {"producer_cycles", producer_cycles},
                {"consumer_enter_minus_producer_enter_cycles",
                 static_cast<double>(consumer_enter) - static_cast<double>(producer_enter)},
                {"consumers_done_minus_publish_cycles",
                 static_cast<double>(consumer_done) - static_cast<double>(producer_done)},
                {"region_cycles", run.region.cycles}});
  return j;
}

struct ProducerConsumerConfig : ProbeConfig {
  std::vector<std::uint32_t> works = kWorks;
};

ProducerConsumerConfig parse(const SettingValues& o) {
  auto c = parse_probe_config<ProducerConsumerConfig>(o, kLaunches);
  c.caps = pc_caps();
  return c;
}

json to_json(const ProducerConsumerConfig& c) {
  json variants = json::array();
  for (const auto& v : pc_variants())
    variants.push_back(json{{"name", v.name},
                            {"producer_lanes", mask_lanes(v.producers)},
                            {"consumer_lanes", mask_lanes(~v.producers)}});
  json j{{"works", c.works}, {"variants", variants}};
  j.update(probe_config_json(c));
  j["arms"] = "then = pc_arm<0>, else = pc_arm<1> (distinct __noinline__ functions)";
  return j;
}

std::vector<PointSpec> plan(const ProducerConsumerConfig& c, const DeviceRecord& dev) {
  require_independent_scheduling(dev, "producer-consumer");
  const ProbeLayout layout = probe_layout(dev, {{"producer_consumer_kernel"}, "pc_armILi0E", "pc_armILi1E"});
  auto refs = std::make_shared<References>();
  std::vector<PointSpec> pts;
  for (const auto& v : pc_variants())
    for (bool in_then : {true, false})
      for (std::uint32_t w : c.works) {
        const std::uint32_t producers = v.producers;
        const std::string name = v.name;
        pts.push_back({{{"variant", v.name}, {"producer_arm", in_then ? "then" : "else"}, {"work", w}},
                       "",
                       [in_then, w, c, layout, refs, producers, name] {
                         refs->prepare(producers, w);
                         const auto one = [&] {
                           return check_run(run_producer_consumer_probe(in_then, producers, w, c.caps), producers,
                                            in_then, w, *refs);
                         };
                         return probe_point(c.runs.launches, one, [&](const json& runs, PointResult& r) {
                           const auto side = group_side(layout, in_then);
                           const bool capped = any_run(runs, "cap_reached");
                           const std::uint64_t max_spins = max_run(runs, "max_consumer_spins");
                           r.raw = json{{"variant", name},
                                        {"producer_in_then", in_then},
                                        {"producer_first", side ? json(*side == "fallthrough") : json(nullptr)},
                                        {"layout", to_json(layout)},
                                        {"work", w},
                                        {"completed", !capped},
                                        {"cap_reached", capped},
                                        {"max_consumer_spins", max_spins},
                                        {"producer_entered_first", all_runs(runs, "producer_entered_first")}};
                           r.raw.update(side_order_fields(producers, side, reconvergence_form(layout),
                                                          combine_launches(runs)));
                           r.counters["max_consumer_spins"] = static_cast<double>(max_spins);
                         });
                       },
                       nullptr, nullptr});
      }
  return pts;
}

// Which side entered first, counted over the orders: the producer side, and the side each
// candidate order rule (experiments/order/summary.hpp) predicts.
json conclusion(const json& points) {
  int n = 0, producer_first = 0;
  std::map<std::string, int> by_variant_n, by_variant_producer;
  std::vector<OrderObservation> obs;
  for (const auto& p : points) {
    const json first = p.value("first", json(nullptr)), side = p.value("group_side", json(nullptr));
    if (first.is_null()) continue;
    ++n;
    const bool pf = first == "group";
    const std::string variant = p.value("variant", std::string("?"));
    producer_first += pf;
    by_variant_n[variant] += 1;
    by_variant_producer[variant] += pf;
    if (side.is_null()) continue;
    obs.push_back({lanes_mask(p.at("group_lanes")), 0xffffffffu, side.get<std::string>(), first.get<std::string>(),
                   variant + " " + side.get<std::string>() + " W=" + p.value("work", json(nullptr)).dump(), false,
                   "producer_consumer " + variant});
  }
  std::string s = "the producer side entered first in " + std::to_string(producer_first) + " of " + std::to_string(n) +
                  " orders";
  for (const auto& [v, k] : by_variant_n)
    s += "; " + v + ": " + std::to_string(by_variant_producer[v]) + " of " + std::to_string(k);
  json j{{"producer_side_first", producer_first}, {"orders_ordered", n}};
  j["fit"] = rule_summary(fit_order_rule(obs), obs);
  s += obs.empty() ? " (fall-through side unknown: no rule fitted)"
                   : "; best structural rule: " + j["fit"]["rule"].get<std::string>();
  j["sentence"] = s;
  return j;
}

void finalize(const ProducerConsumerConfig&, ResultRecord& r) {
  json orders = json::array();
  bool all_completed = true;
  for (const auto& p : r.points_extra) {
    json o = json::object();
    for (const char* k : {"variant", "producer_first", "producer_in_then", "work", "max_consumer_spins", "completed",
                          "producer_entered_first"})
      o[k] = p.value(k, json(nullptr));
    o.update(side_order_subset(p));
    orders.push_back(o);
    all_completed = all_completed && p.value("completed", false);
  }
  r.summary["orders"] = orders;
  r.summary["completed"] = all_completed;
  r.summary["conclusion"] = conclusion(r.points_extra);
}

ExperimentDef<ProducerConsumerConfig> producer_consumer_experiment() {
  ExperimentDef<ProducerConsumerConfig> d{
      "producer_consumer", {"producer-consumer"}, "probe",
      "producers work W iterations and publish, consumers spin on them (1 producer / 31 consumers, and 31 / 1); "
      "both structural orders",
      parse, to_json, nullptr, plan, finalize, [](const ProducerConsumerConfig& c) { return probe_notes(c.runs); }};
  d.headline = {{"completed", "", "every variant's consumer got the producer's value within the caps"}};
  d.axes = {{{"variant", AxisType::string, "", "", "which lanes produce", AxisLabel::bare},
             [](const ProducerConsumerConfig&) { return axis_names(pc_variants(), [](const auto& v) { return v.name; }); }},
            {{"producer_arm", AxisType::string, "", "", "the branch arm the producers take (then or else)"},
             [](const ProducerConsumerConfig&) { return json{"then", "else"}; }},
            {{"work", AxisType::integer, "iterations", "", "the producers' work before they publish", AxisLabel::keyed,
              "W"},
             [](const ProducerConsumerConfig& c) { return json(c.works); }}};
  d.settings = probe_settings();
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(producer_consumer_experiment);

}  // namespace divbench
