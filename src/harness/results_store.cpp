// SQLite schema and queries of the results store (results_store.h).
#include "harness/results_store.h"

#include "harness/sqlite_stmt.h"

#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <limits>
#include <stdexcept>

namespace ekb {

namespace {

// 1: the first; 2: attempts.memory_bytes (the kernel's own memory); 3: attempts.speedup_lo,
// speedup_hi, noisy (the speedup's interval) and the agent's trajectory (agent_steps); 4:
// attempts.candidate_outside_ms, baseline_outside_ms (the time per call outside the kernel, not counted);
// 5: agent_steps.cut_short (a step timed only until it was surely slower than the search's best); 6:
// agent_steps.seconds (the measurement's wall time, by which the search shares its time limit); 7:
// llm_requests (what was sent to a language model and what came back, results_store_llm.cpp); 8:
// attempts.suite_version, task_hash and agent_steps.task_hash (the version of the task a result is on);
// 9: attempts.build_hash (the code both sides ran, as ekb built it); 10: attempts.board (where an
// attempt ran when on a board: the board, whether emulated, whether its worker was sandboxed);
// 11: attempts.notes (what the harness noticed about an attempt without failing it, as JSON) and
// peaks.figures (the rest of a machine's measured figures, as JSON: peak_rates.h); 12:
// attempts.floor_ms (a GPU attempt's launch floor: an empty kernel timed as its calls are)
constexpr int kSchemaVersion = kResultsStoreSchema;

}  // namespace

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

namespace {

nlohmann::json timing_json(const TimingStats& t) { return t.ms; }

TimingStats timing_from(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  std::vector<double> ms;
  if (j.is_array())
    for (const auto& v : j) ms.push_back(v.get<double>());
  return summarize_times(ms);
}

// An error stored as JSON: an infinite or NaN error was written as null (JSON has neither); it reads
// back as infinity, a failure either way.
double error_from(const nlohmann::json& c, const char* key) {
  auto it = c.find(key);
  if (it == c.end()) return 0;
  return it->is_number() ? it->get<double>() : std::numeric_limits<double>::infinity();
}

// Where an attempt ran, when on a board (evaluate.h's RemoteRun), as the `board` column holds it.
nlohmann::json remote_run_json(const RemoteRun& r) {
  return {{"board", r.board}, {"arch", r.arch}, {"host", r.host}, {"worker_pid", r.worker_pid},
          {"emulated", r.emulated}, {"sandboxed", r.sandboxed}, {"sandbox", r.sandbox}};
}
RemoteRun remote_run_from(const nlohmann::json& j) {
  RemoteRun r;
  if (!j.is_object()) return r;
  r.board = j.value("board", "");
  r.arch = j.value("arch", "");
  r.host = j.value("host", "");
  r.worker_pid = j.value("worker_pid", 0);
  r.emulated = j.value("emulated", false);
  r.sandboxed = j.value("sandboxed", true);
  r.sandbox = j.value("sandbox", "");
  return r;
}

}  // namespace

ResultsStore::ResultsStore(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string err = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("cannot open the results store " + path + ": " + err);
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    // A file that is not a SQLite database fails here, before anything is written.
    int64_t version = 0;
    {
      Stmt s(db_, "PRAGMA user_version");
      if (s.step()) version = s.integer(0);
    }
    int64_t tables = 0;
    {
      Stmt t(db_, "SELECT count(*) FROM sqlite_master");
      if (t.step()) tables = t.integer(0);
    }
    if (version == 0 && tables > 0)
      throw std::runtime_error("it is a SQLite database, but not an ekb results store (it has other tables)");
    if (version > kSchemaVersion)
      throw std::runtime_error("it was written by a newer ekb (schema " + std::to_string(version) + ")");
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    if (version == 0) {
      exec("BEGIN");
      exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, created TEXT NOT NULL, key TEXT NOT NULL, backend TEXT NOT NULL, "
           "device TEXT NOT NULL, env TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0)");
      exec("CREATE TABLE attempts (run INTEGER NOT NULL REFERENCES runs(id), task TEXT NOT NULL, sample INTEGER NOT NULL, "
           "candidate TEXT NOT NULL, candidate_hash TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL, "
           "compile_ms REAL, candidate_ms TEXT NOT NULL, baseline_ms TEXT NOT NULL, speedup REAL, peak_rss INTEGER, "
           "comparisons TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (run, task, sample))");
      exec("PRAGMA user_version=1");
      exec("COMMIT");
      version = 1;
    }
    if (version == 1) {  // upgrade in place: every stored attempt stays
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN memory_bytes INTEGER");
      exec("PRAGMA user_version=2");
      exec("COMMIT");
      version = 2;
    }
    if (version == 2) {  // upgrade in place: attempts stored before have no interval (read back as their speedup)
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN speedup_lo REAL");
      exec("ALTER TABLE attempts ADD COLUMN speedup_hi REAL");
      exec("ALTER TABLE attempts ADD COLUMN noisy INTEGER NOT NULL DEFAULT 0");
      exec("CREATE TABLE agent_steps (run INTEGER NOT NULL REFERENCES runs(id), task TEXT NOT NULL, step INTEGER NOT NULL, "
           "layer TEXT NOT NULL, action TEXT NOT NULL, program TEXT NOT NULL, program_hash TEXT NOT NULL, "
           "predicted_ms REAL, accepted INTEGER NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL, compile_ms REAL, "
           "candidate_ms TEXT NOT NULL, baseline_ms TEXT NOT NULL, speedup REAL, speedup_lo REAL, speedup_hi REAL, "
           "noisy INTEGER NOT NULL, created TEXT NOT NULL, PRIMARY KEY (run, task, step))");
      exec("PRAGMA user_version=3");
      exec("COMMIT");
      version = 3;
    }
    if (version == 3) {  // upgrade in place: attempts stored before read back 0 (not measured)
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN candidate_outside_ms REAL");
      exec("ALTER TABLE attempts ADD COLUMN baseline_outside_ms REAL");
      exec("PRAGMA user_version=4");
      exec("COMMIT");
      version = 4;
    }
    if (version == 4) {  // upgrade in place: steps stored before were timed in full
      exec("BEGIN");
      exec("ALTER TABLE agent_steps ADD COLUMN cut_short INTEGER NOT NULL DEFAULT 0");
      exec("PRAGMA user_version=5");
      exec("COMMIT");
      version = 5;
    }
    if (version == 5) {  // upgrade in place: steps stored before read back 0 seconds
      exec("BEGIN");
      exec("ALTER TABLE agent_steps ADD COLUMN seconds REAL NOT NULL DEFAULT 0");
      exec("PRAGMA user_version=6");
      exec("COMMIT");
      version = 6;
    }
    if (version == 6) {  // a new table: nothing stored before changes
      exec("BEGIN");
      create_llm_tables();
      exec("PRAGMA user_version=7");
      exec("COMMIT");
      version = 7;
    }
    if (version == 7) {  // upgrade in place: rows stored before read back "" (the task's version not recorded)
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN suite_version TEXT");
      exec("ALTER TABLE attempts ADD COLUMN task_hash TEXT");
      exec("ALTER TABLE agent_steps ADD COLUMN task_hash TEXT");
      exec("PRAGMA user_version=8");
      exec("COMMIT");
      version = 8;
    }
    if (version == 8) {  // upgrade in place: attempts stored before read back "" (kept when resumed)
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN build_hash TEXT");
      exec("PRAGMA user_version=9");
      exec("COMMIT");
      version = 9;
    }
    if (version == 9) {  // upgrade in place: attempts stored before ran on this machine (NULL)
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN board TEXT");
      exec("PRAGMA user_version=10");
      exec("COMMIT");
      version = 10;
    }
    if (version == 10) {  // attempts stored before carry no notes (NULL); peaks measured before, no figures
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN notes TEXT");
      exec("CREATE TABLE IF NOT EXISTS peaks (machine TEXT NOT NULL, device TEXT NOT NULL, gflops REAL NOT NULL, "
           "gbps REAL NOT NULL, measured TEXT NOT NULL, PRIMARY KEY (machine, device))");
      exec("ALTER TABLE peaks ADD COLUMN figures TEXT NOT NULL DEFAULT '{}'");
      exec("PRAGMA user_version=11");
      exec("COMMIT");
      version = 11;
    }
    if (version == 11) {  // attempts stored before have no launch floor (NULL: read back as 0, not measured)
      exec("BEGIN");
      exec("ALTER TABLE attempts ADD COLUMN floor_ms REAL");
      exec("PRAGMA user_version=12");
      exec("COMMIT");
    }
  } catch (const std::exception& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("results store " + path + ": " + e.what() + "; the file was left as it is");
  }
}

