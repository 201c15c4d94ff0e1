// Shared between the property main and the properties.
#pragma once

#include <string>

namespace ordo::props {
extern std::string g_reproducer_dir;  // --ordo-reproducers=DIR
}
