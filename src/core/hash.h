// routelab/core/hash.h — FNV-1a, 64 bits (Fowler, Noll and Vo; draft-eastlake-fnv §2): the
// stable identity of a text kept on disk across runs and versions (a sweep's identity in its
// results database, the key of OpenSM's cached routings). Not for hash tables, not secure.
#pragma once

#include <cstdint>
#include <string_view>

namespace routelab {

inline constexpr std::uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;  ///< the offset basis
inline constexpr std::uint64_t kFnv1a64Prime = 0x100000001b3ULL;

/// FNV-1a of `text`'s bytes, continuing from `hash` (the offset basis for a new text): a
/// text hashed in pieces gives the hash of the pieces joined.
constexpr std::uint64_t fnv1a64(std::string_view text, std::uint64_t hash = kFnv1a64Offset) noexcept {
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnv1a64Prime;
  }
  return hash;
}

}  // namespace routelab
