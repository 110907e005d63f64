#include "analysis/html/page_style.h"

namespace dcpi::html {

// System fonts only: a page that works offline cannot load web fonts.
const std::string_view kPageStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 16px;
       color: #212529; background: #fff; }
h1 { font-size: 22px; margin: 16px 0 4px; }
h2 { font-size: 18px; border-bottom: 2px solid #dee2e6; padding-bottom: 2px; margin-top: 28px; }
h3 { font-size: 16px; margin: 0 0 6px; }
h3 .image { color: #868e96; font-weight: normal; font-size: 13px; }
a { color: #1c7ed6; text-decoration: none; }
a:hover { text-decoration: underline; }
a.up { font-size: 12px; font-weight: normal; margin-left: 8px; }
.subtitle { color: #868e96; margin: 0 0 12px; }
table { border-collapse: collapse; }
th, td { padding: 2px 8px; text-align: right; vertical-align: top; }
th { background: #f1f3f5; font-weight: 600; }
td.name, th.name { text-align: left; }
.facts th { text-align: left; }
.grid { display: flex; flex-wrap: wrap; gap: 24px; }
.grid > div { flex: 1 1 480px; min-width: 0; }
.bars td.name { max-width: 300px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.bar { width: 160px; }
.bar span { display: block; height: 10px; background: #f76707; border-radius: 2px; min-width: 1px; }
.bars tr.blue .bar span { background: #1c7ed6; }
.note { color: #862e9c; background: #f8f0fc; padding: 4px 8px; border-radius: 3px; }
.warning { color: #c92a2a; }
section.proc { border: 1px solid #dee2e6; border-radius: 6px; padding: 10px 12px; margin: 16px 0; }
section.proc:target { border-color: #f76707; box-shadow: 0 0 0 2px #ffd8a8; }
.meta { color: #495057; margin: 0 0 6px; }
.summary { margin: 4px 0 8px; font-size: 13px; }
.summary th { text-align: left; }
.graph { overflow-x: auto; margin: 8px 0; border: 1px solid #e9ecef; border-radius: 4px; }
.graph svg { display: block; margin: 0 auto; max-width: 100%; height: auto; }
.listing { font-size: 12px; }
.listing td:nth-child(4) { width: 80px; }
.listing td:nth-child(4) span { display: block; height: 10px; background: #f76707; border-radius: 2px; }
.listing td:nth-child(1), .listing td:nth-child(7), .listing td:nth-child(8), .listing tr.src td,
.mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; text-align: left; white-space: pre; }
.listing td:nth-child(8) { color: #5f3dc4; }
.listing tr.hot td:nth-child(7) { font-weight: 600; }
.listing tr.src td { color: #2b8a3e; background: #f4fce3; }
.listing tr.block td:nth-child(1) { font-family: system-ui, sans-serif; white-space: normal;
  background: #e7f5ff; color: #1864ab; font-weight: 600; }
.listing tr:target td { background: #fff3bf; }
/* A report of every procedure is tens of MB: the browser lays out only what is on screen. */
section.proc { content-visibility: auto; contain-intrinsic-size: auto 1200px; }
.legend { font-size: 13px; color: #495057; }
.legend span { display: inline-block; padding: 0 6px; margin-right: 8px; border-radius: 3px; }
)css";

}  // namespace dcpi::html
