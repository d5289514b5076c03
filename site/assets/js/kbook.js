// kbook docs theme: dark mode, navigation, copy buttons, versions, search
// and live reload. No dependencies; everything is served with the site.
(function () {
  "use strict";
  var doc = document.documentElement;
  function meta(name) { var m = document.querySelector('meta[name="' + name + '"]'); return m ? m.content : ""; }
  // Every URL of the site is relative to its page, so that the same
  // output works at a server's root, under a subpath and from file://;
  // root is the site root as an absolute URL (a 404 page's <base> is its
  // version folder at the deploy path).
  var root = new URL(meta("kbook-root") || "./", document.baseURI).href;
  var fileMode = location.protocol === "file:";
  var version = meta("kbook-version");
  var defaultAlias = meta("kbook-default");
  var pagePath = meta("kbook-path");
  function $(id) { return document.getElementById(id); }

  // From file:// a link to a folder opens a folder listing: the links
  // of the page (and those the scripts add, fixed when clicked) name the
  // folder's index.html there.
  function fileHref(h) {
    var m = /^([^?#]*)(.*)$/.exec(h);
    return /\/$/.test(m[1]) ? m[1] + "index.html" + m[2] : h;
  }
  function fixLink(a) {
    if (a.protocol !== "file:") return;
    var f = fileHref(a.href);
    if (f !== a.href) a.href = f;
  }
  function go(url) { location.href = fileMode ? fileHref(url) : url; }
  if (fileMode) {
    Array.prototype.forEach.call(document.querySelectorAll("a[href]"), fixLink);
    document.addEventListener("click", function (e) { var a = e.target.closest && e.target.closest("a[href]"); if (a) fixLink(a); }, true);
  }
  // A 404 page has a <base>: its #fragment links stay on the page.
  if (document.querySelector("base")) {
    Array.prototype.forEach.call(document.querySelectorAll('a[href^="#"]'), function (a) { a.href = location.href.split("#")[0] + a.getAttribute("href"); });
  }

  // Dark mode: the system's choice until the reader picks one.
  var themeBtn = $("kb-theme");
  if (themeBtn) {
    themeBtn.setAttribute("aria-pressed", doc.classList.contains("dark") ? "true" : "false");
    themeBtn.addEventListener("click", function () {
      var dark = !doc.classList.contains("dark");
      doc.classList.toggle("dark", dark);
      themeBtn.setAttribute("aria-pressed", dark ? "true" : "false");
      try { localStorage.setItem("kbook-theme", dark ? "dark" : "light"); } catch (e) {}
    });
  }
  if (window.matchMedia) {
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", function (e) {
      try { if (localStorage.getItem("kbook-theme")) return; } catch (x) {}
      doc.classList.toggle("dark", e.matches);
    });
  }

  // Mobile navigation.
  var menu = $("kb-menu"), scrim = $("kb-scrim");
  function setNav(open) {
    document.body.classList.toggle("kb-nav-open", open);
    if (menu) menu.setAttribute("aria-expanded", open ? "true" : "false");
    if (scrim) scrim.hidden = !open;
  }
  if (menu) menu.addEventListener("click", function () { setNav(!document.body.classList.contains("kb-nav-open")); });
  if (scrim) scrim.addEventListener("click", function () { setNav(false); });

  // Sidebar sections open and close with their toggle button.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest(".kb-nav-toggle");
    if (!b) return;
    var open = b.getAttribute("aria-expanded") !== "true";
    b.setAttribute("aria-expanded", open ? "true" : "false");
    var sub = document.getElementById(b.getAttribute("aria-controls"));
    if (sub) sub.hidden = !open;
  });

  // Copy buttons copy data-copy: for a runbook step, its commands only.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest(".kb-copy");
    if (!b) return;
    var text = b.getAttribute("data-copy") || "";
    var done = function () {
      b.classList.add("kb-copied"); b.textContent = "Copied";
      setTimeout(function () { b.classList.remove("kb-copied"); b.textContent = "Copy"; }, 1500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else { fallbackCopy(text); done(); }
  });
  function fallbackCopy(text) {
    var t = document.createElement("textarea");
    t.value = text; t.setAttribute("readonly", ""); t.style.position = "fixed"; t.style.opacity = "0";
    document.body.appendChild(t); t.select();
    try { document.execCommand("copy"); } catch (e) {}
    document.body.removeChild(t);
  }

  // The table of contents follows the reading position.
  var tocLinks = document.querySelectorAll(".kb-toc a");
  if (tocLinks.length && "IntersectionObserver" in window) {
    var byId = {};
    tocLinks.forEach(function (a) { byId[decodeURIComponent(a.hash.slice(1))] = a; });
    var io = new IntersectionObserver(function (entries) {
      entries.forEach(function (en) {
        if (!en.isIntersecting) return;
        tocLinks.forEach(function (a) { a.classList.remove("kb-here"); });
        var a = byId[en.target.id]; if (a) a.classList.add("kb-here");
      });
    }, { rootMargin: "0px 0px -70% 0px" });
    Object.keys(byId).forEach(function (id) { var h = document.getElementById(id); if (h) io.observe(h); });
  }

  // Versions: versions.json (mike's format) at the site root. A browser
  // reads no file from a file:// page: there the versions are those the
  // switcher was built with (the ones built with this one).
  var versions = null;
  function loadVersions() {
    if (!versions && fileMode) {
      versions = Promise.resolve([]);
    }
    if (!versions) {
      versions = fetch(root + "versions.json", { cache: "no-cache" }).then(function (r) { return r.ok ? r.json() : []; }).catch(function () { return []; });
    }
    return versions;
  }
  function defaultOf(list) {
    for (var i = 0; i < list.length; i++) if ((list[i].aliases || []).indexOf(defaultAlias) >= 0) return { v: list[i], folder: defaultAlias };
    for (var j = 0; j < list.length; j++) if (list[j].version !== "next") return { v: list[j], folder: list[j].version };
    return list.length ? { v: list[0], folder: list[0].version } : null;
  }
  function exists(url) {
    if (fileMode) return Promise.resolve(true); // not knowable: the browser shows a missing file
    return fetch(url, { method: "HEAD", cache: "no-cache" }).then(function (r) { return r.ok; }).catch(function () { return false; });
  }
  var sel = $("kb-versions");
  loadVersions().then(function (list) {
    if (!list.length) return;
    if (sel) {
      var have = {};
      Array.prototype.forEach.call(sel.options, function (o) { have[o.value] = o; });
      list.forEach(function (e) {
        var o = have[e.version];
        if (!o) { o = document.createElement("option"); o.value = e.version; sel.appendChild(o); }
        o.textContent = e.title + ((e.aliases || []).length ? " (" + e.aliases.join(", ") + ")" : "");
      });
      // Keep the list's order: the newest first.
      list.forEach(function (e) { Array.prototype.forEach.call(sel.options, function (o) { if (o.value === e.version) sel.appendChild(o); }); });
      sel.value = version;
    }
    var d = defaultOf(list);
    var banner = $("kb-banner");
    if (d && banner && d.v.version !== version) {
      var target = root + d.folder + "/" + pagePath;
      var label = d.v.title || d.v.version;
      banner.innerHTML = (version === "next"
        ? "You are reading the unreleased documentation (<strong>next</strong>). "
        : "You are reading the documentation of <strong>" + esc(version) + "</strong>, an older version. ") +
        '<a href="' + esc(target) + '" id="kb-banner-link">Read this page in ' + esc(label) + "</a>.";
      banner.hidden = false;
      exists(target).then(function (ok) { if (!ok) { var l = $("kb-banner-link"); if (l) { l.href = root + d.folder + "/"; l.textContent = "Go to " + label; } } });
    }
    var nf = $("kb-elsewhere-list");
    if (nf) {
      var here = location.href.split(/[?#]/)[0];
      var rest = here.indexOf(root) === 0 ? here.slice(root.length).split("/").slice(1).join("/") : "";
      list.forEach(function (e) {
        if (e.version === version) return;
        var url = root + e.version + "/" + rest;
        exists(url).then(function (ok) {
          if (!ok) return;
          var li = document.createElement("li");
          li.innerHTML = '<a href="' + esc(url) + '">' + esc(e.title || e.version) + "</a>";
          nf.appendChild(li); $("kb-elsewhere").hidden = false;
        });
      });
    }
  });
  if (sel) {
    sel.addEventListener("change", function () {
      var v = sel.value, opt = sel.options[sel.selectedIndex];
      if (v === version) return;
      var href = opt && opt.getAttribute("data-href");
      var target = href ? new URL(href, document.baseURI).href : root + v + "/" + pagePath;
      exists(target).then(function (ok) {
        if (ok) { go(target + location.hash); return; }
        var banner = $("kb-banner");
        banner.innerHTML = "This page does not exist in <strong>" + esc(v) + '</strong>. <a href="' + esc(root + v + "/") + '">Go to the home page of ' + esc(v) + "</a>.";
        banner.hidden = false;
        banner.setAttribute("data-missing", v);
        sel.value = version;
      });
    });
  }
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]; }); }

  // Search: Pagefind's index of this version, others merged on demand.
  var q = $("kb-q"), panel = $("kb-results"), hits = $("kb-hits"), allv = $("kb-allv");
  var pf = null, merged = false, seq = 0;
  function pagefind() {
    if (!pf) {
      pf = import(root + version + "/pagefind/pagefind.js").then(function (m) { return m.options({ excerptLength: 22 }).then(function () { return m; }); });
    }
    return pf;
  }
  function mergeAll(m) {
    if (merged) return Promise.resolve();
    merged = true;
    return loadVersions().then(function (list) {
      return Promise.all(list.filter(function (e) { return e.version !== version; }).map(function (e) {
        return m.mergeIndex(root + e.version + "/pagefind/").catch(function () {});
      }));
    });
  }
  function versionOf(url) { url = new URL(url, location.href).href; var r = url.indexOf(root) === 0 ? url.slice(root.length) : url; return r.split("/")[0]; }
  function runSearch() {
    var term = q.value.trim(), my = ++seq;
    if (!term) { panel.hidden = true; return; }
    panel.hidden = false;
    pagefind().then(function (m) {
      return (allv && allv.checked ? mergeAll(m) : Promise.resolve()).then(function () { return m.debouncedSearch(term, {}, 150); });
    }).then(function (res) {
      if (my !== seq || !res) return null;
      return Promise.all(res.results.slice(0, 10).map(function (r) { return r.data(); }));
    }).then(function (data) {
      if (!data) return;
      var all = allv && allv.checked;
      data = data.filter(function (d) { return all || versionOf(d.url) === version; });
      hits.innerHTML = data.length ? "" : '<li class="kb-hit-none">No results for “' + esc(term) + "”.</li>";
      data.forEach(function (d) {
        var li = document.createElement("li"), v = versionOf(d.url);
        li.innerHTML = '<a href="' + esc(d.url) + '"><span class="kb-hit-title">' + esc(d.meta.title || d.url) + "</span>" +
          (v !== version ? '<span class="kb-hit-ver">' + esc(v) + "</span>" : "") +
          '<span class="kb-hit-text">' + d.excerpt + "</span></a>";
        hits.appendChild(li);
      });
    }).catch(function () {
      hits.innerHTML = fileMode
        ? '<li class="kb-hit-none">Search needs the site served over HTTP: a browser does not load its index from file://.</li>'
        : '<li class="kb-hit-none">Search is not available on this build.</li>';
    });
  }
  if (q && !q.disabled) {
    q.addEventListener("input", runSearch);
    q.addEventListener("focus", function () { if (q.value.trim()) panel.hidden = false; pagefind(); });
    if (allv) allv.addEventListener("change", runSearch);
    q.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { panel.hidden = true; q.blur(); }
      if (e.key === "Enter") { var a = hits.querySelector("a"); if (a) go(a.href); }
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "/" && document.activeElement !== q && !/INPUT|TEXTAREA|SELECT/.test(document.activeElement.tagName)) { e.preventDefault(); q.focus(); }
    });
    document.addEventListener("click", function (e) { if (!e.target.closest(".kb-search")) panel.hidden = true; });
  }

  // kbook serve: reload on every rebuild, show build errors in the page.
  var lr = meta("kbook-livereload");
  if (lr && window.EventSource) {
    // A reload sent while this page was reloading is missed: the stream
    // says which build is the newest when it connects ("built"), and a
    // page that saw an older one reloads.
    var key = "kbook-serve-build";
    var es = new EventSource(lr);
    es.addEventListener("open", function () { document.documentElement.setAttribute("data-kb-live", "1"); });
    es.addEventListener("built", function (e) {
      var last = null;
      try { last = sessionStorage.getItem(key); sessionStorage.setItem(key, e.data); } catch (x) {}
      if (last !== null && +e.data > +last) location.reload();
    });
    es.addEventListener("reload", function (e) {
      try { sessionStorage.setItem(key, e.data); } catch (x) {}
      location.reload();
    });
    es.addEventListener("failed", function (e) {
      var box = $("kb-error") || document.body.appendChild(Object.assign(document.createElement("div"), { id: "kb-error", className: "kb-error", role: "alert" }));
      box.innerHTML = "<strong>kbook serve: the site did not build</strong>" + esc(e.data);
    });
  }
})();
