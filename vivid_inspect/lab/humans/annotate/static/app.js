// vivid annotate serve: one item per screen, scored with 0-5 (another eval's: on its judge's scale),
// moved with the arrows, undone with u.
// Every text from the data is inserted with textContent, never as HTML. Actions run one after the
// other (a promise chain), so keys typed faster than the server answers still apply in order.
// A score is shown as scored only once the server has saved it: a failed save (an error answer,
// or no answer at all) says NOT SAVED and the page reloads what the server holds.
"use strict";

const token = document.body.dataset.token;
const $ = (id) => document.getElementById(id);
const view = { items: [], pos: 0, state: null, choices: [] };
// Another eval's labels for the three texts (VIVID's are in the page).
const ANY_LABELS = [["Đầu vào", "input"], ["Đáp án tham chiếu", "target"], ["Câu trả lời cần chấm", "output to score"]];

// The three texts of an item: VIVID's idiom, meaning and explanation, or another eval's input, target and output.
function texts(item) {
  return "output" in item ? [item.input, item.target, item.output] : [item.idiom, item.reference_meaning, item.explanation];
}
let chain = Promise.resolve();

function run(action) {
  chain = chain.then(action).catch((error) => say(String(error.message || error), true));
  return chain;
}

async function api(path, body) {
  const options = { headers: { "X-Vivid-Token": token }, cache: "no-store" };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let data = null;
  try { data = JSON.parse(text); } catch (_) { /* a 403 is plain text */ }
  if (!response.ok) {
    const error = new Error((data && data.error) || text.trim() || `HTTP ${response.status}`);
    error.saved = data && data.saved === true;
    throw error;
  }
  return data;
}

// The server's own view of this annotator's scores, after a change that may not have been saved.
async function resync() {
  const state = await api("/api/state");
  const held = new Map(state.items.map((item) => [item.id, item.score]));
  for (const item of view.items) if (held.has(item.id)) item.score = held.get(item.id);
  applySummary(state);
  render();
}

async function failed(error, what) {
  try { await resync(); } catch (_) { /* the server does not answer: the page stays as it is */ }
  const reason = String(error.message || error);
  say(error.saved
    ? `Đã lưu, nhưng có lỗi · saved, with a problem: ${reason}`
    : `CHƯA LƯU · NOT SAVED: ${what}. ${reason.replace(/^NOT SAVED:\s*/, "")}`, true);
}

function say(text, isError = false) {
  const message = $("message");
  message.textContent = text;
  message.classList.toggle("error", isError);
}

function firstUnscored(from = 0) {
  const n = view.items.length;
  for (let k = 0; k < n; k++) {
    const i = (from + k) % n;
    if (view.items[i].score === null) return i;
  }
  return -1;
}

function applySummary(summary) {
  view.state = Object.assign(view.state || {}, summary);
}

function render() {
  const state = view.state;
  const item = view.items[view.pos];
  $("annotator").textContent = state.annotator;
  $("progress-text").textContent = `${state.done} / ${state.total} đã chấm · done`;
  $("progress-fill").style.width = `${state.total ? (100 * state.done) / state.total : 0}%`;
  $("unscored-count").textContent = `(${state.total - state.done})`;
  $("position").textContent = `Mục ${view.pos + 1} / ${view.items.length} · item ${view.pos + 1} of ${view.items.length}`;
  const status = $("item-status");
  status.textContent = item.score === null ? "chưa chấm · unscored" : `đã chấm · scored ${item.score}`;
  status.className = `status ${item.score === null ? "unscored" : "scored"}`;
  const [given, target, output] = texts(item);
  $("idiom").textContent = given;
  $("reference").textContent = target;
  $("explanation").textContent = output;
  $("reference").hidden = $("label-reference").hidden = target === "" && "output" in item;
  for (const button of document.querySelectorAll(".score")) {
    const chosen = Number(button.dataset.score) === item.score;
    button.classList.toggle("chosen", chosen);
    button.setAttribute("aria-pressed", String(chosen));
  }
  $("prev").disabled = view.pos === 0;
  $("next").disabled = view.pos === view.items.length - 1;
  $("undo").disabled = !state.can_undo;
  renderFinished(state);
  renderAgreement(state.agreement);
  if (!$("unscored").hidden) renderUnscored();
}

