#include "topology/ft.h"

#include "core/errors.h"

namespace routelab {

Network makeFatTreeFt(std::uint32_t, std::uint32_t, std::uint32_t) {
  throw SpecError("ft: not implemented yet");
}

}  // namespace routelab
