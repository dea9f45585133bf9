// Keeps what the browser reports as an error (script errors, unhandled
// promise rejections, console.error, resources the page's
// Content-Security-Policy refused) in the data-errors attribute of the
// page, where the report's tests read it.
(function () {
  'use strict';
  var errs = [];
  var root = document.documentElement;
  root.setAttribute('data-errors', '[]');
  function note(m) {
    errs.push(String(m));
    root.setAttribute('data-errors', JSON.stringify(errs));
  }
  window.addEventListener('error', function (e) {
    var t = e.target;
    note(e.message || (t && (t.src || t.href) ? 'failed to load ' + (t.src || t.href) : 'error'));
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    note('unhandled rejection: ' + (e.reason && e.reason.message ? e.reason.message : e.reason));
  });
  document.addEventListener('securitypolicyviolation', function (e) {
    note('blocked by the page\'s Content-Security-Policy: ' + e.violatedDirective + ' ' + e.blockedURI);
  });
  var ce = console.error;
  console.error = function () {
    note(Array.prototype.join.call(arguments, ' '));
    return ce.apply(console, arguments);
  };
})();
