// The pieces of remote boards that need no board: the token (read from a file, compared in
// constant time), the frames' bounds and deadlines, the mirrored region's changed ranges, and the
// profile file's errors (remote/*.h).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "remote/board_profile.h"
#include "remote/frame.h"
#include "remote/region_sync.h"
#include "remote/token.h"

namespace {

namespace fs = std::filesystem;
using namespace ekb;
using namespace ekb::remote;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("ekb-remote-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& file, const std::string& text) const {
    std::ofstream(path / file) << text;
    return (path / file).string();
  }
};

TEST(BoardToken, ComparesEveryByteAndTheLength) {
  const std::string t = "0123456789abcdef0123456789abcdef";
  EXPECT_TRUE(tokens_equal(t, t));
  EXPECT_FALSE(tokens_equal(t, t.substr(0, t.size() - 1) + "g"));  // the last byte differs
  EXPECT_FALSE(tokens_equal("x" + t.substr(1), t));                // the first byte differs
  EXPECT_FALSE(tokens_equal(t, t + "0"));                          // a longer one that starts the same
  EXPECT_FALSE(tokens_equal(t.substr(0, 16), t));                  // a prefix
  EXPECT_FALSE(tokens_equal("", t));
  EXPECT_TRUE(tokens_equal("", ""));
  std::string nul(t.size(), '\0');
  EXPECT_FALSE(tokens_equal(nul, std::string(t.size() + 3, '\0')));  // zeros past the end still count the length
}

