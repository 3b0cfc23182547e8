#include "sim/traffic_source.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "core/options.h"
#include "traffic/pattern.h"

namespace routelab::sim {

namespace {

const OptionSchema& hotSpotSchema() {
  static const OptionSchema schema = {
      {"fraction", OptionType::Real, "", "share of the messages sent to the hot spot", true},
      {"target", OptionType::Integer, "", "hot-spot terminal index (default: drawn from the seed)", false},
  };
  return schema;
}

}  // namespace

DestinationSource::DestinationSource(const std::string& spec, const Network& network, std::uint64_t seed)
    : terminals_(network.terminalCount()) {
  if (terminals_ < 2) throw SpecError(fmt::format("traffic '{}': the fabric has fewer than 2 terminals", spec));
  const ComponentSpec component = parseComponentOrFile(spec);
  if (component.name == "uniform") {
    if (!component.options.empty() || !component.positional.empty()) {
      throw SpecError(fmt::format("traffic 'uniform' takes no options (got '{}')", spec));
    }
    kind_ = Kind::Uniform;
    effective_ = "uniform";
    return;
  }
  if (component.name == "uniform-hot-spot") {
    const Options options("uniform-hot-spot", hotSpotSchema(), component);
    fraction_ = options.real("fraction");
    if (!(fraction_ >= 0 && fraction_ <= 1)) {
      throw SpecError(fmt::format("traffic '{}': fraction must lie in [0, 1]", spec));
    }
    if (options.has("target")) {
      target_ = static_cast<std::uint32_t>(options.integerIn("target", 0, static_cast<std::int64_t>(terminals_) - 1));
    } else {
      Rng rng(deriveSeed(seed, 0x4f5350ULL));
      target_ = static_cast<std::uint32_t>(rng.below(terminals_));
    }
    kind_ = Kind::HotSpot;
    effective_ = fmt::format("uniform-hot-spot:fraction={},target={}", fraction_, target_);
    return;
  }
  const TrafficPattern pattern = makePattern(spec, network, seed);
  kind_ = Kind::Pairs;
  effective_ = pattern.spec;
  offset_.assign(terminals_ + 1, 0);
  for (const SourceDestination& pair : pattern.pairs) ++offset_[pair.source + 1];
  for (std::size_t i = 0; i < terminals_; ++i) offset_[i + 1] += offset_[i];
  destinations_.resize(pattern.pairs.size());
  std::vector<std::uint32_t> fill(offset_.begin(), offset_.end() - 1);
  for (const SourceDestination& pair : pattern.pairs) destinations_[fill[pair.source]++] = pair.destination;
}

bool DestinationSource::sends(std::uint32_t source) const {
  if (kind_ != Kind::Pairs) return true;
  return offset_[source + 1] > offset_[source];
}

std::uint32_t DestinationSource::draw(std::uint32_t source, Rng& rng) const {
  switch (kind_) {
    case Kind::HotSpot:
      if (rng.uniform() < fraction_ && source != target_) return target_;
      [[fallthrough]];
    case Kind::Uniform: {
      const auto other = static_cast<std::uint32_t>(rng.below(terminals_ - 1));
      return other >= source ? other + 1 : other;
    }
    case Kind::Pairs: {
      const std::uint32_t begin = offset_[source];
      const std::uint32_t count = offset_[source + 1] - begin;
      if (count == 0) return kNoDestination;
      return destinations_[begin + (count == 1 ? 0 : rng.below(count))];
    }
  }
  return kNoDestination;
}

std::uint64_t nextBernoulli(std::uint64_t now, double rate, Rng& rng) { return BernoulliGaps(rate).next(now, rng); }

BernoulliGaps::BernoulliGaps(double rate) : rate_(rate), logMiss_(rate < 1 ? std::log1p(-rate) : 0) {}

std::uint64_t BernoulliGaps::next(std::uint64_t now, Rng& rng) const {
  if (rate_ >= 1) return now + 1;
  // Gap G >= 1 with P(G = g) = (1 - rate)^(g-1) rate: one draw per message.
  const double u = 1.0 - rng.uniform();  // (0, 1]
  const double gap = std::floor(std::log(u) / logMiss_);
  if (!(gap < 1e15)) return std::numeric_limits<std::uint64_t>::max() / 2;
  return now + 1 + static_cast<std::uint64_t>(gap);
}

double nextPoisson(double clock, double rate, Rng& rng) {
  const double u = 1.0 - rng.uniform();
  return clock - std::log(u) / rate;
}

}  // namespace routelab::sim
