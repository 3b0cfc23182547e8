// routelab/engines/irregular/rows.h — one registry row per engine file of the irregular family
// (collected by irregularEngineRows() in irregular_rows.cpp).
#pragma once

#include "routing/engine.h"

namespace routelab::irregular {

RegistryRow<EngineFactory> minhopRow();     // minhop.cpp
RegistryRow<EngineFactory> updownRow();     // updown_engines.cpp
RegistryRow<EngineFactory> updownDfsRow();  // updown_engines.cpp
RegistryRow<EngineFactory> mrootsRow();     // mroots.cpp
RegistryRow<EngineFactory> dMrootsRow();    // mroots.cpp
RegistryRow<EngineFactory> lashRow();       // lash.cpp
RegistryRow<EngineFactory> mpLashRow();     // mp_lash.cpp
RegistryRow<EngineFactory> aLashRow();      // a_lash.cpp
RegistryRow<EngineFactory> escapeRow();     // escape.cpp

}  // namespace routelab::irregular
