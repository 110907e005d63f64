// Text inside XML or HTML markup, written once for the HTML report and the
// SVG flame graph: &, <, >, " and ' as character references (&#39; is the
// apostrophe of both languages), and the control characters XML 1.0 forbids
// as spaces (tab, newline and carriage return kept).
#pragma once
#include <string>
#include <string_view>

namespace dcpi {

std::string markup_escaped(std::string_view text);

}  // namespace dcpi
