// `ekb import MODEL.onnx`: an ONNX model as suite pattern files (src/io/import_suite.h does the
// work; docs/import.md describes it). Flags and printing only.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "util/progress.h"
#if EKB_WITH_ONNX
#include "io/import_suite.h"
#endif

namespace ekb::cli {

void register_import(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "import",
      "Import an ONNX model as tasks: DIR/NAME.ekb, the whole model as one graph (category `model`, weights as inputs "
      "whose distributions are fitted to the model's values), and DIR/ops/NAME_OP_K.ekb, one task per distinct operator "
      "instance (op, attributes, shapes). Every task is checked as `ekb check --suite` checks the suite (statically, and "
      "that it is not degenerate) before anything is written; `ekb --suite DIR check --suite` passes on the result. An "
      "unsupported operator or attribute is an error naming the node; nothing is written then. docs/import.md lists the "
      "supported operators.");
  struct Opts {
    std::string model, out, name, domain, input_range, degenerate = "error";
    std::vector<std::string> dims;
    bool no_ops = false, force = false, json = false, no_degeneracy_check = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("MODEL", o->model, "the .onnx file")->required();
  cmd->add_option("-o,--out", o->out, "output directory (default: ./NAME)")->option_text("DIR");
  cmd->add_option("--name", o->name, "the model task's name, and the prefix of the op tasks' (default: the file's name)")
      ->option_text("N");
  cmd->add_option("--domain", o->domain, "the tasks' domain: vision, audio, language, sensors, image, general (default: vision "
                                         "for an image input [N, 3, H, W], else general)")
      ->option_text("D");
  cmd->add_option("--dim", o->dims, "the size of a named (dynamic) input dimension, e.g. --dim batch=1; repeatable")
      ->option_text("NAME=VALUE");
  cmd->add_option("--input-range", o->input_range,
                  "the model inputs' values: float inputs ~ uniform(LO, HI), integer inputs ~ int(LO, HI) (default: "
                  "uniform(-1, 1); 8-bit integers their whole range; wider integers int(-1000, 1000))")
      ->option_text("LO,HI");
  cmd->add_option("--degenerate", o->degenerate,
                  "what to do with a task the degeneracy filter rejects: error (write nothing, exit 1; default), skip "
                  "(write the others), keep (write it too, marked; `ekb check --suite` then rejects the directory)")
      ->check(CLI::IsMember({"error", "skip", "keep"}))
      ->option_text("error|skip|keep");
  cmd->add_flag("--no-degeneracy-check", o->no_degeneracy_check,
                "skip the degeneracy filter (faster; the files may then fail `ekb check --suite`)");
  cmd->add_flag("--no-ops", o->no_ops, "the whole model's task only");
  cmd->add_flag("--force", o->force, "replace files that exist");
  cmd->add_flag("--json", o->json, "print the report as JSON");
  cmd->callback([o, &g] {
    (void)g;
#if !EKB_WITH_ONNX
    throw std::runtime_error("this ekb was built without ONNX support (configure with libonnx-dev and libprotobuf-dev "
                             "installed, EKB_WITH_ONNX=ON)");
#else
    onnx_io::ImportToDirOptions io;
    io.out_dir = o->out;
    io.import.name = o->name;
    io.import.domain = o->domain;
    io.import.op_tasks = !o->no_ops;
    io.force = o->force;
    io.check_degeneracy = !o->no_degeneracy_check;
    io.degenerate = o->degenerate == "skip"   ? onnx_io::DegeneratePolicy::skip
                    : o->degenerate == "keep" ? onnx_io::DegeneratePolicy::keep
                                              : onnx_io::DegeneratePolicy::error;
    for (const auto& d : o->dims) {
      auto eq = d.find('=');
      int64_t v = 0;
      try {
        if (eq == std::string::npos) throw std::invalid_argument("");
        size_t used = 0;
        v = std::stoll(d.substr(eq + 1), &used);
        if (used != d.size() - eq - 1 || v < 1) throw std::invalid_argument("");
      } catch (const std::exception&) {
        throw CLI::ValidationError("--dim", fmt::format("`{}` is not NAME=VALUE with a positive integer VALUE", d));
      }
      io.import.dims[d.substr(0, eq)] = v;
    }
    if (!o->input_range.empty()) {
      auto comma = o->input_range.find(',');
      double lo = 0, hi = 0;
      try {
        if (comma == std::string::npos) throw std::invalid_argument("");
        lo = std::stod(o->input_range.substr(0, comma));
        hi = std::stod(o->input_range.substr(comma + 1));
      } catch (const std::exception&) {
        throw CLI::ValidationError("--input-range", fmt::format("`{}` is not LO,HI", o->input_range));
      }
      if (!(lo < hi)) throw CLI::ValidationError("--input-range", "LO must be below HI");
      io.import.input_range = std::make_pair(lo, hi);
    }
    std::unique_ptr<Progress> progress;
    io.progress = [&](const std::string& task, size_t done, size_t total) {
      if (!progress) progress = std::make_unique<Progress>("checking imported tasks", total);
      if (done > 0) progress->step(task, 0);
      if (done == total) progress->finish();
    };
    onnx_io::ImportReport rep;
    try {
      rep = onnx_io::import_to_directory(o->model, io);
    } catch (const onnx_io::ImportError& e) {
      throw std::runtime_error(e.what());
    }
    if (o->json) {
      nlohmann::json j;
      j["dir"] = rep.dir.string();
      j["domain"] = rep.domain;
      j["ok"] = rep.ok;
      j["notes"] = rep.notes;
      j["degenerate"] = rep.degenerate;
      for (const auto& t : rep.tasks)
        j["tasks"].push_back({{"file", t.file}, {"task", t.task}, {"op", t.op}, {"category", t.category}, {"nodes", t.nodes},
                              {"stages", t.stages}, {"flops", t.flops}, {"bytes", t.bytes}, {"degenerate", t.degenerate},
                              {"written", t.written}});
      std::cout << j.dump(2) << "\n";
    } else {
      for (const auto& n : rep.notes) std::cout << "note: " << n << "\n";
      std::cout << fmt::format("{:<44} {:<14} {:>5} {:>6} {:>12} {:>12}  {}\n", "task", "category", "nodes", "stages", "flops",
                               "bytes", "status");
      for (const auto& t : rep.tasks)
        std::cout << fmt::format("{:<44} {:<14} {:>5} {:>6} {:>12.4g} {:>12}  {}\n", t.task, t.category, t.nodes, t.stages,
                                 t.flops, t.bytes,
                                 t.written ? (t.degenerate.empty() ? "written" : "written (degenerate)")
                                           : (t.degenerate.empty() ? "not written" : "degenerate, not written"));
      for (const auto& t : rep.tasks) {
        if (t.degenerate.empty()) continue;
        std::cerr << fmt::format("{}: task `{}` is degenerate:\n", (rep.dir / t.file).string(), t.task);
        for (const auto& p : t.degenerate) std::cerr << "  - " << p << "\n";
      }
      size_t written = 0;
      for (const auto& t : rep.tasks) written += t.written;
      if (!rep.ok)
        std::cerr << fmt::format("ekb import: error: {} task(s) are degenerate; nothing written (--degenerate skip writes "
                                 "the others, keep writes them all)\n",
                                 rep.degenerate);
      else
        std::cout << fmt::format("wrote {} file(s) to {}{}\n", written, rep.dir.string(),
                                 rep.degenerate ? fmt::format(" ({} degenerate task(s) {})", rep.degenerate,
                                                              io.degenerate == onnx_io::DegeneratePolicy::keep ? "kept" : "left out")
                                                : "");
    }
    if (!rep.ok) throw CLI::RuntimeError(1);
#endif
  });
}

}  // namespace ekb::cli
