// Which procedure a user means by a name (issue 16): one set of rules for
// `dcpi list`, `calc`, `values` and `score`, so a name that works in one
// works in all. DCPI's tools took the name as the symbol table spelled it
// (§3); ours also accept what a reader of the source would type.
//
// A query selects the symbols of the first rule that selects any:
//   1. exact: the ELF symbol or its demangled form
//      (`_ZN6kernel3sys8dispatchEm`, `kernel::sys::dispatch(unsigned long)`);
//   2. the demangled name without parameters (`kernel::sys::dispatch`), or
//      also without template arguments and a template's return type, as a
//      C++ reader writes it (`std::sort` for `void std::sort<It>(It, It)`);
//   3. the name without GCC's clone suffixes `.constprop.N`, `.isra.N`,
//      `.part.N`, `.cold` (`copy_loop` for `copy_loop.constprop.0`); when
//      the matches include the function's own clone and its `.cold` part,
//      the `.cold` part (the rarely run half GCC split off) is dropped;
//   4. a glob (`copy*`, `std::map*`, fnmatch rules) against any of the forms
//      above.
// A query of the form 0xADDRESS selects the procedure containing that
// address (what `perf annotate` and objdump print), whatever its name.
#pragma once
#include <cstddef>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/elf_image.h"

namespace dcpi {

// No procedure or several match; what() is one line, then the candidates
// closest first, one per line.
class ProcedureMatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `symbol` demangled, without parameters and without GCC clone suffixes:
// "copy_loop.constprop.0" -> "copy_loop", "_ZN1a1fEi" -> "a::f".
std::string procedure_base_name(std::string_view symbol);

// The edits (insert, delete, replace, swap two neighbours) that turn `a`
// into `b`: how close a mistyped name is (procedures, commands, options).
size_t name_distance(std::string_view a, std::string_view b);

// `demangled` as a C++ reader names it: no return type, template arguments
// or parameters: "void std::sort<int*>(int*, int*)" -> "std::sort".
std::string plain_cxx_name(std::string_view demangled);

// The address a query "0x120003e80" names; nullopt for any other query.
std::optional<uint64_t> procedure_address(std::string_view query);

// A query "libc.so.6.1+0x4de00", as the reports name code no symbol names
// (image file name, '+', address): the address if `image_path`'s file name
// is the one given; nullopt for another image or any other query.
std::optional<uint64_t> image_procedure_address(std::string_view query,
                                                const std::string& image_path);

// The (demangled) names of the procedures that have samples: suggestions rank them
// before the closest names nobody ran.
using SampledProcedures = std::set<std::string>;

// Indices into `symbols` (raw ELF names) that `query` selects by the rules above.
std::vector<size_t> match_procedures(const std::vector<std::string>& symbols,
                                     std::string_view query);

// Indices of `symbols` by closeness to `query` (edit distance to the
// closest of the symbol's forms; a procedure without samples counts as
// farther when `sampled` is given; ties in name order), at most `limit`.
std::vector<size_t> closest_procedures(const std::vector<std::string>& symbols,
                                       std::string_view query, size_t limit,
                                       const SampledProcedures* sampled = nullptr);

// The message for a query that matched `matches` (none or several) of
// `symbols` in `where` (an image): one line, then up to 10 candidates,
// closest first — the matches themselves when there are several.
std::string procedure_match_message(const std::vector<std::string>& symbols, std::string_view query,
                                    const std::vector<size_t>& matches, const std::string& where,
                                    const SampledProcedures* sampled = nullptr);

// The one procedure of `symbols` that `query` selects; throws
// ProcedureMatchError (procedure_match_message) on none or several.
size_t select_procedure(const std::vector<std::string>& symbols, std::string_view query,
                        const std::string& where);

// The procedure of `elf` that `query` selects (its procedure_symbols(), or
// the one containing a 0xADDRESS query); nullopt if none; ProcedureMatchError
// naming the image `where` if several.
std::optional<Procedure> find_procedure(const ElfImage& elf, std::string_view query,
                                        const std::string& where);

// The error when no image of a report had the procedure: the candidates of
// every image in `symbols`, `images` (how many were searched) for the text,
// `warning` (why an image had no symbols) appended when not empty.
ProcedureMatchError no_procedure_error(const std::vector<std::string>& symbols,
                                       std::string_view query, size_t images,
                                       const std::string& warning,
                                       const SampledProcedures* sampled = nullptr);

}  // namespace dcpi
