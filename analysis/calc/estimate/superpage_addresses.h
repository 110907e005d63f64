// Which memory accesses of a procedure address the superpage (KSEG), which
// the 21164 maps without its TBs (the ev5 machine's tlb.h bypasses_tlb; the
// Alpha's superpage, VA<42:41> = 2, enabled by the OSF/1 PALcode for kernel
// mode): such an access can miss neither the DTB nor, for the code itself,
// the ITB. DCPI §6.3 keeps every cause "guilty until proven innocent"; this
// is the proof for kernel code, whose stack, globals and memory the kernel
// reaches through the superpage, e.g. page zeroing through a base built as
// `lda t, -1(zero); sll t, 42, t; or t, phys, t`.
//
// A forward dataflow over the procedure's CFG, per integer register: a
// constant, a superpage address, or unknown. In code that runs in the
// superpage, sp and gp hold superpage addresses at every entry (the kernel's
// stacks and data are there), pv holds the entry's address at the entry, and
// ra the return address after a call. A pointer plus or minus an index or a
// constant under 4 GB stays in its superpage object (C's pointer arithmetic
// stays within an object); anything loaded from memory is unknown.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/calc/estimate/cfg.h"
#include "analysis/calc/model/processor_model.h"

namespace dcpi::calc {

// Whether the procedure's code runs in `range` (PALcode aside, which may run
// on the interrupted program's stack): only then can an access be proven to
// address it.
bool runs_in_superpage(const ControlFlowGraph& cfg, SuperpageRange range);

// Per block, per instruction: whether it is a memory access (isa/'s
// memory format, a load or a store) whose address is provably in `range`.
// All false when the procedure's code is not in `range` (user code cannot
// address the superpage).
std::vector<std::vector<bool>> superpage_accesses(const ControlFlowGraph& cfg,
                                                  SuperpageRange range);

}  // namespace dcpi::calc
