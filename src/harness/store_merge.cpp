// Merging results stores (store_merge.h): which runs are one, which rows are the same, what conflicts.
#include "harness/store_merge.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "harness/store_rows.h"
#include "suite/shard.h"

namespace ekb {

namespace fs = std::filesystem;

namespace {

// Where a run's results came from: a run made by one command on one machine (a shard of a run, or a
// run without shards). A merged run lists its sources in its environment ("merged_from").
struct Source {
  std::string shard;  // "I/N", "" without shards
  int index = 0;      // I (0 without shards)
  std::string created, host;
  bool finished = false;
  nlohmann::json env;
  std::string origin;  // "STORE run ID", for messages
  std::string identity() const { return shard + "|" + created + "|" + host; }
  std::string describe() const {
    return fmt::format("{}{} (started {} on {})", shard.empty() ? "" : "shard " + shard + " from ", origin, created,
                       host.empty() ? "an unnamed host" : host);
  }
};

// A run of an input store, with what identifies it.
struct InputRun {
  size_t input = 0;
  int64_t id = 0;
  std::string logical;  // its key without "shard"
  std::string backend, device, created;
  int count = 0;  // N, 0 without shards
  std::vector<Source> sources;
  std::string origin;
};

// A run of OUT: input runs that are one.
struct Group {
  std::string logical, backend, device;
  int count = 0;
  std::vector<Source> sources;
  std::vector<const InputRun*> members;
  std::optional<int64_t> out_id;  // the run's id in OUT when OUT held it before
  bool has_identity(const std::string& id) const {
    return std::any_of(sources.begin(), sources.end(), [&](const Source& s) { return s.identity() == id; });
  }
  const Source* with_index(int i) const {
    for (const auto& s : sources)
      if (s.index == i) return &s;
    return nullptr;
  }
};

std::string text_of(const StoredValue& v) { return v.type == StoredValue::Type::text ? v.bytes : v.brief(); }

// The values of a row by column name.
struct RowView {
  const StoredTable& t;
  const std::vector<StoredValue>& row;
  const StoredValue& operator[](const std::string& c) const { return row[static_cast<size_t>(t.column(c))]; }
};

Source source_from_json(const nlohmann::json& j, const std::string& origin) {
  Source s;
  s.shard = j.value("shard", "");
  if (!s.shard.empty()) s.index = parse_shard_text(s.shard).index;
  s.created = j.value("created", "");
  s.host = j.value("host", "");
  s.finished = j.value("finished", false);
  s.env = j.contains("env") ? j["env"] : nlohmann::json::object();
  s.origin = origin;
  return s;
}

nlohmann::json source_json(const Source& s) {
  return {{"shard", s.shard}, {"created", s.created}, {"host", s.host}, {"finished", s.finished}, {"env", s.env}};
}

// Reads an input run: its key, its shard, its sources (itself, or those a merge recorded).
InputRun input_run(size_t input, const std::string& path, const RowView& r, std::vector<std::string>& problems) {
  InputRun run;
  run.input = input;
  run.id = r["id"].integer;
  run.backend = text_of(r["backend"]);
  run.device = text_of(r["device"]);
  run.created = text_of(r["created"]);
  run.origin = fmt::format("{} run {}", path, run.id);
  std::string key_text = text_of(r["key"]);
  nlohmann::json key = nlohmann::json::parse(key_text, nullptr, false);
  nlohmann::json env = nlohmann::json::parse(text_of(r["env"]), nullptr, false);
  if (!env.is_object()) env = nlohmann::json::object();
  Source self;
  self.created = run.created;
  self.host = env.value("host", "");
  self.finished = r["finished"].integer != 0;
  self.env = env;
  self.origin = run.origin;
  run.logical = key_text;
  if (key.is_object() && key.contains("shard")) {
    try {
      Shard sh = parse_shard_text(key["shard"].is_string() ? key["shard"].get<std::string>() : key["shard"].dump());
      self.shard = sh.text();
      self.index = sh.index;
      run.count = sh.count;
      key.erase("shard");
      run.logical = key.dump();
    } catch (const std::invalid_argument& e) {
      problems.push_back(fmt::format("{}: its key's shard is not I/N ({})", run.origin, e.what()));
    }
  }
  if (env.contains("merged_from") && env["merged_from"].is_array() && !env["merged_from"].empty()) {
    for (const auto& j : env["merged_from"]) {
      try {
        Source s = source_from_json(j, run.origin);
        Shard sh = parse_shard_text(s.shard);
        if (run.count && run.count != sh.count) throw std::invalid_argument("shards of different counts");
        run.count = sh.count;
        run.sources.push_back(std::move(s));
      } catch (const std::exception& e) {
        problems.push_back(fmt::format("{}: its environment's merged_from is not a list of shards ({})", run.origin, e.what()));
        break;
      }
    }
  } else {
    run.sources.push_back(self);
  }
  return run;
}

// What two rows of the same key differ in, but for the columns `ignored`.
std::vector<std::string> differences(const StoredTable& a, const std::vector<StoredValue>& ra, const StoredTable& b,
                                     const std::vector<StoredValue>& rb, const std::set<std::string>& ignored) {
  std::vector<std::string> out;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (ignored.count(a.columns[i])) continue;
    const StoredValue& vb = rb[static_cast<size_t>(b.column(a.columns[i]))];
    if (!(ra[i] == vb)) out.push_back(fmt::format("{}: {} vs {}", a.columns[i], ra[i].brief(), vb.brief()));
  }
  return out;
}

// What the rows of a table are keyed by within a run.
struct TableRule {
  const char* table;
  std::vector<std::string> slot;
};
const std::vector<TableRule>& row_rules() {
  static const std::vector<TableRule> r{{"attempts", {"task", "sample"}}, {"agent_steps", {"task", "step"}},
                                        {"llm_requests", {"task", "sample", "turn"}}};
  return r;
}

std::string slot_text(const TableRule& rule, const RowView& r) {
  std::string out;
  for (const auto& c : rule.slot) out += fmt::format("{}{} {}", out.empty() ? "" : " ", c, text_of(r[c]));
  return out;
}

// The environment fields whose difference makes shards not one measurement: the machine's model and
// what ekb built for it (not what varies on one machine, as a GPU's free memory).
const std::vector<nlohmann::json::json_pointer>& machine_fields() {
  static const std::vector<nlohmann::json::json_pointer> f{
      nlohmann::json::json_pointer("/cpu"),      nlohmann::json::json_pointer("/target"),   nlohmann::json::json_pointer("/isa"),
      nlohmann::json::json_pointer("/compiler"), nlohmann::json::json_pointer("/gpu/name"), nlohmann::json::json_pointer("/gpu/arch"),
      nlohmann::json::json_pointer("/gpu/version"), nlohmann::json::json_pointer("/ekb_commit")};
  return f;
}

// What `values` have in common: a value all share; of objects, the fields all share (recursively,
// so that a GPU's name stays when its free memory differs); nothing when they differ.
std::optional<nlohmann::json> common_value(const std::vector<const nlohmann::json*>& values) {
  if (values.empty()) return std::nullopt;
  const nlohmann::json& first = *values[0];
  if (std::all_of(values.begin(), values.end(), [&](const nlohmann::json* v) { return *v == first; })) return first;
  if (!std::all_of(values.begin(), values.end(), [](const nlohmann::json* v) { return v->is_object(); })) return std::nullopt;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [field, value] : first.items()) {
    std::vector<const nlohmann::json*> children;
    for (const auto* v : values) {
      auto it = v->find(field);
      if (it == v->end()) break;
      children.push_back(&*it);
    }
    if (children.size() < values.size()) continue;
    if (auto c = common_value(children)) out[field] = *c;
  }
  return out;
}

