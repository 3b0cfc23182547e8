#include "schedule/registry.h"

#include "core/errors.h"

namespace routelab {

namespace {

RequestOrder orderOf(const Options& options) {
  const std::string& order = options.string("order");
  if (order == "level") return RequestOrder::LevelByLevel;
  if (order == "request") return RequestOrder::RequestByRequest;
  throw SpecError(options.component() + ": order must be 'level' or 'request', got '" + order + "'");
}

OptionSpec orderOption() {
  return {"order", OptionType::String, "level",
          "level: every request at level 0, then level 1, ... (Ding §4); request: one request at a time"};
}

OptionSpec releaseOption() {
  return {"release-on-fail", OptionType::Flag, "false",
          "a failed request returns the links it took (default: keeps them, as Ding's hardware)"};
}

SchedulerConfig base(const Options& options, SchedulerKind kind, PortPolicy policy) {
  SchedulerConfig config;
  config.name = options.component();
  config.kind = kind;
  config.policy = policy;
  config.order = orderOf(options);
  config.releaseOnFail = options.flag("release-on-fail");
  config.effective = options.effective();
  return config;
}

}  // namespace

const Registry<SchedulerFactory>& schedulerRegistry() {
  static const Registry<SchedulerFactory> registry(
      "scheduler",
      {
          {"level-wise",
           "global Ulink/Dlink bit vectors: per level AND source-up with destination-down, take a common free port",
           "Ding et al. 2006 §4, Fig. 7",
           {{"policy", OptionType::String, "first", "first: lowest common free port (priority selector); random"},
            orderOption(),
            releaseOption()},
           [](const Options& o) {
             const std::string& policy = o.string("policy");
             if (policy != "first" && policy != "random") {
               throw SpecError("level-wise: policy must be 'first' or 'random', got '" + policy + "'");
             }
             return base(o, SchedulerKind::LevelWise, policy == "first" ? PortPolicy::First : PortPolicy::Random);
           }},
          {"local-greedy",
           "each switch takes its first free up port; down-link conflicts found on the way down fail the request",
           "Ding et al. 2006 §1, §5 (local baseline)",
           {orderOption(), releaseOption()},
           [](const Options& o) { return base(o, SchedulerKind::Local, PortPolicy::First); }},
          {"local-random",
           "each switch takes a random free up port (seeded); down-link conflicts fail the request",
           "Ding et al. 2006 §1, §5 (adaptive distributed scheduling)",
           {orderOption(), releaseOption()},
           [](const Options& o) { return base(o, SchedulerKind::Local, PortPolicy::Random); }},
      });
  return registry;
}

SchedulerConfig makeSchedulerConfig(const std::string& spec) {
  const ComponentSpec component = parseComponent(spec);
  const auto& row = schedulerRegistry().find(component.name);
  return row.factory(Options(component.name, row.options, component));
}

}  // namespace routelab
