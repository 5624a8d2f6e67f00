# SPDX-License-Identifier: MIT OR Apache-2.0
# Fails if a primitive's object file references memset: the primitives are
# compiled with -fno-builtin so that their loops are never turned into calls
# to the function they are measured against. OBJS is a |-separated list.
string(REPLACE "|" ";" objs "${OBJS}")
list(LENGTH objs n)
if(n EQUAL 0)
  message(FATAL_ERROR "no primitive objects given")
endif()
foreach(o ${objs})
  execute_process(COMMAND ${NM} --undefined-only ${o} OUTPUT_VARIABLE syms
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${o}")
  endif()
  if(syms MATCHES "[ \t](__)?memset")
    message(FATAL_ERROR "${o} references memset:\n${syms}")
  endif()
endforeach()
message(STATUS "${n} primitive objects, none references memset")
