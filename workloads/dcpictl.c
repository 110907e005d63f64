/* dcpictl: the profiler's control path from a user program (system call
   1001, firmware/control_block.h), like DCPI's dcpid control commands.

     dcpictl start | stop | flush
     dcpictl epoch [N]              new epoch (N, or the next one)
     dcpictl period BASE RANGE      sampling period in cycles
     dcpictl events NAME[,NAME] [mux]

   Prints `dcpictl: <command>: ok` or the reason it was refused, and exits
   0 or 1. Natively (no DCPI kernel) every request fails with ENOSYS. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcpi_events.h"
#include "dcpi_user.h"

static int usage(void) {
  printf("usage: dcpictl start|stop|flush | epoch [N] | period BASE RANGE | events LIST [mux]\n");
  return 2;
}

static int parse_events(const char *list, uint64_t *set) {
  char copy[128];
  snprintf(copy, sizeof copy, "%s", list);
  *set = 0;
  for (char *name = strtok(copy, ","); name; name = strtok(NULL, ",")) {
    size_t i = 0;
    while (i < DCPI_EVENT_COUNT && strcmp(dcpi_event_names[i], name) != 0) ++i;
    if (i == DCPI_EVENT_COUNT) {
      printf("dcpictl: unknown event '%s'\n", name);
      return 0;
    }
    *set |= (uint64_t)1 << i;
  }
  return 1;
}

static const char *status_text(int64_t status) {
  switch (status) {
    case 0: return "ok";
    case -1: return "refused: unknown command";
    case -2: return "refused: the machine cannot count that event (QEMU counts only cycles)";
    case -3: return "refused: bad argument";
    default: return "refused";
  }
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  struct dcpi_control_request request;
  memset(&request, 0, sizeof request);
  request.request_sequence = 1;
  const char *what = argv[1];
  if (strcmp(what, "start") == 0) {
    request.command = DCPI_CONTROL_START;
  } else if (strcmp(what, "stop") == 0) {
    request.command = DCPI_CONTROL_STOP;
  } else if (strcmp(what, "flush") == 0) {
    request.command = DCPI_CONTROL_FLUSH;
  } else if (strcmp(what, "epoch") == 0) {
    request.command = DCPI_CONTROL_NEW_EPOCH;
    request.args[0] = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
  } else if (strcmp(what, "period") == 0 && argc > 3) {
    request.command = DCPI_CONTROL_SET_PERIOD;
    request.args[0] = strtoull(argv[2], NULL, 0);
    request.args[1] = strtoull(argv[3], NULL, 0);
  } else if (strcmp(what, "events") == 0 && argc > 2) {
    request.command = DCPI_CONTROL_SET_EVENTS;
    if (!parse_events(argv[2], &request.args[0])) return 1;
    request.args[1] = argc > 3 && strcmp(argv[3], "mux") == 0;
  } else {
    return usage();
  }
  const long result = dcpi_control(&request);
  if (result < 0 && request.done_sequence != request.request_sequence) {
    printf("dcpictl: %s: %s\n", what, strerror(errno));
    return 1;
  }
  printf("dcpictl: %s: %s\n", what, status_text(request.status));
  return request.status == 0 ? 0 : 1;
}
