// Loading a filter table (sandbox_policy.h) through libseccomp: the host's build.
#include <seccomp.h>

#include <cerrno>
#include <cstring>

#include "harness/sandbox_policy.h"

namespace ekb::worker {

namespace {

uint32_t action_of(FilterAction a) {
  switch (a) {
    case FilterAction::allow: return SCMP_ACT_ALLOW;
    case FilterAction::trap: return SCMP_ACT_TRAP;
    case FilterAction::errno_eacces: return SCMP_ACT_ERRNO(EACCES);
    case FilterAction::errno_enosys: return SCMP_ACT_ERRNO(ENOSYS);
    case FilterAction::kill: return SCMP_ACT_KILL_PROCESS;
  }
  return SCMP_ACT_KILL_PROCESS;
}

scmp_arg_cmp cmp_of(const ArgCondition& c) {
  auto arg = static_cast<unsigned>(c.arg);
  switch (c.cmp) {
    case ArgCmp::eq: return scmp_arg_cmp{arg, SCMP_CMP_EQ, c.value, 0};
    case ArgCmp::ne: return scmp_arg_cmp{arg, SCMP_CMP_NE, c.value, 0};
    case ArgCmp::le: return scmp_arg_cmp{arg, SCMP_CMP_LE, c.value, 0};
    case ArgCmp::masked_eq: return scmp_arg_cmp{arg, SCMP_CMP_MASKED_EQ, c.mask, c.value};
  }
  return scmp_arg_cmp{arg, SCMP_CMP_EQ, c.value, 0};
}

}  // namespace

std::string load_policy_with_libseccomp(const FilterPolicy& p) {
  scmp_filter_ctx ctx = seccomp_init(action_of(p.default_action));
  if (!ctx) return "seccomp_init failed";
  struct Release {
    scmp_filter_ctx c;
    ~Release() { seccomp_release(c); }
  } release{ctx};
  if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0) return "seccomp: cannot synchronize threads";
  for (const FilterRule& r : p.rules) {
    if (r.nr < 0) continue;
    scmp_arg_cmp c{};
    if (r.condition) c = cmp_of(*r.condition);
    int e = seccomp_rule_add_array(ctx, action_of(r.action), r.nr, r.condition ? 1 : 0, r.condition ? &c : nullptr);
    if (e < 0) return std::string("seccomp rule for ") + r.name + ": " + std::strerror(-e);
  }
  int e = seccomp_load(ctx);
  if (e < 0) return std::string("seccomp_load: ") + std::strerror(-e);
  return "";
}

}  // namespace ekb::worker
