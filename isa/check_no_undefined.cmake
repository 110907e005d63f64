# Fails when LIBRARY references any symbol it does not define: the isa code
# must run in the guest kernel, which has no C library and no division routines.
execute_process(COMMAND ${NM} -u ${LIBRARY} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${LIBRARY} failed")
endif()
string(REGEX REPLACE "[^\n]*:\n" "" undefined "${undefined}")  # archive member headers
string(STRIP "${undefined}" undefined)
if(NOT undefined STREQUAL "")
  message(FATAL_ERROR "isa guest code needs symbols the kernel does not have:\n${undefined}")
endif()
