// import_to_directory (import_suite.h): import, check every task as a suite file, run the
// degeneracy filter, then write.
#include "io/import_suite.h"

#include <fmt/format.h>

#include "suite/degenerate.h"
#include "suite/figures.h"
#include "suite/suite.h"
#include "util/source.h"
#include "util/write_file.h"

namespace ekb::onnx_io {

ImportReport import_to_directory(const std::filesystem::path& model_path, const ImportToDirOptions& o) {
  Model m = read_model(model_path);
  ImportResult r = import_model(m, o.import);
  ImportReport rep;
  rep.dir = o.out_dir.empty() ? std::filesystem::path(r.model.kernel) : o.out_dir;
  rep.notes = r.notes;
  rep.domain = r.domain;
  std::vector<const ImportedTask*> tasks = {&r.model};
  // A model of one node would get its node's task twice (the same L0 under two names).
  if (r.ops.size() == 1 && r.ops[0].nodes == r.model.nodes)
    rep.notes.push_back("the model is one node: its task is the model's (no separate op task)");
  else
    for (const auto& t : r.ops) tasks.push_back(&t);
  std::vector<std::string> texts;
  for (size_t k = 0; k < tasks.size(); ++k) {
    const ImportedTask& t = *tasks[k];
    if (o.progress) o.progress(t.workload, k, tasks.size());
    auto src = std::make_shared<SourceFile>(t.file, t.text);
    DiagnosticList diags;
    std::vector<Task> loaded = load_suite_file(rep.dir / t.file, src, diags);
    if (diags.has_errors() || loaded.size() != 1)
      throw ImportError(fmt::format("{}: the suite file ekb import wrote for {} does not load (a bug in ekb import):\n{}",
                                    model_path.string(), t.file, diags.render_all()));
    ImportTaskReport tr;
    tr.file = t.file;
    tr.task = loaded[0].name;
    tr.op = t.op;
    tr.category = t.category;
    tr.nodes = t.nodes.size();
    Figures f = compute_figures(*loaded[0].program);
    tr.flops = f.flops;
    tr.bytes = f.bytes;
    tr.stages = f.stages;
    if (o.check_degeneracy) tr.degenerate = check_degenerate(*loaded[0].program).problems;
    if (!tr.degenerate.empty()) ++rep.degenerate;
    std::string text = t.text;
    if (!tr.degenerate.empty()) {
      std::string mark = "# degenerate (written with --degenerate keep; `ekb check --suite` rejects it):\n";
      for (const auto& p : tr.degenerate) mark += "#   " + p + "\n";
      text = mark + text;
    }
    texts.push_back(text);
    rep.tasks.push_back(tr);
  }
  if (o.progress) o.progress("", tasks.size(), tasks.size());
  if (rep.degenerate > 0 && o.degenerate == DegeneratePolicy::error) {
    rep.ok = false;
    return rep;
  }
  std::vector<size_t> to_write;
  for (size_t k = 0; k < rep.tasks.size(); ++k)
    if (rep.tasks[k].degenerate.empty() || o.degenerate == DegeneratePolicy::keep) to_write.push_back(k);
  if (!o.force)
    for (size_t k : to_write) {
      std::error_code ec;
      if (std::filesystem::exists(rep.dir / rep.tasks[k].file, ec))
        throw ImportError(fmt::format("{} exists: ekb import does not replace files unless given --force",
                                      (rep.dir / rep.tasks[k].file).string()));
    }
  for (size_t k : to_write) {
    std::filesystem::create_directories((rep.dir / rep.tasks[k].file).parent_path());
    write_atomically(rep.dir / rep.tasks[k].file, texts[k]);
    rep.tasks[k].written = true;
  }
  return rep;
}

}  // namespace ekb::onnx_io
