# What `cmake --install` puts where, under one prefix: the CLI, the contract's
# header, a CMake package (specverify::sampler) and a pkg-config file for
# plugin authors, the example plugin's source, and (python/CMakeLists.txt)
# the Python samplers' plugin and package.
include(CMakePackageConfigHelpers)
set(SV_INSTALL_BINDIR bin)
set(SV_INSTALL_CMAKEDIR ${SV_INSTALL_LIBDIR}/cmake/specverify)
set(SV_INSTALL_EXAMPLESDIR share/specverify/examples)
file(STRINGS samplers/sv_sampler.h contract_line REGEX "^#define SV_CONTRACT_VERSION ")
string(REGEX REPLACE ".* ([0-9]+)u.*" "\\1" SV_CONTRACT_VERSION "${contract_line}")

# installed programs keep the run path of libraries outside the system's (CUDA's)
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS specverify RUNTIME DESTINATION ${SV_INSTALL_BINDIR})

add_library(specverify_sampler INTERFACE)
target_include_directories(specverify_sampler INTERFACE
                           $<INSTALL_INTERFACE:include/specverify>)
target_compile_features(specverify_sampler INTERFACE c_std_11)
set_target_properties(specverify_sampler PROPERTIES EXPORT_NAME sampler)
install(TARGETS specverify_sampler EXPORT specverifyTargets)
install(FILES samplers/sv_sampler.h samplers/sv_engine_rng.h DESTINATION include/specverify)
install(FILES samplers/examples/race_plugin.c DESTINATION ${SV_INSTALL_EXAMPLESDIR})
install(EXPORT specverifyTargets NAMESPACE specverify:: DESTINATION ${SV_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/specverifyConfig.cmake.in
  ${CMAKE_BINARY_DIR}/specverifyConfig.cmake INSTALL_DESTINATION ${SV_INSTALL_CMAKEDIR}
  PATH_VARS SV_INSTALL_BINDIR SV_INSTALL_EXAMPLESDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/specverifyConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/specverifyConfig.cmake
              ${CMAKE_BINARY_DIR}/specverifyConfigVersion.cmake
        DESTINATION ${SV_INSTALL_CMAKEDIR})
configure_file(cmake/specverify.pc.in ${CMAKE_BINARY_DIR}/specverify.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/specverify.pc DESTINATION ${SV_INSTALL_LIBDIR}/pkgconfig)