ResultsStore::~ResultsStore() {
  if (db_) sqlite3_close(db_);
}

void ResultsStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error(msg);
  }
}

RunInfo ResultsStore::open_run(const std::string& key, const std::string& backend, const std::string& device,
                               const nlohmann::json& env) {
  {
    Stmt s(db_, "SELECT id FROM runs WHERE key = ? AND finished = 0 ORDER BY id DESC LIMIT 1");
    s.bind(1, key);
    if (s.step()) return *run(s.integer(0));
  }
  Stmt ins(db_, "INSERT INTO runs (created, key, backend, device, env) VALUES (?, ?, ?, ?, ?)");
  ins.bind(1, now_utc()).bind(2, key).bind(3, backend).bind(4, device).bind(5, env.dump());
  ins.step();
  return *run(sqlite3_last_insert_rowid(db_));
}

void ResultsStore::finish_run(int64_t id) {
  Stmt s(db_, "UPDATE runs SET finished = 1 WHERE id = ?");
  s.bind(1, id);
  s.step();
}

bool ResultsStore::has_attempt(int64_t run, const std::string& task, int sample) {
  Stmt s(db_, "SELECT 1 FROM attempts WHERE run = ? AND task = ? AND sample = ?");
  s.bind(1, run).bind(2, task).bind(3, sample);
  return s.step();
}

