# The build for a board (-DEKB_BOARD_ONLY=ON, usually with cmake/toolchain-ARCH.cmake): `ekb` with
# only `ekb worker` (the listener a host connects to) and ekb-worker (the sandboxed process a
# candidate runs in), nothing else: no LLVM (the host cross-compiles kernels), no SQLite (the host
# keeps the store), no libcurl. Its libraries are header-only ones (nlohmann-json, CLI11), taken from
# this machine's /usr/include through a directory of links (a cross compiler must not search all of
# /usr/include: its C library headers are the build machine's), and the C and C++ runtimes, linked
# statically where GCC allows (libstdc++, libgcc) so that a board needs only its C library, libm
# and libgomp. The seccomp filter is compiled to BPF by ekb itself (harness/seccomp_bpf.h):
# libseccomp is not packaged for every board architecture (riscv64 is not one of Debian 12's).
# One translation unit per few sources (CMake's unity build): the sources share their heavy headers
# (nlohmann/json), and a board build takes 25 s of CPU instead of 53 (aarch64, measured), in CI too.
set(CMAKE_UNITY_BUILD ON)
set(EKB_BOARD_HEADER_SOURCE /usr/include CACHE PATH "where the header-only libraries (nlohmann, CLI) are")
set(EKB_BOARD_HEADERS ${CMAKE_BINARY_DIR}/board-include)
file(MAKE_DIRECTORY ${EKB_BOARD_HEADERS})
foreach(dir nlohmann CLI)
  if(NOT EXISTS ${EKB_BOARD_HEADER_SOURCE}/${dir})
    message(FATAL_ERROR "the board build needs ${EKB_BOARD_HEADER_SOURCE}/${dir} (Debian: nlohmann-json3-dev, libcli11-dev)")
  endif()
  file(CREATE_LINK ${EKB_BOARD_HEADER_SOURCE}/${dir} ${EKB_BOARD_HEADERS}/${dir} SYMBOLIC)
endforeach()
find_package(Threads REQUIRED)

set(S ${CMAKE_SOURCE_DIR}/src)
# What both programs share: messages, the outcome table, the worker process's client, the kernel checks.
add_library(ekb_board_common STATIC
  ${S}/harness/outcome.cpp ${S}/harness/timing_regime.cpp ${S}/harness/element_swaps.cpp ${S}/harness/worker_channel.cpp
  ${S}/harness/worker_client.cpp ${S}/harness/landlock.cpp ${S}/harness/compile_confinement.cpp
  ${S}/remote/elf_check.cpp ${S}/target/arch.cpp)
target_include_directories(ekb_board_common PUBLIC ${S})
target_include_directories(ekb_board_common SYSTEM PUBLIC ${EKB_BOARD_HEADERS})
target_compile_definitions(ekb_board_common PUBLIC EKB_WITH_LLVM=0 EKB_HAVE_LIBSECCOMP=0)
target_link_libraries(ekb_board_common PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
target_link_options(ekb_board_common PUBLIC -static-libstdc++ -static-libgcc)

add_executable(ekb-worker ${S}/harness/board_worker_main.cpp ${S}/harness/kernel_worker.cpp
  ${S}/harness/sandbox.cpp ${S}/harness/sandbox_policy.cpp ${S}/harness/seccomp_bpf.cpp
  ${S}/runtime/cpu/c_compiler.cpp ${S}/runtime/cpu/c_compiler_subprocess.cpp ${S}/runtime/cpu/run_process.cpp ${S}/runtime/cpu/temp_dir.cpp)
target_link_libraries(ekb-worker PRIVATE ekb_board_common)

add_executable(ekb ${S}/remote/board_main.cpp ${S}/cli/cmd_worker.cpp ${S}/remote/board_server.cpp ${S}/remote/board_facts.cpp
  ${S}/remote/frame.cpp ${S}/remote/token.cpp ${S}/remote/region_sync.cpp)
target_link_libraries(ekb PRIVATE ekb_board_common)
add_dependencies(ekb ekb-worker)
