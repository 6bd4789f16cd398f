// Direct generation over tasks and samples (generate.h).
#include "agent/generate.h"
#include "util/text_hash.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "agent/model_turns.h"
#include "agent/prompts/reply_code.h"
#include "util/write_file.h"

namespace ekb::agent {

namespace {

namespace fs = std::filesystem;


// The outcome a stored request stands for when it gave no file.
Outcome failed_outcome(const LlmRequestRecord& r) {
  if (!r.failure.empty()) return Outcome::no_reply;
  return r.code_status == reply_code_status_name(ReplyCodeStatus::wrong_language) ? Outcome::wrong_language : Outcome::no_code;
}

// What a request's failure message says, for the manifest and the report.
std::string failure_message(const LlmRequestRecord& r) {
  if (!r.failure.empty()) return fmt::format("{}: {}", r.failure, r.error);
  return r.error;
}

// Holds an exclusive lock (flock) on a hidden file of the directory while it lives: the shards of a
// sharded generation (`--shard`, on several machines of a cluster) share the output directory and
// its manifest. (scan_submissions skips hidden files.)
class DirectoryLock {
 public:
  explicit DirectoryLock(const fs::path& dir) {
    fd_ = ::open((dir / ".ekb_generation.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0)
      throw std::runtime_error(fmt::format("cannot lock {} for its generation manifest: {}", dir.string(), std::strerror(errno)));
  }
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);  // (closing releases the lock)
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

// The samples that gave no file, as the manifest `ekb eval` reads (harness/submissions.h). Several
// runs may write into one directory (the shards of one generation, from their own stores, whose run
// ids are alike): the entries of other runs stay, unless this run gives the same sample (its file,
// or its own failure); every entry of this run is among its requests.
void write_manifest(const fs::path& dir, const std::vector<LlmRequestRecord>& requests, int64_t run) {
  DirectoryLock lock(dir);
  nlohmann::json failed = nlohmann::json::array();
  std::set<std::pair<std::string, int>> ours;
  for (const auto& r : requests) ours.insert({r.task, r.sample});
  std::ifstream in(dir / kGenerationManifest);
  nlohmann::json before = in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  if (before.is_object() && before.contains("failed") && before["failed"].is_array())
    for (const auto& e : before["failed"])
      if (e.is_object() && e.contains("task") && e["task"].is_string() && e.contains("sample") && e["sample"].is_number_integer() &&
          !ours.count({e["task"].get<std::string>(), e["sample"].get<int>()}))
        failed.push_back(e);
  for (const auto& r : requests)
    if (r.file.empty())
      failed.push_back({{"task", r.task}, {"sample", r.sample}, {"outcome", outcome_name(failed_outcome(r))},
                        {"message", failure_message(r)}, {"run", run}});
  nlohmann::json m{{"note", "samples of `ekb generate` that gave no code file; `ekb eval` counts each as a failed attempt"},
                   {"failed", failed}};
  write_atomically(dir / kGenerationManifest, m.dump(2) + "\n");
}

}  // namespace

std::string sample_file_name(const std::string& task, int sample, SourceKind kind) {
  return fmt::format("{}.s{}.{}", task, sample, source_kind_name(kind));
}

GenerateSummary run_generation(const std::vector<const Task*>& tasks, const DeviceProfile& dev, const GenerateOptions& o,
                               const PromptTemplates& templates, const llm::EndpointConfig& endpoint, const llm::PriceTable& prices,
                               ResultsStore& store, const nlohmann::json& key, const std::function<void(const GeneratedSample&)>& on_sample,
                               const std::function<void(llm::ChatClient&)>& configure_client) {
  if (o.out_dir.empty()) throw std::runtime_error("generation needs an output directory (--out DIR)");
  if (o.samples < 1) throw std::runtime_error("--samples must be at least 1");
  fs::create_directories(o.out_dir);
  CodeLanguage lang = code_language(o.mode, dev.backend);
  nlohmann::json env{{"mode", code_mode_name(o.mode)},
                     {"llm", {{"endpoint", endpoint.describe()}, {"model", endpoint.model}, {"prompt_version", templates.version()},
                              {"temperature", endpoint.temperature}, {"max_tokens", endpoint.max_tokens}}},
                     {"budget", {{"requests", o.budget.requests}, {"tokens", o.budget.tokens}, {"cost", o.budget.cost}}},
                     {"out", fs::absolute(o.out_dir).lexically_normal().string()}};
  GenerateSummary sum;
  sum.run = store.open_run(key.dump(), backend_name(dev.backend), dev.name, env);
  const int64_t run = sum.run.id;

  // What is asked this time: every (task, sample) without a stored reply (or whose request failed, with retry_failed).
  struct Item {
    const Task* task;
    int sample;
    const Prompt* prompt;  // the task's, shared by its samples
  };
  std::vector<Prompt> prompts;
  prompts.reserve(tasks.size());
  std::vector<Item> todo;
  std::mutex store_mu;  // the store and the callback, from the request threads
  for (const Task* t : tasks) {
    std::optional<StoredBaseline> baseline = stored_baseline(store, t->name, dev.name);
    const Prompt& prompt = prompts.emplace_back(generation_prompt(templates, PromptContext{t, o.mode, dev, baseline}));
    for (int s = 0; s < o.samples; ++s) {
      std::optional<LlmRequestRecord> r = store.llm_request(run, t->name, s, 0);
      if (r && (r->failure.empty() || !o.retry_failed)) {
        // Answered before: its file is written again if it is missing (killed between storing and writing).
        if (!r->file.empty()) {
          fs::path path = fs::path(o.out_dir) / r->file;
          ReplyCode code = extract_code(r->reply, lang);
          if (!fs::exists(path) && code.status == ReplyCodeStatus::ok) write_atomically(path, code.code);
        }
        ++sum.stored;
        if (on_sample) on_sample(GeneratedSample{*r, true});
        continue;
      }
      todo.push_back({t, s, &prompt});
    }
  }

  LlmSpend before = store.llm_spend(run);
  // (A request asked again with retry_failed replaces its failed row, which had no reply and no tokens.)
  llm::Budget budget(o.budget, llm::Usage{before.prompt_tokens, before.completion_tokens}, before.requests, before.cost);
  llm::ChatClient client(endpoint, prices, &budget);
  if (configure_client) configure_client(client);
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::string stop_reason;
  auto work = [&] {
    while (!stop) {
      size_t i = next++;
      if (i >= todo.size()) return;
      const Item& it = todo[i];
      llm::ChatReply reply = client.complete(it.prompt->messages);
      if (reply.failure == llm::CallFailure::budget) {
        std::lock_guard<std::mutex> lock(store_mu);
        if (!stop.exchange(true)) stop_reason = reply.error;
        return;
      }
      ReplyCode c;
      LlmRequestRecord r = request_record(it.task->name, it.sample, 0, it.prompt->version, endpoint, it.prompt->messages, reply, lang, &c);
      std::string code;
      if (reply.ok() && c.status == ReplyCodeStatus::ok) {
        code = c.code;
        r.file = sample_file_name(r.task, r.sample, lang.kind);
        r.file_hash = text_hash_hex(code);
      }
      std::lock_guard<std::mutex> lock(store_mu);
      store.put_llm_request(run, r);  // stored first: a kill before the file is written loses nothing
      if (!r.file.empty()) write_atomically(fs::path(o.out_dir) / r.file, code);
      ++sum.asked;
      if (on_sample) on_sample(GeneratedSample{r, false});
    }
  };
  int threads = std::max(1, std::min<int>(endpoint.concurrency, static_cast<int>(todo.size())));
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();

  std::vector<LlmRequestRecord> all = store.llm_requests(run);
  write_manifest(o.out_dir, all, run);
  for (const auto& r : all) {
    if (r.file.empty()) ++sum.failures[outcome_name(failed_outcome(r))];
    else ++sum.with_code;
  }
  sum.spent = store.llm_spend(run);
  if (stop) {
    sum.budget_stopped = true;
    sum.budget_reason = stop_reason;
  } else {
    store.finish_run(run);
  }
  sum.run = *store.run(run);
  return sum;
}

}  // namespace ekb::agent
