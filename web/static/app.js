// PrintCost UI enhancements. Every page works without this file; it only adds comfort.
"use strict";

// Forms marked data-confirm ask before they submit (destructive actions).
document.addEventListener("submit", (event) => {
  const question = event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});

// A select marked data-autosubmit submits its form when changed.
document.addEventListener("change", (event) => {
  if (event.target.matches("select[data-autosubmit]")) {
    event.target.form.requestSubmit();
  }
});
