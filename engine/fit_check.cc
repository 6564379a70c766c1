#include "engine/fit_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "common/strings.h"
#include "config/keys.h"

namespace tony::engine {
namespace {

std::string Never(const FitWords& w) { return "the job can never run on " + w.place + ": "; }

std::string WayOut(const FitWords& w) { return " (" + w.way_out + ")"; }

// Which amounts a message shows: memory always, the others where they matter.
struct Shown {
  bool vcores = false;
  bool gpus = false;
};

std::string Plural(int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "yarn.io/gpu:2" on YARN, "2 GPUs" on this machine.
std::string Gpus(int64_t n, const FitWords& w) {
  return w.gpu_unit.empty() ? Plural(n, "GPU", "GPUs") : w.gpu_unit + ":" + std::to_string(n);
}

std::string Amounts(const FitResources& r, Shown shown, const FitWords& w) {
  std::string s = std::to_string(r.memory_mb) + " MB";
  if (shown.vcores) s += ", " + Plural(r.vcores, "vcore", "vcores");
  if (shown.gpus) s += ", " + Gpus(r.gpus, w);
  return s;
}

bool HasLabel(const FitNode& node, const std::string& label) {
  return label.empty() ||
         std::find(node.labels.begin(), node.labels.end(), label) != node.labels.end();
}

bool Holds(const FitResources& room, const FitResources& want, bool count_vcores) {
  return want.memory_mb <= room.memory_mb && want.gpus <= room.gpus &&
         (!count_vcores || want.vcores <= room.vcores);
}

std::string ContainerName(const FitAsk& a) {
  if (a.am) return "the AM container";
  bool vowel = !a.role.empty() && std::string("aeiou").find(a.role[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + a.role + " container";
}

// The packing search: containers in decreasing order, each tried on the nodes in order (the first
// path it walks is first-fit decreasing), backtracking when one fits nowhere.
class Packer {
 public:
  Packer(const std::vector<FitNode>& nodes, const FitGang& gang, bool count_vcores, int64_t budget)
      : nodes_(nodes), count_vcores_(count_vcores), budget_(budget) {
    for (const FitNode& n : nodes) room_.push_back(n.capability);
    for (const FitAsk& a : gang.asks) {
      for (int i = 0; i < a.count; ++i) items_.push_back(&a);
    }
    // Labelled containers first (they have the fewest places), then the largest.
    std::stable_sort(items_.begin(), items_.end(), [](const FitAsk* x, const FitAsk* y) {
      auto key = [](const FitAsk* a) {
        return std::make_tuple(!a->node_label.empty(), a->resource.memory_mb, a->resource.gpus,
                               a->resource.vcores);
      };
      return key(x) > key(y);
    });
    placed_on_.assign(items_.size(), 0);
  }

  Packing Run() {
    if (items_.empty()) return Packing::kFits;
    return Place(0);
  }

 private:
  Packing Place(size_t i) {
    if (i == items_.size()) return Packing::kFits;
    const FitAsk& item = *items_[i];
    // Two equal containers are interchangeable: the second goes no earlier than the first,
    // so no placement is tried twice in another order.
    size_t first = i > 0 && items_[i - 1] == items_[i] ? placed_on_[i - 1] : 0;
    // A node left like one already tried (same room, same labels) leads to the same result.
    std::vector<std::pair<FitResources, const FitNode*>> tried;
    bool unknown = false;
    for (size_t n = first; n < nodes_.size(); ++n) {
      if (!HasLabel(nodes_[n], item.node_label) || !Holds(room_[n], item.resource, count_vcores_)) {
        continue;
      }
      bool same = std::any_of(tried.begin(), tried.end(), [&](const auto& t) {
        return SameRoom(t.first, room_[n]) && t.second->labels == nodes_[n].labels;
      });
      if (same) continue;
      tried.emplace_back(room_[n], &nodes_[n]);
      if (--budget_ < 0) return Packing::kUnknown;
      Take(n, item.resource, 1);
      placed_on_[i] = n;
      Packing rest = Place(i + 1);
      Take(n, item.resource, -1);
      if (rest == Packing::kFits) return rest;
      if (rest == Packing::kUnknown) unknown = true;
      if (budget_ < 0) return Packing::kUnknown;
    }
    return unknown ? Packing::kUnknown : Packing::kCannot;
  }

  bool SameRoom(const FitResources& a, const FitResources& b) const {
    return a.memory_mb == b.memory_mb && a.gpus == b.gpus &&
           (!count_vcores_ || a.vcores == b.vcores);
  }

  void Take(size_t n, const FitResources& r, int sign) {
    room_[n].memory_mb -= sign * r.memory_mb;
    room_[n].vcores -= sign * r.vcores;
    room_[n].gpus -= sign * r.gpus;
  }

  const std::vector<FitNode>& nodes_;
  bool count_vcores_;
  int64_t budget_;
  std::vector<FitResources> room_;
  std::vector<const FitAsk*> items_;
  std::vector<size_t> placed_on_;
};

// The RUNNING nodes a container may go to, and how to name them in a message.
std::vector<const FitNode*> NodesFor(const std::vector<FitNode>& nodes, const FitAsk& a) {
  std::vector<const FitNode*> out;
  for (const FitNode& n : nodes) {
    if (HasLabel(n, a.node_label)) out.push_back(&n);
  }
  return out;
}

// "the largest NodeManager has 4096 MB (2 nodes running)", or "this machine has 8192 MB".
struct NodesSaid {
  std::string which;    // "the largest NodeManager [labelled gpu (key)]" / "this machine"
  std::string running;  // "2 nodes running", or empty for the one machine
};

NodesSaid SayNodes(const std::vector<FitNode>& nodes, size_t eligible, const FitAsk& a,
                   const FitWords& w) {
  if (w.one_node) return {w.place, ""};
  std::string running = Plural(static_cast<int64_t>(nodes.size()), "node", "nodes") + " running";
  NodesSaid said{"the largest " + w.node, ""};
  if (!a.node_label.empty()) {
    said.which += " labelled " + a.node_label + " (" + a.label_setting + ")";
    running = Plural(static_cast<int64_t>(eligible), "node", "nodes") + " of the " + running +
              " with that label";
  }
  said.running = running;
  return said;
}

// A GPU ask where no node it may go to offers any GPU.
Status NoGpus(const FitAsk& a, const FitWords& w) {
  std::string where =
      w.one_node || a.node_label.empty() ? "" : " (with label " + a.node_label + ")";
  return ResourceExhausted(Never(w) + ContainerName(a) + " needs " + Gpus(a.resource.gpus, w) +
                           " (" + a.gpus_setting + ") but " + w.place + " has no GPUs" + where +
                           ": " + w.no_gpus_why + WayOut(w));
}

// A container whose amounts each fit some node, but no node has all of them.
Status NoNodeHasAll(const std::vector<const FitNode*>& eligible, const FitAsk& a, bool count_vcores,
                    const FitWords& w, const std::string& running) {
  Shown shown{count_vcores, a.resource.gpus > 0};
  std::string settings = a.memory_setting;
  if (shown.vcores) settings += ", " + a.vcores_setting;
  if (shown.gpus) settings += ", " + a.gpus_setting;
  std::vector<std::string> caps;
  for (const FitNode* n : eligible) {
    std::string c = Amounts(n->capability, shown, w);
    if (std::find(caps.begin(), caps.end(), c) == caps.end()) caps.push_back(c);
  }
  std::string inside = running.empty() ? "" : running + ": ";
  return ResourceExhausted(Never(w) + ContainerName(a) + " needs " + Amounts(a.resource, shown, w) +
                           " (" + settings + ") but no " + w.node + " has all of it at once (" +
                           inside + Join(caps, "; ") + ")" + WayOut(w));
}

// One container larger than every node it may go to.
Status CheckContainer(const std::vector<FitNode>& nodes, const FitAsk& a, bool count_vcores,
                      const FitWords& w) {
  std::vector<const FitNode*> eligible = NodesFor(nodes, a);
  if (eligible.empty()) {
    return ResourceExhausted(Never(w) + ContainerName(a) + " asks for node label " + a.node_label +
                             " (" + a.label_setting + ") but none of the " +
                             Plural(static_cast<int64_t>(nodes.size()), "node", "nodes") +
                             " running has that label" + WayOut(w));
  }
  for (const FitNode* n : eligible) {
    if (Holds(n->capability, a.resource, count_vcores)) return Status::Ok();
  }
  FitResources largest;
  for (const FitNode* n : eligible) {
    largest.memory_mb = std::max(largest.memory_mb, n->capability.memory_mb);
    largest.vcores = std::max(largest.vcores, n->capability.vcores);
    largest.gpus = std::max(largest.gpus, n->capability.gpus);
  }
  NodesSaid said = SayNodes(nodes, eligible.size(), a, w);
  auto refuse = [&](const std::string& needs, const std::string& setting, const std::string& has) {
    return ResourceExhausted(Never(w) + ContainerName(a) + " needs " + needs + " (" + setting +
                             ") but " + said.which + " has " + has +
                             (said.running.empty() ? "" : " (" + said.running + ")") + WayOut(w));
  };
  if (a.resource.memory_mb > largest.memory_mb) {
    return refuse(std::to_string(a.resource.memory_mb) + " MB", a.memory_setting,
                  std::to_string(largest.memory_mb) + " MB");
  }
  if (a.resource.gpus > largest.gpus) {
    if (largest.gpus == 0) return NoGpus(a, w);
    return refuse(Gpus(a.resource.gpus, w), a.gpus_setting, Gpus(largest.gpus, w));
  }
  if (count_vcores && a.resource.vcores > largest.vcores) {
    return refuse(Plural(a.resource.vcores, "vcore", "vcores"), a.vcores_setting,
                  Plural(largest.vcores, "vcore", "vcores"));
  }
  return NoNodeHasAll(eligible, a, count_vcores, w, said.running);
}

FitResources Total(const FitGang& gang) {
  FitResources t;
  for (const FitAsk& a : gang.asks) {
    t.memory_mb += a.resource.memory_mb * a.count;
    t.vcores += a.resource.vcores * a.count;
    t.gpus += a.resource.gpus * a.count;
  }
  return t;
}

// "the AM (2048 MB) and 2 worker containers of 4096 MB (10240 MB in all)".
std::string DescribeGang(const FitGang& gang, Shown shown, const FitWords& w) {
  std::vector<std::string> parts;
  for (const FitAsk& a : gang.asks) {
    if (a.am) {
      parts.push_back("the AM (" + Amounts(a.resource, shown, w) + ")");
    } else {
      parts.push_back(Plural(a.count, a.role + " container", a.role + " containers") + " of " +
                      Amounts(a.resource, shown, w));
    }
  }
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += i + 1 == parts.size() ? " and " : ", ";
    s += parts[i];
  }
  return s + " (" + Amounts(Total(gang), shown, w) + " in all)";
}

// "be placed on 2 NodeManagers of 4096 MB each", "be placed on 3 NodeManagers (2 of 4096 MB, 1
// of 8192 MB)", or "run at once: this machine has 8192 MB".
std::string DescribeNodes(const std::vector<FitNode>& nodes, Shown shown, const FitWords& w) {
  if (w.one_node && nodes.size() == 1) {
    return "run at once: " + w.place + " has " + Amounts(nodes[0].capability, shown, w);
  }
  std::vector<std::pair<std::string, int>> kinds;
  for (const FitNode& n : nodes) {
    std::string c = Amounts(n.capability, shown, w);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == c; });
    if (it == kinds.end()) {
      kinds.emplace_back(c, 1);
    } else {
      ++it->second;
    }
  }
  std::string s =
      "be placed on " + Plural(static_cast<int64_t>(nodes.size()), w.node, w.node + "s");
  if (kinds.size() == 1) return s + " of " + kinds[0].first + (nodes.size() > 1 ? " each" : "");
  std::vector<std::string> parts;
  parts.reserve(kinds.size());
  for (const auto& [c, n] : kinds) parts.push_back(std::to_string(n) + " of " + c);
  return s + " (" + Join(parts, ", ") + ")";
}

std::string GangSettings(const FitGang& gang, Shown shown) {
  std::vector<std::string> s;
  for (const FitAsk& a : gang.asks) {
    s.push_back(a.memory_setting);
    if (shown.vcores) s.push_back(a.vcores_setting);
    if (shown.gpus && a.resource.gpus > 0) s.push_back(a.gpus_setting);
    if (!a.count_setting.empty()) s.push_back(a.count_setting);
    if (!a.label_setting.empty()) s.push_back(a.label_setting);
  }
  return Join(s, ", ");
}

Status CheckGang(const std::vector<FitNode>& nodes, const FitGang& gang, bool count_vcores,
                 const FitWords& w) {
  if (PackGang(nodes, gang, count_vcores) != Packing::kCannot) return Status::Ok();
  bool gpus = false;
  for (const FitAsk& a : gang.asks) gpus = gpus || a.resource.gpus > 0;
  // Vcores are named only when they are what does not fit.
  Shown shown{count_vcores && PackGang(nodes, gang, false) != Packing::kCannot, gpus};
  std::string labels;
  for (const FitAsk& a : gang.asks) {
    if (a.node_label.empty()) continue;
    labels += "; " + std::string(a.am ? "the AM" : a.role + " containers") +
              " can only go to the " +
              Plural(static_cast<int64_t>(NodesFor(nodes, a).size()), w.node, w.node + "s") +
              " labelled " + a.node_label;
  }
  return ResourceExhausted(Never(w) + DescribeGang(gang, shown, w) + " cannot all " +
                           DescribeNodes(nodes, shown, w) + labels + "; " + w.together + " (" +
                           GangSettings(gang, shown) + ")" + WayOut(w));
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g%%", fraction * 100);
  return buf;
}

// The queue's maximum capacity is a share of the whole cluster (every partition: an
// overestimate where nodes have labels, which can only make the check refuse less).
Status CheckQueue(const std::vector<FitNode>& nodes, const FitGang& gang, const FitQueue& queue,
                  bool count_vcores, const FitWords& w) {
  FitResources cluster;
  for (const FitNode& n : nodes) {
    cluster.memory_mb += n.capability.memory_mb;
    cluster.vcores += n.capability.vcores;
    cluster.gpus += n.capability.gpus;
  }
  FitResources total = Total(gang);
  // Half a unit of slack: the RM rounds the share; a job exactly at the limit fits.
  auto over = [&](int64_t want, int64_t of) {
    return static_cast<double>(want) > static_cast<double>(of) * queue.max_fraction + 0.5;
  };
  bool gpus = total.gpus > 0;
  Shown shown{count_vcores && over(total.vcores, cluster.vcores), gpus};
  if (!over(total.memory_mb, cluster.memory_mb) && !shown.vcores &&
      !(gpus && over(total.gpus, cluster.gpus))) {
    return Status::Ok();
  }
  FitResources limit{
      static_cast<int64_t>(std::floor(static_cast<double>(cluster.memory_mb) * queue.max_fraction)),
      static_cast<int>(std::floor(cluster.vcores * queue.max_fraction)),
      static_cast<int64_t>(std::floor(static_cast<double>(cluster.gpus) * queue.max_fraction))};
  return ResourceExhausted(
      "the job can never run in queue " + queue.name + " (" + keys::kYarnQueue + " = " +
      queue.name + "): " + DescribeGang(gang, shown, w) + " exceed the queue's maximum capacity, " +
      Percent(queue.max_fraction) + " of the cluster's " + Amounts(cluster, shown, w) + " (" +
      Amounts(limit, shown, w) + "); " + w.together + " (" + GangSettings(gang, shown) + ")" +
      WayOut(w));
}

// "tony.worker.memory = 4g from /home/u/tony.xml", "... from --conf", or "tony.am.memory = 2g by
// default": where the job's spec says the value came from (JobSpec::sources holds the keys a file
// or a flag set).
std::string Said(const JobSpec& spec, const std::string& key, const std::string& value) {
  auto it = spec.sources.find(key);
  return key + " = " + value + (it == spec.sources.end() ? " by default" : " from " + it->second);
}

// The value as the job wrote it ("4g", not 4096), else the key's default.
std::string Setting(const JobSpec& spec, const Configuration& conf, const std::string& key) {
  std::optional<std::string> v = conf.Get(key);
  if (!v) {
    const KeySpec* ks = FindKeySpec(key);
    v = ks == nullptr ? "" : std::string(ks->default_value);
  }
  return Said(spec, key, std::string(Trim(*v)));
}

int64_t RoundUp(int64_t mb, int64_t step) {
  if (step <= 0) return mb;
  mb = std::max(mb, step);
  return (mb + step - 1) / step * step;
}

// `who` is the role whose keys set the ask, or "am" for the coordinator's (tony.am.memory, ...:
// keys::ForRole(keys::kRoleMemory, "am") is keys::kAmMemory).
FitAsk Ask(const JobSpec& spec, const Configuration& conf, const std::string& who,
           const FitResources& r, int64_t min_allocation_mb) {
  FitAsk a;
  a.resource = r;
  a.resource.memory_mb = RoundUp(r.memory_mb, min_allocation_mb);
  a.memory_setting = Setting(spec, conf, keys::ForRole(keys::kRoleMemory, who));
  if (a.resource.memory_mb != r.memory_mb) {
    a.memory_setting += ", rounded up to a multiple of yarn.scheduler.minimum-allocation-mb = " +
                        std::to_string(min_allocation_mb);
  }
  a.vcores_setting = Setting(spec, conf, keys::ForRole(keys::kRoleVcores, who));
  a.gpus_setting = Setting(spec, conf, keys::ForRole(keys::kRoleGpus, who));
  return a;
}

}  // namespace

Packing PackGang(const std::vector<FitNode>& nodes, const FitGang& gang, bool count_vcores,
                 int64_t budget) {
  // The sums first: quick, and exact for what they refuse.
  FitResources total = Total(gang);
  FitResources room;
  for (const FitNode& n : nodes) {
    room.memory_mb += n.capability.memory_mb;
    room.vcores += n.capability.vcores;
    room.gpus += n.capability.gpus;
  }
  if (!Holds(room, total, count_vcores)) return Packing::kCannot;
  return Packer(nodes, gang, count_vcores, budget).Run();
}

std::optional<std::string> FitCheckSkipped(const Status& node_call, size_t running, size_t known) {
  const std::string skipped = "the check that the job fits the cluster is skipped";
  if (!node_call.ok()) return node_call.message() + "; " + skipped;
  if (running > 0) return std::nullopt;
  return "the ResourceManager reports no running NodeManager (" + std::to_string(known) +
         " known); " + skipped + "; the job waits for one";
}

Status CheckJobFits(const FitInput& in) {
  if (in.nodes.empty()) return Status::Ok();
  for (const FitGang& gang : in.gangs) {
    for (const FitAsk& a : gang.asks) {
      TONY_RETURN_IF_ERROR(CheckContainer(in.nodes, a, in.count_vcores, in.words));
    }
  }
  for (const FitGang& gang : in.gangs) {
    TONY_RETURN_IF_ERROR(CheckGang(in.nodes, gang, in.count_vcores, in.words));
  }
  if (!in.queue) return Status::Ok();
  for (const FitGang& gang : in.gangs) {
    TONY_RETURN_IF_ERROR(CheckQueue(in.nodes, gang, *in.queue, in.count_vcores, in.words));
  }
  return Status::Ok();
}

std::vector<FitGang> JobGangs(const JobSpec& spec, const Configuration& conf,
                              const GangOptions& o) {
  FitAsk am =
      Ask(spec, conf, "am", {spec.am_memory_mb, spec.am_vcores, spec.am_gpus}, o.min_allocation_mb);
  am.am = true;
  if (o.labels && !o.am_node_label.empty()) {
    am.node_label = o.am_node_label;
    am.label_setting = Said(spec, keys::kApplicationNodeLabel, o.am_node_label);
  }
  std::vector<FitAsk> with_am;
  if (o.am_container) with_am.push_back(am);
  auto role_ask = [&](const RoleSpec& r, int count) {
    FitAsk a = Ask(spec, conf, r.name, {r.memory_mb, r.vcores, r.gpus}, o.min_allocation_mb);
    a.role = r.name;
    a.count = count;
    // The preprocess task am:0 is one by tony.application.enable-preprocess, not by a count.
    if (!r.preprocess) {
      a.count_setting = Setting(spec, conf, keys::ForRole(keys::kRoleInstances, r.name));
    }
    if (o.labels && !r.node_label.empty()) {
      a.node_label = r.node_label;
      a.label_setting = Said(spec, keys::ForRole(keys::kRoleNodeLabel, r.name), r.node_label);
    }
    return a;
  };
  std::vector<FitGang> gangs;
  if (spec.mode == DistributedMode::kFcfs && o.fcfs_one_at_a_time) {
    for (const RoleSpec& r : spec.roles) {
      if (r.instances <= 0) continue;
      gangs.push_back({with_am});
      gangs.back().asks.push_back(role_ask(r, 1));
    }
    return gangs;
  }
  std::map<int, FitGang> stages;
  for (const RoleSpec& r : spec.roles) {
    if (r.instances <= 0) continue;
    FitGang& g = stages[r.stage];
    if (g.asks.empty()) g.asks = with_am;
    g.asks.push_back(role_ask(r, r.instances));
  }
  for (auto& [stage, gang] : stages) gangs.push_back(std::move(gang));
  if (gangs.empty() && o.am_container) gangs.push_back({{am}});
  return gangs;
}

}  // namespace tony::engine
