# The board programs (cmake/board.cmake) built as part of the host's build, into
# build/board-ARCH/{ekb,ekb-worker}: for aarch64 and riscv64 with Debian's cross compilers where they
# are installed (g++-aarch64-linux-gnu, g++-riscv64-linux-gnu), which the remote-board tests
# (tests/remote) run under qemu-user; and for this machine's own architecture with its compiler,
# which they run as a real board (its workers sandboxed by the board build's own filter loader).
# Each is its own CMake project (ExternalProject), rebuilt when its sources change.
include(ExternalProject)
set(EKB_BOARD_ARCHES "")
set(_launcher "")
if(CCACHE_PROGRAM)
  set(_launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE_PROGRAM})
endif()
ExternalProject_Add(ekb-board-${CMAKE_SYSTEM_PROCESSOR}
  SOURCE_DIR ${CMAKE_SOURCE_DIR}
  BINARY_DIR ${CMAKE_BINARY_DIR}/board-${CMAKE_SYSTEM_PROCESSOR}
  CMAKE_ARGS -DEKB_BOARD_ONLY=ON -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release ${_launcher}
  CMAKE_GENERATOR ${CMAKE_GENERATOR}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  USES_TERMINAL_BUILD OFF)
list(APPEND EKB_BOARD_ARCHES ${CMAKE_SYSTEM_PROCESSOR})
foreach(arch aarch64 riscv64)
  if(arch STREQUAL CMAKE_SYSTEM_PROCESSOR)
    continue()
  endif()
  find_program(EKB_${arch}_CXX ${arch}-linux-gnu-g++)
  if(NOT EKB_${arch}_CXX)
    message(STATUS "ekb: no ${arch}-linux-gnu-g++: the ${arch} board build and its tests are left out")
    continue()
  endif()
  ExternalProject_Add(ekb-board-${arch}
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${CMAKE_BINARY_DIR}/board-${arch}
    CMAKE_ARGS -DEKB_BOARD_ONLY=ON -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/toolchain-${arch}.cmake
               -DCMAKE_BUILD_TYPE=Release ${_launcher}
    CMAKE_GENERATOR ${CMAKE_GENERATOR}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD OFF)
  list(APPEND EKB_BOARD_ARCHES ${arch})
endforeach()
