// The frame every backend's export files share (export_parts.h): the header's comment, include guard
// and extern "C" block, the opening lines of CMakeLists.txt and the example's target, and README.txt's
// list of files and build and check instructions. The backend files fill in what differs.
#include <fmt/format.h>

#include <cctype>

#include "io/export_parts.h"

namespace ekb::io::detail {

namespace {

// NAME_H in capitals.
std::string header_guard(const std::string& name) {
  std::string g = name + "_H";
  for (char& ch : g) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return g;
}

}  // namespace

std::string c_header(const ExportContext& c, const HeaderText& h) {
  const std::string guard = header_guard(c.name);
  std::string out = "/* " + h.title + "\n";
  out += provenance(c, " * ");
  out += " *\n" + h.usage + " */\n";
  out += fmt::format("#ifndef {0}\n#define {0}\n\n", guard);
  out += h.includes;
  out += "#ifdef __cplusplus\n" + h.cxx_defines + "extern \"C\" {\n";
  if (!h.c_defines.empty()) out += "#else\n" + h.c_defines;
  out += "#endif\n\n";
  out += h.body;
  out += fmt::format("\n#ifdef __cplusplus\n}}\n#endif\n#endif /* {} */\n", guard);
  return out;
}

std::string cmake_intro(const ExportContext& c, const std::string& title) {
  return "# CMakeLists.txt: " + title + "\n" + provenance(c, "# ") +
         fmt::format("#   cmake -S . -B build && cmake --build build && build/{}_example --help\n", c.name);
}

std::string cmake_example_target(const std::string& name, const std::string& extra) {
  return fmt::format(
             "add_executable({0}_example main.c example_support.c)\n"
             "set_target_properties({0}_example PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)\n",
             name) +
         extra + fmt::format("target_link_libraries({0}_example PRIVATE {0})\n", name);
}

std::string readme_text(const ExportContext& c, const ReadmeText& r) {
  return fmt::format(
      "{0} -- a kernel exported by ekb (EdgeKernelBench)\n\n{1}\n"
      "Files\n{2}"
      "  CMakeLists.txt     a static library `{0}` and the example `{0}_example`\n"
      "  main.c             the example: {3}\n"
      "  example_support.*  the example's .npy reading and writing, inputs, and ekb's comparison rule\n\n"
      "Build ({4}; nothing of ekb's is needed)\n"
      "  cmake -S . -B build && cmake --build build\n"
      "  build/{0}_example                         # generated inputs\n"
      "  build/{0}_example --repeat 100            # and the median time of 100 calls\n\n"
      "Check it against ekb's float64 reference (where ekb is installed)\n"
      "  ekb interp {5} --out ref                  # inputs and reference outputs as .npy\n"
      "  build/{0}_example --in ref --check ref     # exit status 0 when every output passes\n"
      "{6}",
      c.name, provenance(c, ""), r.files, r.example, r.needs, program_argument(c), r.more);
}

}  // namespace ekb::io::detail
