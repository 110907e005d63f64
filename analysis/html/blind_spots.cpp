#include "analysis/html/blind_spots.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "firmware/pal_abi.h"

namespace dcpi::html {

std::optional<uint32_t> call_pal_function(uint32_t word) {
  if ((word >> 26) != 0) return std::nullopt;
  return word & 0x03ffffff;
}

bool qemu_runs_inline(uint32_t function) {
  // palcode/README.md, "CALL_PALs QEMU short-cuts" (kernel mode).
  static constexpr uint32_t kInline[] = {
      CALL_PAL_IMB,      CALL_PAL_RDUNIQ, CALL_PAL_WRUNIQ, CALL_PAL_CFLUSH, CALL_PAL_DRAINA,
      CALL_PAL_WRVPTPTR, CALL_PAL_WRVAL,  CALL_PAL_RDVAL,  CALL_PAL_SWPIPL, CALL_PAL_RDPS,
      CALL_PAL_WRUSP,    CALL_PAL_RDUSP,  CALL_PAL_WHAMI,  CALL_PAL_WTINT};
  return std::find(std::begin(kInline), std::end(kInline), function) != std::end(kInline);
}

namespace {

std::string call_pal_text(uint32_t function) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "call_pal 0x%x", function);
  return buffer;
}

// The sampled instruction's predecessor decides: nullopt if it is not a blind spot.
std::optional<BlindSpotKind> kind_after(const ElfImage& elf, uint64_t address) {
  if (address < 4) return std::nullopt;
  const std::optional<uint32_t> word = elf.instruction_at(address - 4);
  if (!word) return std::nullopt;
  const std::optional<uint32_t> function = call_pal_function(*word);
  if (!function) return std::nullopt;
  if (*function == CALL_PAL_SWPIPL) return BlindSpotKind::kAfterIplDrop;
  if (qemu_runs_inline(*function)) return std::nullopt;
  return BlindSpotKind::kAfterCallPal;
}

}  // namespace

BlindSpotSummary find_blind_spots(const SampleSet& samples, ImageResolver& resolver) {
  BlindSpotSummary summary;
  // Samples per (image, address) over PIDs, CPUs and epochs.
  std::map<std::pair<ImageIdentity, uint64_t>, uint64_t> counts;
  for (const Profile& profile : samples.profiles) {
    if (profile.info.event_name != "cycles") continue;
    for (const ProfileRow& row : profile.rows)
      counts[{profile.info.image, row.address}] += row.count;
  }
  for (const auto& [key, count] : counts) {
    const auto& [image, address] = key;
    const ResolvedImage& resolved = image.unknown ? ResolvedImage{} : resolver.resolve(image);
    if (!resolved.elf) {
      summary.not_examined += count;
      continue;
    }
    summary.examined += count;
    const std::optional<BlindSpotKind> kind = kind_after(*resolved.elf, address);
    if (!kind) continue;
    (*kind == BlindSpotKind::kAfterIplDrop ? summary.after_ipl_drop : summary.after_call_pal) +=
        count;
    const std::optional<Procedure> procedure = resolved.elf->procedure_at(address);
    summary.sites.push_back(
        {.kind = *kind,
         .image = image_display_name(image),
         .procedure = procedure ? procedure->name : "",
         .address = address,
         .call_pal = call_pal_text(*call_pal_function(*resolved.elf->instruction_at(address - 4))),
         .samples = count});
  }
  std::stable_sort(summary.sites.begin(), summary.sites.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return summary;
}

}  // namespace dcpi::html
