// routelab/core/ids.h — strong ids and units.
//
// Every element of a network has a dense id (0..count-1) so that per-element data lives
// in plain vectors outside the network (NetworKit style). The id types are distinct so a
// channel id cannot be passed where a node id is expected.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace routelab {

/// A dense, strongly typed index. Default-constructed ids are invalid.
template <class Tag, class Rep = std::uint32_t>
struct Id {
  using rep_type = Rep;
  static constexpr Rep kInvalid = std::numeric_limits<Rep>::max();

  Rep value = kInvalid;

  constexpr Id() = default;
  constexpr explicit Id(Rep v) : value(v) {}
  /// Construct from any integer index (checked by the caller).
  template <class I>
  static constexpr Id fromIndex(I index) {
    return Id(static_cast<Rep>(index));
  }

  constexpr bool valid() const { return value != kInvalid; }
  constexpr std::size_t index() const { return static_cast<std::size_t>(value); }
  constexpr auto operator<=>(const Id&) const = default;
};

struct NodeTag;
struct ChannelTag;
struct LayerTag;

/// A switch or a terminal (host / channel adapter). Dense over all nodes.
using NodeId = Id<NodeTag>;
/// A directed channel. Each cable is two channels with ids 2i and 2i+1; see reverse().
using ChannelId = Id<ChannelTag>;
/// A layer (InfiniBand virtual lane / service level group).
using LayerId = Id<LayerTag, std::uint8_t>;

/// A hardware port number: 1..radix as on real switches. 0 is the switch itself
/// (InfiniBand management port 0), never a cable.
using PortNumber = std::uint16_t;
inline constexpr PortNumber kSelfPort = 0;

}  // namespace routelab

template <class Tag, class Rep>
struct std::hash<routelab::Id<Tag, Rep>> {
  std::size_t operator()(const routelab::Id<Tag, Rep>& id) const noexcept { return std::hash<Rep>{}(id.value); }
};