function renderFinished(state) {
  $("finished").hidden = !state.finished || !state.humans;
  if (!state.humans) return;
  $("humans-path").textContent = state.humans.path;
  $("humans-command").textContent = state.humans.command;
  $("humans-count").textContent = `${state.humans.finished} of ${state.humans.annotators} annotator(s) finished`;
  $("humans-log-line").hidden = !state.humans.logs;
  $("humans-log").textContent = state.humans.logs ? `inspect view --log-dir ${state.humans.logs}` : "";
}

function fmt(value) {
  return value === null || value === undefined ? "–" : Number(value).toFixed(3);
}

function renderAgreement(agreement) {
  $("agreement-message").textContent = agreement.status === "ready"
    ? `On the ${agreement.n} items every annotator scored:`
    : agreement.message;
  const table = $("agreement-table");
  table.hidden = agreement.status !== "ready";
  const body = table.querySelector("tbody");
  body.replaceChildren();
  $("agreement-alpha").textContent = "";
  if (agreement.status !== "ready") return;
  for (const pair of agreement.pairs) {
    const row = document.createElement("tr");
    for (const value of [pair.annotators.join(" – "), String(pair.n), fmt(pair.kappa), fmt(pair.quadratic_kappa), fmt(pair.exact)]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      row.append(cell);
    }
    body.append(row);
  }
  $("agreement-alpha").textContent = `Krippendorff's α (ordinal): ${fmt(agreement.alpha)}`;
}

// Another eval's page: its labels, a button per level of its judge's scale (or per whole number of
// a range of at most 11), a number field for a range that is not levels, and what the scale is.
function renderScale(scale) {
  view.choices = scale.levels || [];
  if (scale.levels === null) {
    for (let v = Math.ceil(scale.low); v <= scale.high && scale.high - scale.low <= 10; v++) view.choices.push(v);
  }
  $("free-score").hidden = scale.levels !== null;
  if (view.state.guidelines !== null) return;  // VIVID's page as written
  ["idiom", "reference", "explanation"].forEach((id, i) => {
    const label = $(`label-${id}`);
    const en = document.createElement("span");
    en.className = "en";
    en.textContent = ANY_LABELS[i][1];
    label.replaceChildren(`${ANY_LABELS[i][0]} `, en);
  });
  const group = $("scores");
  group.setAttribute("aria-label", `score ${scale.low}-${scale.high}`);
  group.replaceChildren(...view.choices.map((value) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "score";
    button.dataset.score = String(value);
    const b = document.createElement("b");
    b.textContent = String(value);
    button.append(b);
    button.addEventListener("click", () => score(value));
    return button;
  }));
  const keys = view.choices.filter((value) => /^[0-9]$/.test(String(value)));
  $("score-keys").textContent = keys.length ? keys.join(" ") : "–";
  $("rubric-title").textContent = scale.rule;
  $("scale-note").textContent = scale.note || "";
  $("scale-note").hidden = !scale.note;
  $("criteria-title").hidden = true;
}

function renderGuidelines(guide) {
  if (guide === null) return;
  $("rubric-title").textContent = guide.rubric_title.vi;
  const rubric = $("rubric");
  rubric.replaceChildren();
  for (const line of guide.rubric) {
    const entry = document.createElement("li");
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = String(line.score);
    const vi = document.createElement("p");
    vi.className = "vi";
    vi.textContent = line.vi;
    const en = document.createElement("p");
    en.className = "gloss";
    en.textContent = line.en;
    entry.append(n, vi, en);
    rubric.append(entry);
  }
  const criteria = $("criteria");
  criteria.replaceChildren();
  for (const line of guide.criteria) {
    const entry = document.createElement("li");
    const vi = document.createElement("p");
    vi.className = "vi";
    vi.textContent = line.vi;
    const en = document.createElement("p");
    en.className = "gloss";
    en.textContent = line.en;
    entry.append(vi, en);
    criteria.append(entry);
  }
}

