// Results of different versions of a task are never mixed silently. A run that resumes makes again
// an attempt (or an agent's search) stored for another version of its task, and says so; a report on
// stored attempts says when they span several suite versions, when a task has changed since, or when
// the suite no longer has it. A task's version is its hash (suite/task_hash.h), the suite's is
// suite/VERSION.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "harness/results_store.h"
#include "suite/suite.h"

namespace ekb {

// What a resuming run finds stored for (task, sample).
enum class StoredAttempt {
  none,           // nothing: make it
  same_task,      // made on this version of the task: keep it
  unrecorded,     // stored before task hashes were recorded: kept (the report counts it)
  other_version,  // made on another version of the task: make it again
};
struct StoredVersion {
  StoredAttempt kind = StoredAttempt::none;
  std::string task_hash;  // the stored attempt's
};
StoredVersion stored_attempt(ResultsStore& store, int64_t run, const std::string& task, int sample,
                             const std::string& task_hash);

// What a resuming run stored for (task, sample) on another version of the task — its attempt, or,
// with none, an agent's steps of a search of the task — is dropped, to be made again. Returns the
// stored task hash when something was dropped.
std::optional<std::string> drop_other_version(ResultsStore& store, int64_t run, const std::string& task, int sample,
                                              const std::string& task_hash);

// The line a run prints when it makes an attempt again, naming both hashes.
std::string remeasure_note(const std::string& what, const std::string& stored_hash, const std::string& current_hash);
// The same when the task is the same but the code ekb builds for it (candidate or baseline) is not:
// an attempt stored before a change to ekb's compiler (AttemptRecord::build_hash).
std::string rebuild_note(const std::string& what, const std::string& stored_hash, const std::string& current_hash);

// An attempt whose task is not the current suite's any more.
struct VersionMismatch {
  std::string task;
  int sample = 0;
  std::string suite_version, task_hash;  // stored with the attempt
  std::string current_hash;              // the current suite's ("" when it has no such task)
};

// The versions a run's attempts were made on, against the current suite (when one could be loaded).
struct TaskVersions {
  std::vector<std::string> suite_versions;     // recorded with the attempts, sorted ("" for unversioned)
  std::optional<std::string> current_suite;    // the suite compared against; nullopt when none was loaded
  std::vector<VersionMismatch> other_version;  // a stored hash that is not the current task's
  std::vector<VersionMismatch> gone;           // a task the current suite does not have
  int unrecorded = 0;                          // attempts stored before versions were recorded
  bool mixed() const { return suite_versions.size() > 1 || !other_version.empty() || !gone.empty(); }
};
TaskVersions task_versions(const std::vector<AttemptRecord>& attempts, const Suite* current);

// "note: ..." lines for a report (none when every attempt is on the current version of its task).
std::vector<std::string> version_notes(const TaskVersions& v);
nlohmann::json task_versions_json(const TaskVersions& v);

}  // namespace ekb
