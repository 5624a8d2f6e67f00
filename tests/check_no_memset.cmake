# Fails if the library references memset: the primitives are compiled with
# -fno-builtin so that their loops are never turned into memset calls.
execute_process(COMMAND ${NM} -D --undefined-only ${LIB} OUTPUT_VARIABLE syms
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
if(syms MATCHES "[ \t](__)?memset")
  message(FATAL_ERROR "libpageclear references memset:\n${syms}")
endif()
message(STATUS "no memset reference in ${LIB}")
