// memfd-backed argument slots shared with a worker.
#include "harness/shared_buffers.h"
#include "harness/cache_evict.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ekb {

namespace {
size_t align64(size_t n) { return (n + 63) / 64 * 64; }
size_t tensor_bytes(const TensorInfo& t) {
  size_t n = static_cast<size_t>(dtype_bytes(t.dtype));
  for (int64_t d : t.shape) n *= static_cast<size_t>(d);
  return n;
}
}  // namespace

SharedBuffers::SharedBuffers(const Program& p, int slots, bool reserve) : p_(p), slots_(slots) {
  for (int t : p.inputs) sizes_.push_back(tensor_bytes(p.tensors[t]));
  for (int t : p.outputs) sizes_.push_back(tensor_bytes(p.tensors[t]));
  // Every buffer is followed by a guard zone filled with a known pattern: a write past a buffer's
  // end lands there (or in the next buffer's guard-protected start) and is seen after the call.
  bytes_ = kGuardBytes;
  for (int s = 0; s < slots; ++s) {
    std::vector<size_t> offs;
    for (size_t sz : sizes_) {
      offs.push_back(bytes_);
      bytes_ += align64(std::max<size_t>(sz, 1)) + kGuardBytes;
    }
    offsets_.push_back(std::move(offs));
  }
  for (size_t i = 0; reserve && i < p.inputs.size(); ++i) {
    reserve_.push_back(bytes_);
    bytes_ += align64(std::max<size_t>(sizes_[i], 1)) + kGuardBytes;
  }
  bytes_ = std::max<size_t>(bytes_, 64);
  fd_ = memfd_create("ekb-buffers", MFD_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error("memfd_create failed");
  if (ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) throw std::runtime_error("cannot size the shared buffers");
  void* m = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (m == MAP_FAILED) throw std::runtime_error("cannot map the shared buffers");
  base_ = static_cast<unsigned char*>(m);
  reset_guards();
}

// The guard zones: before the first buffer, and from the end of each buffer's data to the next.
// (A row of offsets may be shorter than the arguments: the reserve holds the inputs, which come first.)
template <class F>
static void for_each_guard(const std::vector<std::vector<size_t>>& offsets, const std::vector<size_t>& sizes, size_t total, F f) {
  std::vector<std::pair<size_t, size_t>> data;  // [begin, end) of each buffer's bytes
  for (const auto& offs : offsets)
    for (size_t a = 0; a < offs.size(); ++a) data.push_back({offs[a], offs[a] + sizes[a]});
  std::sort(data.begin(), data.end());
  size_t at = 0;
  for (const auto& [b, e] : data) {
    if (b > at) f(at, b - at);
    at = e;
  }
  if (total > at) f(at, total - at);
}

void SharedBuffers::reset_guards() {
  for_each_guard(buffer_rows(), sizes_, bytes_, [&](size_t at, size_t n) { std::memset(base_ + at, kGuardByte, n); });
}

bool SharedBuffers::guards_intact() const {
  bool ok = true;
  for_each_guard(buffer_rows(), sizes_, bytes_, [&](size_t at, size_t n) {
    for (size_t i = 0; i < n && ok; ++i) ok = base_[at + i] == kGuardByte;
  });
  return ok;
}

void SharedBuffers::fault_in_alternately(SharedBuffers& a, SharedBuffers& b) {
  constexpr size_t kPage = 4096;
  size_t pages = (std::max(a.bytes_, b.bytes_) + kPage - 1) / kPage;
  for (size_t i = 0; i < pages; ++i)
    for (SharedBuffers* s : {&a, &b})
      if (i * kPage < s->bytes_) {
        // A write (the byte it holds): the page is allocated now, its content unchanged.
        volatile unsigned char* at = s->base_ + i * kPage;
        *at = *at;
      }
}

SharedBuffers::~SharedBuffers() {
  if (base_) munmap(base_, bytes_);
  if (fd_ >= 0) close(fd_);
}

nlohmann::json SharedBuffers::layout() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& offs : offsets_) j.push_back(offs);
  return j;
}

