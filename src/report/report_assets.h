// The texts the HTML report inlines, embedded into ekb at build time (cmake/embed_assets.cmake):
// Chart.js from Debian's libjs-chart.js, and the page's own script, error capture and style
// (src/report/assets/).
#pragma once

namespace ekb::report::assets {

extern const char* const kChartJs;       // /usr/share/javascript/chart.js/chart.min.js (MIT license, its header kept)
extern const char* const kReportJs;      // assets/report.js
extern const char* const kErrorCaptureJs;  // assets/error_capture.js
extern const char* const kReportCss;     // assets/report.css

}  // namespace ekb::report::assets
