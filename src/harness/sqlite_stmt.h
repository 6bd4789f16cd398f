// A prepared SQLite statement that finalizes itself, for the results store's files (results_store*.cpp).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ekb {

class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("results store: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind_null(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
  }
  bool step() {
    int r = sqlite3_step(s_);
    if (r == SQLITE_ROW) return true;
    if (r == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("results store: ") + sqlite3_errmsg(db_));
  }
  std::string text(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double real(int i) const { return sqlite3_column_double(s_, i); }
  int64_t integer(int i) const { return sqlite3_column_int64(s_, i); }
  bool is_null(int i) const { return sqlite3_column_type(s_, i) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};


// The time now, UTC, as stored ("2026-12-02T18:00:00Z").
std::string now_utc();

}  // namespace ekb
