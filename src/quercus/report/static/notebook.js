/* quercus in a notebook: the report's tree view (report.js, as it is) drawn in a shadow root
   of this output's element, where neither the notebook's style nor another output's
   elements (which have the same ids) reach it. report.js finds its elements through
   `document`: here, an object that asks the shadow root. Where no script runs, the element
   keeps the tree as text. */
(function () {
  "use strict";
  var page = window.document;
  var tries = 0;

  function draw() {
    var host = page.getElementById("@ID@");
    if (!host) {
      // A front end may run the script before it puts the output in the page.
      if (++tries < 100) setTimeout(draw, 20);
      return;
    }
    if (host.shadowRoot || !host.attachShadow) return;
    var shadow = host.attachShadow({ mode: "open" });
    shadow.innerHTML = @CONTENT@;
    run(shadow);
  }

  function run(shadow) {
    var document = {
      getElementById: function (id) { return shadow.getElementById(id); },
      querySelector: function (selector) { return shadow.querySelector(selector); },
      querySelectorAll: function (selector) { return shadow.querySelectorAll(selector); },
      createElement: function (tag) { return page.createElement(tag); },
      createTextNode: function (text) { return page.createTextNode(text); }
    };
@SCRIPT@
  }

  draw();
})();
