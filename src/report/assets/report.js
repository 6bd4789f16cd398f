// The HTML report's own script (ekb report; embedded at build time, run in the page after Chart.js):
// draws every plot the page declares from the data block #ekb-data, marks each canvas rendered
// only once Chart.js has drawn it (and it holds pixels), sorts and filters the tables, and opens a
// collapsed section a link points into. Errors are recorded by the capture script in <head>.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('ekb-data').textContent);
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  var LAYER_COLORS = { start: '#555555', L0: '#9467bd', L1: '#1f77b4', L2: '#ff7f0e', raw: '#2ca02c', confirm: '#000000' };
  function color(i) { return PALETTE[i % PALETTE.length]; }
  function pct(v) { return (100 * v).toFixed(1) + '%'; }
  function times(v) { return v.toFixed(v < 10 ? 3 : 1) + '\u00d7'; }

  // A chart counts as rendered when Chart.js has drawn it and its canvas holds drawn pixels.
  Chart.register({
    id: 'ekbRendered',
    afterRender: function (chart) {
      var c = chart.canvas, w = c.width, h = c.height, n = 0;
      if (w > 0 && h > 0) {
        var px = c.getContext('2d').getImageData(0, 0, w, h).data;
        for (var i = 3; i < px.length; i += 4 * 7) if (px[i] !== 0) n++;
      }
      c.setAttribute('data-pixels', String(n));
      if (n > 0) c.setAttribute('data-rendered', 'yes');
    }
  });
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = 'system-ui, sans-serif';
  Chart.defaults.font.size = 11;

  function percentAxis(title) {
    return { min: 0, max: 1, title: { display: true, text: title }, ticks: { callback: function (v) { return Math.round(100 * v) + '%'; } } };
  }
  function logAxis(title) {
    return { type: 'logarithmic', title: { display: true, text: title },
             ticks: { callback: function (v, i, ticks) {
               // The 1-2-5 ticks; within a decade every tick but the axis's ends (which would crowd them).
               var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
               var round = [1, 2, 5].some(function (k) { return Math.abs(m - k) < 1e-6; });
               var end = i === 0 || i === ticks.length - 1;
               return round || (this.max / this.min < 10 && !end) ? +v.toPrecision(3) + '\u00d7' : ''; } } };
  }

  var builders = {
    // Fast@p over p, per run: strict (solid) and significant (dashed).
    fast_curve: function (d) {
      var sets = [], xmax = 0;
      d.series.forEach(function (s, i) {
        var strict = [], sig = [];
        s.points.forEach(function (p) { strict.push({ x: p[0], y: p[1] }); sig.push({ x: p[0], y: p[2] }); xmax = Math.max(xmax, p[0]); });
        sets.push({ label: s.label + ' strict', data: strict, borderColor: color(i), backgroundColor: color(i), stepped: true, pointRadius: 0, borderWidth: 2 });
        sets.push({ label: s.label + ' significant', data: sig, borderColor: color(i), backgroundColor: color(i), stepped: true, pointRadius: 0, borderWidth: 2, borderDash: [6, 4] });
      });
      return { type: 'line', data: { datasets: sets },
               options: { parsing: true, scales: { x: { type: 'linear', min: 0, max: Math.min(xmax, d.x_max), title: { display: true, text: 'p (speedup threshold)' } },
                                                   y: percentAxis('Fast@p (share of tasks)') },
                          plugins: { tooltip: { callbacks: { label: function (c) { return c.dataset.label + ': ' + pct(c.parsed.y) + ' at p = ' + c.parsed.x.toFixed(3); } } } } } };
    },
    // The speedups of correct attempts in quarter-octave bins.
    histogram: function (d) {
      return { type: 'bar', data: { labels: d.bins.map(function (b) { return b.lo.toFixed(2) + '\u2013' + b.hi.toFixed(2) + '\u00d7'; }),
                                    datasets: [{ label: 'correct attempts', data: d.bins.map(function (b) { return b.count; }),
                                                 backgroundColor: d.bins.map(function (b) { return b.hi <= 1 ? '#d62728' : b.lo >= 1 ? '#2ca02c' : '#7f7f7f'; }),
                                                 barPercentage: 1.0, categoryPercentage: 1.0 }] },
               options: { plugins: { legend: { display: false } },
                          scales: { x: { title: { display: true, text: 'speedup over the baseline (log-spaced bins; red below 1\u00d7, green above)' } },
                                    y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'attempts' } } } } };
    },
    // Each correct attempt's speedup with its 95% interval, sorted; noisy ones in orange.
    speedups: function (d) {
      var labels = d.rows.map(function (r) { return r.label; });
      var lo = Math.min.apply(null, d.rows.map(function (r) { return Math.min(r.lo > 0 ? r.lo : r.speedup, r.speedup); }));
      var hi = Math.max.apply(null, d.rows.map(function (r) { return Math.max(r.hi, r.speedup); }));
      var y = logAxis('speedup (log scale)');
      y.min = lo / 1.15;
      y.max = hi * 1.15;
      return { type: 'bar', data: { labels: labels, datasets: [
                 { type: 'bar', label: '95% interval', data: d.rows.map(function (r) { return [r.lo > 0 ? r.lo : y.min, r.hi]; }),
                   backgroundColor: d.rows.map(function (r) { return r.noisy ? 'rgba(255,127,14,0.55)' : 'rgba(31,119,180,0.35)'; }), minBarLength: 2 },
                 { type: 'scatter', label: 'speedup (median of rounds)', data: d.rows.map(function (r, i) { return { x: labels[i], y: r.speedup }; }),
                   backgroundColor: '#000', pointRadius: 2 }] },
               options: { scales: { x: { ticks: { autoSkip: true, maxRotation: 60 } }, y: y },
                          plugins: { tooltip: { callbacks: { label: function (c) { var r = d.rows[c.dataIndex];
                            return r.label + ': ' + times(r.speedup) + ' [' + times(r.lo) + ', ' + times(r.hi) + ']' + (r.noisy ? ' noisy' : ''); } } } } } };
    },
    // Metrics per group (category, domain, backend, device profile).
    breakdown: function (d) {
      var names = ['Correct@1', 'Fast@1.0', 'Fast@1.0 significant'], keys = ['correct', 'fast', 'significant'];
      return { type: 'bar', data: { labels: d.groups.map(function (g) { return g.name; }),
                                    datasets: keys.map(function (k, i) { return { label: names[i], data: d.groups.map(function (g) { return g[k]; }), backgroundColor: color(i === 0 ? 2 : i === 1 ? 0 : 3) }; }) },
               options: { scales: { y: percentAxis('share of tasks'), x: { ticks: { autoSkip: false, maxRotation: 60 } } },
                          plugins: { tooltip: { callbacks: { afterLabel: function (c) { var g = d.groups[c.dataIndex];
                            return g.tasks + ' tasks, ' + g.samples + ' samples, geomean ' + (g.geomean > 0 ? times(g.geomean) : '-'); } } } } } };
    },
    // An agent run: each task's measured steps (speedup over the baseline), points coloured by layer,
    // accepted steps filled and larger.
    trajectory: function (d) {
      var sets = d.tasks.map(function (t, i) {
        var pts = t.points.map(function (p) { return { x: p.step, y: p.speedup }; });
        return { label: t.task, data: pts, showLine: true, borderColor: 'rgba(120,120,120,0.45)', borderWidth: 1,
                 pointBackgroundColor: t.points.map(function (p) { return p.accepted ? (LAYER_COLORS[p.layer] || '#17becf') : '#ffffff'; }),
                 pointBorderColor: t.points.map(function (p) { return LAYER_COLORS[p.layer] || '#17becf'; }),
                 pointRadius: t.points.map(function (p) { return p.accepted ? 5 : 3; }), pointBorderWidth: 1.5 };
      });
      return { type: 'scatter', data: { datasets: sets },
               options: { scales: { x: { title: { display: true, text: 'step of the search' }, ticks: { precision: 0 } }, y: logAxis('speedup over the baseline (log scale)') },
                          plugins: { legend: { display: d.tasks.length <= 12 },
                                     tooltip: { callbacks: { label: function (c) { var p = d.tasks[c.datasetIndex].points[c.dataIndex];
                                       return d.tasks[c.datasetIndex].task + ' step ' + p.step + ' (' + p.layer + ') ' + p.action + ': ' + times(p.speedup) + (p.accepted ? ' accepted' : ''); } } } } } };
    }
  };

  data.charts.forEach(function (spec) {
    var canvas = document.getElementById(spec.id);
    if (!canvas) throw new Error('no canvas #' + spec.id + ' for a ' + spec.kind + ' chart');
    var build = builders[spec.kind];
    if (!build) throw new Error('no chart kind ' + spec.kind);
    new Chart(canvas, build(spec.data));
  });

  // Tables: a click on a heading sorts by its column (data-sort values first), again reverses.
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var asc = th.getAttribute('data-dir') !== 'asc';
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute('data-dir'); });
        th.setAttribute('data-dir', asc ? 'asc' : 'desc');
        function value(row) { var c = row.cells[col], v = c.getAttribute('data-sort'); return v !== null ? v : c.textContent.trim(); }
        rows.sort(function (a, b) {
          var x = value(a), y = value(b), nx = Number(x), ny = Number(y);
          var r = x !== '' && y !== '' && isFinite(nx) && isFinite(ny) ? nx - ny : x.localeCompare(y);
          return asc ? r : -r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  // The attempts' filter: text (task, category, domain, status), run, and what became of them.
  var filter = document.getElementById('attempt-filter');
  if (filter) {
    var text = filter.querySelector('input'), run = filter.querySelector('select[name=run]'), what = filter.querySelector('select[name=what]');
    var count = document.getElementById('attempt-count'), rows = document.querySelectorAll('#attempts-table tbody tr');
    var apply = function () {
      var q = text.value.trim().toLowerCase(), shown = 0;
      Array.prototype.forEach.call(rows, function (r) {
        var ok = (!q || r.getAttribute('data-text').indexOf(q) >= 0) && (run.value === '' || r.getAttribute('data-run') === run.value) &&
                 (what.value === '' || r.getAttribute('data-what').split(' ').indexOf(what.value) >= 0);
        r.hidden = !ok;
        shown += ok;
      });
      count.textContent = shown + ' of ' + rows.length + ' attempts shown';
    };
    [text, run, what].forEach(function (e) { e.addEventListener('input', apply); e.addEventListener('change', apply); });
    apply();
  }

  // A link into a collapsed section opens it (and the sections around it).
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1)), el = id && document.getElementById(id);
    for (var e = el; e; e = e.parentElement) if (e.tagName === 'DETAILS') e.open = true;
    if (el) el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();

  document.documentElement.setAttribute('data-script-done', 'yes');
})();