std::optional<std::string> ResultsStore::attempt_task_hash(int64_t run, const std::string& task, int sample) {
  Stmt s(db_, "SELECT task_hash FROM attempts WHERE run = ? AND task = ? AND sample = ?");
  s.bind(1, run).bind(2, task).bind(3, sample);
  if (!s.step()) return std::nullopt;
  return s.is_null(0) ? std::string() : s.text(0);
}

std::optional<std::string> ResultsStore::attempt_build_hash(int64_t run, const std::string& task, int sample) {
  Stmt s(db_, "SELECT build_hash FROM attempts WHERE run = ? AND task = ? AND sample = ?");
  s.bind(1, run).bind(2, task).bind(3, sample);
  if (!s.step()) return std::nullopt;
  return s.is_null(0) ? std::string() : s.text(0);
}

std::optional<Outcome> ResultsStore::attempt_outcome(int64_t run, const std::string& task, int sample) {
  Stmt s(db_, "SELECT status FROM attempts WHERE run = ? AND task = ? AND sample = ?");
  s.bind(1, run).bind(2, task).bind(3, sample);
  if (!s.step()) return std::nullopt;
  return outcome_named(s.text(0), Outcome::internal);
}

void ResultsStore::forget_attempt(int64_t run, const std::string& task, int sample) {
  Stmt s(db_, "DELETE FROM attempts WHERE run = ? AND task = ? AND sample = ?");
  s.bind(1, run).bind(2, task).bind(3, sample);
  s.step();
}

