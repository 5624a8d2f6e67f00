# SPDX-License-Identifier: MIT OR Apache-2.0
# The CMake package: find_package(pageclear CONFIG) then
# target_link_libraries(app PRIVATE pageclear::pageclear) (or
# pageclear::pageclear_static). Included from the top-level CMakeLists.txt
# after the libraries' install(TARGETS ... EXPORT pageclearTargets).
include(CMakePackageConfigHelpers)
set(PC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pageclear)

install(EXPORT pageclearTargets NAMESPACE pageclear:: DESTINATION ${PC_CMAKE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/pageclearConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pageclearConfig.cmake
  INSTALL_DESTINATION ${PC_CMAKE_DIR})
# Before 1.0 a minor release may change the ABI (0.2 grew struct pc_host,
# and a profile is only accepted by the same MAJOR.MINOR), so a request for
# 0.2 is met by 0.2.x alone, not by 0.3: SameMinorVersion. From 1.0 on,
# SameMajorVersion is the rule that fits.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(PC_COMPAT SameMinorVersion)
else()
  set(PC_COMPAT SameMajorVersion)
endif()
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/pageclearConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${PC_COMPAT})
install(FILES ${PROJECT_BINARY_DIR}/pageclearConfig.cmake
              ${PROJECT_BINARY_DIR}/pageclearConfigVersion.cmake
        DESTINATION ${PC_CMAKE_DIR})
