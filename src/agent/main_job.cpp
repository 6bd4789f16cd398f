// The main job (main_job.h).
#include "agent/main_job.h"
#include "util/text_hash.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "eval/run.h"
#include "harness/submissions.h"

namespace ekb::agent {

std::vector<const Task*> one_task_per_category(const Suite& suite) {
  std::vector<const Task*> out;
  std::set<std::string> seen;
  for (const auto& t : suite.tasks())
    if (seen.insert(t.category).second) out.push_back(&t);
  return out;
}

MainJobResult run_main_job(const Suite& suite, const std::vector<const Task*>& tasks, const DeviceProfile& dev,
                           const MainJobOptions& o, ResultsStore& store, const nlohmann::json& key,
                           const std::function<void(const TaskOutcome&)>& on_task) {
  MainJobResult r;
  nlohmann::json agent_key = key;
  agent_key["phase"] = "search";
  r.agent_run = run_agent(tasks, dev, o.agent, store, agent_key, [&](const TaskOutcome& t) {
    r.searched.push_back(t);
    if (on_task) on_task(t);
  });
  // Re-scored as any submission directory is: `ekb eval DIR`'s protocol, its own run.
  SubmissionSet subs = scan_submissions(o.agent.out_dir, suite, "");
  std::set<std::string> wanted;
  for (const Task* t : tasks) wanted.insert(t->name);
  std::erase_if(subs.items, [&](const Submission& s) { return !wanted.count(s.task); });
  nlohmann::json eval_key = key;
  eval_key["phase"] = "re-score";
  for (const auto& s : subs.items) eval_key["files"].push_back({s.path, text_hash_hex(s.text)});
  r.eval_run = evaluate_run(suite, subs, eval_key, dev, store, o.agent.timing);
  r.rescored = store.attempts(r.eval_run.id);
  return r;
}

}  // namespace ekb::agent
