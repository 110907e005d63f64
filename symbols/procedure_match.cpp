#include "symbols/procedure_match.h"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <numeric>
#include <optional>

#include "symbols/demangle.h"

namespace dcpi {
namespace {

// GCC's interprocedural clones and split parts (gcc/ipa-*.cc name them
// NAME.constprop.N, NAME.isra.N, NAME.part.N, NAME.cold); they can stack.
constexpr std::array kCloneSuffixes = {".constprop", ".isra", ".part", ".cold", ".lto_priv"};

// "x.constprop.0" -> "x"; "x.part.0.cold" -> "x"; anything else unchanged.
std::string without_clone_suffixes(std::string name) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    size_t end = name.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
    if (end < name.size() && end > 0 && name[end - 1] == '.')
      --end;  // ".N"
    else
      end = name.size();
    for (std::string_view suffix : kCloneSuffixes) {
      if (end > suffix.size() && std::string_view(name).substr(0, end).ends_with(suffix)) {
        name.resize(end - suffix.size());
        stripped = true;
        break;
      }
    }
  }
  return name;
}

// "ns::f(int) const" -> "ns::f"; the '(' of a parameter list is the first one
// outside template arguments that is not "operator()".
std::string without_parameters(const std::string& demangled) {
  int depth = 0;
  for (size_t i = 0; i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (c != '(' || depth != 0 || i == 0) continue;
    if (std::string_view(demangled).substr(0, i).ends_with("operator") &&
        demangled.compare(i, 2, "()") == 0) {
      ++i;  // operator(): its parameters follow
      continue;
    }
    return demangled.substr(0, i);
  }
  return demangled;
}

// "std::map<int, int>::at" -> "std::map::at"; the '<' of operator<, <<,
// <= and <=> is the operator's, not a template's.
std::string without_template_arguments(std::string_view name) {
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (depth == 0 && out.ends_with("operator") && (c == '<' || c == '>')) {
      while (i < name.size() && std::string_view("<>=").find(name[i]) != std::string_view::npos)
        out += name[i++];
      --i;
      continue;
    }
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>' && depth > 0) --depth;
  }
  return out;
}

// "void std::sort" -> "std::sort": the last blank outside parentheses and
// template arguments, before any "operator" (operator new, operator int),
// ends a return type.
std::string without_return_type(const std::string& name) {
  const size_t operator_at = name.find("operator");
  const size_t end = operator_at == std::string::npos ? name.size() : operator_at;
  int depth = 0;
  size_t cut = std::string::npos;
  for (size_t i = 0; i < end; ++i) {
    if (name[i] == '(' || name[i] == '<') ++depth;
    if ((name[i] == ')' || name[i] == '>') && depth > 0) --depth;
    if (name[i] == ' ' && depth == 0) cut = i;
  }
  return cut == std::string::npos ? name : name.substr(cut + 1);
}

struct SymbolForms {
  std::string raw, demangled, no_parameters, no_suffixes, base, plain;
};

SymbolForms forms_of(const std::string& symbol) {
  SymbolForms forms;
  forms.raw = symbol;
  forms.demangled = demangle(symbol);
  forms.no_parameters = without_parameters(forms.demangled);
  forms.no_suffixes = without_clone_suffixes(symbol);
  forms.base = without_parameters(demangle(forms.no_suffixes));
  forms.plain = plain_cxx_name(forms.base);
  return forms;
}

bool is_glob(std::string_view query) { return query.find_first_of("*?[") != std::string::npos; }

bool glob_matches(const std::string& pattern, const SymbolForms& f) {
  for (const std::string* form : {&f.raw, &f.demangled, &f.no_parameters, &f.base, &f.plain})
    if (fnmatch(pattern.c_str(), form->c_str(), 0) == 0) return true;
  return false;
}

// Rule 1..4 of the header, or nullopt if the symbol does not match at all.
std::optional<int> rule_matching(const SymbolForms& f, std::string_view query) {
  if (query == f.raw || query == f.demangled) return 1;
  if (query == f.no_parameters || query == without_return_type(f.no_parameters) ||
      query == plain_cxx_name(f.no_parameters))
    return 2;
  if (query == f.no_suffixes || query == f.base || query == f.plain) return 3;
  if (is_glob(query) && glob_matches(std::string(query), f)) return 4;
  return std::nullopt;
}

bool is_cold_part(const std::string& symbol) {
  return symbol.ends_with(".cold") || symbol.find(".cold.") != std::string::npos;
}

}  // namespace

size_t name_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus the swap of two neighbours
  // ("prfo" is one edit from "prof"), three rows.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(previous.begin(), previous.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(row);
  }
  return previous[b.size()];
}

std::string plain_cxx_name(std::string_view demangled) {
  return without_return_type(
      without_template_arguments(without_parameters(std::string(demangled))));
}