std::string run_label(const Group& g) {
  nlohmann::json key = nlohmann::json::parse(g.logical, nullptr, false);
  std::string command = key.is_object() ? key.value("command", "?") : "?";
  return fmt::format("`{}` on {} ({})", command, g.device, g.backend);
}

void sync_directory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void remove_store_files(const fs::path& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path.string() + suffix, ec);
}

// Removes the temporary store (and its journal files) unless it was renamed into place.
struct TempStore {
  fs::path path;
  bool keep = false;
  ~TempStore() {
    if (!keep) remove_store_files(path);
  }
};

}  // namespace

std::string MergeConflict::describe() const {
  std::string out = fmt::format("{} of run {}, {}: {} and {} differ", table, run, key, first_store, second_store);
  for (const auto& d : differences) out += "\n    " + d;
  return out;
}

MergeReport merge_stores(const std::vector<std::string>& inputs, const std::string& out, const MergeOptions& options) {
  MergeReport rep;
  rep.out = out;
  std::error_code ec;
  fs::path out_path(out);
  bool out_exists = fs::exists(out_path, ec);

  // The stores, OUT first when it exists; each file once.
  std::vector<std::string> paths;
  std::set<std::string> seen;
  auto canonical = [](const std::string& p) {
    std::error_code e;
    fs::path c = fs::weakly_canonical(p, e);
    return e ? p : c.string();
  };
  if (out_exists) {
    paths.push_back(out);
    seen.insert(canonical(out));
  }
  for (const auto& p : inputs) {
    if (!seen.insert(canonical(p)).second) {
      rep.notes.push_back(fmt::format("{}: given more than once (or it is OUT), read once", p));
      continue;
    }
    if (!fs::exists(p, ec)) {
      if (options.missing_ok) {
        rep.notes.push_back(fmt::format("{}: missing, skipped", p));
        continue;
      }
      rep.problems.push_back(fmt::format("{}: no such file", p));
      continue;
    }
    paths.push_back(p);
  }
  std::vector<StoreSnapshot> stores;
  for (const auto& p : paths) {
    try {
      stores.push_back(read_store(p));
      rep.inputs.push_back(p);
    } catch (const std::exception& e) {
      rep.problems.push_back(e.what());
    }
  }
  if (!rep.problems.empty()) return rep;
  if (stores.empty()) {
    rep.problems.push_back("no store to merge");
    return rep;
  }

  // Runs: which input runs are one.
  std::vector<InputRun> runs;
  for (size_t i = 0; i < stores.size(); ++i) {
    const StoredTable& t = stores[i].tables.at("runs");
    for (const auto& row : t.rows) runs.push_back(input_run(i, stores[i].path, RowView{t, row}, rep.problems));
  }
  std::vector<Group> groups;
  for (const auto& r : runs) {
    Group* target = nullptr;
    for (auto& g : groups) {
      if (g.logical != r.logical || g.backend != r.backend || g.device != r.device || g.count != r.count) continue;
      if (std::any_of(r.sources.begin(), r.sources.end(), [&](const Source& s) { return g.has_identity(s.identity()); })) {
        target = &g;
        break;
      }
    }
    if (!target && r.count > 0)
      for (auto& g : groups) {
        if (g.logical != r.logical || g.backend != r.backend || g.device != r.device || g.count != r.count) continue;
        if (std::none_of(r.sources.begin(), r.sources.end(), [&](const Source& s) { return g.with_index(s.index); })) {
          target = &g;
          break;
        }
      }
    if (!target) {
      groups.push_back(Group{r.logical, r.backend, r.device, r.count, {}, {}, std::nullopt});
      target = &groups.back();
    }
    for (const auto& s : r.sources) {
      auto same = std::find_if(target->sources.begin(), target->sources.end(), [&](const Source& t) { return t.identity() == s.identity(); });
      if (same != target->sources.end()) {
        same->finished = same->finished || s.finished;  // (a shard resumed and finished since)
        continue;
      }
      if (const Source* other = s.index ? target->with_index(s.index) : nullptr) {
        rep.problems.push_back(fmt::format("run {}: shard {} comes from two different runs, {} and {}: merge them into different stores",
                                           run_label(*target), s.shard, other->describe(), s.describe()));
        continue;
      }
      target->sources.push_back(s);
    }
    target->members.push_back(&r);
    if (r.input == 0 && out_exists && (!target->out_id || r.id < *target->out_id)) target->out_id = r.id;
  }
  for (auto& g : groups) {
    std::sort(g.sources.begin(), g.sources.end(),
              [](const Source& a, const Source& b) { return std::tie(a.index, a.created, a.host) < std::tie(b.index, b.created, b.host); });
    if (g.sources.size() < 2) continue;
    for (const auto& field : machine_fields()) {
      std::map<std::string, std::vector<std::string>> values;  // value -> sources
      for (const auto& s : g.sources)
        values[s.env.contains(field) ? s.env[field].dump() : "(not recorded)"].push_back(s.shard.empty() ? s.origin : s.shard);
      std::string name = field.to_string().substr(1);
      std::replace(name.begin(), name.end(), '/', '.');
      if (values.size() < 2) continue;
      std::string list;
      for (const auto& [v, who] : values) list += fmt::format("{}{} ({})", list.empty() ? "" : " vs ", v, fmt::join(who, ", "));
      rep.problems.push_back(fmt::format("run {}: its shards differ in `{}`: {}; they are not one measurement (run the shards on "
                                         "alike machines with one ekb build, e.g. `--sbatch-arg=--constraint=...`)",
                                         run_label(g), name, list));
    }
  }

  // Ids in OUT: OUT's runs keep theirs; the others follow.
  int64_t next_id = 1;
  for (const auto& g : groups)
    if (g.out_id) next_id = std::max(next_id, *g.out_id + 1);
  std::vector<int64_t> ids;
  for (const auto& g : groups) ids.push_back(g.out_id ? *g.out_id : next_id++);

  // Rows: within each merged run, by their keys.
  std::map<std::string, StoredTable> merged;
  for (const auto& name : merged_tables()) merged[name].columns = stores[0].tables.at(name).columns;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    MergedRun mr;
    mr.id = ids[gi];
    mr.backend = g.backend;
    mr.device = g.device;
    mr.key = g.logical;
    nlohmann::json key = nlohmann::json::parse(g.logical, nullptr, false);
    mr.command = key.is_object() ? key.value("command", "") : "";
    mr.shard_count = g.count;
    for (int i = 1; i <= g.count; ++i) (g.with_index(i) ? mr.shards : mr.missing).push_back(i);
    if (g.count == 0) mr.finished = !g.sources.empty() && g.sources[0].finished;
    else mr.finished = mr.missing.empty() && std::all_of(g.sources.begin(), g.sources.end(), [](const Source& s) { return s.finished; });
    for (const auto* m : g.members) mr.from.push_back(m->origin);

    // The run's row.
    std::string created = g.members.front()->created;
    for (const auto* m : g.members) created = std::min(created, m->created);
    nlohmann::json env;
    if (g.count == 0 && g.sources.size() == 1) {
      env = g.sources[0].env;  // a run without shards, as it was
    } else {
      std::vector<const nlohmann::json*> envs;
      for (const auto& s : g.sources) envs.push_back(&s.env);
      env = common_value(envs).value_or(nlohmann::json::object());
      if (!env.is_object()) env = nlohmann::json::object();
      env.erase("host");
      env["merged_from"] = nlohmann::json::array();
      for (const auto& s : g.sources) env["merged_from"].push_back(source_json(s));
    }
    StoredTable& rt = merged["runs"];
    std::vector<StoredValue> row(rt.columns.size());
    auto set = [&](const std::string& c, StoredValue v) { row[static_cast<size_t>(rt.column(c))] = std::move(v); };
    auto text = [](std::string s) { return StoredValue{StoredValue::Type::text, 0, 0, std::move(s)}; };
    set("id", StoredValue{StoredValue::Type::integer, mr.id, 0, ""});
    set("created", text(created));
    set("key", text(g.logical));
    set("backend", text(g.backend));
    set("device", text(g.device));
    set("env", text(env.dump()));
    set("finished", StoredValue{StoredValue::Type::integer, mr.finished ? 1 : 0, 0, ""});
    rt.rows.push_back(std::move(row));

    for (const auto& rule : row_rules()) {
      StoredTable& out_t = merged[rule.table];
      std::map<std::vector<StoredValue>, std::pair<const StoredTable*, const std::vector<StoredValue>*>> by_slot;
      std::map<std::vector<StoredValue>, std::string> origin_of;
      for (const auto* m : g.members) {
        const StoredTable& t = stores[m->input].tables.at(rule.table);
        int run_col = t.column("run");
        for (const auto& row : t.rows) {
          if (row[static_cast<size_t>(run_col)].integer != m->id) continue;
          RowView rv{t, row};
          std::vector<StoredValue> slot;
          for (const auto& c : rule.slot) slot.push_back(rv[c]);
          auto [it, fresh] = by_slot.emplace(slot, std::make_pair(&t, &row));
          if (fresh) {
            origin_of[slot] = stores[m->input].path;
            continue;
          }
          std::vector<std::string> diff = differences(*it->second.first, *it->second.second, t, row, {"run", "created"});
          if (diff.empty()) {
            ++rep.duplicates;
            continue;
          }
          rep.conflicts.push_back(MergeConflict{rule.table, run_label(g), slot_text(rule, rv), origin_of[slot], stores[m->input].path, diff});
        }
      }
      for (const auto& [slot, src] : by_slot) {
        std::vector<StoredValue> out_row;
        for (const auto& c : out_t.columns) out_row.push_back((*src.second)[static_cast<size_t>(src.first->column(c))]);
        out_row[static_cast<size_t>(out_t.column("run"))] = StoredValue{StoredValue::Type::integer, mr.id, 0, ""};
        out_t.rows.push_back(std::move(out_row));
      }
      (rule.table == std::string("attempts") ? mr.attempts : rule.table == std::string("agent_steps") ? mr.steps : mr.llm_requests) =
          by_slot.size();
    }
    rep.runs.push_back(std::move(mr));
  }

  // Peak rates: per (machine, device), the newest measurement.
  {
    std::map<std::pair<std::string, std::string>, std::pair<std::vector<StoredValue>, std::string>> peaks;
    StoredTable& out_t = merged["peaks"];
    for (const auto& s : stores) {
      const StoredTable& t = s.tables.at("peaks");
      for (const auto& row : t.rows) {
        RowView rv{t, row};
        std::vector<StoredValue> out_row;
        for (const auto& c : out_t.columns) out_row.push_back(rv[c]);
        auto slot = std::make_pair(text_of(rv["machine"]), text_of(rv["device"]));
        auto [it, fresh] = peaks.emplace(slot, std::make_pair(out_row, s.path));
        if (fresh || it->second.first == out_row) {
          rep.duplicates += !fresh;
          continue;
        }
        RowView kept{out_t, it->second.first};
        bool newer = text_of(rv["measured"]) > text_of(kept["measured"]);
        rep.notes.push_back(fmt::format("peak rates of `{}` on {}: measured {} ({}) and {} ({}); the newer is kept", slot.second, slot.first,
                                        text_of(kept["measured"]), it->second.second, text_of(rv["measured"]), s.path));
        if (newer) it->second = std::make_pair(out_row, s.path);
      }
    }
    for (auto& [slot, v] : peaks) out_t.rows.push_back(std::move(v.first));
  }
  if (rep.duplicates) rep.notes.push_back(fmt::format("{} rows given by more than one store were kept once", rep.duplicates));
  if (!rep.ok()) return rep;

  // Written whole beside OUT, then renamed over it.
  fs::path dir = out_path.parent_path();
  TempStore tmp{dir / fmt::format(".{}.merging.{}", out_path.filename().string(), ::getpid())};
  remove_store_files(tmp.path);  // (a leftover of an earlier process with this pid)
  write_store(tmp.path.string(), merged);
  for (const char* suffix : {"-wal", "-shm"}) {
    fs::path side = out + suffix;
    if (!fs::exists(side, ec)) continue;
    if (std::string(suffix) == "-wal" && fs::file_size(side, ec) > 0)
      throw std::runtime_error(fmt::format("{} has a write-ahead log ({}) with changes not yet in it: another ekb is writing it, or one "
                                           "was killed; open it once with ekb (e.g. `ekb results --db {}`) and merge again; nothing was "
                                           "written",
                                           out, side.string(), out));
    fs::remove(side, ec);
  }
  fs::rename(tmp.path, out_path);
  tmp.keep = true;
  sync_directory(dir);
  rep.written = true;
  return rep;
}

}  // namespace ekb
