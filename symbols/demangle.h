// Readable names for C++ symbols in reports ("_ZN6kernel…" -> "kernel::…").
#pragma once
#include <string>

namespace dcpi {

// The demangled form of an Itanium C++ ABI name; other names unchanged.
std::string demangle(const std::string& name);

}  // namespace dcpi
