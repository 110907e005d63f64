// Text for the HTML report: escaping, anchors a URL can name, and the
// compact numbers the page shows. Everything the page prints that came from
// an image or a database (procedure names, source lines, file paths) goes
// through escape(): a C++ name like operator<< must not become markup.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace dcpi::html {

// &, <, >, " and ' as character references (reports/markup_text.h).
std::string escape(std::string_view text);

// Anchor ids made only of [A-Za-z0-9._-] (no escaping needed in a URL
// fragment), unique within one page: "copy--copy_loop.constprop.0",
// "kernel.elf--kernel..pages..allocate_unsigned_long_", then "-2", "-3"
// for names that collide after the replacement.
class AnchorNames {
 public:
  std::string make(std::string_view image, std::string_view procedure);

 private:
  std::set<std::string> used_;
};

// 40007706 -> "40.0M", 1234 -> "1234", 0.5 -> "0.50".
std::string compact_number(double value);
// "12.3%": percent of `total` (0 when total is 0).
std::string share_text(double part, double total);

}  // namespace dcpi::html
