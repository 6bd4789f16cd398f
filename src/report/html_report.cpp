// The HTML report's page (html_report.h): the sections in order, each written here as HTML with
// every stored or suite text escaped, and the plots declared as canvases plus a spec in the data
// block that assets/report.js draws.
#include "report/html_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "agent/search.h"
#include "harness/outcome.h"
#include "report/html.h"
#include "report/leaderboard.h"
#include "report/report_assets.h"

namespace ekb::report {

namespace {

using nlohmann::json;

// The page's policy: inline script and style only, images only from data: URLs; nothing fetched.
const char* const kPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

std::string pct(double v) { return fmt::format("{:.1f}%", 100 * v); }
std::string times(double v) { return v > 0 ? fmt::format("{:.3f}\u00d7", v) : "-"; }
std::string mib(uint64_t b) { return fmt::format("{:.1f} MiB", b / 1048576.0); }
std::string ms(double v) { return fmt::format("{:.4f} ms", v); }
std::string num(double v) { return fmt::format("{}", v); }  // a data-sort value

std::string task_anchor(const std::string& task) { return anchor_id("task", task); }
std::string code_anchor(const std::string& task, const std::string& hash) { return anchor_id("code-" + hash, task); }
std::string traj_anchor(int64_t run, const std::string& task) { return anchor_id(fmt::format("search-{}", run), task); }
std::string run_anchor(int64_t run) { return fmt::format("run-{}", run); }

// The layer a step revised, as the trajectory plot colours it.
std::string step_layer(const StepRecord& s) {
  if (s.step == 0) return "start";
  if (agent::is_confirmation(s.action)) return "confirm";
  return s.layer;
}

class Page {
 public:
  explicit Page(const ReportData& d) : d_(d) {}

  std::string& out() { return out_; }
  int charts() const { return static_cast<int>(specs_.size()); }
  const json& specs() const { return specs_; }

  // A plot: its canvas (drawn by report.js from `data` as a chart of `kind`) in a figure.
  void chart(const std::string& kind, const std::string& title, const json& data, const std::string& caption_html) {
    std::string id = fmt::format("chart-{}", specs_.size());
    specs_.push_back({{"id", id}, {"kind", kind}, {"data", data}});
    out_ += fmt::format("<figure class=\"chart\"><h4>{}</h4><div class=\"plot\"><canvas id=\"{}\" data-chart=\"{}\" role=\"img\" "
                        "aria-label=\"{}\"></canvas></div><figcaption>{}</figcaption></figure>\n",
                        escape_html(title), id, kind, escape_html(title), caption_html);
  }

  void header(const std::string& title) {
    size_t attempts = 0;
    for (const auto& r : d_.selection.runs) attempts += r.attempts.size();
    out_ += fmt::format("<header><h1>{}</h1><p class=\"muted\">Generated {} from the results store <code>{}</code>: {} run{}, {} attempts",
                        escape_html(title), escape_html(d_.generated), escape_html(d_.store_path), d_.selection.runs.size(),
                        d_.selection.runs.size() == 1 ? "" : "s", attempts);
    if (d_.suite_loaded)
      out_ += fmt::format("; categories, domains and task texts from the suite at <code>{}</code> (version {})", escape_html(d_.suite_dir),
                          escape_html(d_.suite_version.empty() ? "unversioned" : d_.suite_version));
    else
      out_ += "; <b>no suite loaded</b>: categories, domains and task texts are not known";
    out_ += ".</p>\n";
    if (!d_.selection.skipped.empty()) {
      out_ += "<p>Runs not shown (nothing of their own to score):</p><ul class=\"notes\">";
      for (const auto& s : d_.selection.skipped) out_ += "<li>" + escape_html(s) + "</li>";
      out_ += "</ul>\n";
    }
    out_ += "<ul id=\"ekb-errors\" hidden></ul>\n</header>\n";
    out_ += "<nav><a href=\"#leaderboard\">Leaderboard</a><a href=\"#all-runs\">All runs</a>";
    for (const auto& r : d_.selection.runs) out_ += fmt::format("<a href=\"#{}\">Run {}</a>", run_anchor(r.run.id), r.run.id);
    out_ += "<a href=\"#attempts\">Attempts</a>";
    if (!d_.trajectories.empty()) out_ += "<a href=\"#searches\">Searches</a>";
    out_ += "<a href=\"#codes\">Candidates' code</a><a href=\"#tasks\">Task texts</a></nav>\n";
  }

