# `cmake --install build --prefix P`: the command line (bin/shardlang), the
# static libraries and the public header, a CMake package
# (find_package(shardlang CONFIG) -> shardlang::shardlang) and a pkg-config
# file (pkg-config --cflags --libs shardlang). Both are relocatable: they
# find the prefix from where they were installed. tests/install/ builds
# examples/embed against an installed prefix each way.
include(CMakePackageConfigHelpers)

# Installed names: shardlang::shardlang is the interpreter; the folders'
# libraries behind it come along as shardlang::lang, ::typecheck, ::devices.
set_target_properties(shardlang_lib PROPERTIES EXPORT_NAME shardlang)
set_target_properties(shardlang_lang PROPERTIES EXPORT_NAME lang)
set_target_properties(shardlang_typecheck PROPERTIES EXPORT_NAME typecheck)
set_target_properties(shardlang_devices PROPERTIES EXPORT_NAME devices)
target_include_directories(shardlang_lib INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# A sanitizer build's libraries need the sanitizer runtimes wherever they are
# linked (shardlang_flags, which says so in the build, is not installed).
set(SHARDLANG_EXPORTED_LINK_FLAGS "")
if(SHARDLANG_SANITIZE OR SHARDLANG_FUZZ)
  set(SHARDLANG_EXPORTED_LINK_FLAGS -fsanitize=address,undefined)
  target_link_options(shardlang_lib INTERFACE $<INSTALL_INTERFACE:${SHARDLANG_EXPORTED_LINK_FLAGS}>)
endif()

install(TARGETS shardlang RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS shardlang_lib shardlang_lang shardlang_typecheck shardlang_devices
        EXPORT shardlangTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/shardlang/shardlang.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/shardlang)

set(shardlang_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/shardlang)
install(EXPORT shardlangTargets NAMESPACE shardlang:: DESTINATION ${shardlang_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/shardlangConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/shardlangConfig.cmake
                              INSTALL_DESTINATION ${shardlang_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/shardlangConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/shardlangConfig.cmake ${PROJECT_BINARY_DIR}/cmake/shardlangConfigVersion.cmake
        DESTINATION ${shardlang_cmake_dir})

# The MPI build's devices library needs MPI's wherever it is linked.
set(SHARDLANG_PC_REQUIRES "fmt openblas sleef")
if(SHARDLANG_MPI)
  string(APPEND SHARDLANG_PC_REQUIRES " mpi-cxx")
endif()
if(SHARDLANG_RE)
  string(APPEND SHARDLANG_PC_REQUIRES " libpcre2-8")
endif()
# The .pc file finds the prefix relative to its own folder (${pcfiledir}).
file(RELATIVE_PATH SHARDLANG_PC_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(JOIN " " SHARDLANG_EXPORTED_LINK_FLAGS ${SHARDLANG_EXPORTED_LINK_FLAGS})
configure_file(${CMAKE_CURRENT_LIST_DIR}/shardlang.pc.in ${PROJECT_BINARY_DIR}/cmake/shardlang.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/shardlang.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
