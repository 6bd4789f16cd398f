#!/usr/bin/env bash
# Builds ekb and runs its checks on a machine without Debian's libraries or a package registry: the
# GPU machine (Ubuntu 24.04, g++ 13, CMake, the CUDA toolkit and driver) reached through `device`,
# or an edge board. The Debian packages fetched beforehand by scripts/fetch-device-deps.sh (carried
# in .device-deps/) are unpacked into a private prefix; the in-process LLVM is left out, so the CPU
# backend compiles C through the system's compiler as a subprocess. One call does everything:
#   scripts/gpu-machine.sh [build|test|all]     (default all: build, then the tests)
# Exit status: the first failing step's.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
deps=${EKB_DEPS_PREFIX:-/tmp/ekb-deps}
build=${EKB_BUILD_DIR:-build-gpu}
if [ ! -d .device-deps ] || ! ls .device-deps/*.deb > /dev/null 2>&1; then
  echo "gpu-machine: .device-deps/ has no packages: run scripts/fetch-device-deps.sh where apt-get works, and carry .device-deps" >&2
  exit 2
fi
mkdir -p "$deps"
for f in .device-deps/*.deb; do dpkg -x "$f" "$deps"; done
multiarch=$deps/usr/lib/x86_64-linux-gnu
# libcurl: Debian's headers, the machine's own library (its libcurl.so.4, which cmake itself uses there).
if [ ! -e "$multiarch/libcurl.so" ]; then  # (-e follows the link: Debian's points to a library not carried)
  system_curl=$(ldconfig -p 2>/dev/null | sed -n 's/.*libcurl\.so\.4 (libc6,x86-64) => //p' | head -1)
  if [ -n "$system_curl" ]; then ln -sf "$system_curl" "$multiarch/libcurl.so"; else echo "gpu-machine: no libcurl.so.4 on this machine" >&2; fi
fi
export LD_LIBRARY_PATH="$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The ICD loader finds NVIDIA's OpenCL through this file (the driver ships the library only).
if [ -e /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 ] || ldconfig -p 2>/dev/null | grep -q libnvidia-opencl; then
  mkdir -p /etc/OpenCL/vendors 2>/dev/null && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd 2>/dev/null || true
fi
jobs=$(nproc)
if [ "$what" = build ] || [ "$what" = all ]; then
  echo "gpu-machine: configuring ($(g++ --version | head -1); $(cmake --version | head -1))"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc \
    -DEKB_WITH_LLVM=OFF -DEKB_REQUIRE_LLM_TEST_SERVER=OFF -DEKB_BUILD_ONNX_TESTS=OFF -DEKB_WITH_ONNX=OFF -DEKB_BUILD_BENCH=OFF -DEKB_BUILD_FUZZ=OFF -DCMAKE_PREFIX_PATH="$deps/usr" \
    -DCMAKE_INCLUDE_PATH="$deps/usr/include" -DCMAKE_LIBRARY_PATH="$multiarch"
  cmake --build "$build" -j "$jobs"
fi
if [ "$what" = test ] || [ "$what" = all ]; then
  # No browser there: the HTML report's browser tests are skipped, saying so (README.md).
  (cd "$build" && EKB_SKIP_BROWSER_TESTS=${EKB_SKIP_BROWSER_TESTS:-1} ctest -j "$jobs" --output-on-failure --timeout 600 -E "${EKB_CTEST_EXCLUDE:-^$}")
fi
