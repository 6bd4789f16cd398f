// Runs first in the HTML report's <head>: records every error the page meets — an uncaught
// exception, a rejected promise, console.error and console.warn, a load the page's policy blocked
// (the report fetches nothing) — into <html data-errors> and the #ekb-errors list, so that a reader
// and the browser test both see them.
(function () {
  'use strict';
  var root = document.documentElement, errors = [];
  function show() {
    root.setAttribute('data-errors', String(errors.length));
    var list = document.getElementById('ekb-errors');
    if (!list) return;
    list.hidden = errors.length === 0;
    while (list.children.length < errors.length) {
      var li = document.createElement('li');
      li.textContent = errors[list.children.length];
      list.appendChild(li);
    }
  }
  function record(what) { errors.push(what); show(); }
  window.addEventListener('error', function (e) {
    if (e.target && e.target !== window && e.target.tagName) record('could not load ' + e.target.tagName.toLowerCase() + ' ' + (e.target.src || e.target.href || ''));
    else record('error: ' + e.message + (e.filename ? ' (' + e.filename.split('/').pop() + ':' + e.lineno + ')' : ''));
  }, true);
  window.addEventListener('unhandledrejection', function (e) { record('unhandled rejection: ' + e.reason); });
  document.addEventListener('securitypolicyviolation', function (e) { record('blocked by the page policy (nothing is fetched): ' + e.blockedURI + ' (' + e.violatedDirective + ')'); });
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      record('console.' + level + ': ' + Array.prototype.map.call(arguments, String).join(' '));
      return original.apply(console, arguments);
    };
  });
  document.addEventListener('DOMContentLoaded', show);
  show();
})();
