/* The event list and control commands for user programs: firmware/events.h
   and firmware/control_block.h, written once in C for guest and host. */
#ifndef DCPI_EVENTS_H
#define DCPI_EVENTS_H

#include "firmware/control_block.h"
#include "firmware/events.h"

#endif
