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
# From 1.0 a minor release keeps the ABI (docs/abi.md: functions and
# struct fields are only added, and the structs grow by the size contract),
# so a request for 1.N is met by any 1.M with M >= N: SameMajorVersion.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/pageclearConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pageclearConfig.cmake
              ${PROJECT_BINARY_DIR}/pageclearConfigVersion.cmake
        DESTINATION ${PC_CMAKE_DIR})
