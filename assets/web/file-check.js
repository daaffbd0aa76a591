// A plain script, not a module: opened from a file, a browser loads no
// module script (play.js never runs), but it runs this one, which says how
// to open the site instead of leaving a blank page.
"use strict";
window.addEventListener("load", () => {
  if (location.protocol !== "file:" || document.body.dataset.ready) return;
  const bad = document.getElementById("bad");
  const message = document.getElementById("bad-message");
  if (!bad || !message) return;
  message.textContent =
    "This page was opened from a file, and browsers run its scripts only from a web server. " +
    "Serve the site's folder (any static host, or python3 -m http.server in it) and open it over http.";
  bad.hidden = false;
  document.body.dataset.ready = "bad";
});