  void leaderboard(const std::vector<RankedRun>& ranked) {
    out_ += "<section id=\"leaderboard\"><h2>Leaderboard</h2>\n";
    out_ += fmt::format("<p class=\"muted\">Ranked by: {}. Metrics as defined in docs/metrics.md; `ekb leaderboard --json` prints the same "
                        "ranking.</p>\n",
                        escape_html(kRankingRule));
    out_ += "<table class=\"sortable\" id=\"leaderboard-table\"><thead><tr><th class=\"num\">rank</th><th>run</th><th>what</th><th>model</th>"
            "<th>backend</th><th>device profile (hardware)</th><th>timing</th><th class=\"num\">tasks</th><th class=\"num\">samples</th>"
            "<th class=\"num\">Compile@1</th><th class=\"num\">Correct@1</th><th class=\"num\">Fast@1.0</th><th class=\"num\">Fast@1.0 signif.</th>"
            "<th class=\"num\">geomean speedup</th><th>marks</th></tr></thead><tbody>\n";
    for (const auto& r : ranked) {
      const RunSummary& s = *r.run;
      const Metrics& m = s.metrics;
      out_ += fmt::format(
          "<tr><td class=\"num\">{}</td><td data-sort=\"{}\"><a href=\"#{}\">run {}</a></td><td>{}</td><td>{}</td><td>{}</td><td class=\"hw\">{}<br><small>{}</small></td>"
          "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td>"
          "<td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td>"
          "<td class=\"num\" data-sort=\"{}\">{}</td><td>{}</td></tr>\n",
          r.rank, s.run.id, run_anchor(s.run.id), s.run.id, escape_html(label(s)), escape_html(s.what.model.empty() ? "-" : s.what.model),
          escape_html(s.run.backend), escape_html(s.run.device), escape_html(s.what.hardware), escape_html(s.what.timing), m.tasks, m.samples,
          num(m.compile_at_k), pct(m.compile_at_k), num(m.correct_at_k), pct(m.correct_at_k), num(m.fast.at("1.0")), pct(m.fast.at("1.0")),
          num(m.fast_significant.at("1.0")), pct(m.fast_significant.at("1.0")), num(m.geomean_speedup), times(m.geomean_speedup), badges(s));
    }
    out_ += "</tbody></table>\n";
    if (std::string n = coverage_note(ranked); !n.empty()) out_ += "<ul class=\"notes\"><li>" + escape_html(n) + "</li></ul>\n";
    out_ += "</section>\n";
  }

  void all_runs() {
    out_ += "<section id=\"all-runs\"><h2>All runs</h2><div class=\"charts\">\n";
    json series = json::array();
    double x_max = 2.5;  // past the largest speedup (the curves' last point), at most 10
    for (const auto& s : d_.selection.runs) {
      json pts = json::array();
      for (const auto& p : d_.fast_curves.at(s.run.id)) pts.push_back({p.p, p.strict, p.significant});
      if (!pts.empty()) x_max = std::max(x_max, std::min(10.0, pts.back()[0].get<double>()));
      series.push_back({{"label", fmt::format("run {}", s.run.id)}, {"points", pts}});
    }
    chart("fast_curve", "Fast@p over p",
          {{"series", series}, {"x_max", x_max}},
          "The share of tasks whose candidate is correct and faster than p times the baseline (solid), and whose speedup's 95% "
          "interval lies above p (dashed), one colour per run; failures count as not fast.");
    breakdown_chart("By backend", d_.by_backend,
                    "Every shown run's attempts on a backend taken together (a task tried by several runs counts their attempts as its "
                    "samples).");
    breakdown_chart("By device profile", d_.by_device, "The same per device profile (`ekb devices`).");
    out_ += "</div>\n";
    breakdown_table("backend", d_.by_backend);
    breakdown_table("device profile", d_.by_device);
    out_ += "</section>\n";
  }

