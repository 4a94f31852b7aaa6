# Embeds OpenCL C sources into the library (STYLE.md: kernel files are valid source; CMake
# embeds them). Includes of "core/portable/..." are inlined at build time, so the embedded text
# is self-contained and its hash (the program cache key) changes whenever any part changes.
set(HETCODEC_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_opencl_script.cmake)

# hetcodec_embed_opencl(OUT <cpp> SOURCES <cl files...>)
function(hetcodec_embed_opencl)
  cmake_parse_arguments(E "" "OUT" "SOURCES" ${ARGN})
  file(GLOB _portable ${PROJECT_SOURCE_DIR}/core/portable/*.h)
  add_custom_command(
    OUTPUT ${E_OUT}
    COMMAND ${CMAKE_COMMAND} -DOUT=${E_OUT} -DROOT=${PROJECT_SOURCE_DIR}
            "-DSOURCES=${E_SOURCES}" -P ${HETCODEC_EMBED_SCRIPT}
    DEPENDS ${E_SOURCES} ${_portable} ${HETCODEC_EMBED_SCRIPT}
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
endfunction()
