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
  nodes.forEach(function (n) { byId.set(n.i, n); });
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
      text = ((section ? section.textContent : n.t) + " " + (labels[n.i] || "")).toLowerCase();
      textCache.set(n.i, text);
    }
    return text;
  }

  function matches(n) {
    if (!state.tokens.length) { return true; }
    var text = searchText(n);
    return state.tokens.every(function (t) { return text.indexOf(t) !== -1; });
  }

  // The tree: depth-first, indented where a branch starts (as pi draws it).
  var treeElement = document.getElementById("tree");
  var items = new Map();
  (function buildTree() {
    var stack = [];
    for (var r = roots.length - 1; r >= 0; r--) { stack.push([roots[r], 0]); }
    var fragment = document.createDocumentFragment();
    while (stack.length) {
      var top = stack.pop();
      var n = top[0];
      var depth = top[1];
      var item = document.createElement("div");
      item.className = "node k-" + n.k;
      item.setAttribute("role", "treeitem");
      item.setAttribute("data-id", n.i);
      item.style.setProperty("--depth", String(Math.min(depth, 24)));
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
      fragment.appendChild(item);
      items.set(n.i, item);
      var kids = children.get(n.i) || [];
      var next = kids.length > 1 ? depth + 1 : depth;
      for (var k = kids.length - 1; k >= 0; k--) { stack.push([kids[k], next]); }
    }
    if (treeElement) { treeElement.appendChild(fragment); }
  })();

  // Writes a DOM property only when it changes: a long session has many entries.
  function set(n, key, value, apply) {
    if (n[key] !== value) {
      n[key] = value;
      apply(value);
    }
  }

  function render() {
    var path = pathTo(state.leaf);
    var shownTree = 0;
    nodes.forEach(function (n) {
      var ok = passesFilter(n) && matches(n);
      var item = items.get(n.i);
      if (item) {
        var inTree = ok && (n.k !== "assistant-tools" || state.filter === "all" || n.i === state.leaf);
        set(n, "_tree", inTree, function (v) { item.hidden = !v; });
        if (inTree) { shownTree += 1; }
        set(n, "_path", path.has(n.i), function (v) { item.classList.toggle("on-path", v); });
        set(n, "_leaf", n.i === state.leaf, function (v) { item.classList.toggle("leaf", v); });
      }
      var section = sections.get(n.i);
      if (section) {
        set(n, "_shown", ok && path.has(n.i), function (v) { section.hidden = !v; });
      }
    });
    document.body.classList.toggle("no-tools", state.filter === "no-tools");
    var status = document.getElementById("tree-status");
    if (status) { status.textContent = shownTree + " / " + nodes.length + " entries"; }
  }

  function jump(id) {
    state.leaf = deepest(id);
    var section = sections.get(id);
    if (section && !passesFilter(byId.get(id))) {
      state.filter = "all";
      setActiveFilter();
    }
    render();
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