  void run_section(const RunSummary& s) {
    const RunDescription& w = s.what;
    const Metrics& m = s.metrics;
    out_ += fmt::format("<section class=\"run\" id=\"{}\"><h2>Run {} \u2014 {}{}</h2>\n", run_anchor(s.run.id), s.run.id, escape_html(label(s)),
                        badges(s));
    out_ += "<dl class=\"facts\">";
    fact("created", s.run.created + (s.run.finished ? "" : " (unfinished)"));
    if (!w.model.empty()) fact("model", w.model + (w.mode.empty() ? "" : " (mode " + w.mode + ")"));
    if (w.scores_run) fact("scores", fmt::format("what run {} ({}) wrote", *w.scores_run, w.scores_label));
    fact("backend", s.run.backend);
    fact("device profile", s.run.device + (w.threads ? fmt::format(", {} thread{}", w.threads, w.threads == 1 ? "" : "s") : "") +
                               (w.memory_budget ? ", memory budget " + mib(w.memory_budget) : ""));
    if (!w.hardware.empty()) fact("hardware", w.hardware);
    if (!w.target.empty()) fact("target", w.target);
    if (!w.compiler.empty()) fact("compiler", w.compiler);
    fact("timing", w.timing + (w.quick ? ", quick (a verification, not a measurement)" : ""));
    if (!w.commit.empty()) fact("ekb commit", w.commit);
    out_ += "</dl>\n";
    if (!s.notes.empty()) {
      out_ += "<ul class=\"notes\">";
      for (const auto& n : s.notes) out_ += "<li>" + escape_html(n) + "</li>";
      out_ += "</ul>\n";
    }
    out_ += fmt::format("<table><thead><tr><th class=\"num\">tasks</th><th class=\"num\">samples</th><th class=\"num\">Compile@1</th>"
                        "<th class=\"num\">Correct@1</th><th class=\"num\">geomean speedup</th><th class=\"num\">noisy</th>"
                        "<th>failures by kind</th><th>kernel memory (own, beyond its arguments)</th></tr></thead>"
                        "<tbody><tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr></tbody></table>\n",
                        m.tasks, m.samples, pct(m.compile_at_k), pct(m.correct_at_k), times(m.geomean_speedup), m.noisy, failures(m),
                        memory(s.memory));
    out_ += "<table><thead><tr><th>Fast@p</th>";
    for (const auto& [key, p] : fast_thresholds()) out_ += fmt::format("<th class=\"num\">p = {}</th>", key);
    out_ += "</tr></thead><tbody><tr><td>strict (speedup &gt; p)</td>";
    for (const auto& [key, p] : fast_thresholds()) out_ += "<td class=\"num\">" + pct(m.fast.at(key)) + "</td>";
    out_ += "</tr><tr><td>significant (95% interval above p)</td>";
    for (const auto& [key, p] : fast_thresholds()) out_ += "<td class=\"num\">" + pct(m.fast_significant.at(key)) + "</td>";
    out_ += "</tr></tbody></table>\n<div class=\"charts\">\n";
    speedup_charts(s);
    breakdown_chart("By category", s.by_category, "Per task category of the suite.");
    breakdown_chart("By domain", s.by_domain, "Per application domain of the suite.");
    trajectory_chart(s);
    out_ += "</div>\n";
    breakdown_table("category", s.by_category);
    breakdown_table("domain", s.by_domain);
    out_ += "</section>\n";
  }

