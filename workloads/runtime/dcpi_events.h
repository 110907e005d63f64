/* Event names in dcpi::Event order (firmware/events.h is C++; user programs
   are C). tests/workloads/control_layout.cpp checks that the two agree. */
#ifndef DCPI_EVENTS_H
#define DCPI_EVENTS_H

static const char *const dcpi_event_names[] = {"cycles",  "imiss",   "dmiss",  "branchmp",
                                               "itbmiss", "dtbmiss", "replay", "issues"};
#define DCPI_EVENT_COUNT (sizeof dcpi_event_names / sizeof dcpi_event_names[0])

/* dcpi::ControlCommand */
enum {
  DCPI_CONTROL_START = 1,
  DCPI_CONTROL_STOP = 2,
  DCPI_CONTROL_FLUSH = 3,
  DCPI_CONTROL_NEW_EPOCH = 4,
  DCPI_CONTROL_SET_PERIOD = 5,
  DCPI_CONTROL_SET_EVENTS = 6,
};

#endif
