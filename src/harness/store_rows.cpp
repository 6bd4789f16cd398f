// Reading a results store's rows read-only and writing them into a new store (store_rows.h).
#include "harness/store_rows.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "harness/results_store.h"

namespace ekb {

namespace {

// A SQLite connection that closes itself.
struct Connection {
  sqlite3* db = nullptr;
  Connection(const std::string& path, int flags) {
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      std::string err = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      db = nullptr;
      throw std::runtime_error(fmt::format("{}: cannot be opened: {}", path, err));
    }
    sqlite3_busy_timeout(db, 10000);
  }
  ~Connection() { sqlite3_close(db); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
};

// A prepared statement that finalizes itself; errors name the store.
struct Statement {
  sqlite3* db;
  sqlite3_stmt* s = nullptr;
  std::string path;
  Statement(sqlite3* d, const std::string& sql, const std::string& p) : db(d), path(p) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(fmt::format("{}: {}", path, sqlite3_errmsg(db)));
  }
  ~Statement() { sqlite3_finalize(s); }
  bool step() {
    int r = sqlite3_step(s);
    if (r == SQLITE_ROW) return true;
    if (r == SQLITE_DONE) return false;
    throw std::runtime_error(fmt::format("{}: {}", path, sqlite3_errmsg(db)));
  }
};

StoredValue column_value(sqlite3_stmt* s, int i) {
  StoredValue v;
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER:
      v.type = StoredValue::Type::integer;
      v.integer = sqlite3_column_int64(s, i);
      break;
    case SQLITE_FLOAT:
      v.type = StoredValue::Type::real;
      v.real = sqlite3_column_double(s, i);
      break;
    case SQLITE_TEXT:
      v.type = StoredValue::Type::text;
      v.bytes.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, i)), static_cast<size_t>(sqlite3_column_bytes(s, i)));
      break;
    case SQLITE_BLOB: {
      v.type = StoredValue::Type::blob;
      const void* p = sqlite3_column_blob(s, i);
      if (p) v.bytes.assign(static_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(s, i)));
      break;
    }
    default:
      break;
  }
  return v;
}

void bind_value(sqlite3_stmt* s, int i, const StoredValue& v) {
  switch (v.type) {
    case StoredValue::Type::null: sqlite3_bind_null(s, i); break;
    case StoredValue::Type::integer: sqlite3_bind_int64(s, i, v.integer); break;
    case StoredValue::Type::real: sqlite3_bind_double(s, i, v.real); break;
    case StoredValue::Type::text: sqlite3_bind_text(s, i, v.bytes.data(), static_cast<int>(v.bytes.size()), SQLITE_TRANSIENT); break;
    case StoredValue::Type::blob: sqlite3_bind_blob(s, i, v.bytes.data(), static_cast<int>(v.bytes.size()), SQLITE_TRANSIENT); break;
  }
}

// A store opened to be read only, leaving no file behind: without a write-ahead log holding changes
// (a store closed cleanly has none), as immutable (no -wal or -shm file is made beside it); with one
// (a writer still at work, or killed), read-only through the log, which SQLite then needs.
std::unique_ptr<Connection> open_to_read(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw std::runtime_error(fmt::format("{}: no such file", path));
  std::string wal = path + "-wal";
  if (std::filesystem::exists(wal, ec) && std::filesystem::file_size(wal, ec) > 0)
    return std::make_unique<Connection>(path, SQLITE_OPEN_READONLY);
  std::string uri = "file:";
  for (char ch : std::filesystem::absolute(path).string())
    uri += ch == '%' ? "%25" : ch == '?' ? "%3f" : ch == '#' ? "%23" : std::string(1, ch);
  return std::make_unique<Connection>(uri + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
}

int64_t user_version(sqlite3* db, const std::string& path) {
  Statement s(db, "PRAGMA user_version", path);
  return s.step() ? sqlite3_column_int64(s.s, 0) : 0;
}

void exec(sqlite3* db, const std::string& sql, const std::string& path) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error(fmt::format("{}: {}", path, msg));
  }
}

}  // namespace