  void attempts_table() {
    out_ += "<section id=\"attempts\"><h2>Attempts</h2>\n<div id=\"attempt-filter\"><input type=\"search\" placeholder=\"filter: task, category, "
            "domain, status\" aria-label=\"filter\"><select name=\"run\" aria-label=\"run\"><option value=\"\">every run</option>";
    for (const auto& s : d_.selection.runs) out_ += fmt::format("<option value=\"{}\">run {}</option>", s.run.id, s.run.id);
    out_ += "</select><select name=\"what\" aria-label=\"outcome\"><option value=\"\">every outcome</option><option value=\"correct\">correct"
            "</option><option value=\"failed\">failed</option><option value=\"noisy\">noisy</option><option value=\"significant\">significantly "
            "faster</option><option value=\"noted\">with notes</option></select><span id=\"attempt-count\" class=\"muted\"></span></div>\n";
    out_ += "<table class=\"sortable\" id=\"attempts-table\"><thead><tr><th>run</th><th>task</th><th class=\"num\">sample</th><th>category</th>"
            "<th>domain</th><th>status</th><th class=\"num\">speedup</th><th class=\"num\">95% interval</th><th class=\"num\">candidate</th>"
            "<th class=\"num\">baseline</th><th class=\"num\">memory</th><th>links</th><th>message or notes</th></tr></thead><tbody>\n";
    for (const auto& s : d_.selection.runs)
      for (const auto& a : s.attempts) attempt_row(s, a);
    out_ += "</tbody></table></section>\n";
  }

  void searches() {
    if (d_.trajectories.empty()) return;
    out_ += "<section id=\"searches\"><h2>Searches</h2><p class=\"muted\">Every step an agent measured: the layer it revised (L0 compute, "
            "L1 schedule, L2 memory; raw: free-form source), the action, what the harness found, and whether the step was kept; the "
            "code of each kept step. `ekb trajectory RUN TASK` prints the same.</p>\n";
    for (const auto& [key, t] : d_.trajectories) {
      const auto& [run, task] = key;
      double best = 0;
      for (const auto& p : t.path) best = p.step->eval.correct() ? p.step->eval.speedup : best;
      out_ += fmt::format("<details id=\"{}\"><summary>run {} \u00b7 {} \u2014 {} steps, ends at {}</summary>\n", traj_anchor(run, task), run,
                          escape_html(task), t.steps.size(), times(best));
      out_ += "<table><thead><tr><th class=\"num\">step</th><th>layer</th><th>action</th><th class=\"num\">predicted</th><th>result</th>"
              "<th class=\"num\">speedup</th><th class=\"num\">95% interval</th><th>kept</th></tr></thead><tbody>\n";
      for (const auto& st : t.steps) {
        const Evaluation& e = st.eval;
        out_ += fmt::format("<tr class=\"{}\"><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"status\" title=\"{}\">{}</td>"
                            "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                            e.correct() ? "correct" : "failed", st.step, escape_html(step_layer(st)), escape_html(st.action),
                            st.predicted_ms > 0 ? ms(st.predicted_ms) : "-", escape_html(e.message.substr(0, 400)),
                            escape_html(status_text(e)), e.correct() ? times(e.speedup) : "-",
                            e.correct() ? fmt::format("[{:.3f}, {:.3f}]", e.speedup_lo, e.speedup_hi) : "-", st.accepted ? "kept" : "");
      }
      out_ += "</tbody></table>\n<p>By layer:";
      for (const auto& [layer, n, gain] : t.by_layer) out_ += fmt::format(" {} {} steps \u00d7{:.3f};", escape_html(layer), n, gain);
      out_ += "</p>\n";
      for (const auto& p : t.path) {
        if (p.step->program.empty()) continue;
        out_ += fmt::format("<details><summary>step {} ({}, {}): gained \u00d7{:.3f}</summary><pre>{}</pre></details>\n", p.step->step,
                            escape_html(step_layer(*p.step)), escape_html(p.step->action), p.gain, escape_html(p.step->program));
      }
      out_ += "</details>\n";
    }
    out_ += "</section>\n";
  }