std::optional<uint64_t> procedure_address(std::string_view query) {
  if (!query.starts_with("0x") && !query.starts_with("0X")) return std::nullopt;
  const std::string_view digits = query.substr(2);
  if (digits.empty() || digits.size() > 16 ||
      digits.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
    return std::nullopt;
  return std::stoull(std::string(digits), nullptr, 16);
}

std::optional<uint64_t> image_procedure_address(std::string_view query,
                                                const std::string& image_path) {
  const size_t plus = query.rfind('+');
  if (plus == std::string_view::npos || plus == 0) return std::nullopt;
  const auto address = procedure_address(query.substr(plus + 1));
  if (!address || query.substr(0, plus) != std::filesystem::path(image_path).filename().string())
    return std::nullopt;
  return address;
}

std::string procedure_base_name(std::string_view symbol) {
  return forms_of(std::string(symbol)).base;
}

std::vector<size_t> match_procedures(const std::vector<std::string>& symbols,
                                     std::string_view query) {
  std::vector<size_t> matches;
  int best_rule = 5;
  for (size_t i = 0; i < symbols.size(); ++i) {
    const std::optional<int> rule = rule_matching(forms_of(symbols[i]), query);
    if (!rule || *rule > best_rule) continue;
    if (*rule < best_rule) matches.clear();
    best_rule = *rule;
    if (std::find_if(matches.begin(), matches.end(),
                     [&](size_t m) { return symbols[m] == symbols[i]; }) == matches.end())
      matches.push_back(i);  // a name listed twice (function and label) is one procedure
  }
  if (best_rule == 3 && matches.size() > 1) {
    std::vector<size_t> hot;
    std::copy_if(matches.begin(), matches.end(), std::back_inserter(hot),
                 [&](size_t m) { return !is_cold_part(symbols[m]); });
    if (!hot.empty()) matches = hot;
  }
  return matches;
}

std::vector<size_t> closest_procedures(const std::vector<std::string>& symbols,
                                       std::string_view query, size_t limit,
                                       const SampledProcedures* sampled) {
  // A procedure nobody ran is rarely the one meant: it counts as this many
  // edits farther than one with samples.
  const size_t unsampled_penalty = sampled ? std::max<size_t>(3, query.size() / 2) : 0;
  // The words typed, without glob characters ("std::map*" -> "std::map"),
  // and the last of them ("map").
  std::string words;
  for (const char c : query)
    if (std::string_view("*?[]").find(c) == std::string_view::npos) words += c;
  const size_t colons = words.rfind("::");
  const std::string last_word = colons == std::string::npos ? words : words.substr(colons + 2);
  std::vector<std::pair<size_t, size_t>> scored;  // (distance, index)
  std::set<std::string> seen;
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (!seen.insert(symbols[i]).second) continue;
    const SymbolForms f = forms_of(symbols[i]);
    size_t distance = std::min({name_distance(words, f.base), name_distance(words, f.demangled),
                                name_distance(words, f.plain)});
    // "std::sort" for std::__introsort_loop: a name that contains the last
    // word typed is close, however long its namespaces and templates.
    if (last_word.size() >= 3 && f.plain.find(last_word) != std::string::npos)
      distance = std::min<size_t>(distance, 2);
    const bool ran = !sampled || sampled->count(f.demangled);
    scored.emplace_back(distance + (ran ? 0 : unsampled_penalty), i);
  }
  std::sort(scored.begin(), scored.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : symbols[a.second] < symbols[b.second];
  });
  std::vector<size_t> closest;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) closest.push_back(scored[i].second);
  return closest;
}

std::string procedure_match_message(const std::vector<std::string>& symbols, std::string_view query,
                                    const std::vector<size_t>& matches, const std::string& where,
                                    const SampledProcedures* sampled) {
  constexpr size_t kShown = 10;
  std::string message;
  std::vector<size_t> shown;
  if (matches.empty()) {
    message = "no procedure matches '" + std::string(query) + "' in " + where;
    shown = closest_procedures(symbols, query, kShown, sampled);
    message += shown.empty() ? " (it has no symbols)" : "; the closest are:";
  } else {
    message = std::to_string(matches.size()) + " procedures match '" + std::string(query) +
              "' in " + where + "; name one of them:";
    std::vector<std::string> matched;
    for (size_t m : matches) matched.push_back(symbols[m]);
    for (size_t i : closest_procedures(matched, query, kShown)) shown.push_back(matches[i]);
  }
  for (size_t i : shown) {
    const std::string readable = demangle(symbols[i]);
    message += "\n  " + readable + (readable == symbols[i] ? "" : "  (" + symbols[i] + ")");
    if (sampled && sampled->count(readable)) message += "  [sampled]";
  }
  const size_t total =
      matches.empty() ? closest_procedures(symbols, query, symbols.size()).size() : matches.size();
  if (shown.size() < total) message += "\n  ... " + std::to_string(total - shown.size()) + " more";
  return message;
}

size_t select_procedure(const std::vector<std::string>& symbols, std::string_view query,
                        const std::string& where) {
  const std::vector<size_t> matches = match_procedures(symbols, query);
  if (matches.size() != 1)
    throw ProcedureMatchError(procedure_match_message(symbols, query, matches, where));
  return matches.front();
}

std::optional<Procedure> find_procedure(const ElfImage& elf, std::string_view query,
                                        const std::string& where) {
  if (const auto address = procedure_address(query)) return elf.procedure_at(*address);
  if (const auto address = image_procedure_address(query, where)) return elf.procedure_at(*address);
  const std::vector<std::string> symbols = elf.procedure_symbols();
  const std::vector<size_t> matches = match_procedures(symbols, query);
  if (matches.empty()) return std::nullopt;
  if (matches.size() > 1)
    throw ProcedureMatchError(procedure_match_message(symbols, query, matches, where));
  return elf.procedure_named(symbols[matches.front()]);
}

ProcedureMatchError no_procedure_error(const std::vector<std::string>& symbols,
                                       std::string_view query, size_t images,
                                       const std::string& warning,
                                       const SampledProcedures* sampled) {
  const std::string where =
      images == 0 ? "any image (none has symbols: give --images)"
                  : std::to_string(images) + (images == 1 ? " image" : " images") + " with symbols";
  if (const auto address = procedure_address(query))
    return ProcedureMatchError("no procedure contains " + std::string(query) + " in " + where +
                               (warning.empty() ? "" : "\n" + warning));
  return ProcedureMatchError(procedure_match_message(symbols, query, {}, where, sampled) +
                             (warning.empty() ? "" : "\n" + warning));
}

}  // namespace dcpi
