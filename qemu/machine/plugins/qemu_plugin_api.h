// The subset of QEMU's TCG plugin API that our plugins use, declared here
// because Debian's qemu-system-misc does not ship qemu-plugin.h. Written
// against the documented API of QEMU 10.0 (include/qemu/qemu-plugin.h,
// QEMU_PLUGIN_VERSION 4); types and signatures must match that ABI exactly.
// Only what exec_counts.cpp calls is declared. The fallback for builds
// without QEMU's source (qemu_plugin.h includes the real header otherwise).
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DCPI_QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_EXPORT DCPI_QEMU_PLUGIN_EXPORT
// The API level this plugin was written for (QEMU 10.0 is at 4; QEMU
// refuses plugins newer than itself or older than its minimum).
#define QEMU_PLUGIN_VERSION 4

extern "C" {

typedef uint64_t qemu_plugin_id_t;

// Passed to qemu_plugin_install; valid only during that call.
typedef struct qemu_info_t {
  const char* target_name;
  struct {
    int min;
    int cur;
  } version;
  bool system_emulation;
  union {
    struct {
      int smp_vcpus;
      int max_vcpus;
    } system;
  };
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
  QEMU_PLUGIN_CB_NO_REGS,
  QEMU_PLUGIN_CB_R_REGS,
  QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);

// Exported by the plugin.
DCPI_QEMU_PLUGIN_EXPORT extern int qemu_plugin_version;
DCPI_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info,
                                                int argc, char** argv);

// Provided by QEMU.
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
void qemu_plugin_outs(const char* string);

}  // extern "C"
