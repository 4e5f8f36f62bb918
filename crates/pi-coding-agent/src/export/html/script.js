// The session page's behaviour: the tree sidebar, pi's filters, full-text search,
// branch view and expand/collapse. The transcript itself is static HTML; this script
// only shows, hides and moves what is there, and writes session text with
// textContent only.
(function () {
  "use strict";
  var dataElement = document.getElementById("tree-data");
  if (!dataElement) { return; }
  var data = JSON.parse(dataElement.textContent);
  var nodes = data.nodes || [];
  var labels = data.labels || {};
  var byId = new Map();
  var children = new Map();
  var roots = [];
  var sections = new Map();
  var textCache = new Map();
  var state = { filter: "default", tokens: [], leaf: data.leaf || null };

  document.body.classList.add("js");
  document.querySelectorAll("#transcript > section.entry").forEach(function (s) {
    sections.set(s.getAttribute("data-id"), s);
  });
  nodes.forEach(function (n, index) { n.index = index; byId.set(n.i, n); });

  // A long session's older entries come as chunks of HTML in <noscript> elements
  // (text to this script, cheap to load); each becomes a placeholder that turns
  // into sections when it nears the view or holds an entry to show.
  var content = document.getElementById("content");
  var chunks = [];
  document.querySelectorAll("#transcript > noscript.chunk").forEach(function (element) {
    var placeholder = document.createElement("div");
    placeholder.className = "chunk-placeholder";
    chunks.push({
      first: Number(element.getAttribute("data-first")),
      end: nodes.length,
      html: element.textContent,
      texts: null,
      placeholder: placeholder,
      live: false,
      visible: 0
    });
    element.replaceWith(placeholder);
  });
  chunks.forEach(function (c, k) {
    if (k + 1 < chunks.length) { c.end = chunks[k + 1].first; }
  });
  function chunkFor(n) {
    var low = 0;
    var high = chunks.length - 1;
    while (low <= high) {
      var mid = (low + high) >> 1;
      var c = chunks[mid];
      if (n.index < c.first) { high = mid - 1; } else if (n.index >= c.end) { low = mid + 1; } else { return c; }
    }
    return null;
  }
  function materialize(c) {
    if (!c || c.live) { return; }
    c.live = true;
    if (observer) { observer.unobserve(c.placeholder); }
    var template = document.createElement("template");
    template.innerHTML = c.html;
    c.html = null;
    c.texts = null;
    template.content.querySelectorAll("section.entry").forEach(function (section) {
      sections.set(section.getAttribute("data-id"), section);
    });
    for (var i = c.first; i < c.end; i++) {
      var n = nodes[i];
      var section = sections.get(n.i);
      if (section) {
        n._shown = n._want === true;
        section.hidden = !n._shown;
      }
    }
    c.placeholder.replaceWith(template.content);
  }
  function chunkText(c, index) {
    if (!c.texts) {
      c.texts = c.html.split("</section>\n").map(function (part) {
        return part.replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
          .replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&amp;/g, "&");
      });
    }
    return c.texts[index - c.first] || "";
  }
  var observer = null;
  if (chunks.length && "IntersectionObserver" in window) {
    observer = new IntersectionObserver(function (seen) {
      seen.forEach(function (e) { if (e.isIntersecting) { materialize(e.target.chunk); } });
    }, { root: content, rootMargin: "2000px 0px" });
  }
  chunks.forEach(function (c) {
    c.placeholder.chunk = c;
    if (observer) { observer.observe(c.placeholder); }
  });
  nodes.forEach(function (n) {
    if (n.p && byId.has(n.p)) {
      if (!children.has(n.p)) { children.set(n.p, []); }
      children.get(n.p).push(n);
    } else {
      roots.push(n);
    }
  });
  if (!state.leaf || !byId.has(state.leaf)) {
    state.leaf = nodes.length ? nodes[nodes.length - 1].i : null;
  }
  if (data.name) {
    document.title = "pi session " + data.name;
    var title = document.getElementById("session-title");
    if (title) { title.textContent = data.name; }
  }
  var header = document.getElementById("session-header");
  var stats = document.getElementById("stats");
  if (header && stats) { header.insertBefore(stats, header.querySelector(".toolbar")); }

  function pathTo(id) {
    var path = new Set();
    var seen = 0;
    while (id && byId.has(id) && !path.has(id) && seen <= nodes.length) {
      path.add(id);
      id = byId.get(id).p;
      seen += 1;
    }
    return path;
  }

  function deepest(id) {
    var guard = 0;
    while (children.has(id) && guard <= nodes.length) {
      var list = children.get(id);
      id = list[list.length - 1].i;
      guard += 1;
    }
    return id;
  }

  function passesFilter(n) {
    var settings = n.k === "settings";
    switch (state.filter) {
      case "user-only": return n.k === "user";
      case "no-tools": return !settings && n.k !== "tool" && n.k !== "assistant-tools";
      case "labeled-only": return Object.prototype.hasOwnProperty.call(labels, n.i);
      case "all": return true;
      default: return !settings;
    }
  }

  function searchText(n) {
    var text = textCache.get(n.i);
    if (text === undefined) {
      var section = sections.get(n.i);
      var c = section ? null : chunkFor(n);
      var raw = section ? section.textContent : (c && c.html !== null ? chunkText(c, n.index) : n.t);
      text = (raw + " " + (labels[n.i] || "")).toLowerCase();
      textCache.set(n.i, text);
    }
    return text;
  }

  function matches(n) {
    if (!state.tokens.length) { return true; }
    var text = searchText(n);
    return state.tokens.every(function (t) { return text.indexOf(t) !== -1; });
  }

  // The tree: depth-first, indented where a branch starts (as pi draws it). Only the
  // rows in view are elements (a long session has a row per entry).
  var treeElement = document.getElementById("tree");
  var ROW = 18;
  var order = [];
  (function orderTree() {
    var stack = [];
    for (var r = roots.length - 1; r >= 0; r--) { stack.push([roots[r], 0]); }
    while (stack.length) {
      var top = stack.pop();
      var n = top[0];
      n.depth = top[1];
      order.push(n);
      var kids = children.get(n.i) || [];
      var next = kids.length > 1 ? n.depth + 1 : n.depth;
      for (var k = kids.length - 1; k >= 0; k--) { stack.push([kids[k], next]); }
    }
  })();
  var shownRows = [];
  var currentPath = new Set();
  var spacer = document.createElement("div");
  spacer.className = "tree-rows";
  if (treeElement) { treeElement.appendChild(spacer); }

  function makeRow(n, index) {
    var item = document.createElement("div");
    item.className = "node k-" + n.k + (currentPath.has(n.i) ? " on-path" : "") +
      (n.i === state.leaf ? " leaf" : "");
    item.setAttribute("role", "treeitem");
    item.setAttribute("data-id", n.i);
    item.style.setProperty("--depth", String(Math.min(n.depth, 24)));
    item.style.top = (index * ROW) + "px";
    if (labels[n.i] !== undefined) {
      var badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = "[" + labels[n.i] + "]";
      item.appendChild(badge);
    }
    var kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = n.k.replace("assistant-tools", "assistant") + ": ";
    item.appendChild(kind);
    item.appendChild(document.createTextNode(n.t));
    item.title = n.t;
    return item;
  }

  function drawTree() {
    if (!treeElement) { return; }
    spacer.style.height = (shownRows.length * ROW) + "px";
    var top = treeElement.scrollTop;
    var first = Math.max(0, Math.floor(top / ROW) - 40);
    var last = Math.min(shownRows.length, Math.ceil((top + treeElement.clientHeight) / ROW) + 40);
    var fragment = document.createDocumentFragment();
    for (var i = first; i < last; i++) { fragment.appendChild(makeRow(shownRows[i], i)); }
    spacer.textContent = "";
    spacer.appendChild(fragment);
  }
  var drawPending = false;
  if (treeElement) {
    treeElement.addEventListener("scroll", function () {
      if (drawPending) { return; }
      drawPending = true;
      requestAnimationFrame(function () { drawPending = false; drawTree(); });
    });
  }

  // Writes a DOM property only when it changes: a long session has many entries.
  function set(n, key, value, apply) {
    if (n[key] !== value) {
      n[key] = value;
      apply(value);
    }
  }

  function render() {
    var path = pathTo(state.leaf);
    currentPath = path;
    chunks.forEach(function (c) { c.visible = 0; });
    nodes.forEach(function (n) {
      var ok = passesFilter(n) && matches(n);
      n._inTree = ok && (n.k !== "assistant-tools" || state.filter === "all" || n.i === state.leaf);
      n._want = ok && path.has(n.i);
      var section = sections.get(n.i);
      if (section) {
        set(n, "_shown", n._want, function (v) { section.hidden = !v; });
      } else if (n._want) {
        var c = chunkFor(n);
        if (c) { c.visible += 1; }
      }
    });
    chunks.forEach(function (c) {
      if (!c.live) {
        c.placeholder.hidden = c.visible === 0;
        c.placeholder.style.height = (c.visible * 64) + "px";
      }
    });
    shownRows = order.filter(function (n) { return n._inTree; });
    drawTree();
    document.body.classList.toggle("no-tools", state.filter === "no-tools");
    var status = document.getElementById("tree-status");
    if (status) { status.textContent = shownRows.length + " / " + nodes.length + " entries"; }
  }

  function jump(id) {
    state.leaf = deepest(id);
    if (!passesFilter(byId.get(id))) {
      state.filter = "all";
      setActiveFilter();
    }
    render();
    materialize(chunkFor(byId.get(id)));
    var section = sections.get(id);
    document.querySelectorAll("section.entry.target").forEach(function (s) { s.classList.remove("target"); });
    if (section) {
      section.hidden = false;
      byId.get(id)._shown = true;
      section.classList.add("target");
      section.scrollIntoView({ block: "start" });
    }
  }

  function setActiveFilter() {
    document.querySelectorAll(".filters button").forEach(function (b) {
      b.classList.toggle("active", b.getAttribute("data-filter") === state.filter);
    });
  }

  if (treeElement) {
    treeElement.addEventListener("click", function (event) {
      var item = event.target.closest(".node");
      if (item) { jump(item.getAttribute("data-id")); }
    });
  }
  document.querySelectorAll(".filters button").forEach(function (button) {
    button.addEventListener("click", function () {
      state.filter = button.getAttribute("data-filter");
      setActiveFilter();
      render();
    });
  });
  var search = document.getElementById("search");
  var timer = null;
  if (search) {
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        state.tokens = search.value.toLowerCase().split(/\s+/).filter(Boolean);
        render();
      }, 120);
    });
  }
  function setAll(open) {
    document.querySelectorAll("details.output, details.thinking, details.preview").forEach(function (d) { d.open = open; });
  }
  var expand = document.getElementById("expand-all");
  var collapse = document.getElementById("collapse-all");
  if (expand) { expand.addEventListener("click", function () { setAll(true); }); }
  if (collapse) { collapse.addEventListener("click", function () { setAll(false); }); }
  render();
})();
