#include "topology/random_irregular.h"

#include "core/errors.h"

namespace routelab {

Network makeRandomIrregular(const RandomIrregularParams&) { throw SpecError("random: not implemented yet"); }

}  // namespace routelab
