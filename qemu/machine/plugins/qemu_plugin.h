// QEMU's plugin API for our plugins. With DCPI_REAL_QEMU_PLUGIN_H (CMake
// sets it when it finds include/qemu/qemu-plugin.h of the source tree our
// qemu-system-alpha is built from) the real header, for C++: glib first,
// outside the C linkage block, because glib's C++ parts are templates.
// Without it, exec_counts falls back to our declared subset
// (qemu_plugin_api.h); the EV5 plugin is not built then.
#pragma once
#ifndef DCPI_REAL_QEMU_PLUGIN_H
#include "qemu/machine/plugins/qemu_plugin_api.h"
#else
#include <glib.h>

extern "C" {
#include <qemu-plugin.h>

// ---- BEGIN declaration until the patched header exists -------------------
// qemu/machine/patches/plugin-icount-charge.patch adds this to qemu-plugin.h; it is
// declared here while plugins are still compiled against the unpatched
// header (CMake defines DCPI_QEMU_HAS_ICOUNT_CHARGE when the header has
// it). Weak in either case: under an unpatched QEMU the plugin loads, models and writes
// its truth, but cannot move the guest's clock (docs/ev5-machine.md).
#ifndef DCPI_QEMU_HAS_ICOUNT_CHARGE
QEMU_PLUGIN_API
bool qemu_plugin_register_vcpu_insn_exec_icount_charge(struct qemu_plugin_insn* insn,
                                                       qemu_plugin_u64 entry, int64_t imm);
#endif
// ---- END ------------------------------------------------------------------
// Step blocks (the same patch, its second part): declared here too, weak, so
// that the plugin still loads under a QEMU patched before them.
QEMU_PLUGIN_API
void qemu_plugin_icount_use_step_tbs(void);
QEMU_PLUGIN_API
bool qemu_plugin_tb_is_icount_step(const struct qemu_plugin_tb* tb);
QEMU_PLUGIN_API
bool qemu_plugin_register_vcpu_mem_icount_charge(struct qemu_plugin_insn* insn,
                                                 qemu_plugin_vcpu_mem_cb_t cb,
                                                 enum qemu_plugin_mem_rw rw, qemu_plugin_u64 entry,
                                                 void* userdata);
// Counter interrupts (the patch's third part, issue 26): weak too.
QEMU_PLUGIN_API
bool qemu_plugin_icount_interrupt_at_charge(uint64_t word);
QEMU_PLUGIN_API
void qemu_plugin_icount_interrupt_capable(uint64_t bits);
// Round-robin turns drawn independently of timer deadlines (issue 25): weak.
QEMU_PLUGIN_API
void qemu_plugin_icount_random_slices(uint64_t units);
#pragma weak qemu_plugin_icount_random_slices
// The 21164's skid (issue 26 item 1): a counter interrupt some cycles later.
QEMU_PLUGIN_API
bool qemu_plugin_icount_interrupt_after(uint64_t word, uint64_t units);
#pragma weak qemu_plugin_icount_interrupt_after
// Which instruction raised an exception inside its block (issues 25, 27;
// plugin-trap-insn.patch): weak, declared here for a header without it.
typedef void (*dcpi_qemu_trap_cb_t)(unsigned int vcpu_index, uint64_t vaddr);
QEMU_PLUGIN_API
void qemu_plugin_register_vcpu_trap_cb(qemu_plugin_id_t id, dcpi_qemu_trap_cb_t cb);
#pragma weak qemu_plugin_register_vcpu_trap_cb
#pragma weak qemu_plugin_icount_interrupt_at_charge
#pragma weak qemu_plugin_icount_interrupt_capable
#pragma weak qemu_plugin_register_vcpu_insn_exec_icount_charge
#pragma weak qemu_plugin_icount_use_step_tbs
#pragma weak qemu_plugin_tb_is_icount_step
#pragma weak qemu_plugin_register_vcpu_mem_icount_charge
}
#endif  // DCPI_REAL_QEMU_PLUGIN_H
