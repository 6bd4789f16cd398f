// A results store's rows as they are stored, column by column, for `ekb merge` (store_merge.h): read
// from a store opened read-only (never upgraded, never written: an input is left byte for byte as it
// was, and no -wal or -shm file is made beside it), compared exactly (values, not their decoding), and written into a new store. The column
// lists come from the tables themselves, so every column of the current schema travels, including
// ones this file never names.
#pragma once
#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

struct sqlite3;

namespace ekb {

// One stored value: SQLite's own types, compared exactly.
struct StoredValue {
  enum class Type { null, integer, real, text, blob } type = Type::null;
  int64_t integer = 0;
  double real = 0;
  std::string bytes;  // text or blob
  bool operator==(const StoredValue&) const = default;
  auto operator<=>(const StoredValue&) const = default;  // (for maps keyed by values)
  std::string brief() const;  // for messages: the value, long text cut short
};

struct StoredTable {
  std::vector<std::string> columns;
  std::vector<std::vector<StoredValue>> rows;
  int column(const std::string& name) const;  // its index; throws naming the table when there is none
};

// The tables a merge carries (every table of the current schema).
inline const std::vector<std::string>& merged_tables() {
  static const std::vector<std::string> t{"runs", "attempts", "agent_steps", "llm_requests", "peaks"};
  return t;
}

// A store read whole, read-only. Throws, naming the file, for a file that is missing, not SQLite,
// not an ekb results store, or of another schema version than this ekb's (an older one is not
// upgraded here: that would write to it).
struct StoreSnapshot {
  std::string path;
  std::map<std::string, StoredTable> tables;  // merged_tables()
};
StoreSnapshot read_store(const std::string& path);
// The schema version of the store at `path` (PRAGMA user_version), read without writing to it.
int64_t store_schema_version(const std::string& path);

// Copies the store at `from` (read-only, a consistent snapshot) into a new file `to` (which must not
// exist), as it is: same schema version, every row.
void copy_store(const std::string& from, const std::string& to);

// Writes `tables` (rows in their columns' order) into the fresh store at `path`, which it creates
// with the current schema; in one transaction.
void write_store(const std::string& path, const std::map<std::string, StoredTable>& tables);

}  // namespace ekb
