// The report's style sheet, inlined into the page (nothing is fetched).
#pragma once
#include <string_view>

namespace dcpi::html {

extern const std::string_view kPageStyle;

}  // namespace dcpi::html
