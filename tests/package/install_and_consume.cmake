# The CMake package from a prefix the compiler does not search: installs the build into PREFIX,
# configures and builds consumer/ against it with find_package(wagener CONFIG), and runs it.
#   cmake -DBUILD_DIR=... -DPREFIX=... -DCONSUMER_BUILD=... -DLIBDIR=lib [-DCXX_COMPILER=...] -P install_and_consume.cmake
foreach(var BUILD_DIR PREFIX CONSUMER_BUILD LIBDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_and_consume.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${PREFIX}" "${CONSUMER_BUILD}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
set(compiler "")
if(CXX_COMPILER)
  set(compiler "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${CONSUMER_BUILD}"
                        "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCMAKE_BUILD_TYPE=Release ${compiler}
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${CONSUMER_BUILD}" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CONSUMER_BUILD}/consumer" OUTPUT_VARIABLE hull COMMAND_ERROR_IS_FATAL ANY)
set(expected "0 0\n4 0\n4 3\n0 3\n")
if(NOT hull STREQUAL expected)
  message(FATAL_ERROR "the consumer printed\n${hull}instead of\n${expected}")
endif()
# The headers must come from the prefix (a wagener in /usr/local/include would hide a missing one).
file(READ "${PREFIX}/${LIBDIR}/cmake/wagener/wagenerTargets.cmake" targets)
string(FIND "${targets}" [[INTERFACE_INCLUDE_DIRECTORIES "${_IMPORT_PREFIX}/include"]] at)
if(at EQUAL -1)
  message(FATAL_ERROR "wagenerTargets.cmake names no include directory under the prefix")
endif()
message(STATUS "the consumer built against ${PREFIX} printed the hull")