void ResultsStore::add_attempt(int64_t run, const AttemptRecord& a) {
  nlohmann::json cmp = nlohmann::json::array();
  for (const auto& c : a.eval.comparisons)
    cmp.push_back({{"name", c.name}, {"max_abs", c.max_abs_error}, {"max_rel", c.max_rel_error}, {"tolerance", c.tolerance},
                   {"pass", c.pass}});
  Stmt s(db_,
         "INSERT OR IGNORE INTO attempts (run, task, sample, candidate, candidate_hash, status, message, compile_ms, "
         "candidate_ms, baseline_ms, speedup, peak_rss, comparisons, created, memory_bytes, speedup_lo, speedup_hi, noisy, "
         "candidate_outside_ms, baseline_outside_ms, suite_version, task_hash, build_hash, board, notes, floor_ms) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, run).bind(2, a.task).bind(3, a.sample).bind(4, a.candidate_path).bind(5, a.candidate_hash);
  s.bind(6, std::string(outcome_name(a.eval.outcome))).bind(7, a.eval.message).bind(8, a.eval.compile_ms);
  s.bind(9, timing_json(a.eval.candidate).dump()).bind(10, timing_json(a.eval.baseline).dump()).bind(11, a.eval.speedup);
  s.bind(12, static_cast<int64_t>(a.eval.candidate_peak_rss)).bind(13, cmp.dump()).bind(14, now_utc());
  s.bind(15, static_cast<int64_t>(a.eval.candidate_memory));
  s.bind(16, a.eval.speedup_lo).bind(17, a.eval.speedup_hi).bind(18, a.eval.noisy ? 1 : 0);
  s.bind(19, a.eval.candidate_outside_ms).bind(20, a.eval.baseline_outside_ms);
  s.bind(21, a.suite_version).bind(22, a.task_hash).bind(23, a.build_hash);
  if (a.eval.where.remote()) s.bind(24, remote_run_json(a.eval.where).dump());
  else s.bind_null(24);
  s.bind(25, notes_json(a.eval.notes).dump());
  if (a.eval.floor_ms > 0) s.bind(26, a.eval.floor_ms);
  else s.bind_null(26);
  s.step();  // a single statement is its own transaction
}

std::optional<StoredPeaks> ResultsStore::peaks(const std::string& machine, const std::string& device) {
  Stmt s(db_, "SELECT gflops, gbps, measured, figures FROM peaks WHERE machine = ? AND device = ?");
  s.bind(1, machine).bind(2, device);
  if (!s.step()) return std::nullopt;
  return StoredPeaks{s.real(0), s.real(1), s.text(2), s.text(3)};
}

void ResultsStore::set_peaks(const std::string& machine, const std::string& device, const StoredPeaks& p) {
  Stmt s(db_, "INSERT OR REPLACE INTO peaks (machine, device, gflops, gbps, measured, figures) VALUES (?, ?, ?, ?, ?, ?)");
  s.bind(1, machine).bind(2, device).bind(3, p.gflops).bind(4, p.gbps).bind(5, p.measured.empty() ? now_utc() : p.measured);
  s.bind(6, p.figures.empty() ? std::string("{}") : p.figures);
  s.step();
}

std::optional<RunInfo> ResultsStore::run(int64_t id) {
  Stmt s(db_, "SELECT id, created, key, backend, device, env, finished FROM runs WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  RunInfo r;
  r.id = s.integer(0);
  r.created = s.text(1);
  r.key = s.text(2);
  r.backend = s.text(3);
  r.device = s.text(4);
  r.env = nlohmann::json::parse(s.text(5), nullptr, false);
  r.finished = s.integer(6) != 0;
  return r;
}

std::vector<RunInfo> ResultsStore::runs() {
  std::vector<RunInfo> out;
  std::vector<int64_t> ids;
  {
    Stmt s(db_, "SELECT id FROM runs ORDER BY id");
    while (s.step()) ids.push_back(s.integer(0));
  }
  for (int64_t id : ids) out.push_back(*run(id));
  return out;
}

std::vector<AttemptRecord> ResultsStore::attempts(int64_t run) {
  Stmt s(db_,
         "SELECT task, sample, candidate, candidate_hash, status, message, compile_ms, candidate_ms, baseline_ms, speedup, "
         "peak_rss, comparisons, memory_bytes, speedup_lo, speedup_hi, noisy, candidate_outside_ms, baseline_outside_ms, suite_version, task_hash, build_hash, "
         "board, notes, floor_ms FROM attempts WHERE run = ? ORDER BY task, sample");
  s.bind(1, run);
  std::vector<AttemptRecord> out;
  while (s.step()) {
    AttemptRecord a;
    a.task = s.text(0);
    a.sample = static_cast<int>(s.integer(1));
    a.candidate_path = s.text(2);
    a.candidate_hash = s.text(3);
    a.eval.outcome = outcome_named(s.text(4), Outcome::internal);
    a.eval.message = s.text(5);
    a.eval.compile_ms = s.real(6);
    a.eval.candidate = timing_from(s.text(7));
    a.eval.baseline = timing_from(s.text(8));
    a.eval.speedup = s.real(9);
    a.eval.candidate_peak_rss = static_cast<uint64_t>(s.integer(10));
    a.eval.candidate_memory = static_cast<uint64_t>(s.integer(12));
    // (An attempt stored before intervals were measured: its interval is its speedup.)
    a.eval.speedup_lo = s.is_null(13) ? a.eval.speedup : s.real(13);
    a.eval.speedup_hi = s.is_null(14) ? a.eval.speedup : s.real(14);
    a.eval.noisy = s.integer(15) != 0;
    a.eval.candidate_outside_ms = s.is_null(16) ? 0 : s.real(16);
    a.eval.baseline_outside_ms = s.is_null(17) ? 0 : s.real(17);
    a.suite_version = s.is_null(18) ? "" : s.text(18);
    a.task_hash = s.is_null(19) ? "" : s.text(19);
    a.build_hash = s.is_null(20) ? "" : s.text(20);
    if (!s.is_null(21)) a.eval.where = remote_run_from(nlohmann::json::parse(s.text(21), nullptr, false));
    // (An attempt stored before notes were kept, schema 10 and older, has none: NULL.)
    if (!s.is_null(22)) a.eval.notes = notes_from_json(nlohmann::json::parse(s.text(22), nullptr, false));
    a.eval.floor_ms = s.is_null(23) ? 0 : s.real(23);
    auto cmp = nlohmann::json::parse(s.text(11), nullptr, false);
    if (cmp.is_array())
      for (const auto& c : cmp) {
        OutputComparison oc;
        oc.name = c.value("name", "");
        oc.max_abs_error = error_from(c, "max_abs");
        oc.max_rel_error = error_from(c, "max_rel");
        oc.tolerance = c.value("tolerance", 0.0);
        oc.pass = c.value("pass", false);
        a.eval.comparisons.push_back(oc);
      }
    out.push_back(std::move(a));
  }
  return out;
}

std::optional<std::pair<int64_t, TimingStats>> ResultsStore::newest_baseline(const std::string& task, const std::string& device) {
  Stmt s(db_, "SELECT a.run, a.baseline_ms FROM attempts a JOIN runs r ON r.id = a.run WHERE a.task = ? AND r.device = ? "
              "ORDER BY a.run DESC, a.sample");
  s.bind(1, task).bind(2, device);
  while (s.step()) {
    TimingStats t = timing_from(s.text(1));
    if (t.median > 0) return std::make_pair(s.integer(0), t);
  }
  return std::nullopt;
}

void ResultsStore::put_step(int64_t run, const StepRecord& st) {
  Stmt s(db_,
         "INSERT OR REPLACE INTO agent_steps (run, task, step, layer, action, program, program_hash, predicted_ms, accepted, status, "
         "message, compile_ms, candidate_ms, baseline_ms, speedup, speedup_lo, speedup_hi, noisy, created, cut_short, seconds, "
         "task_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const Evaluation& e = st.eval;
  s.bind(1, run).bind(2, st.task).bind(3, st.step).bind(4, st.layer).bind(5, st.action).bind(6, st.program);
  s.bind(7, st.program_hash).bind(8, st.predicted_ms).bind(9, st.accepted ? 1 : 0).bind(10, std::string(outcome_name(e.outcome)));
  s.bind(11, e.message).bind(12, e.compile_ms).bind(13, timing_json(e.candidate).dump()).bind(14, timing_json(e.baseline).dump());
  s.bind(15, e.speedup).bind(16, e.speedup_lo).bind(17, e.speedup_hi).bind(18, e.noisy ? 1 : 0).bind(19, now_utc());
  s.bind(20, e.cut_short ? 1 : 0).bind(21, e.seconds).bind(22, st.task_hash);
  s.step();
}

std::vector<StepRecord> ResultsStore::steps(int64_t run, const std::string& task) {
  Stmt s(db_,
         "SELECT step, layer, action, program, program_hash, predicted_ms, accepted, status, message, compile_ms, candidate_ms, "
         "baseline_ms, speedup, speedup_lo, speedup_hi, noisy, cut_short, seconds, task_hash FROM agent_steps WHERE run = ? AND task = ? "
         "ORDER BY step");
  s.bind(1, run).bind(2, task);
  std::vector<StepRecord> out;
  while (s.step()) {
    StepRecord r;
    r.task = task;
    r.step = static_cast<int>(s.integer(0));
    r.layer = s.text(1);
    r.action = s.text(2);
    r.program = s.text(3);
    r.program_hash = s.text(4);
    r.predicted_ms = s.real(5);
    r.accepted = s.integer(6) != 0;
    r.eval.outcome = outcome_named(s.text(7), Outcome::internal);
    r.eval.message = s.text(8);
    r.eval.compile_ms = s.real(9);
    r.eval.candidate = timing_from(s.text(10));
    r.eval.baseline = timing_from(s.text(11));
    r.eval.speedup = s.real(12);
    r.eval.speedup_lo = s.real(13);
    r.eval.speedup_hi = s.real(14);
    r.eval.noisy = s.integer(15) != 0;
    r.eval.cut_short = s.integer(16) != 0;
    r.eval.seconds = s.real(17);
    r.task_hash = s.is_null(18) ? "" : s.text(18);
    out.push_back(std::move(r));
  }
  return out;
}

void ResultsStore::forget_steps(int64_t run, const std::string& task, int from) {
  Stmt s(db_, "DELETE FROM agent_steps WHERE run = ? AND task = ? AND step >= ?");
  s.bind(1, run).bind(2, task).bind(3, from);
  s.step();
}

std::vector<std::string> ResultsStore::step_tasks(int64_t run) {
  Stmt s(db_, "SELECT DISTINCT task FROM agent_steps WHERE run = ? ORDER BY task");
  s.bind(1, run);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

}  // namespace ekb
