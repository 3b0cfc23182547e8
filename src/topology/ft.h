// routelab/topology/ft.h — Ding et al.'s FT(l, m, w) (SC'06 §2–3).
#pragma once

#include <cstdint>

#include "graph/network.h"

namespace routelab {

/// FT(l, m, w): l levels of switches, m children and w parents per switch, built
/// recursively from w copies of FT(l-1) (Ding §3), with SW(h, τ) labels and
/// Ulink/Dlink port numbers. Throws SpecError on impossible parameters.
Network makeFatTreeFt(std::uint32_t levels, std::uint32_t children, std::uint32_t parents);

}  // namespace routelab
