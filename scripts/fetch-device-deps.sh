#!/usr/bin/env bash
# Downloads (does not install) the Debian packages ekb's build needs on a machine that has neither
# them nor a package registry — the GPU machine (Ubuntu 24.04, g++ 13, CMake, CUDA) or an edge
# board — into .device-deps/ (git-ignored, about 5 MiB). scripts/gpu-machine.sh unpacks them there
# into a private prefix; nothing is installed system-wide. Run here, where apt-get works.
#   Usage: scripts/fetch-device-deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(
  # headers and libraries the build links (the in-process LLVM is left out there: EKB_WITH_LLVM=OFF)
  libfmt-dev libfmt9 nlohmann-json3-dev libcli11-dev libxxhash-dev libxxhash0
  libsqlite3-dev libsqlite3-0 libseccomp-dev libseccomp2 libgtest-dev
  # OpenCL: the ICD loader and the headers (NVIDIA's OpenCL library is the driver's)
  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers
  # the language-model client's headers; it links the machine's own libcurl.so.4 (gpu-machine.sh),
  # as Debian's would need libraries of Debian's versions there
  libcurl4-openssl-dev
  # Chart.js, which the HTML report inlines (a JavaScript file, built into ekb)
  libjs-chart.js
)
mkdir -p .device-deps
cd .device-deps
rm -f ./*.deb
apt-get download "${PACKAGES[@]}"
ls -l ./*.deb | awk '{s += $5} END {printf "fetch-device-deps: %d packages, %.1f MiB in .device-deps/\n", NR, s / 1048576}'
