/* quercus report: the tree drawn from the page's data, nodes that open and close, and the
   worked numbers of the node clicked. Plain DOM; every text from the data goes through
   textContent, never markup. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var palette = data.palette;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function fixed(v, digits) {
    if (v === null || v === undefined) return "\u2013";
    return Number(v).toFixed(digits === undefined ? 3 : digits);
  }

  function value(v) {
    // A regression value or mean: its six significant digits (as the data holds it), no
    // padding zeros (96106.3, 230232).
    if (v === null || v === undefined) return "\u2013";
    return String(Number(Number(v).toPrecision(6)));
  }

  function significant(v) {
    // A variance decrease, in the target's units squared: four significant digits, the
    // whole number up to a million, powers of ten beyond (2.225e+9) and below 0.001.
    if (v === null || v === undefined) return "\u2013";
    var size = Math.abs(v);
    if (size >= 1e6 || (size > 0 && size < 1e-3)) return Number(v).toExponential(3);
    if (size >= 1000) return String(Math.round(v));
    return String(Number(Number(v).toPrecision(4)));
  }

  function score(v) {
    // A candidate's score as gain_table gives it: three decimals, or for a regression tree
    // four significant digits.
    return data.regression ? significant(v) : fixed(v);
  }

  function amount(v) {
    // A weight: whole numbers as they are, fractions with up to two decimals.
    if (v === null || v === undefined) return "\u2013";
    return Number.isInteger(v) ? String(v) : String(Math.round(v * 100) / 100);
  }

  function dense(pairs) {
    // A class distribution from its pairs [class, weight, class, weight, ...].
    var out = data.classes.map(function () { return 0; });
    for (var i = 0; i + 1 < pairs.length; i += 2) out[pairs[i]] = pairs[i + 1];
    return out;
  }

  function colour(k) {
    return palette[k % palette.length];
  }

  // Whether a tree's nodes hold values, not class distributions: a regression tree, or a
  // booster's tree (a regression tree on the gradients, whatever the task), whose value is
  // the step a node adds to the raw score.
  function valued(t) {
    return data.regression || Boolean(t.newton);
  }

  // -- one tree ------------------------------------------------------------------------------

  function TreeView(tree, options) {
    this.tree = tree;
    this.options = options;
    this.kids = tree.parent.map(function () { return []; });
    for (var i = 0; i < tree.parent.length; i++) {
      if (tree.parent[i] >= 0) this.kids[tree.parent[i]].push(i);
    }
    this.items = [];
    this.selected = -1;
    this.index = {};
    for (i = 0; i < tree.id.length; i++) this.index[tree.id[i]] = i;
  }

  // What a split node tests: its attribute, or an oblique split's weighted sum.
  function tested(t, i) {
    return t.tested && t.tested[i] ? t.tested[i] : data.features[t.split[i]];
  }

  // The condition of the branch to node i: the attribute (or sum) tested, always shown, then
  // the test, cut short with an ellipsis where it is long (a long set of categories by its
  // brief form); the whole condition in the tooltip.
  function edgeLabel(t, i) {
    var text = t.brief && t.brief[i] ? t.brief[i] : t.edge[i];
    var name = tested(t, t.parent[i]);
    var edge = el("span", "edge");
    edge.title = t.edge[i];
    if (text.indexOf(name + " ") === 0) {
      edge.appendChild(el("span", "edge-attribute", name));
      edge.appendChild(el("span", "edge-test", text.slice(name.length + 1)));
    } else {
      edge.appendChild(el("span", "edge-test", text));
    }
    return edge;
  }

  TreeView.prototype.label = function (i) {
    var t = this.tree;
    if (t.split[i] >= 0) return el("span", "split", tested(t, i));
    if (t.model && t.model[i]) {
      // A model tree's leaf predicts with its linear model: its name (LM1, ...), as M5P
      // names it; the model in the tooltip, the node's details and the leaf models' table.
      var model = el("span", "leaf value", "\u2192 " + t.model[i].split(":")[0]);
      model.title = t.model[i];
      return model;
    }
    if (valued(t)) return el("span", "leaf value", "\u2192 " + value(t.value[i]));
    var k = t.pred[i];
    var pill = el("span", "leaf", "\u2192 " + data.classes[k]);
    pill.style.background = colour(k);
    pill.style.color = data.ink[k % data.ink.length];
    return pill;
  };

  TreeView.prototype.bar = function (i) {
    var t = this.tree;
    var bar = el("span", "bar");
    if (valued(t)) {
      var span = data.value_range[1] - data.value_range[0];
      var at = span > 0 ? (t.value[i] - data.value_range[0]) / span : 0.5;
      var mark = el("span", "mark");
      mark.style.left = (100 * at).toFixed(1) + "%";
      bar.appendChild(mark);
      bar.title = data.value_name + " " + value(t.value[i]) + " within the range of the leaves";
      return bar;
    }
    var dist = dense(t.dist[i]);
    var total = dist.reduce(function (a, b) { return a + b; }, 0);
    var parts = [];
    dist.forEach(function (v, k) {
      if (v <= 0 || total <= 0) return;
      var seg = el("span", "seg");
      seg.style.width = (100 * v / total).toFixed(2) + "%";
      seg.style.background = colour(k);
      bar.appendChild(seg);
      parts.push(data.classes[k] + " " + amount(v));
    });
    bar.title = parts.join(", ");
    return bar;
  };

  TreeView.prototype.item = function (i) {
    var self = this;
    var t = this.tree;
    var li = el("li", "node");
    li.dataset.node = String(t.id[i]);
    li.setAttribute("role", "treeitem");
    var row = el("div", "node-row");
    var open = this.kids[i].length > 0;
    var toggle = el("button", open ? "toggle" : "toggle none");
    toggle.type = "button";
    if (open) {
      toggle.setAttribute("aria-label", "open or close this branch");
      toggle.addEventListener("click", function (event) {
        event.stopPropagation();
        self.setOpen(i, li.classList.contains("closed"));
      });
    } else {
      toggle.tabIndex = -1;
      toggle.disabled = true;
    }
    row.appendChild(toggle);
    row.appendChild(t.parent[i] < 0 ? el("span", "edge", "all rows") : edgeLabel(t, i));
    row.appendChild(this.label(i));
    row.appendChild(this.bar(i));
    // A booster's node: its rows (its weight is its hessian sum, in its details).
    row.appendChild(el("span", "weight", t.newton ? String(t.newton.n[i]) : amount(t.w[i])));
    if (t.hidden[i] > 0) {
      row.appendChild(el("span", "hidden-note", t.hidden[i] + " nodes below not shown"));
    }
    row.tabIndex = 0;
    row.addEventListener("click", function () { self.select(i); });
    row.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        self.select(i);
      }
    });
    li.appendChild(row);
    this.items[i] = li;
    if (open) {
      var ul = el("ul", "children");
      ul.setAttribute("role", "group");
      this.kids[i].forEach(function (k) { ul.appendChild(self.item(k)); });
      li.appendChild(ul);
      li.setAttribute("aria-expanded", "true");
    }
    return li;
  };

  TreeView.prototype.setOpen = function (i, open) {
    var li = this.items[i];
    if (!li || this.kids[i].length === 0) return;
    li.classList.toggle("closed", !open);
    li.setAttribute("aria-expanded", open ? "true" : "false");
    li.querySelector(":scope > .node-row > .toggle").textContent = open ? "\u25be" : "\u25b8";
  };

  TreeView.prototype.setAll = function (open) {
    for (var i = 0; i < this.items.length; i++) this.setOpen(i, open);
    this.setOpen(0, true); // closed, the tree would be one line
  };

  TreeView.prototype.render = function (container) {
    container.textContent = "";
    var ul = el("ul", "tree");
    ul.appendChild(this.item(0));
    container.appendChild(ul);
    var depth = this.tree.parent.map(function () { return 0; });
    for (var i = 1; i < depth.length; i++) depth[i] = depth[this.tree.parent[i]] + 1;
    var many = this.tree.parent.length > data.open_all_below;
    for (i = 0; i < this.items.length; i++) {
      this.setOpen(i, !many || depth[i] < data.open_depth);
    }
    this.select(0);
  };

  TreeView.prototype.reveal = function (node) {
    // Open the branches down to the node of this id, select it and bring it into view.
    var i = this.index[node];
    if (i === undefined) return;
    for (var k = this.tree.parent[i]; k >= 0; k = this.tree.parent[k]) this.setOpen(k, true);
    this.select(i);
    this.items[i].scrollIntoView({ block: "center" });
  };

  TreeView.prototype.select = function (i) {
    if (this.selected >= 0 && this.items[this.selected]) {
      this.items[this.selected].classList.remove("selected");
    }
    this.selected = i;
    this.items[i].classList.add("selected");
    showDetails(this, i);
  };

  // -- the details of a node -------------------------------------------------------------------

  function pathOf(view, i) {
    var out = [];
    for (var k = i; view.tree.parent[k] >= 0; k = view.tree.parent[k]) out.unshift(view.tree.edge[k]);
    return out;
  }

  function distributionTable(view, i) {
    var t = view.tree;
    var table = el("table", "dist");
    var head = table.createTHead().insertRow();
    ["class", "weight", "share"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    var body = table.createTBody();
    var dist = dense(t.dist[i]);
    var total = dist.reduce(function (a, b) { return a + b; }, 0);
    dist.forEach(function (v, k) {
      if (v <= 0) return;
      var row = body.insertRow();
      var name = el("td");
      var swatch = el("span", "swatch");
      swatch.style.background = colour(k);
      name.appendChild(swatch);
      name.appendChild(document.createTextNode(data.classes[k]));
      row.appendChild(name);
      row.appendChild(el("td", "num", amount(v)));
      row.appendChild(el("td", "num", (100 * v / total).toFixed(1) + "%"));
    });
    return table;
  }

  function splitWords(j, text) {
    if (text === "*") return "one branch per value";
    return data.kinds[j] === "nominal" ? text : "<= " + text;
  }

  function gainTable(scores) {
    var table = el("table", "gain");
    table.id = "gain-table";
    var head = table.createTHead().insertRow();
    var heads = ["", "attribute", data.gain_name];
    if (data.ratios) heads.push("split information", "gain ratio");
    heads.push("split");
    heads.forEach(function (h) { head.appendChild(el("th", null, h)); });
    var body = table.createTBody();
    var width = data.ratios ? 5 : 3;
    scores.rows.forEach(function (r) {
      var admissible = r.length === width;
      var row = body.insertRow();
      row.dataset.attribute = data.features[r[0]];
      if (r[0] === scores.chosen) row.className = "chosen";
      if (!admissible) row.classList.add("inadmissible");
      var mark = el("td", "mark", r[0] === scores.chosen ? "\u2713" : "");
      if (r[0] === scores.chosen) mark.title = "the split of this node";
      row.appendChild(mark);
      row.appendChild(el("td", "attribute", data.features[r[0]]));
      var columns = data.ratios ? ["gain", "split_information", "gain_ratio"] : ["gain"];
      columns.forEach(function (name, c) {
        var cell = el("td", "num", admissible ? score(r[1 + c]) : "\u2013");
        cell.dataset.column = name;
        row.appendChild(cell);
      });
      row.appendChild(el("td", "split-text", admissible ? splitWords(r[0], r[width - 1]) : "not admissible"));
    });
    return table;
  }

  // A booster's node: its rows, gradient and hessian sums, the step it adds to the raw score
  // as a leaf, and its split's Newton gain.
  function newtonFacts(t, i, fact) {
    var n = t.newton;
    fact("rows", String(n.n[i]), "n");
    fact("gradient sum G", value(n.G[i]), "G");
    fact("hessian sum H", value(n.H[i]), "H");
    fact(t.split[i] >= 0 ? "step, were it a leaf" : "step", value(t.value[i]), "step");
    if (t.split[i] >= 0) fact("Newton gain of the split", value(n.gain[i]), "gain");
  }

  function showDetails(view, i) {
    var t = view.tree;
    var box = document.getElementById("details");
    box.textContent = "";
    var title = el("h3", null, "Node " + t.id[i]);
    var kind = t.split[i] >= 0 ? "splits on " + tested(t, i) : "leaf";
    title.appendChild(el("span", "kind", kind));
    box.appendChild(title);
    var path = pathOf(view, i);
    if (path.length === 0) {
      box.appendChild(el("p", "path-root", "The root: every row."));
    } else {
      var ol = el("ol", "path");
      path.forEach(function (c) { ol.appendChild(el("li", null, c)); });
      box.appendChild(ol);
    }
    var facts = el("dl", "facts");
    function fact(name, value, key) {
      facts.appendChild(el("dt", null, name));
      var dd = el("dd", null, value);
      if (key) dd.dataset.fact = key;
      facts.appendChild(dd);
    }
    if (t.newton) newtonFacts(t, i, fact);
    else fact("training weight", amount(t.w[i]));
    if (t.newton) {
      // newtonFacts said the step
    } else if (data.regression) fact(data.value_name, value(t.value[i]));
    else fact("predicts", data.classes[t.pred[i]]);
    if (t.model && t.model[i]) fact("model", t.model[i]);
    var scores = t.scores ? t.scores[i] : null;
    if (scores) fact("rows of the data here", scores.n + (scores.w !== scores.n ? " (weight " + amount(scores.w) + ")" : ""));
    box.appendChild(facts);
    if (!valued(t)) box.appendChild(distributionTable(view, i));
    if (t.hidden[i] > 0) {
      box.appendChild(el("p", "note", t.hidden[i] + " nodes below this one are not in the page (" + data.node_budget + ")."));
    }
    if (!t.scores) {
      if (view.options.noScores) box.appendChild(el("p", "note", view.options.noScores));
      return;
    }
    if (scores.stop) {
      var stop = el("p", "stop");
      stop.appendChild(el("strong", null, "Growth stopped here: "));
      stop.appendChild(document.createTextNode(data.stops[scores.stop]));
      if (t.pruned && t.pruned[i]) {
        stop.appendChild(el("br"));
        stop.appendChild(document.createTextNode(t.pruned[i]));
      }
      box.appendChild(stop);
    }
    if (scores.rows.length > 0) {
      box.appendChild(el("h4", null, "Every candidate split, scored as the tree scores them"));
      box.appendChild(gainTable(scores));
    } else if (!scores.stop) {
      box.appendChild(el("p", "note", "No candidate was scored here."));
    }
  }

  // -- the page --------------------------------------------------------------------------------

  var current = null;
  function show(tree, options) {
    current = new TreeView(tree, options || {});
    current.render(document.getElementById("tree-view"));
  }

  if (data.tree) show(data.tree, { noScores: data.tree_note });
  // A forest's or a booster's trees, one at a time from the list.
  var ensemble = data.forest || data.booster;
  var select = document.getElementById("tree-select");
  if (ensemble && select) {
    ensemble.trees.forEach(function (tree, k) {
      var name = tree.name || "tree " + k;
      var option = el("option", null, name + " (" + tree.total + " nodes)");
      option.value = String(k);
      select.appendChild(option);
    });
    var showChosenTree = function () {
      show(ensemble.trees[Number(select.value)], { noScores: ensemble.note });
    };
    select.addEventListener("change", showChosenTree);
    showChosenTree();
  }
  Array.prototype.forEach.call(document.querySelectorAll("button.goto"), function (button) {
    button.addEventListener("click", function () {
      document.getElementById("tree").scrollIntoView();
      current.reveal(Number(button.dataset.node));
    });
  });
  var expand = document.getElementById("expand-all");
  if (expand) expand.addEventListener("click", function () { current.setAll(true); });
  var collapse = document.getElementById("collapse-all");
  if (collapse) collapse.addEventListener("click", function () { current.setAll(false); });
})();
