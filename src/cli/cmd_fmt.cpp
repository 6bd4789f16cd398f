// `ekb fmt FILE`: print the canonical form (a fixed point: formatting it again changes nothing).
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace ekb::cli {

void register_fmt(CLI::App& app, Globals&) {
  auto* cmd = app.add_subcommand("fmt", "Print a .ekb file in canonical form (comments kept). Only syntax errors stop it.");
  auto file = std::make_shared<std::string>();
  auto write = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, ".ekb file to format")->required();
  cmd->add_flag("-w,--write", *write, "rewrite the file in place instead of printing");
  cmd->callback([file, write] {
    SourcePtr src = read_source_file(*file);
    DiagnosticList diags;
    Module m = parse_module(src, diags);
    if (diags.has_errors()) throw DiagnosticError(std::move(diags));
    std::string text = print_module(m);
    if (!*write) {
      std::cout << text;
      return;
    }
    std::string tmp = *file + ".ekbfmt.tmp";
    {
      std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
      o << text;
      if (!o.flush()) throw std::runtime_error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), file->c_str()) != 0) throw std::runtime_error("cannot replace " + *file);
  });
}

}  // namespace ekb::cli
