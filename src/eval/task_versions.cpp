// Task versions of stored results (task_versions.h).
#include "eval/task_versions.h"

#include <fmt/format.h>

#include <set>

#include "suite/suite_version.h"
#include "suite/task_hash.h"

namespace ekb {

StoredVersion stored_attempt(ResultsStore& store, int64_t run, const std::string& task, int sample,
                             const std::string& task_hash) {
  std::optional<std::string> stored = store.attempt_task_hash(run, task, sample);
  if (!stored) return {StoredAttempt::none, ""};
  if (stored->empty()) return {StoredAttempt::unrecorded, ""};
  return {*stored == task_hash ? StoredAttempt::same_task : StoredAttempt::other_version, *stored};
}

std::optional<std::string> drop_other_version(ResultsStore& store, int64_t run, const std::string& task, int sample,
                                              const std::string& task_hash) {
  StoredVersion a = stored_attempt(store, run, task, sample, task_hash);
  std::optional<std::string> stale;
  if (a.kind == StoredAttempt::other_version) stale = a.task_hash;
  if (a.kind == StoredAttempt::none)
    for (const auto& st : store.steps(run, task))
      if (!st.task_hash.empty() && st.task_hash != task_hash) {
        stale = st.task_hash;
        break;
      }
  if (!stale) return std::nullopt;
  store.forget_attempt(run, task, sample);
  store.forget_steps(run, task, 0);
  return stale;
}

std::string remeasure_note(const std::string& what, const std::string& stored_hash, const std::string& current_hash) {
  return fmt::format("{}: what the run stored was made on another version of the task (task hash {}, {} now): "
                     "made again, the stored result dropped",
                     what, stored_hash, current_hash);
}

std::string rebuild_note(const std::string& what, const std::string& stored_hash, const std::string& current_hash) {
  return fmt::format("{}: the code ekb builds for it changed since it was stored (build hash {}, {} now; ekb's compiler "
                     "changed): made again, the stored result dropped",
                     what, stored_hash, current_hash);
}

TaskVersions task_versions(const std::vector<AttemptRecord>& attempts, const Suite* current) {
  TaskVersions v;
  std::set<std::string> versions;
  if (current) v.current_suite = current->version();
  for (const auto& a : attempts) {
    if (a.task_hash.empty()) {
      ++v.unrecorded;
      continue;
    }
    versions.insert(a.suite_version);
    if (!current) continue;
    const Task* t = current->find(a.task);
    if (!t) v.gone.push_back({a.task, a.sample, a.suite_version, a.task_hash, ""});
    else if (std::string now = task_hash(*t->program); now != a.task_hash)
      v.other_version.push_back({a.task, a.sample, a.suite_version, a.task_hash, now});
  }
  v.suite_versions.assign(versions.begin(), versions.end());
  return v;
}

namespace {

std::string labels(const std::vector<std::string>& versions) {
  std::vector<std::string> out;
  for (const auto& s : versions) out.push_back(suite_version_label(s));
  return fmt::format("{}", fmt::join(out, ", "));
}

std::string listed(const std::vector<VersionMismatch>& ms) {
  std::vector<std::string> names;
  for (const auto& m : ms) names.push_back(m.sample ? fmt::format("{} sample {}", m.task, m.sample) : m.task);
  if (names.size() > 8) {
    size_t more = names.size() - 6;
    names.resize(6);
    names.push_back(fmt::format("{} more", more));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> versions_of(const std::vector<VersionMismatch>& ms) {
  std::set<std::string> s;
  for (const auto& m : ms) s.insert(m.suite_version);
  return {s.begin(), s.end()};
}

}  // namespace

std::vector<std::string> version_notes(const TaskVersions& v) {
  std::vector<std::string> out;
  if (v.suite_versions.size() > 1)
    out.push_back(fmt::format("note: the attempts span {} suite versions ({}): their results are not all on the same tasks",
                              v.suite_versions.size(), labels(v.suite_versions)));
  if (!v.other_version.empty()) {
    std::string then = labels(versions_of(v.other_version)), now = suite_version_label(v.current_suite.value_or(""));
    std::string which = then == now ? fmt::format("suite {} both: the task changed without a new suite version", now)
                                    : fmt::format("suite {} vs {} now", then, now);
    out.push_back(fmt::format("note: {} attempt(s) were made on another version of their task ({}): {}; their results do "
                              "not hold for the current task",
                              v.other_version.size(), which, listed(v.other_version)));
  }
  if (!v.gone.empty())
    out.push_back(fmt::format("note: {} attempt(s) were made on a task the current suite ({}) does not have: {}", v.gone.size(),
                              suite_version_label(v.current_suite.value_or("")), listed(v.gone)));
  if (v.unrecorded)
    out.push_back(fmt::format("note: {} attempt(s) were stored before ekb recorded the task's version: whether their task has "
                              "changed since is not known",
                              v.unrecorded));
  return out;
}

nlohmann::json task_versions_json(const TaskVersions& v) {
  auto list = [](const std::vector<VersionMismatch>& ms) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& m : ms)
      a.push_back({{"task", m.task}, {"sample", m.sample}, {"suite_version", m.suite_version}, {"task_hash", m.task_hash},
                   {"current_task_hash", m.current_hash}});
    return a;
  };
  nlohmann::json j = {{"suite_versions", v.suite_versions},
                      {"current_suite_version", v.current_suite ? nlohmann::json(*v.current_suite) : nlohmann::json()},
                      {"mixed", v.mixed()},
                      {"other_version", list(v.other_version)},
                      {"not_in_suite", list(v.gone)},
                      {"unrecorded", v.unrecorded},
                      {"notes", version_notes(v)}};
  return j;
}

}  // namespace ekb
