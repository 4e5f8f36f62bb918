(function () {
  function setAll(open) {
    var items = document.querySelectorAll("details.output, details.thinking");
    for (var i = 0; i < items.length; i++) { items[i].open = open; }
  }
  var expand = document.getElementById("expand-all");
  var collapse = document.getElementById("collapse-all");
  if (expand) { expand.addEventListener("click", function () { setAll(true); }); }
  if (collapse) { collapse.addEventListener("click", function () { setAll(false); }); }
})();