function renderUnscored() {
  const list = $("unscored-list");
  list.replaceChildren();
  view.items.forEach((item, index) => {
    if (item.score !== null) return;
    const entry = document.createElement("li");
    entry.value = index + 1;
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = texts(item)[0];
    button.addEventListener("click", () => { go(index); close("unscored"); });
    entry.append(button);
    list.append(entry);
  });
  $("unscored-empty").hidden = list.children.length > 0;
}

function go(index) {
  view.pos = Math.max(0, Math.min(view.items.length - 1, index));
  say("");
  render();
}

function score(value) {
  return run(async () => {
    const item = view.items[view.pos];
    let result;
    try {
      result = await api("/api/score", { id: item.id, score: value });
    } catch (error) {
      await failed(error, `${texts(item)[0]} → ${value}`);
      return;
    }
    item.score = result.score;
    applySummary(result);
    say(`Đã lưu · saved: ${texts(item)[0]} → ${value}`);
    if (view.pos < view.items.length - 1) view.pos += 1;
    else if (firstUnscored() >= 0) view.pos = firstUnscored();
    render();
  });
}

function undo() {
  return run(async () => {
    let result;
    try {
      result = await api("/api/undo", {});
    } catch (error) {
      await failed(error, "hoàn tác · undo");
      return;
    }
    applySummary(result);
    if (result.id === null) { say("Không còn gì để hoàn tác · nothing to undo"); render(); return; }
    const index = view.items.findIndex((item) => item.id === result.id);
    view.items[index].score = result.score;
    view.pos = index;
    say(`Đã hoàn tác · undone: ${texts(view.items[index])[0]}`);
    render();
  });
}

function open(id) {
  if (id === "unscored") renderUnscored();
  $(id).hidden = false;
  $(id).querySelector(".close").focus();
}

function close(id) {
  $(id).hidden = true;
}

function openOverlay() {
  return ["keys", "unscored"].find((id) => !$(id).hidden);
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target instanceof HTMLInputElement) return;  // a number typed in the score field is not a key
  const overlay = openOverlay();
  if (event.key === "Escape" && overlay) { close(overlay); event.preventDefault(); return; }
  if (event.key === "?") { overlay === "keys" ? close("keys") : open("keys"); event.preventDefault(); return; }
  if (overlay) return;
  if (/^[0-9]$/.test(event.key) && view.choices.includes(Number(event.key))) { score(Number(event.key)); event.preventDefault(); }
  else if (event.key === "ArrowLeft") { run(() => go(view.pos - 1)); event.preventDefault(); }
  else if (event.key === "ArrowRight") { run(() => go(view.pos + 1)); event.preventDefault(); }
  else if (event.key === "u" || event.key === "U") { undo(); event.preventDefault(); }
  else if (event.key === "l" || event.key === "L") { open("unscored"); event.preventDefault(); }
}

async function start() {
  const state = await api("/api/state");
  view.items = state.items;
  view.state = state;
  renderScale(state.scale);
  renderGuidelines(state.guidelines);
  const next = firstUnscored();
  view.pos = next >= 0 ? next : 0;
  render();
  document.body.classList.add("ready");
}

document.addEventListener("keydown", onKey);
for (const button of document.querySelectorAll(".score")) {
  button.addEventListener("click", () => score(Number(button.dataset.score)));
}
$("free-score").addEventListener("submit", (event) => {
  event.preventDefault();
  const value = $("free-value").value.trim();
  if (value !== "") score(Number(value));
});
$("prev").addEventListener("click", () => run(() => go(view.pos - 1)));
$("next").addEventListener("click", () => run(() => go(view.pos + 1)));
$("undo").addEventListener("click", () => undo());
$("show-keys").addEventListener("click", () => open("keys"));
$("show-unscored").addEventListener("click", () => open("unscored"));
for (const overlay of document.querySelectorAll(".overlay")) {
  overlay.querySelector(".close").addEventListener("click", () => close(overlay.id));
}
$("copy-command").addEventListener("click", () => {
  navigator.clipboard.writeText($("humans-command").textContent).then(() => say("Copied."), () => say("Select the command and copy it.", true));
});
run(start);