std::string StoredValue::brief() const {
  switch (type) {
    case Type::null: return "null";
    case Type::integer: return std::to_string(integer);
    case Type::real: return fmt::format("{}", real);
    case Type::blob: return fmt::format("({} bytes)", bytes.size());
    case Type::text: break;
  }
  constexpr size_t kMax = 60;
  std::string t = bytes.size() > kMax ? bytes.substr(0, kMax) + "..." : bytes;
  for (char& c : t)
    if (c == '\n') c = ' ';
  return "`" + t + "`";
}

int StoredTable::column(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  throw std::runtime_error("a stored table has no column `" + name + "`");
}

int64_t store_schema_version(const std::string& path) {
  auto c = open_to_read(path);
  return user_version(c->db, path);
}

StoreSnapshot read_store(const std::string& path) {
  auto conn = open_to_read(path);
  Connection& c = *conn;
  int64_t version = user_version(c.db, path);  // (a file that is not SQLite fails here)
  if (version == 0)
    throw std::runtime_error(fmt::format("{}: not an ekb results store (it has no schema version)", path));
  if (version > kResultsStoreSchema)
    throw std::runtime_error(fmt::format("{}: written by a newer ekb (schema {}; this ekb writes schema {}): merge it with that ekb", path,
                                         version, kResultsStoreSchema));
  if (version < kResultsStoreSchema)
    throw std::runtime_error(fmt::format("{}: an older store (schema {}; this ekb writes schema {}); `ekb merge` never writes to "
                                         "its inputs, so it does not upgrade it: open it once with this ekb (e.g. `ekb results "
                                         "--db {}`, which upgrades it in place, keeping every row), then merge",
                                         path, version, kResultsStoreSchema, path));
  StoreSnapshot snap;
  snap.path = path;
  for (const auto& name : merged_tables()) {
    StoredTable t;
    Statement s(c.db, "SELECT * FROM " + name + " ORDER BY rowid", path);
    int n = sqlite3_column_count(s.s);
    for (int i = 0; i < n; ++i) t.columns.push_back(sqlite3_column_name(s.s, i));
    while (s.step()) {
      std::vector<StoredValue> row;
      row.reserve(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) row.push_back(column_value(s.s, i));
      t.rows.push_back(std::move(row));
    }
    snap.tables.emplace(name, std::move(t));
  }
  return snap;
}

void copy_store(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (std::filesystem::exists(to, ec)) throw std::runtime_error(fmt::format("{}: exists already; not copied over", to));
  auto conn = open_to_read(from);
  Connection& c = *conn;
  if (user_version(c.db, from) == 0) throw std::runtime_error(fmt::format("{}: not an ekb results store", from));
  Statement s(c.db, "VACUUM INTO ?", from);
  sqlite3_bind_text(s.s, 1, to.c_str(), -1, SQLITE_TRANSIENT);
  s.step();
}

void write_store(const std::string& path, const std::map<std::string, StoredTable>& tables) {
  { ResultsStore schema(path); }  // the current schema, made by the store itself
  Connection c(path, SQLITE_OPEN_READWRITE);
  exec(c.db, "BEGIN", path);
  for (const auto& [name, t] : tables) {
    if (t.columns.empty()) continue;
    std::string cols, marks;
    for (size_t i = 0; i < t.columns.size(); ++i) {
      cols += (i ? ", " : "") + t.columns[i];
      marks += i ? ", ?" : "?";
    }
    Statement ins(c.db, "INSERT INTO " + name + " (" + cols + ") VALUES (" + marks + ")", path);
    for (const auto& row : t.rows) {
      sqlite3_reset(ins.s);
      for (size_t i = 0; i < row.size(); ++i) bind_value(ins.s, static_cast<int>(i) + 1, row[i]);
      ins.step();
    }
  }
  exec(c.db, "COMMIT", path);
}

}  // namespace ekb