TEST(BoardToken, IsReadTrimmedAndRefusedWhenMissingEmptyOrShort) {
  TempDir d("token");
  std::string good = d.write("good", "  c2VjcmV0LXNlY3JldC1zZWNyZXQ=\n");
  chmod(good.c_str(), 0600);
  std::string warning;
  EXPECT_EQ(read_token_file(good, &warning), "c2VjcmV0LXNlY3JldC1zZWNyZXQ=");
  EXPECT_TRUE(warning.empty()) << warning;
  chmod(good.c_str(), 0644);
  read_token_file(good, &warning);
  EXPECT_NE(warning.find("other users"), std::string::npos) << warning;
  auto error_of = [](const std::string& path) {
    try {
      read_token_file(path);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string missing = error_of((d.path / "nope").string());
  EXPECT_NE(missing.find("cannot read"), std::string::npos) << missing;
  EXPECT_NE(missing.find("nope"), std::string::npos) << missing;
  EXPECT_NE(error_of(d.write("empty", "\n \n")).find("it is empty"), std::string::npos);
  std::string shrt = error_of(d.write("short", "tooshort\n"));
  EXPECT_NE(shrt.find("at least 16"), std::string::npos) << shrt;
  EXPECT_NE(shrt.find("/dev/urandom"), std::string::npos) << "the error says how to make one: " << shrt;
}

struct SocketPair {
  int a = -1, b = -1;
  SocketPair() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    a = sv[0], b = sv[1];
  }
  ~SocketPair() {
    close(a);
    close(b);
  }
};

TEST(BoardFrames, CarryJsonAndBytesBothWays) {
  SocketPair s;
  std::string bytes(100000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  std::thread sender([&] { EXPECT_TRUE(send_frame(s.a, {{"op", "run"}, {"n", 3}}, bytes, 5000)); });
  Frame f;
  std::string error;
  EXPECT_EQ(recv_frame(s.b, f, 1 << 20, 5000, &error), FrameStatus::ok) << error;
  sender.join();
  EXPECT_EQ(f.body["op"], "run");
  EXPECT_EQ(f.body["n"], 3);
  EXPECT_EQ(f.payload, bytes);
}

TEST(BoardFrames, ALargerMessageThanTheLimitIsRefusedNamingBothSizes) {
  SocketPair s;
  std::string bytes(3u << 20, 'x');
  std::thread sender([&] { send_frame(s.a, {{"op", "buffers"}}, bytes, 2000); });
  Frame f;
  std::string error;
  EXPECT_EQ(recv_frame(s.b, f, 1u << 20, 5000, &error), FrameStatus::too_large);
  EXPECT_TRUE(f.payload.empty()) << "nothing of it is read into memory";
  EXPECT_NE(error.find(std::to_string(3u << 20)), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(1u << 20)), std::string::npos) << error;
  EXPECT_NE(error.find("--max-message-mib"), std::string::npos) << "the error says how to raise the limit: " << error;
  shutdown(s.b, SHUT_RDWR);
  sender.join();
  EXPECT_NE(frame_size_problem(kMaxJsonBytes + 1, 0, 1 << 20), "");
  EXPECT_EQ(frame_size_problem(100, 1 << 20, 1 << 20), "");
}

TEST(BoardFrames, ATimeoutAWrongMagicAndAClosedPeerAreToldApart) {
  {
    SocketPair s;
    Frame f;
    EXPECT_EQ(recv_frame(s.b, f, 1024, 100), FrameStatus::timeout);
  }
  {
    SocketPair s;
    ASSERT_EQ(write(s.a, "HTTP/1.1 200 OK\r\n\r\n", 19), 19);
    Frame f;
    std::string error;
    EXPECT_EQ(recv_frame(s.b, f, 1024, 1000, &error), FrameStatus::corrupt);
    EXPECT_NE(error.find("magic"), std::string::npos) << error;
  }
  {
    SocketPair s;
    close(s.a);
    s.a = -1;
    Frame f;
    EXPECT_EQ(recv_frame(s.b, f, 1024, 1000), FrameStatus::closed);
  }
}

TEST(BoardFrames, EndpointsAreParsedWithClearErrors) {
  Endpoint e = parse_endpoint("10.0.0.2:7450");
  EXPECT_EQ(e.host, "10.0.0.2");
  EXPECT_EQ(e.port, 7450);
  EXPECT_EQ(parse_endpoint("[::1]:80").host, "::1");
  EXPECT_EQ(parse_endpoint("[::1]:80").text(), "[::1]:80");
  for (const char* bad : {"10.0.0.2", "10.0.0.2:", ":7450", "pi:port", "pi:99999"}) EXPECT_THROW(parse_endpoint(bad), std::invalid_argument) << bad;
}

TEST(BoardRegion, OnlyChangedBytesTravelAndArriveInPlace) {
  std::vector<unsigned char> a(64 << 10, 0), agreed(64 << 10, 0), mirror(64 << 10, 0);
  EXPECT_TRUE(changed_ranges(a.data(), agreed.data(), a.size()).empty());
  a[5] = 1;              // one block
  a[3000] = 2;           // within 4 KiB of it: merged
  a[40000] = 3;          // far: its own range
  a[a.size() - 1] = 4;   // the last (short) block
  auto r = changed_ranges(a.data(), agreed.data(), a.size());
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].offset, 0u);
  EXPECT_GE(r[0].length, 3001u);
  nlohmann::json list;
  std::string payload;
  pack_ranges(a.data(), r, list, payload, agreed.data());
  EXPECT_LT(payload.size(), a.size() / 2) << "not the whole region";
  EXPECT_TRUE(changed_ranges(a.data(), agreed.data(), a.size()).empty()) << "the agreed copy follows what was sent";
  apply_ranges(mirror.data(), mirror.size(), list, payload);
  EXPECT_EQ(mirror, a);
  // A range outside the region, or bytes that do not add up, are refused.
  EXPECT_THROW(apply_ranges(mirror.data(), mirror.size(), nlohmann::json::array({{mirror.size() - 2, 8}}), std::string(8, 'x')), std::runtime_error);
  EXPECT_THROW(apply_ranges(mirror.data(), mirror.size(), nlohmann::json::array({{0, 8}}), std::string(7, 'x')), std::runtime_error);
  EXPECT_THROW(apply_ranges(mirror.data(), mirror.size(), nlohmann::json::array({{0}}), ""), std::runtime_error);
}

