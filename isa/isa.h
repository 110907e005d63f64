// Everything in isa/: decode, operands, EV5 timing, objdump-style printing.
#pragma once
#include "isa/decode.h"
#include "isa/ev5.h"
#include "isa/instruction.h"
#include "isa/operands.h"
#include "isa/pal_functions.h"
#include "isa/print.h"
#include "isa/registers.h"