nlohmann::json SharedBuffers::reserve_layout() const { return reserve_.empty() ? nlohmann::json() : nlohmann::json(reserve_); }

nlohmann::json SharedBuffers::argument_kinds() const {
  nlohmann::json j = nlohmann::json::array();
  for (size_t a = 0; a < sizes_.size(); ++a) {
    bool output = a >= p_.inputs.size();
    DType t = p_.tensors[output ? p_.outputs[a - p_.inputs.size()] : p_.inputs[a]].dtype;
    j.push_back({{"bytes", sizes_[a]}, {"element_bytes", dtype_bytes(t)}, {"output", output}, {"float", is_float(t)}});
  }
  return j;
}

std::vector<std::vector<size_t>> SharedBuffers::buffer_rows() const {
  std::vector<std::vector<size_t>> rows = offsets_;
  if (!reserve_.empty()) rows.push_back(reserve_);
  return rows;
}


void SharedBuffers::write_inputs(int slot, const std::vector<HostBuffer>& inputs, bool evict) {
  for (size_t i = 0; i < inputs.size() && i < p_.inputs.size(); ++i) {
    std::memcpy(base_ + offsets_[slot][i], inputs[i].data(), sizes_[i]);
    if (evict) evict_from_caches(base_ + offsets_[slot][i], sizes_[i]);
  }
}

bool SharedBuffers::inputs_equal(int slot, const std::vector<HostBuffer>& inputs) const {
  for (size_t i = 0; i < inputs.size() && i < p_.inputs.size(); ++i)
    if (std::memcmp(base_ + offsets_[slot][i], inputs[i].data(), sizes_[i]) != 0) return false;
  return true;
}

void SharedBuffers::write_reserve(const std::vector<HostBuffer>& inputs) {
  if (reserve_.empty()) throw std::logic_error("these shared buffers have no reserve");
  for (size_t i = 0; i < inputs.size() && i < reserve_.size(); ++i) std::memcpy(base_ + reserve_[i], inputs[i].data(), sizes_[i]);
}

bool SharedBuffers::reserve_equal(const std::vector<HostBuffer>& inputs) const {
  for (size_t i = 0; i < inputs.size() && i < reserve_.size(); ++i)
    if (std::memcmp(base_ + reserve_[i], inputs[i].data(), sizes_[i]) != 0) return false;
  return true;
}

void SharedBuffers::poison_outputs(int slot, unsigned char pattern, bool evict) {
  for (size_t o = 0; o < p_.outputs.size(); ++o) {
    size_t a = p_.inputs.size() + o;
    // Floats: all-ones bytes, a NaN in every float type (a NaN where the reference is finite fails).
    bool fl = is_float(p_.tensors[p_.outputs[o]].dtype);
    std::memset(base_ + offsets_[slot][a], fl ? 0xFF : pattern, sizes_[a]);
    if (evict) evict_from_caches(base_ + offsets_[slot][a], sizes_[a]);
  }
}

bool SharedBuffers::outputs_identical(int slot, const SharedBuffers& other) const {
  for (size_t a = p_.inputs.size(); a < sizes_.size(); ++a)
    if (sizes_[a] != other.sizes_[a] || std::memcmp(base_ + offsets_[slot][a], other.base_ + other.offsets_[slot][a], sizes_[a]) != 0)
      return false;
  return true;
}

std::vector<TensorData> SharedBuffers::read_outputs(int slot) const {
  std::vector<TensorData> out;
  for (size_t o = 0; o < p_.outputs.size(); ++o) {
    const TensorInfo& t = p_.tensors[p_.outputs[o]];
    HostBuffer h(t.dtype, t.shape);
    size_t a = p_.inputs.size() + o;
    std::memcpy(h.data(), base_ + offsets_[slot][a], sizes_[a]);
    out.push_back(from_host(h, t.name));
  }
  return out;
}

}  // namespace ekb
