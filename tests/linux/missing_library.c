/* A library the sorter-needs-missing test program links against and the
   run does not ship. */
int dcpi_missing_library_marker(void) { return 42; }
