/* global window, document, navigator, fetch, URLSearchParams -- a browser script */
// Folio click beacon: POSTs `type`, `id` and `kind` to /clicks/record (a form body, which needs no
// CORS preflight) with navigator.sendBeacon, so a click that leaves the page is still counted.
// - the script's own data-type / data-id / data-kind: one event when the page loads (a view);
// - any element with data-folio-click="<kind>" data-folio-type="<type>" data-folio-id="<id>": one
//   event per click (outbound link clicks, likes, favourites).
(function () {
  'use strict';
  var endpoint = '/clicks/record';

  function send(type, id, kind) {
    if (!type || !id) return;
    var body = new URLSearchParams({ type: String(type), id: String(id), kind: String(kind || 'view') });
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(endpoint, body)) return;
    } catch {
      // fall through to fetch
    }
    if (window.fetch) {
      fetch(endpoint, { method: 'POST', body: body, credentials: 'same-origin', keepalive: true }).catch(
        function () {},
      );
    }
  }

  var script = document.currentScript;
  if (script && script.dataset && script.dataset.id) {
    send(script.dataset.type || 'post', script.dataset.id, script.dataset.kind || 'view');
  }

  // One listener per page, however many times the script is included.
  if (window.__folioClicks) return;
  window.__folioClicks = true;
  document.addEventListener(
    'click',
    function (event) {
      var target = event.target;
      var element = target && target.closest ? target.closest('[data-folio-click]') : null;
      if (!element) return;
      send(
        element.getAttribute('data-folio-type') || 'link',
        element.getAttribute('data-folio-id'),
        element.getAttribute('data-folio-click') || 'click',
      );
    },
    true,
  );
})();