// The profile file: a good one, and every kind of mistake named with its file and field.
class BoardProfileFile : public ::testing::Test {
 protected:
  TempDir d{"profile"};
  void SetUp() override {
    std::string t = d.write("pi.token", "0123456789abcdef0123456789abcdef\n");
    chmod(t.c_str(), 0600);
  }
  std::string error_of(const std::string& text) {
    std::string path = d.write("pi.json", text);
    try {
      read_board_profile(path);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(BoardProfileFile, AGoodProfileGivesTheBoardsTargetAndCompiler) {
  std::string path = d.write("pi.json", R"({"name": "pi5", "address": "10.0.0.2:7450", "token_file": "pi.token", "arch": "aarch64",
    "threads": 4, "memory_budget_mib": 512, "peak_gflops": 30.5, "peak_gbps": 8.25, "l2_kib": 512})");
  DeviceProfile p = device_for(path, "");
  ASSERT_TRUE(p.board);
  EXPECT_EQ(p.name, "pi5");
  EXPECT_EQ(p.threads, 4);
  EXPECT_EQ(p.memory_budget, 512ull << 20);
  EXPECT_EQ(p.board->address.port, 7450);
  EXPECT_EQ(p.board->token, "0123456789abcdef0123456789abcdef");  // read relative to the profile's directory
  EXPECT_EQ(p.board->cc, "aarch64-linux-gnu-gcc");
  EXPECT_EQ(p.board->march, "armv8-a");
  EXPECT_FALSE(p.board->emulated);
  Target t = p.target();
  EXPECT_EQ(t.arch, Arch::aarch64);
  EXPECT_EQ(t.isa, Isa::neon);
  EXPECT_EQ(t.vector_bytes, 16);
  EXPECT_EQ(t.threads, 4);
  EXPECT_EQ(t.l2_bytes, 512 << 10);
  EXPECT_NE(t.describe().find("aarch64"), std::string::npos) << t.describe();
  std::string rv = d.write("rv.json", R"({"name": "vf2", "address": "vf2.local:7450", "token_file": "pi.token", "arch": "riscv64"})");
  Target r = read_board_profile(rv).target();
  EXPECT_EQ(r.isa, Isa::none);
  EXPECT_EQ(r.vector_bytes, 0);
  EXPECT_EQ(read_board_profile(rv).board->march, "rv64gc");
}

TEST_F(BoardProfileFile, EveryMistakeNamesTheFileAndTheField) {
  const std::string ok = R"("name": "pi5", "address": "10.0.0.2:7450", "token_file": "pi.token", "arch": "aarch64")";
  struct Case {
    std::string text, field, says;
  };
  for (const Case& c : std::vector<Case>{
           {"{" + ok + ",}", "pi.json:1:", "not valid JSON"},
           {R"({"address": "10.0.0.2:7450", "token_file": "pi.token", "arch": "aarch64"})", "`name`", "missing"},
           {"{" + ok + R"(, "thread": 4})", "`thread`", "unknown field"},
           {"{" + ok + R"(, "threads": "four"})", "`threads`", "whole number"},
           {"{" + ok + R"(, "threads": 0})", "`threads`", "out of range"},
           {R"({"name": "pi5", "address": "10.0.0.2", "token_file": "pi.token", "arch": "aarch64"})", "`address`", "HOST:PORT"},
           {R"({"name": "pi5", "address": "10.0.0.2:7450", "token_file": "pi.token", "arch": "arm32"})", "`arch`", "arm32"},
           {"{" + ok + R"(, "isa": "avx2"})", "`isa`", "not an ISA of aarch64"},
           {R"({"name": "pi5", "address": "10.0.0.2:7450", "token_file": "missing.token", "arch": "aarch64"})", "`token_file`", "cannot read"},
           {"{" + ok + R"(, "peak_gflops": 30})", "`peak_gbps`", "both"},
           {"{" + ok + R"(, "emulated": "yes"})", "`emulated`", "true or false"},
           {"{" + ok + R"(, "openmp": false, "threads": 2})", "`threads`", "openmp"},
           {R"({"name": "host", "address": "10.0.0.2:7450", "token_file": "pi.token", "arch": "aarch64"})", "`name`", "built-in"},
           {"[1, 2]", "pi.json", "JSON object"},
       }) {
    std::string e = error_of(c.text);
    EXPECT_NE(e.find("pi.json"), std::string::npos) << c.text << " -> " << e;
    EXPECT_NE(e.find(c.field), std::string::npos) << c.text << " -> " << e;
    EXPECT_NE(e.find(c.says), std::string::npos) << c.text << " -> " << e;
  }
  std::string e;
  try {
    read_board_profile((d.path / "absent.json").string());
  } catch (const std::exception& ex) {
    e = ex.what();
  }
  EXPECT_NE(e.find("absent.json"), std::string::npos) << e;
}

}  // namespace
