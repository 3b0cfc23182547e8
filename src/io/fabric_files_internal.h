// routelab/io/fabric_files_internal.h — entry points shared by the files implementing
// io/fabric_files.h (not part of the public interface).
#pragma once

#include <string>
#include <string_view>

#include "graph/network.h"

namespace routelab::detail {

/// ibsim net (ibnetdiscover = false) or ibnetdiscover output (true); io/fabric_text.cpp.
Network parseNetText(const std::string& text, const std::string& file, bool ibnetdiscover);
/// `ibnetdiscover -p` output; io/fabric_text.cpp.
Network parsePortListText(const std::string& text, const std::string& file);
/// routelab JSON; io/network_json.cpp.
Network parseNetworkJson(const std::string& text, const std::string& file);
/// Text quoted in messages: at most `limit` bytes of `s` ("..." after a cut), each control
/// byte and each byte from 0x7f as \xNN, so a message reads whole whatever the input held;
/// io/fabric_text.cpp.
std::string excerpt(std::string_view s, std::size_t limit = 60);

}  // namespace routelab::detail
