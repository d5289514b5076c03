// MkDocs-material Markdown in the kbook theme: linked content tabs,
// highlighted code lines (hl_lines), and mermaid diagrams drawn by the
// site's own copy of mermaid, loaded only on pages that have one.
(function () {
  "use strict";

  // Linked tabs: choosing a label selects the tab of the same label in
  // every tab set of the page (pymdownx.tabbed + content.tabs.link).
  document.addEventListener("change", function (e) {
    var input = e.target;
    if (!input.matches || !input.matches(".tabbed-set > input")) return;
    var label = document.querySelector('label[for="' + input.id + '"]');
    if (!label) return;
    var text = label.textContent.trim();
    document.querySelectorAll(".tabbed-labels > label").forEach(function (l) {
      if (l === label || l.textContent.trim() !== text) return;
      var other = document.getElementById(l.getAttribute("for"));
      if (other && !other.checked) other.checked = true;
    });
  });

  // hl_lines="2 4-6": the lines of the code block, counted from 1.
  document.querySelectorAll(".md-code[data-hl-lines]").forEach(function (box) {
    var lines = box.querySelectorAll("pre code > span");
    box.getAttribute("data-hl-lines").split(/[\s,]+/).forEach(function (r) {
      var ab = r.split("-"), a = parseInt(ab[0], 10), b = parseInt(ab[1] || ab[0], 10);
      for (var i = a; i <= b && i <= lines.length; i++) if (i > 0) lines[i - 1].classList.add("md-hl");
    });
  });

  // Mermaid: the site serves its own copy at <root>js/mermaid.min.js.
  var diagrams = document.querySelectorAll("pre.mermaid");
  if (!diagrams.length) return;
  var m = document.querySelector('meta[name="kbook-root"]');
  var root = (m && m.content) || "/";
  var s = document.createElement("script");
  s.src = root + "js/mermaid.min.js";
  s.onload = function () {
    if (!window.mermaid) return;
    var dark = document.documentElement.classList.contains("dark");
    window.mermaid.initialize({ startOnLoad: false, theme: dark ? "dark" : "default", securityLevel: "strict" });
    // material's <pre class="mermaid"><code>: mermaid reads the
    // element's HTML, so keep only the text of the diagram.
    diagrams.forEach(function (d) { d.textContent = d.textContent; });
    window.mermaid.run({ nodes: diagrams });
  };
  document.head.appendChild(s);
})();
