#include "analysis/reports/flame_graph_svg.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "analysis/reports/markup_text.h"

namespace dcpi {
namespace {

constexpr double kWidth = 1200;
constexpr double kMargin = 10;
constexpr double kFrameHeight = 16;
constexpr double kCharWidth = 7;  // 12px monospace, roughly
constexpr double kMinFrameWidth = 0.5;

struct Layout {
  const ContextTree& tree;
  ContextMetric metric;
  double scale;  // pixels per unit of cost
  double base_y;
  std::ostream& out;
};

// A warm colour that depends only on the name, so a procedure keeps its
// colour between graphs (as flamegraph.pl's default palette).
std::string colour_of(const std::string& name) {
  const size_t hash = std::hash<std::string>()(name);
  char rgb[32];
  std::snprintf(rgb, sizeof rgb, "rgb(%d,%d,%d)", 205 + static_cast<int>(hash % 50),
                100 + static_cast<int>((hash >> 8) % 130), static_cast<int>((hash >> 16) % 55));
  return rgb;
}

std::string label_for(const std::string& name, double width) {
  const auto fits = static_cast<size_t>(std::max(0.0, (width - 6) / kCharWidth));
  if (fits < 3) return "";
  if (name.size() <= fits) return name;
  return name.substr(0, fits - 2) + "..";
}

void draw(const Layout& layout, uint32_t node, double x, int depth) {
  const ContextTreeNode& n = layout.tree.nodes[node];
  const double width = static_cast<double>(n.total.get(layout.metric)) * layout.scale;
  if (width < kMinFrameWidth) return;
  const double y = layout.base_y - (depth + 1) * kFrameHeight;
  const std::string name = n.image.empty() ? n.name : n.name + " [" + n.image + "]";
  char geometry[160];
  std::snprintf(geometry, sizeof geometry,
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"", x, y, width,
                kFrameHeight - 1);
  layout.out << "<g><title>" << markup_escaped(name) << " (" << n.total.get(layout.metric) << ' '
             << metric_name(layout.metric) << ")</title>" << geometry << colour_of(n.name)
             << "\" rx=\"2\"/>";
  const std::string label = label_for(n.name, width);
  if (!label.empty()) {
    char at[64];
    std::snprintf(at, sizeof at, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + kFrameHeight - 4);
    layout.out << at << markup_escaped(label) << "</text>";
  }
  layout.out << "</g>\n";
  double child_x = x;
  for (uint32_t child : n.children) {
    draw(layout, child, child_x, depth + 1);
    child_x +=
        static_cast<double>(layout.tree.nodes[child].total.get(layout.metric)) * layout.scale;
  }
}

int depth_of(const ContextTree& tree) {
  std::vector<int> depth(tree.nodes.size(), 0);
  int deepest = 0;
  for (size_t i = 1; i < tree.nodes.size(); ++i) {
    depth[i] = depth[tree.nodes[i].parent] + 1;
    deepest = std::max(deepest, depth[i]);
  }
  return deepest;
}

}  // namespace

void write_flame_graph_svg(std::ostream& out, const ContextTree& tree, ContextMetric metric,
                           const std::string& title) {
  const int frames = depth_of(tree) + 1;
  const double height = frames * kFrameHeight + 3 * kMargin + 20;
  const uint64_t total = tree.nodes[0].total.get(metric);
  char header[320];
  std::snprintf(header, sizeof header,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
                "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
                kWidth, height, kWidth, height);
  out << "<?xml version=\"1.0\" standalone=\"no\"?>\n" << header;
  out << "<style>text{font-family:monospace;font-size:12px;fill:#000}"
         "g:hover rect{stroke:#000;stroke-width:0.5}</style>\n";
  out << "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fdf8ee\"/>\n";
  out << "<text x=\"" << kWidth / 2 << "\" y=\"20\" text-anchor=\"middle\" "
      << "style=\"font-size:16px\">" << markup_escaped(title) << "</text>\n";
  const Layout layout{tree, metric, total ? (kWidth - 2 * kMargin) / static_cast<double>(total) : 0,
                      height - kMargin, out};
  if (total) draw(layout, 0, kMargin, 0);
  out << "</svg>\n";
}

}  // namespace dcpi