  void codes() {
    out_ += "<section id=\"codes\"><h2>Candidates' code</h2><p class=\"muted\">Each attempt's candidate, found by the hash stored with the "
            "attempt: in an agent's steps, a model's reply, the suite's own text, or the file it was read from when that still holds "
            "the same code.</p>\n";
    for (const auto& [key, p] : d_.programs) {
      const auto& [task, hash] = key;
      if (p.source == ProgramSource::suite_task) continue;  // linked to the task's text
      out_ += fmt::format("<details id=\"{}\"><summary>{} \u00b7 <code>{}</code> \u2014 {}</summary>", code_anchor(task, hash), escape_html(task),
                          escape_html(hash), escape_html(p.origin));
      if (p.source == ProgramSource::missing) out_ += "<p class=\"notes\">" + escape_html(p.origin) + "</p>";
      else out_ += "<pre>" + escape_html(p.text) + "</pre>";
      out_ += "</details>\n";
    }
    out_ += "</section>\n";
  }

  void task_texts() {
    out_ += "<section id=\"tasks\"><h2>Task texts</h2><p class=\"muted\">What a model is given for each task (`ekb show TASK`), from the "
            "current suite.</p>\n";
    for (const auto& [name, t] : d_.tasks) {
      out_ += fmt::format("<details id=\"{}\"><summary>{} \u2014 {} \u00b7 {}</summary>", task_anchor(name), escape_html(name),
                          escape_html(t.category), escape_html(t.domain));
      std::set<std::string> other;
      for (const auto& s : d_.selection.runs)
        for (const auto& a : s.attempts)
          if (a.task == name && !a.task_hash.empty() && !t.current_hash.empty() && a.task_hash != t.current_hash)
            other.insert(fmt::format("run {}", s.run.id));
      if (!other.empty())
        out_ += fmt::format("<p class=\"notes\">The attempts of {} were made on another version of this task (task hash differs from "
                            "the current {}).</p>",
                            escape_html(fmt::format("{}", fmt::join(other, ", "))), escape_html(t.current_hash));
      out_ += t.text.empty() ? "<p class=\"notes\">The current suite has no task of this name.</p>" : "<pre>" + escape_html(t.text) + "</pre>";
      out_ += "</details>\n";
    }
    out_ += "</section>\n";
  }

 private:
  const ReportData& d_;
  std::string out_;
  json specs_ = json::array();

  static std::string label(const RunSummary& s) {
    return s.what.scores_run ? fmt::format("{} of run {} ({})", s.what.label, *s.what.scores_run, s.what.scores_label) : s.what.label;
  }

  static std::string badges(const RunSummary& s) {
    std::string b;
    if (s.what.emulated) b += "<span class=\"badge quick\" title=\"times on an emulated board are not meaningful\">emulated</span>";
    if (s.what.quick) b += "<span class=\"badge quick\" title=\"--quick: times from a few calls, a verification\">quick</span>";
    if (s.what.timing == "warm") b += "<span class=\"badge warm\">warm</span>";
    if (!s.run.finished) b += "<span class=\"badge unfinished\">unfinished</span>";
    if (s.metrics.noisy) b += fmt::format("<span class=\"badge noisy\">{} noisy</span>", s.metrics.noisy);
    if (s.versions.mixed()) b += "<span class=\"badge quick\">task versions</span>";
    return b;
  }

  void fact(const std::string& name, const std::string& value) {
    out_ += "<dt>" + escape_html(name) + "</dt><dd>" + escape_html(value) + "</dd>";
  }

