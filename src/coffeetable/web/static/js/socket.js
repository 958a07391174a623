// One table's WebSocket (docs/server-protocol.md): reconnects by itself after a lost
// connection (the server then sends a fresh snapshot), keeps the table version for `act`, and
// plays an action again when it lost a race with another seat's move (`stale_version`) and
// is still legal.

const RETRIES_ON_STALE = 5;
const PENDING_MS = 10000; // an action with no answer this long is no longer waited for

export class TableSocket {
  /**
   * handlers: message(msg) for snapshot/update/undo/table/error messages the page must see;
   * status("connecting" | "open" | "lost"); fatal(code, message) when the table cannot be
   * opened (no such table, private without invite).
   */
  constructor(tableId, { invite = null, handlers }) {
    this.tableId = tableId;
    this.invite = invite;
    this.handlers = handlers;
    this.ws = null;
    this.version = -1;
    this.legal = [];
    this.pending = null; // {action, tries, stale}
    this.closed = false;
    this.delay = 500;
    this.timer = null;
    this.pingTimer = null;
    this.refCounter = 0;
    this._online = () => this._retryNow();
    window.addEventListener("online", this._online);
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    return `${proto}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}${query}`;
  }

  connect() {
    if (this.closed) return;
    this.handlers.status("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this._scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      this.handlers.status("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this._send({ type: "ping" }), 25000);
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this._receive(msg);
    };
    ws.onclose = (event) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      if (event.code === 4404 || event.code === 4403) return; // fatal, already reported
      this.handlers.status("lost");
      this._scheduleReconnect();
    };
  }

  _scheduleReconnect() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, 8000);
  }

  _retryNow() {
    if (!this.closed && !this.ws) {
      clearTimeout(this.timer);
      this.delay = 500;
      this.connect();
    }
  }

  _receive(msg) {
    if (msg.type === "pong") return;
    if (msg.type === "error" && (msg.code === "no_table" || msg.code === "private")) {
      this.handlers.fatal(msg.code, msg.message);
      return;
    }
    if (msg.type === "snapshot" || msg.type === "update" || msg.type === "undo") {
      this.version = msg.version;
      this.legal = msg.legal || [];
      this.seat = msg.seat;
      const p = this.pending;
      if (p && msg.type === "update" && msg.move && msg.move.seat === msg.seat && msg.move.action === p.action) {
        this._setPending(null, true); // ours was played
      }
      this.handlers.message(msg);
      this._maybeResend();
      return;
    }
    if (msg.type === "error") {
      if (typeof msg.version === "number" && msg.version > this.version) this._watchBehind(msg.version);
      if (msg.code === "stale_version" && this.pending && msg.ref === this.pending.ref) {
        this.pending.stale = true;
        if (this.pending.tries < RETRIES_ON_STALE) {
          if (msg.version === this.version) this._maybeResend();
          return; // the update that beat us arrives next; we play again then
        }
      }
      if (this.pending && msg.ref === this.pending.ref) this._setPending(null);
      this.handlers.message(msg);
      return;
    }
    this.handlers.message(msg);
  }

  /** The table is at `version` and we are behind: its update should come at once; if it
   * does not (a server hiccup), ask for a fresh snapshot. */
  _watchBehind(version) {
    clearTimeout(this.behindTimer);
    this.behindTimer = setTimeout(() => {
      if (this.version < version) this.sync();
    }, 1500);
  }

  _maybeResend() {
    const p = this.pending;
    if (!p || !p.stale) return;
    if (!this.legal.includes(p.action)) {
      this._setPending(null);
      this.handlers.message({ type: "error", code: "changed", message: "" });
      return;
    }
    p.stale = false;
    p.tries += 1;
    this._sendAct(p);
  }

  _send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  _sendAct(p) {
    return this._send({ type: "act", version: this.version, action: p.action, ref: p.ref });
  }

  /** Play `action` (a notation from `legal`). False when the connection is down, else a
   * promise that gives true once the move is played (false if it was refused). The same
   * action asked for again while it is on its way is not sent twice (a double click). */
  act(action) {
    const old = this.pending;
    if (old && old.action === action && performance.now() - old.at < PENDING_MS) return old.done;
    this.refCounter += 1;
    const p = { action, tries: 0, stale: false, ref: `a${this.refCounter}`, at: performance.now() };
    p.done = new Promise((resolve) => { p.resolve = resolve; });
    setTimeout(() => p.resolve(false), PENDING_MS); // no answer: the page may be used again
    this._setPending(p);
    if (!this._sendAct(p)) {
      this._setPending(null);
      return false;
    }
    return p.done;
  }

  /** The action on its way; the one before it is settled (played or not). */
  _setPending(p, played = false) {
    if (this.pending && this.pending !== p) this.pending.resolve(played);
    this.pending = p;
  }

  /** Take back our last step (the server says whether it may: `undoable`). */
  undo() {
    this._setPending(null);
    return this._send({ type: "undo", version: this.version });
  }

  sync() {
    this._send({ type: "sync" });
  }

  /** Send another message (a `chat` line): false when the connection is down. */
  send(message) {
    return this._send(message);
  }

  /** Vote on the abandonment question about `seat`: "bot", "wait" or "end" (abandon.js). */
  vote(seat, choice) {
    return this._send({ type: "abandon", seat, vote: choice });
  }

  get connected() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    window.removeEventListener("online", this._online);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
  }
}
