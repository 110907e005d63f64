#include "kernel/load_map_writer.h"

#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/elf_format.h"
#include "kernel/irq_lock.h"
#include "kernel/palcalls.h"
#include "kernel/text.h"

extern "C" {
alignas(64) dcpi::LoadMap dcpi_load_map;
extern char __kernel_start[], __kernel_end[];
extern const uint8_t __build_id_start[], __build_id_end[];
}

namespace kernel {
namespace {

SpinLock lock;

// PALcode's image descriptor (cserve CSERVE_PAL_IMAGE): start, end, and its
// build-id note section.
struct PalImage {
  uint64_t start, end, note_start, note_end;
};

}  // namespace

void load_map_init() {
  dcpi_load_map.magic = dcpi::kLoadMapMagic;
  dcpi_load_map.capacity = dcpi::kLoadMapCapacity;
  dcpi_load_map.count = 0;

  dcpi::LoadMapRecord kernel{};
  kernel.kind = static_cast<uint32_t>(dcpi::LoadKind::kKernel);
  kernel.load_address = kernel.link_address = reinterpret_cast<uint64_t>(__kernel_start);
  kernel.size = static_cast<uint64_t>(__kernel_end - __kernel_start);
  kernel.build_id_bytes =
      elf::find_build_id(__build_id_start, static_cast<uint64_t>(__build_id_end - __build_id_start),
                         kernel.build_id, dcpi::kBuildIdMax);
  copy_name(kernel.path, sizeof kernel.path, "kernel.elf");
  load_map_append(kernel);

  const auto* pal = reinterpret_cast<const PalImage*>(pal::pal_image());
  dcpi::LoadMapRecord palcode{};
  palcode.kind = static_cast<uint32_t>(dcpi::LoadKind::kPalcode);
  if (reinterpret_cast<int64_t>(pal) != -1) {
    palcode.load_address = palcode.link_address = pal->start;
    palcode.size = pal->end - pal->start;
    palcode.build_id_bytes =
        elf::find_build_id(reinterpret_cast<const uint8_t*>(pal->note_start),
                           pal->note_end - pal->note_start, palcode.build_id, dcpi::kBuildIdMax);
  }
  copy_name(palcode.path, sizeof palcode.path, "palcode.elf");
  load_map_append(palcode);
}

void load_map_append(const dcpi::LoadMapRecord& record) {
  IrqLockGuard guard(lock);
  dcpi::LoadMapRecord& slot =
      dcpi_load_map.records[dcpi_load_map.count & (dcpi::kLoadMapCapacity - 1)];
  slot = record;
  slot.time = clock::cycles();
  __atomic_store_n(&dcpi_load_map.count, dcpi_load_map.count + 1, __ATOMIC_RELEASE);
}

uint64_t load_map_count() { return __atomic_load_n(&dcpi_load_map.count, __ATOMIC_ACQUIRE); }

bool load_map_read(uint64_t i, dcpi::LoadMapRecord* record) {
  IrqLockGuard guard(lock);
  if (i >= dcpi_load_map.count || dcpi_load_map.count - i > dcpi::kLoadMapCapacity) return false;
  *record = dcpi_load_map.records[i & (dcpi::kLoadMapCapacity - 1)];
  return true;
}

void load_map_print() {
  static const char* const kinds[] = {"?",           "exec",        "exit",    "kernel",
                                      "palcode",     "map",         "fork",    "thread",
                                      "thread-name", "thread-exit", "command", "counts"};
  constexpr uint32_t kLastKind = sizeof kinds / sizeof kinds[0] - 1;
  const uint64_t count = load_map_count();
  for (uint64_t i = 0; i < count; ++i) {
    dcpi::LoadMapRecord r;
    if (!load_map_read(i, &r)) continue;
    if (r.kind == static_cast<uint32_t>(dcpi::LoadKind::kCounts)) {  // no path (CountsRecord)
      kprintf("dcpi-kernel: loadmap %lu counts pid=%u parent=%u\n", i, r.pid, r.parent_pid);
      continue;
    }
    char id[2 * dcpi::kBuildIdMax + 1];
    const char digits[] = "0123456789abcdef";
    for (uint32_t k = 0; k < r.build_id_bytes; ++k) {
      id[2 * k] = digits[r.build_id[k] >> 4];
      id[2 * k + 1] = digits[r.build_id[k] & 15];
    }
    id[2 * r.build_id_bytes] = 0;
    kprintf(
        "dcpi-kernel: loadmap %lu %s pid=%u parent=%u load=0x%lx size=0x%lx link=0x%lx "
        "status=%ld build-id=%s path=%s\n",
        i, kinds[r.kind <= kLastKind ? r.kind : 0], r.pid, r.parent_pid, r.load_address, r.size,
        r.link_address, r.exit_status, r.build_id_bytes ? id : "-", r.path[0] ? r.path : "-");
  }
}

}  // namespace kernel
