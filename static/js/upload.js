// Large files on the add-content forms go in chunks: each chunk is its own
// small request, so the server never holds a whole file in memory, and a
// dropped chunk is sent again from where the server says it has the bytes.
// Small files keep the ordinary single request (htmx).
(function () {
  "use strict";

  function csrf(form) {
    var field = form.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }
  function megabytes(bytes) { return (bytes / 1048576).toFixed(1) + " MB"; }
  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  function say(form, message, isError) {
    var note = form.querySelector(".upload-status");
    if (!note) {
      note = document.createElement("p");
      note.className = "upload-status";
      note.setAttribute("role", isError ? "alert" : "status");
      form.insertBefore(note, form.querySelector("button[type=submit]"));
    }
    note.setAttribute("role", isError ? "alert" : "status");
    note.classList.toggle("error", !!isError);
    note.textContent = message;
    return note;
  }
  function showProgress(form, done, total, label) {
    var bar = form.querySelector("progress.upload-progress");
    if (!bar) {
      bar = document.createElement("progress");
      bar.className = "upload-progress";
      form.insertBefore(bar, form.querySelector("button[type=submit]"));
    }
    bar.max = total;
    bar.value = done;
    bar.setAttribute("aria-label", "Upload progress");
    say(form, label + ": " + megabytes(done) + " of " + megabytes(total) + " sent");
  }

  async function answer(response) {
    var body = {};
    try { body = await response.json(); } catch (err) { body = {}; }
    body.status = response.status;
    return body;
  }

  async function request(method, url, form, body, headers) {
    var response = await fetch(url, {
      method: method,
      body: body,
      credentials: "same-origin",
      headers: Object.assign({ "X-CSRFToken": csrf(form), Accept: "application/json" }, headers || {})
    });
    return answer(response);
  }

  // Send one file; returns its upload id. A chunk that fails is sent again
  // from the offset the server reports (a few times, waiting longer each time).
  async function sendFile(form, file, chunkBytes, sentBefore, total) {
    var data = new FormData();
    data.append("name", file.name);
    data.append("size", String(file.size));
    var upload = await request("POST", form.dataset.uploadUrl, form, data);
    if (upload.status !== 201) throw new Error(upload.detail || "The upload could not start.");
    var url = form.dataset.uploadUrl + upload.id + "/";
    var offset = upload.offset, failures = 0;
    while (offset < file.size) {
      var result;
      try {
        result = await request("PUT", url + "?offset=" + offset, form,
          file.slice(offset, offset + chunkBytes), { "Content-Type": "application/octet-stream" });
      } catch (err) {
        result = { status: 0, detail: "The server could not be reached." };
      }
      if (result.status === 200) {
        offset = result.offset;
        failures = 0;
      } else if (result.status === 409 && typeof result.offset === "number") {
        offset = result.offset; // the server has more (or less) than we thought: go on from there
      } else if ((result.status === 0 || result.status >= 500) && result.status !== 507 && failures < 5) {
        failures += 1;
        await sleep(500 * Math.pow(2, failures));
        try {
          var known = await request("GET", url, form);
          if (known.status === 200) offset = known.offset;
        } catch (err) { /* still unreachable: try the same chunk again */ }
      } else {
        throw new Error(result.detail || ("The server refused a chunk (status " + result.status + ")."));
      }
      showProgress(form, sentBefore + offset, total, file.name);
    }
    return upload.id;
  }

  async function sendChunked(form, input, files) {
    var chunkBytes = parseInt(input.dataset.chunkBytes, 10);
    var total = files.reduce(function (sum, f) { return sum + f.size; }, 0);
    var button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    try {
      var ids = [], sent = 0;
      for (var i = 0; i < files.length; i++) {
        ids.push(await sendFile(form, files[i], chunkBytes, sent, total));
        sent += files[i].size;
      }
      say(form, "Sent; adding it…");
      var finish = new FormData();
      var title = form.querySelector("input[name=title]");
      finish.append("title", title ? title.value : "");
      ids.forEach(function (id) { finish.append("upload", id); });
      var added = await request("POST", form.action + "uploaded/", form, finish);
      if (added.status !== 201) throw new Error(added.detail || "The files could not be added.");
      form.reset();
      say(form, "Added “" + added.title + "”.");
      if (window.htmx) htmx.ajax("GET", form.dataset.listUrl, { target: "#content-list", swap: "outerHTML" });
    } catch (err) {
      say(form, err.message + " Nothing was added.", true);
    } finally {
      if (button) button.disabled = false;
    }
  }

  // Capture phase: decided before htmx sends the form as one request.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.dataset || !form.dataset.uploadUrl) return;
    var input = form.querySelector("input[type=file][data-chunk-bytes]");
    if (!input || !input.files || !input.files.length) return;
    var files = Array.from(input.files);
    var over = parseInt(input.dataset.chunkBytes, 10);
    if (!files.some(function (f) { return f.size > over; })) return; // small: one request is fine
    e.preventDefault();
    e.stopPropagation();
    sendChunked(form, input, files);
  }, true);
})();
