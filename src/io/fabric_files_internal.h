// routelab/io/fabric_files_internal.h — entry points shared by the files implementing
// io/fabric_files.h (not part of the public interface).
#pragma once

#include <string>

#include "graph/network.h"

namespace routelab::detail {

/// ibsim net (ibnetdiscover = false) or ibnetdiscover output (true); io/fabric_text.cpp.
Network parseNetText(const std::string& text, const std::string& file, bool ibnetdiscover);
/// `ibnetdiscover -p` output; io/fabric_text.cpp.
Network parsePortListText(const std::string& text, const std::string& file);
/// routelab JSON; io/network_json.cpp.
Network parseNetworkJson(const std::string& text, const std::string& file);

}  // namespace routelab::detail
