// The player's own channel (/ws/user, docs/server-protocol.md "The user channel"), open on
// every page: it reports whether the tab is shown or hidden (presence), and hears what
// concerns the player wherever they are: "your move" at any of their tables, a game ended,
// how many people are online. From it: the tab's title and icon say "your move", an
// optional sound (made with WebAudio, no file), and an optional browser notification while
// the tab is hidden (the Notification API, after the player allowed it on #/settings).

import { api } from "./api.js";
import { gameTitle } from "./common.js";
import { t, tn } from "./i18n.js";

const listeners = new Set();

export const channel = {
  ws: null,
  user: null, // the name the channel was opened for (null: logged out)
  yourMove: new Map(), // table id -> game
  online: null,
  prefs: { sound: false, browser: false },
  closed: true,
  delay: 500,
  timer: null,
  pingTimer: null,
  watchList: [],
};

/** fn(message) for every message of the channel (presence, turn, ended, online, welcome). */
export function onChannel(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function emit(message) {
  for (const fn of [...listeners]) {
    try {
      fn(message);
    } catch (err) {
      console.error(err);
    }
  }
}

/** Open (or reopen) the channel for the logged-in user (null: a visitor, who only watches). */
export function connectChannel(user) {
  const name = user ? user.name : null;
  if (!channel.closed && channel.user === name && channel.ws) return;
  closeChannel();
  channel.closed = false;
  channel.user = name;
  channel.yourMove.clear();
  loadPrefs(user);
  open();
}

export function closeChannel() {
  channel.closed = true;
  clearTimeout(channel.timer);
  clearInterval(channel.pingTimer);
  if (channel.ws) channel.ws.close();
  channel.ws = null;
  refreshTitle();
}

async function loadPrefs(user) {
  if (!user) {
    channel.prefs = { sound: false, browser: false };
    return;
  }
  try {
    const settings = await api.get("/api/me/settings");
    channel.prefs = { sound: settings.sound, browser: settings.browser };
  } catch {
    /* the defaults: nothing */
  }
}

export function setPrefs(prefs) {
  channel.prefs = { ...channel.prefs, ...prefs };
}

function open() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const hidden = document.visibilityState === "hidden" ? "?hidden=1" : "";
  let ws;
  try {
    ws = new WebSocket(`${proto}//${location.host}/ws/user${hidden}`);
  } catch {
    retry();
    return;
  }
  channel.ws = ws;
  ws.onopen = () => {
    channel.delay = 500;
    if (channel.watchList.length) send({ type: "watch", users: channel.watchList });
    clearInterval(channel.pingTimer);
    channel.pingTimer = setInterval(() => send({ type: "ping" }), 25000);
  };
  ws.onmessage = (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch {
      return;
    }
    receive(msg);
  };
  ws.onclose = (event) => {
    clearInterval(channel.pingTimer);
    if (channel.ws !== ws) return;
    channel.ws = null;
    if (channel.closed || event.code === 4401) return; // logged out: the shell reopens it
    retry();
  };
}

function retry() {
  clearTimeout(channel.timer);
  channel.timer = setTimeout(open, channel.delay);
  channel.delay = Math.min(channel.delay * 2, 8000);
}

function send(message) {
  if (channel.ws && channel.ws.readyState === WebSocket.OPEN) channel.ws.send(JSON.stringify(message));
}

/** Watch these people's presence (replaces the list watched before). */
export function watchUsers(names) {
  channel.watchList = [...new Set(names.filter(Boolean))].slice(0, 32);
  send({ type: "watch", users: channel.watchList });
}

function receive(msg) {
  if (msg.type === "welcome") {
    channel.online = msg.online;
    channel.yourMove.clear();
    for (const entry of msg.your_move || []) channel.yourMove.set(entry.table, entry.game);
    refreshTitle();
  } else if (msg.type === "online") {
    channel.online = msg.count;
  } else if (msg.type === "turn") {
    const was = channel.yourMove.has(msg.table);
    if (msg.your_move) channel.yourMove.set(msg.table, msg.game);
    else channel.yourMove.delete(msg.table);
    refreshTitle();
    if (msg.your_move && !was) alertYourMove(msg);
  } else if (msg.type === "ended") {
    channel.yourMove.delete(msg.table);
    refreshTitle();
  }
  emit(msg);
}

// ---- the tab: title and icon --------------------------------------------------------------------
/** The page's title: the app's, with "your move" (and how many tables) before it when it is. */
export function refreshTitle() {
  const n = channel.yourMove.size;
  const base = t("app.title");
  document.title = n ? `${tn("notify.title_your_move", n)} · ${base}` : base;
  const icon = document.querySelector('link[rel="icon"]');
  if (icon) icon.setAttribute("href", n ? "/img/icon-move.svg" : "/img/icon.svg");
  document.body.dataset.yourMove = String(n);
}

function onVisibility() {
  // a visitor's channel is nobody's presence: nothing to report
  if (channel.user) send({ type: "visibility", hidden: document.visibilityState === "hidden" });
}
document.addEventListener("visibilitychange", onVisibility);

// ---- sound and browser notifications ------------------------------------------------------------
function alertYourMove(msg) {
  if (channel.prefs.sound) playChime();
  if (channel.prefs.browser && document.visibilityState === "hidden") showNotification(msg);
}

let audio = null;

/** Two short soft notes, made with WebAudio (no sound file). */
export function playChime() {
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    for (const [i, freq] of [660, 880].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      const at = now + i * 0.16;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.3);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + 0.32);
    }
  } catch (err) {
    console.warn("no sound", err);
  }
}

export function notificationsSupported() {
  return typeof Notification === "function";
}

function showNotification(msg) {
  if (!notificationsSupported() || Notification.permission !== "granted") return;
  try {
    const note = new Notification(t("notify.browser_title"), {
      body: t("notify.browser_body", { game: gameTitle(msg.game) }),
      icon: "/img/icon-move.svg",
      tag: `coffeetable-${msg.table}`,
    });
    note.onclick = () => {
      window.focus();
      location.hash = `#/table/${msg.table}`;
      note.close();
    };
  } catch (err) {
    console.warn("no notification", err);
  }
}
