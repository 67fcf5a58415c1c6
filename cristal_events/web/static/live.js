// The web table's live view: /events says the log's last position each time it moves; each part of
// the page (hx-trigger="cristal-event from:body") is then fetched again by htmx.
(function () {
  "use strict";
  var shown = document.body.getAttribute("data-position");
  function connect() {
    var source = new EventSource("/events");
    source.addEventListener("append", function (e) {
      if (e.data !== shown) {
        shown = e.data;
        document.body.setAttribute("data-position", shown);
        document.body.dispatchEvent(new CustomEvent("cristal-event", { detail: { position: shown } }));
      }
    });
    source.onerror = function () {
      document.body.classList.add("offline");
      source.close();
      setTimeout(connect, 1000);
    };
    source.onopen = function () { document.body.classList.remove("offline"); };
  }
  document.body.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (form.tagName === "FORM" && e.detail.successful && form.hasAttribute("data-reset")) { form.reset(); }
  });
  connect();
})();
