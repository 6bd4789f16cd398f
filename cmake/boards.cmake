# The board programs for aarch64 and riscv64 (cmake/board.cmake), cross-built as part of the host's
# build where Debian's cross compilers are installed (g++-aarch64-linux-gnu, g++-riscv64-linux-gnu),
# into build/board-ARCH/{ekb,ekb-worker}: the remote-board tests (tests/remote) run them under
# qemu-user. Each is its own CMake project (ExternalProject), rebuilt when its sources change.
include(ExternalProject)
set(EKB_BOARD_ARCHES "")
foreach(arch aarch64 riscv64)
  find_program(EKB_${arch}_CXX ${arch}-linux-gnu-g++)
  if(NOT EKB_${arch}_CXX)
    message(STATUS "ekb: no ${arch}-linux-gnu-g++: the ${arch} board build and its tests are left out")
    continue()
  endif()
  set(_launcher "")
  if(CCACHE_PROGRAM)
    set(_launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE_PROGRAM})
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
