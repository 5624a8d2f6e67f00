# SPDX-License-Identifier: MIT OR Apache-2.0
# The shared library's ABI surface (docs/abi.md): it exports exactly the
# PC_API functions of the header, each at a PAGECLEAR_1.N version (the
# default one, @@), plus the version nodes themselves, nothing else; its
# SONAME is libpageclear.so.MAJOR.
# Usage: cmake -DNM=nm -DOBJDUMP=objdump -DLIB=libpageclear.so
#              -DHEADER=include/pageclear.h -DMAJOR=1 -P check_exports.cmake
cmake_policy(VERSION 3.16)
execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE syms
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${syms}")
set(exported "")
set(nodes "")
foreach(l ${lines})
  # A version node: GNU nm prints "PAGECLEAR_1.0", llvm-nm (which CMake
  # picks with clang) "PAGECLEAR_1.0@@PAGECLEAR_1.0".
  if(l MATCHES "^[0-9a-f]+ A (PAGECLEAR_1\\.[0-9]+)(@@PAGECLEAR_1\\.[0-9]+)?$")
    list(APPEND nodes ${CMAKE_MATCH_1})
  elseif(l MATCHES "^[0-9a-f]+ T (pc_[a-z_0-9]+)@@(PAGECLEAR_1\\.[0-9]+)$")
    list(APPEND exported ${CMAKE_MATCH_1})
    list(APPEND used_nodes ${CMAKE_MATCH_2})
  elseif(NOT l STREQUAL "")
    message(FATAL_ERROR "unexpected export (not a pc_ function at a PAGECLEAR_1.N "
                        "version, nor a version node): ${l}")
  endif()
endforeach()
if(NOT "PAGECLEAR_1.0" IN_LIST nodes)
  message(FATAL_ERROR "no version node PAGECLEAR_1.0 in ${LIB}")
endif()
foreach(n ${used_nodes})
  if(NOT n IN_LIST nodes)
    message(FATAL_ERROR "functions at ${n}, which is not a version node")
  endif()
endforeach()

# The header's functions: `PC_API <type> [*]name(`.
file(STRINGS ${HEADER} decls REGEX "^PC_API ")
set(declared "")
foreach(d ${decls})
  if(NOT d MATCHES "^PC_API [^(]*[ *]([a-z_0-9]+)\\(")
    message(FATAL_ERROR "cannot read the declaration: ${d}")
  endif()
  list(APPEND declared ${CMAKE_MATCH_1})
endforeach()
list(SORT declared)
list(SORT exported)
list(LENGTH declared n)
if(n LESS 30)
  message(FATAL_ERROR "only ${n} PC_API functions found in ${HEADER}")
endif()
if(NOT declared STREQUAL exported)
  set(missing ${declared})
  list(REMOVE_ITEM missing ${exported})
  set(extra ${exported})
  list(REMOVE_ITEM extra ${declared})
  message(FATAL_ERROR "exports and header differ: not exported: ${missing}; "
                      "exported, not declared: ${extra} (src/libpageclear.map)")
endif()

execute_process(COMMAND ${OBJDUMP} -p ${LIB} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT dyn MATCHES "SONAME +([^\n]+)")
  message(FATAL_ERROR "no SONAME in ${LIB}")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL "libpageclear.so.${MAJOR}")
  message(FATAL_ERROR "SONAME ${CMAKE_MATCH_1}, not libpageclear.so.${MAJOR}")
endif()
list(REMOVE_DUPLICATES used_nodes)
message(STATUS "${n} exports, the header's PC_API functions, at ${used_nodes}; "
               "SONAME libpageclear.so.${MAJOR}")