  static std::string failures(const Metrics& m) {
    if (m.failures.empty()) return "none";
    std::vector<std::string> parts;
    for (const auto& [kind, n] : m.failures) {
      std::optional<Outcome> o = find_outcome(kind);
      parts.push_back(fmt::format("<span title=\"{}\">{} {}</span>", escape_html(o ? outcome_info(*o).hint : ""), escape_html(kind), n));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  static std::string memory(const MemoryUse& u) {
    if (u.measured == 0) return "not measured";
    std::string s = fmt::format("max {}, median {} over {} attempts", mib(u.max_bytes), mib(u.median_bytes), u.measured);
    if (u.budget) s += fmt::format("; budget {} (max at {:.1f}%)", mib(u.budget), 100.0 * u.max_bytes / u.budget);
    if (u.over_budget) s += fmt::format("; {} over budget", u.over_budget);
    return escape_html(s);
  }

  static std::string status_text(const Evaluation& e) {
    std::string s = outcome_name(e.outcome);
    if (e.correct() && e.noisy) s += " noisy";
    if (e.cut_short) s += " cut short";
    for (const auto& n : e.notes) s += std::string(" +") + note_info(n.kind).marker;
    return s;
  }

  // A plot per group, when there are several (one group's figures are the table's and the run's).
  void breakdown_chart(const std::string& title, const std::vector<GroupMetrics>& groups, const std::string& caption) {
    if (groups.size() < 2) return;
    json g = json::array();
    for (const auto& x : groups)
      g.push_back({{"name", x.name}, {"tasks", x.metrics.tasks}, {"samples", x.metrics.samples}, {"correct", x.metrics.correct_at_k},
                   {"fast", x.metrics.fast.at("1.0")}, {"significant", x.metrics.fast_significant.at("1.0")},
                   {"geomean", x.metrics.geomean_speedup}});
    chart("breakdown", title, {{"groups", g}}, escape_html(caption + " Correct@1, Fast@1.0 and Fast@1.0 significant as shares of the group's tasks."));
  }

  void breakdown_table(const std::string& what, const std::vector<GroupMetrics>& groups) {
    out_ += fmt::format("<details><summary>Metrics per {} (table)</summary><table class=\"sortable\"><thead><tr><th>{}</th>"
                        "<th class=\"num\">tasks</th><th class=\"num\">samples</th><th class=\"num\">Compile@1</th><th class=\"num\">Correct@1</th>"
                        "<th class=\"num\">Fast@1.0</th><th class=\"num\">signif.</th><th class=\"num\">geomean</th><th>failures</th></tr></thead><tbody>",
                        escape_html(what), escape_html(what));
    for (const auto& g : groups) {
      const Metrics& m = g.metrics;
      out_ += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td>"
                          "<td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td>"
                          "<td class=\"num\" data-sort=\"{}\">{}</td><td>{}</td></tr>",
                          escape_html(g.name), m.tasks, m.samples, num(m.compile_at_k), pct(m.compile_at_k), num(m.correct_at_k), pct(m.correct_at_k),
                          num(m.fast.at("1.0")), pct(m.fast.at("1.0")), num(m.fast_significant.at("1.0")), pct(m.fast_significant.at("1.0")),
                          num(m.geomean_speedup), times(m.geomean_speedup), failures(m));
    }
    out_ += "</tbody></table></details>\n";
  }

  void speedup_charts(const RunSummary& s) {
    std::vector<const AttemptRecord*> ok;
    for (const auto& a : s.attempts)
      if (a.eval.correct() && a.eval.speedup > 0) ok.push_back(&a);
    if (ok.empty()) {
      out_ += "<p class=\"notes\">No correct attempt: no speedups to plot.</p>\n";
      return;
    }
    // Quarter-octave bins (edges 2^(k/4)), 1x an edge.
    int lo = 1 << 30, hi = -(1 << 30);
    for (const auto* a : ok) {
      int k = static_cast<int>(std::floor(4 * std::log2(a->eval.speedup)));
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
    json bins = json::array();
    for (int k = lo; k <= hi; ++k) {
      int n = 0;
      for (const auto* a : ok) n += static_cast<int>(std::floor(4 * std::log2(a->eval.speedup))) == k;
      bins.push_back({{"lo", std::exp2(k / 4.0)}, {"hi", std::exp2((k + 1) / 4.0)}, {"count", n}});
    }
    chart("histogram", "Distribution of speedups", {{"bins", bins}},
          escape_html(fmt::format("{} correct attempt{} (failures have no speedup: {} of {} attempts failed); bins a quarter octave wide.",
                                  ok.size(), ok.size() == 1 ? "" : "s", s.attempts.size() - ok.size(), s.attempts.size())));
    std::sort(ok.begin(), ok.end(), [](const AttemptRecord* a, const AttemptRecord* b) { return a->eval.speedup < b->eval.speedup; });
    bool samples = s.metrics.samples > s.metrics.tasks;
    json rows = json::array();
    for (const auto* a : ok)
      rows.push_back({{"label", samples ? fmt::format("{} s{}", a->task, a->sample) : a->task}, {"speedup", a->eval.speedup},
                      {"lo", a->eval.speedup_lo}, {"hi", a->eval.speedup_hi}, {"noisy", a->eval.noisy}});
    chart("speedups", "Speedups with their 95% intervals", {{"rows", rows}},
          escape_html(fmt::format("Each correct attempt, sorted: the speedup (dot) and its 95% interval from a paired bootstrap over the "
                                  "timing rounds (bar; orange when noisy, wider than \u00b15%){}.",
                                  s.what.quick ? "; quick timing: a few calls per side, so wide intervals" : "")));
  }

  void trajectory_chart(const RunSummary& s) {
    json tasks = json::array();
    int failed = 0, steps = 0;
    for (const auto& [key, t] : d_.trajectories) {
      if (key.first != s.run.id) continue;
      json pts = json::array();
      for (const auto& st : t.steps) {
        ++steps;
        if (!st.eval.correct() || st.eval.speedup <= 0) {
          ++failed;
          continue;
        }
        pts.push_back({{"step", st.step}, {"speedup", st.eval.speedup}, {"layer", step_layer(st)}, {"accepted", st.accepted},
                       {"action", st.action.substr(0, 120)}});
      }
      tasks.push_back({{"task", key.second}, {"points", pts}});
    }
    if (tasks.empty()) return;
    std::string legend = "<span class=\"legend\">";
    for (const auto& [name, colour] : std::vector<std::pair<const char*, const char*>>{
             {"start", "#555555"}, {"L0 compute", "#9467bd"}, {"L1 schedule", "#1f77b4"}, {"L2 memory", "#ff7f0e"}, {"raw source", "#2ca02c"}, {"confirmation", "#000000"}})
      legend += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", colour, name);
    legend += "</span>";
    chart("trajectory", "Speedup over the steps of each task's search", {{"tasks", tasks}},
          legend + "<br>" + escape_html(fmt::format("One line per task; filled points are the steps kept. {} of {} steps failed and are not plotted "
                                           "(the search table lists them).",
                                           failed, steps)));
  }

  void attempt_row(const RunSummary& s, const AttemptRecord& a) {
    const Evaluation& e = a.eval;
    const TaskEntry& t = d_.tasks.at(a.task);
    const CandidateProgram& p = d_.programs.at({a.task, a.candidate_hash});
    std::string what = e.correct() ? "correct" : "failed";
    if (e.correct() && e.noisy) what += " noisy";
    if (e.significantly_faster(1.0)) what += " significant";
    if (!e.notes.empty()) what += " noted";
    std::string links = fmt::format("<a href=\"#{}\">task</a>", task_anchor(a.task));
    if (p.source == ProgramSource::suite_task) links += fmt::format(" \u00b7 <a href=\"#{}\" title=\"{}\">code</a>", task_anchor(a.task), escape_html(p.origin));
    else links += fmt::format(" \u00b7 <a href=\"#{}\" title=\"{}\">code{}</a>", code_anchor(a.task, a.candidate_hash), escape_html(p.origin),
                              p.source == ProgramSource::missing ? " (not kept)" : "");
    if (std::optional<int64_t> search = search_of(d_, s, a.task))
      links += fmt::format(" \u00b7 <a href=\"#{}\">search</a>", traj_anchor(*search, a.task));
    std::string memory = e.correct() || e.candidate_memory
                             ? mib(e.candidate_memory) + (s.memory.budget ? fmt::format(" ({:.1f}%)", 100.0 * e.candidate_memory / s.memory.budget) : "")
                             : "-";
    std::string text = a.task + " " + t.category + " " + t.domain + " " + outcome_name(e.outcome);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out_ += fmt::format(
        "<tr class=\"{}\" data-run=\"{}\" data-what=\"{}\" data-text=\"{}\"><td data-sort=\"{}\"><a href=\"#{}\">{}</a></td><td>{}</td>"
        "<td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"status\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td><td>{}</td>"
        "<td class=\"msg\">{}</td></tr>\n",
        e.correct() ? "correct" : "failed", s.run.id, what, escape_html(text), s.run.id, run_anchor(s.run.id), s.run.id, escape_html(a.task), a.sample,
        escape_html(t.category), escape_html(t.domain), escape_html(status_text(e)), e.correct() ? num(e.speedup) : "0",
        e.correct() ? times(e.speedup) : "-", e.correct() ? fmt::format("[{:.3f}, {:.3f}]", e.speedup_lo, e.speedup_hi) : "-",
        e.correct() ? num(e.candidate.median) : "", e.correct() ? ms(e.candidate.median) : "-", e.correct() ? num(e.baseline.median) : "",
        e.correct() ? ms(e.baseline.median) : "-", num(static_cast<double>(e.candidate_memory)), escape_html(memory), links,
        message_cell(e));
  }

  // A failure's message, then each note (its kind's marker and its text), one per line.
  static std::string message_cell(const Evaluation& e) {
    std::string cell = escape_html(e.correct() ? "" : e.message.substr(0, 300));
    for (const auto& n : e.notes)
      cell += fmt::format("{}<span class=\"note\" data-note=\"{}\">note (+{}): {}</span>", cell.empty() ? "" : "<br>", note_info(n.kind).name,
                          note_info(n.kind).marker, escape_html(n.text));
    return cell;
  }
};

}  // namespace

HtmlReport html_report(const ReportData& d, const std::string& title) {
  Page page(d);
  std::vector<RankedRun> ranked = rank_runs(d.selection.runs);
  page.header(title);
  page.leaderboard(ranked);
  page.all_runs();
  for (const auto& r : ranked) page.run_section(*r.run);
  page.attempts_table();
  page.searches();
  page.codes();
  page.task_texts();
  page.out() += "<footer>Made by <code>ekb report</code>. Plots drawn by Chart.js (Debian's libjs-chart.js, MIT license), inlined with "
                "the page's script and style: the page fetches nothing.</footer>\n";

  HtmlReport r;
  r.charts = page.charts();
  r.html = fmt::format("<!DOCTYPE html>\n<html lang=\"en\" data-errors=\"0\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n"
                       "<script>\n{}\n</script>\n<style>\n{}\n</style>\n</head>\n<body data-charts=\"{}\">\n",
                       kPolicy, escape_html(title), assets::kErrorCaptureJs, assets::kReportCss, r.charts);
  r.html += page.out();
  r.html += "<script type=\"application/json\" id=\"ekb-data\">" + json_for_script({{"charts", page.specs()}}) + "</script>\n";
  r.html += "<script>\n";
  r.html += assets::kChartJs;
  r.html += "\n</script>\n<script>\n";
  r.html += assets::kReportJs;
  r.html += "\n</script>\n</body>\n</html>\n";
  return r;
}

}  // namespace ekb::report
