// The HTML report (`ekb report`): one self-contained page (Chart.js, the page's script and style
// inlined; a Content-Security-Policy that lets it fetch nothing) with the leaderboard, a summary and
// plots per run, the attempts in a sortable, filterable table whose rows link to the task's text,
// the candidate's code and the search that made it, and those texts, codes and searches. Every plot
// is a <canvas data-chart> the page's script marks data-rendered="yes" once Chart.js has drawn it;
// errors the page meets are listed in it and counted in <html data-errors> (assets/error_capture.js).
#pragma once
#include <string>

#include "report/report_data.h"

namespace ekb::report {

struct HtmlReport {
  std::string html;
  int charts = 0;  // the plots the page declares (also <body data-charts>)
};

HtmlReport html_report(const ReportData& d, const std::string& title = "ekb report");

}  // namespace ekb::report
